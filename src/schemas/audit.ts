import { Type } from '@sinclair/typebox';
import { PageQuery, PageMeta, Timestamp } from './common.js';

export const AuditQuery = Type.Object({
  ...PageQuery,
  actor: Type.Optional(Type.String({ maxLength: 200, description: 'actor id (username, API key id, agent id)' })),
  action: Type.Optional(Type.String({ maxLength: 200, description: 'exact action, or a prefix ending in *' })),
  resource_type: Type.Optional(Type.String({ maxLength: 100 })),
  resource_id: Type.Optional(Type.String({ maxLength: 200 })),
  request_id: Type.Optional(Type.String({ maxLength: 200 })),
  result: Type.Optional(Type.Union([Type.Literal('success'), Type.Literal('failure'), Type.Literal('denied')])),
  from: Type.Optional(Type.String({ format: 'date-time' })),
  to: Type.Optional(Type.String({ format: 'date-time' })),
}, { additionalProperties: false });

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const AuditOut = Type.Object({
  id: Type.String(),
  timestamp: Timestamp,
  actor: Type.Object({ type: Type.String(), id: Type.String(), tenant: Type.String() }),
  action: Type.String(),
  resource: Type.Object({ type: Nullable(Type.String()), id: Nullable(Type.String()) }),
  request_id: Nullable(Type.String()),
  ip: Nullable(Type.String()),
  user_agent: Nullable(Type.String()),
  interface: Nullable(Type.String()),
  result: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  details: Type.Record(Type.String(), Type.Unknown()),
});

export { PageMeta };

export const DenialQuery = Type.Object({
  ...PageQuery,
  actor: Type.Optional(Type.String({ maxLength: 200, description: 'actor id' })),
  layer: Type.Optional(Type.Union(['ip', 'tenant', 'user', 'endpoint'].map((l) => Type.Literal(l)))),
  ip: Type.Optional(Type.String({ maxLength: 100 })),
  from: Type.Optional(Type.String({ format: 'date-time' })),
  to: Type.Optional(Type.String({ format: 'date-time' })),
}, { additionalProperties: false });

export const DenialOut = Type.Object({
  minute: Timestamp,
  actor: Type.Object({ type: Type.String(), id: Type.String() }),
  layer: Type.String({ description: 'the refusing layer: ip, tenant, user, endpoint' }),
  ip: Type.String(),
  interface: Type.String(),
  count: Type.Integer({ description: 'requests refused in this minute' }),
  first_at: Timestamp,
  last_at: Timestamp,
  last_request_id: Nullable(Type.String()),
  actions: Type.Record(Type.String(), Type.Integer(), { description: 'refused requests per action (at most 20 kept, the rest as "(other)")' }),
});
