// TypeBox schemas of the device resource (SPEC 2 Device, REST snake_case).
import { Type } from '@sinclair/typebox';
import { PageQuery, Timestamp } from '../common/schema.js';
import { DEVICE_STATUSES, DEVICE_TYPES, DEVICE_BATCH_MAX } from '../../../../domain/devices.js';

export const DeviceType = Type.Union(DEVICE_TYPES.map((t) => Type.Literal(t)), { description: 'uppercase (SPEC enumerations)' });
export const DeviceStatus = Type.Union(DEVICE_STATUSES.map((t) => Type.Literal(t)), { description: 'transitions in docs/devices.md' });
const Metadata = Type.Record(Type.String(), Type.Unknown(), { description: 'free-form object' });
const NullableNumber = (o: object = {}) => Type.Optional(Type.Union([Type.Number(o), Type.Null()]));

export const DeviceIn = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 128 }),
  type: DeviceType,
  status: Type.Optional(DeviceStatus),
  network_id: Type.Optional(Type.Union([Type.String({ pattern: '^net_[A-Za-z0-9]+$' }), Type.Null()])),
  bus: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  capacity_mw: NullableNumber({ minimum: 0 }),
  metadata: Type.Optional(Metadata),
  last_seen_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
}, { additionalProperties: false });

export const DevicePatch = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  status: Type.Optional(DeviceStatus),
  network_id: Type.Optional(Type.Union([Type.String({ pattern: '^net_[A-Za-z0-9]+$' }), Type.Null()])),
  bus: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  capacity_mw: NullableNumber({ minimum: 0 }),
  metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'merged into the stored metadata; a key set to null is removed' })),
  last_seen_at: Type.Optional(Type.Union([Timestamp, Type.Null()])),
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

export const DeviceBatchIn = Type.Object({
  devices: Type.Array(Type.Unknown(), { minItems: 1, maxItems: DEVICE_BATCH_MAX, description: `at most ${DEVICE_BATCH_MAX} entries, each shaped like POST /devices` }),
}, { additionalProperties: false });
