// TypeBox schemas of the alarm resource (SPEC 2 "Alarm", 4.3).
import { Type } from '@sinclair/typebox';
import { ALARM_STATUSES, SEVERITIES, literals } from './vocabulary.js';
import { PageQuery, Timestamp } from './common.js';

export const Severity = literals(SEVERITIES);
export const AlarmStatus = literals(ALARM_STATUSES);
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const AlarmOut = Type.Object({
  id: Type.String(), severity: Severity, severity_level: Type.Integer(), status: AlarmStatus, type: Type.String(), message: Type.String(),
  network_id: Nullable(Type.String()), source: Type.Object({ type: Type.String(), id: Type.String() }),
  details: Type.Record(Type.String(), Type.Unknown()), occurrences: Type.Integer(),
  raised_at: Timestamp, last_seen_at: Timestamp, acknowledged_at: Nullable(Timestamp), acknowledged_by: Nullable(Type.String()),
  note: Nullable(Type.String()), cleared_at: Nullable(Timestamp),
});

export const AlarmListQuery = Type.Object({
  ...PageQuery,
  // One value or several comma-separated (error,critical); checked in the domain.
  severity: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(Type.String({ maxLength: 64 })),
  network_id: Type.Optional(Type.String({ maxLength: 64 })),
  type: Type.Optional(Type.String({ maxLength: 64 })),
  source_type: Type.Optional(Type.String({ maxLength: 64 })),
  source_id: Type.Optional(Type.String({ maxLength: 128 })),
  from: Type.Optional(Type.String({ maxLength: 64 })),
  to: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const AckIn = Type.Object({
  acknowledged_by: Type.String({ minLength: 1, maxLength: 128 }),
  note: Type.Optional(Type.String({ maxLength: 1024 })),
}, { additionalProperties: false });
