// TypeBox schemas of the event history (GET /api/v1/events).
import { Type } from '@sinclair/typebox';
import { PageQuery, Timestamp } from './common.js';
import { EVENT_TOPICS } from '../domain/eventLog.js';

export const EventOut = Type.Object({
  id: Type.String({ description: 'evt_<sequence>; id order is time order' }),
  topic: Type.Union(EVENT_TOPICS.map((t) => Type.Literal(t))),
  kind: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  timestamp: Timestamp,
  network_id: Type.Union([Type.String(), Type.Null()]),
  agent_id: Type.Union([Type.String(), Type.Null()]),
  severity: Type.Union([Type.String(), Type.Null()]),
});

export const EventListQuery = Type.Object({
  ...PageQuery,
  topic: Type.Optional(Type.String({ maxLength: 200, description: `comma-separated: ${EVENT_TOPICS.join(', ')}` })),
  from: Type.Optional(Type.String({ description: 'RFC 3339, inclusive' })),
  to: Type.Optional(Type.String({ description: 'RFC 3339, exclusive' })),
  network_id: Type.Optional(Type.String({ maxLength: 64 })),
  agent_id: Type.Optional(Type.String({ maxLength: 64 })),
  severity: Type.Optional(Type.String({ maxLength: 16, description: 'minimum severity: info, warn, error, critical' })),
  after: Type.Optional(Type.String({ maxLength: 32, description: 'an event id: only later events (default order then id ascending)' })),
}, { additionalProperties: false });
