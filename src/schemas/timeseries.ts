// TypeBox schemas of the time-series endpoints (SPEC 4.3).
import { Type } from '@sinclair/typebox';
import { Timestamp } from './common.js';
import { AGGREGATION_ALIASES, FILLS, TS_BATCH_MAX, TS_QUERY_LIMIT_MAX } from '../domain/timeseries.js';

// Points are judged one by one in the domain (a bad point fails alone), so the
// body schema only asks for an array; the 10,000 limit is checked there too, with its own message.
export const BatchIn = Type.Object({
  // Unknown, not Array: with type coercion on, ajv would wrap a lone string or object into an array.
  points: Type.Unknown({ description: `array of at most ${TS_BATCH_MAX} points {metric, value, timestamp?, tags?}` }),
}, { additionalProperties: false });

export const WriteResult = Type.Object({
  accepted: Type.Integer(),
  rejected: Type.Integer(),
  errors: Type.Array(Type.Object({ index: Type.Integer(), message: Type.String() })),
});

const aggregations = Object.keys(AGGREGATION_ALIASES);
export const QueryIn = Type.Object({
  metric: Type.String({ minLength: 1, maxLength: 200 }),
  tags: Type.Optional(Type.String({ maxLength: 2000, description: 'key:value,key2:value2 — series must carry all of them' })),
  from: Type.String({ description: 'RFC 3339, inclusive' }),
  to: Type.String({ description: 'RFC 3339, exclusive' }),
  aggregation: Type.Optional(Type.String({ maxLength: 32, description: `${aggregations.join(', ')}; case-insensitive (PERCENTILE_95 too); default none` })),
  interval: Type.Optional(Type.String({ maxLength: 16, description: '<n><s|m|h|d>, e.g. 1m, 5m, 15m, 1h, 1d; bins aligned to the epoch' })),
  fill: Type.Optional(Type.String({ maxLength: 16, description: `empty bins: ${FILLS.join(', ')} (default null; none omits them)` })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TS_QUERY_LIMIT_MAX })),
  tz: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const QueryOut = Type.Object({
  metric: Type.String(),
  tags: Type.Record(Type.String(), Type.String()),
  aggregation: Type.String(),
  interval: Type.Union([Type.String(), Type.Null()]),
  fill: Type.String(),
  points: Type.Array(Type.Object({ timestamp: Timestamp, value: Type.Union([Type.Number(), Type.Null()]) })),
  count: Type.Integer(),
  series: Type.Integer(),
});
