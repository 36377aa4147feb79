// TypeBox schemas of the device resource (SPEC 2 Device, REST snake_case).
import { Type } from '@sinclair/typebox';
import { DEVICE_STATUSES, DEVICE_TYPES, literals } from './vocabulary.js';
import { PageQuery, Timestamp } from './common.js';
import { DEVICE_BATCH_MAX } from '../domain/devices.js';

export const DeviceType = Type.Union(literals(DEVICE_TYPES).anyOf, { description: 'uppercase (SPEC enumerations)' });
export const DeviceStatus = Type.Union(literals(DEVICE_STATUSES).anyOf, { description: 'transitions in docs/devices.md' });
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'free-form object' });
// Nullable fields use a type array, not anyOf [T, null]: with type coercion on, ajv
// would turn 0 or "" into null in the null branch instead of refusing them.
const Nullable = <T>(type: string, o: object = {}) => Type.Optional(Type.Unsafe<T | null>({ type: [type, 'null'], ...o }));
const NetworkRef = Nullable<string>('string', { pattern: '^net_[A-Za-z0-9]+$', description: 'a network of the same tenant' });
const Bus = Nullable<number>('integer', { minimum: 1, description: 'bus number in the network (needs network_id)' });
const Capacity = Nullable<number>('number', { minimum: 0 });
const SeenAt = Nullable<string>('string', { format: 'date-time' });

export const DeviceIn = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  type: DeviceType,
  status: Type.Optional(DeviceStatus),
  network_id: NetworkRef,
  bus: Bus,
  capacity_mw: Capacity,
  metadata: Type.Optional(Metadata),
  last_seen_at: SeenAt,
}, { additionalProperties: false });

export const DevicePatch = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  status: Type.Optional(DeviceStatus),
  network_id: NetworkRef,
  bus: Bus,
  capacity_mw: Capacity,
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'merged into the stored metadata; a key set to null is removed' })),
  last_seen_at: SeenAt,
  heartbeat: Type.Optional(Type.Boolean({ description: 'true: last_seen_at = now' })),
}, { additionalProperties: false });

export const DeviceOut = Type.Object({
  id: Type.String(), name: Type.String(), type: DeviceType, status: DeviceStatus,
  network_id: Type.Union([Type.String(), Type.Null()]), bus: Type.Union([Type.Integer(), Type.Null()]),
  capacity_mw: Type.Union([Type.Number(), Type.Null()]), online: Type.Boolean(), metadata: Metadata,
  last_seen_at: Type.Union([Timestamp, Type.Null()]), created_at: Timestamp, updated_at: Timestamp,
});

export const DeviceListQuery = Type.Object({
  ...PageQuery,
  type: Type.Optional(DeviceType),
  online: Type.Optional(Type.Boolean()),
  status: Type.Optional(DeviceStatus),
  network_id: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const DeviceBatchIn = Type.Object(
  {
    devices: Type.Array(Type.Unknown(), {
      minItems: 1,
      maxItems: DEVICE_BATCH_MAX,
      description: `at most ${DEVICE_BATCH_MAX} entries, each shaped like POST /devices`,
    }),
  },
  { additionalProperties: false },
);
