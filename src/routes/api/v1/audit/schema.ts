import { Type } from '@sinclair/typebox';
import { PageQuery, PageMeta, Timestamp } from '../common/schema.js';

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
