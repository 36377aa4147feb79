// Device registry: tenant-scoped devices with an explicit status machine
// (docs/devices.md). Every door (REST, GraphQL, WebSocket) calls these.
import { DEVICE_STATUSES, DEVICE_TYPES, type DeviceStatus, type DeviceType } from '../schemas/vocabulary.js';
import type { Queryable } from '../db/database.js';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { findOwnedRow, orderBy, pageMeta, paging, selectPage, } from '../lib/paging.js';
import { insertEvent, publishEvents, type StoredEvent } from './eventLog.js';
import { clearAlarmInTx, raiseAlarmInTx } from './alarms.js';
import { Where } from '../db/where.js';
import type { Static } from '@sinclair/typebox';
import type { DeviceIn, DeviceListQuery as DeviceListQuerySchema, DevicePatch as DevicePatchSchema } from '../schemas/devices.js';
import type { BatchResult as BatchResultSchema } from '../schemas/common.js';

export { DEVICE_STATUSES, DEVICE_TYPES, type DeviceStatus, type DeviceType };

/**
 * The status machine. A status may always be set to itself (no change, no event).
 * - a faulted device must be repaired: fault leads only to maintenance;
 * - a device under maintenance is out of service: its faults are part of the
 *   work and raise no alarm, so maintenance -> fault is refused.
 */
export const TRANSITIONS: Record<DeviceStatus, readonly DeviceStatus[]> = {
  online: ['offline', 'maintenance', 'fault'],
  offline: ['online', 'maintenance', 'fault'],
  maintenance: ['online', 'offline'],
  fault: ['maintenance'],
};

export function canTransition(from: DeviceStatus, to: DeviceStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

export interface Device {
  id: string;
  name: string;
  type: DeviceType;
  status: DeviceStatus;
  network_id: string | null;
  bus: number | null;
  capacity_mw: number | null;
  online: boolean;
  metadata: Record<string, unknown>;
  last_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeviceRow extends Omit<Device, 'online'> {
  tenant_id: string;
}

/** POST /devices's body (src/schemas/devices.ts). */
export type DeviceInput = Static<typeof DeviceIn>;

/** PATCH /devices/{id}'s body (src/schemas/devices.ts): metadata merged into the stored (RFC 7396: a key set to
 *  null is removed); last_seen_at a heartbeat's time, or heartbeat: true for now. */
export type DevicePatch = Static<typeof DevicePatchSchema>;

function view(r: DeviceRow): Device {
  return {
    id: r.id, name: r.name, type: r.type, status: r.status, network_id: r.network_id, bus: r.bus, capacity_mw: r.capacity_mw,
    online: r.status === 'online', metadata: r.metadata ?? {},
    last_seen_at: r.last_seen_at ? new Date(r.last_seen_at) : null, created_at: new Date(r.created_at), updated_at: new Date(r.updated_at),
  };
}

// ---- validation shared by create, batch entries and patch (REST schemas catch most of it too;
// GraphQL and the batch entries come here with unchecked input) ----

function invalid(field: string, message: string): AppError {
  return new AppError('INVALID_FIELD', `${field} ${message}`, { field });
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw invalid('name', 'must be a non-empty string');
  if (name.length > 128) throw invalid('name', 'must be at most 128 characters');
  return name;
}

function checkStatus(v: unknown): DeviceStatus {
  if (!DEVICE_STATUSES.includes(v as DeviceStatus))
    throw new AppError('INVALID_FIELD', `status must be one of ${DEVICE_STATUSES.join(', ')}, got ${JSON.stringify(v)}`, {
      field: 'status',
      allowed: DEVICE_STATUSES,
    });
  return v as DeviceStatus;
}

function checkType(v: unknown): DeviceType {
  if (!DEVICE_TYPES.includes(v as DeviceType))
    throw new AppError('INVALID_FIELD', `type must be one of ${DEVICE_TYPES.join(', ')} (uppercase), got ${JSON.stringify(v)}`, {
      field: 'type',
      allowed: DEVICE_TYPES,
    });
  return v as DeviceType;
}

function checkOptionalNumber(field: string, v: unknown, integer: boolean, min?: number): number | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v))) throw invalid(field, `must be ${integer ? 'an integer' : 'a number'}`);
  if (min !== undefined && v < min) throw new AppError('PARAM_OUT_OF_RANGE', `${field} must be >= ${min}, got ${v}`, { field, limit: min });
  return v;
}

function checkMetadata(v: unknown): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw invalid('metadata', 'must be an object');
  return v as Record<string, unknown>;
}

function checkSeenAt(v: unknown): Date | null | undefined {
  if (v === undefined || v === null) return v;
  const d = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) ? new Date(v) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw invalid('last_seen_at', `must be an RFC 3339 date-time, got ${JSON.stringify(v)}`);
  if (d.getTime() > Date.now() + 5 * 60_000)
    throw new AppError('PARAM_OUT_OF_RANGE', 'last_seen_at lies more than 5 minutes in the future', { field: 'last_seen_at' });
  return d;
}

const INPUT_FIELDS = new Set(['name', 'type', 'status', 'network_id', 'bus', 'capacity_mw', 'metadata', 'last_seen_at']);

/** Checks an unvalidated device (batch entries, GraphQL): same rules as the REST schema. */
function validateInput(x: DeviceInput): DeviceInput {
  if (x === null || typeof x !== 'object' || Array.isArray(x))
    throw new AppError('INVALID_FIELD', 'a device must be a JSON object {name, type, ...}', { field: 'entry' });
  const extra = Object.keys(x).find((k) => !INPUT_FIELDS.has(k));
  if (extra) throw new AppError('INVALID_REQUEST', `unknown field "${extra}"; a device has ${[...INPUT_FIELDS].join(', ')}`, { field: extra });
  for (const f of ['name', 'type'] as const) if (x[f] === undefined) throw new AppError('INVALID_REQUEST', `${f} is required`, { field: f });
  checkName(x.name);
  checkType(x.type);
  if (x.status !== undefined) checkStatus(x.status);
  if (x.network_id !== undefined && x.network_id !== null && typeof x.network_id !== 'string') throw invalid('network_id', 'must be a string');
  checkOptionalNumber('bus', x.bus, true, 1);
  checkOptionalNumber('capacity_mw', x.capacity_mw, false, 0);
  checkMetadata(x.metadata);
  checkSeenAt(x.last_seen_at);
  return x;
}

/** The network must be one of the caller's tenant; a bus must exist in its current version. */
async function checkPlacement(q: Queryable, tenantId: string, networkId: string | null | undefined, bus: number | null | undefined): Promise<void> {
  if (bus !== undefined && bus !== null && !networkId) {
    throw new AppError('VALIDATION_FAILED', 'bus needs network_id: a bus number means something only within a network', { field: 'bus' });
  }
  if (!networkId) return;
  const { rows } = await q.query<{ version: number; has_bus: boolean }>(
    `SELECT n.version, CASE WHEN $3::int IS NULL THEN true ELSE EXISTS (
        SELECT 1 FROM network_versions v WHERE v.network_id = n.id AND v.version = n.version AND (CASE WHEN v.bus_ids IS NOT NULL
          THEN $3::int = ANY(v.bus_ids)
          ELSE EXISTS (SELECT 1 FROM jsonb_array_elements(v.model->'buses') b WHERE (b->>'id')::int = $3::int) END)) END AS has_bus
     FROM networks n WHERE n.id = $1 AND n.tenant_id = $2`,
    [networkId, tenantId, bus ?? null],
  );
  if (!rows[0])
    throw new AppError('VALIDATION_FAILED', `network_id ${networkId} does not name a network of tenant ${tenantId}`, {
      field: 'network_id',
      network_id: networkId,
    });
  if (!rows[0].has_bus) throw new AppError('BUS_NOT_FOUND', `bus ${bus} does not exist in network ${networkId}`, { field: 'bus', bus, network_id: networkId });
}

function statusEvent(tenantId: string, d: Device, oldStatus: DeviceStatus | null, kind?: string) {
  const k = kind ?? (d.status === 'online' ? 'device.online' : d.status === 'offline' ? 'device.offline' : 'device.status');
  return {
    tenantId, topic: 'device' as const, kind: k, networkId: d.network_id ?? undefined,
    severity: d.status === 'fault' ? 2 : d.status === 'offline' ? 1 : 0,
    payload: { device_id: d.id, name: d.name, type: d.type, status: d.status, old_status: oldStatus, online: d.online, network_id: d.network_id },
  };
}

async function insertDevice(q: Queryable, caller: Caller, input: DeviceInput): Promise<{ device: Device; events: StoredEvent[] }> {
  await checkPlacement(q, caller.tenantId, input.network_id, input.bus);
  const status = input.status ?? 'offline';
  const seen = checkSeenAt(input.last_seen_at) ?? (status === 'online' ? new Date() : null);
  const { rows } = await q.query<DeviceRow>(
    `INSERT INTO devices (id, tenant_id, name, type, status, network_id, bus, capacity_mw, metadata, last_seen_at)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10) RETURNING *`,
    [newId('dev'), caller.tenantId, input.name, input.type, status, input.network_id ?? null, input.bus ?? null, input.capacity_mw ?? null,
      JSON.stringify(input.metadata ?? {}), seen],
  );
  const device = view(rows[0]);
  const event = await insertEvent(q, statusEvent(caller.tenantId, device, null, 'device.created'));
  return { device, events: [event, ...(await faultAlarm(q, caller.tenantId, device, null))] };
}

export async function createDevice(s: Pick<Services, 'bus' | 'db'>, caller: Caller, input: DeviceInput): Promise<Device> {
  validateInput(input);
  const { device, events } = await s.db.transaction((tx) => insertDevice(tx, caller, input));
  await publishEvents(s.bus, events);
  return device;
}

export type BatchResult = Static<typeof BatchResultSchema>;

export const DEVICE_BATCH_MAX = 200;

/** Each entry is judged alone (own validation, own transaction): one bad entry fails only itself. */
export async function batchCreateDevices(s: Pick<Services, 'bus' | 'db' | 'log'>, caller: Caller, inputs: unknown[]): Promise<BatchResult> {
  if (!Array.isArray(inputs) || inputs.length === 0) throw new AppError('VALIDATION_FAILED', 'devices must be a non-empty array', { field: 'devices' });
  if (inputs.length > DEVICE_BATCH_MAX) {
    throw new AppError('VALIDATION_FAILED', `a device batch holds at most ${DEVICE_BATCH_MAX} entries, got ${inputs.length}; split it`, {
      field: 'devices',
      limit: DEVICE_BATCH_MAX,
      got: inputs.length,
    });
  }
  const out: BatchResult = { succeeded: [], failed: [] };
  for (let i = 0; i < inputs.length; i++) {
    try {
      out.succeeded.push({ index: i, id: (await createDevice(s, caller, inputs[i] as DeviceInput)).id });
    } catch (e) {
      out.failed.push({
        index: i,
        error:
          e instanceof AppError
            ? { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) }
            : { code: 'INTERNAL_ERROR', message: 'internal error' },
      });
      if (!(e instanceof AppError)) s.log.error({ err: e }, 'device batch entry failed');
    }
  }
  return out;
}

/** GET /devices's query (src/schemas/devices.ts); type and status are checked here as well, since GraphQL
 *  passes what its client sent. */
export type DeviceListQuery = Omit<Static<typeof DeviceListQuerySchema>, 'type' | 'status'> & { type?: string; status?: string };

const SORTABLE = {
  name: 'name',
  type: 'type',
  status: 'status',
  created_at: 'created_at',
  updated_at: 'updated_at',
  last_seen_at: 'last_seen_at',
  capacity_mw: 'capacity_mw',
  id: 'id',
};

export async function listDevices(s: Pick<Services, 'db'>, caller: Caller, q: DeviceListQuery) {
  const p = paging(q);
  const where = Where.tenant(caller.tenantId);
  if (q.type !== undefined) where.add('type = ?', checkType(q.type));
  if (q.status !== undefined) where.add('status = ?', checkStatus(q.status));
  if (q.online !== undefined) where.raw(q.online ? `status = 'online'` : `status <> 'online'`);
  if (q.network_id !== undefined) where.add('network_id = ?', q.network_id);
  const order = orderBy(q.sort, SORTABLE);
  const { rows, total } = await selectPage<DeviceRow>(s.db, { from: 'devices', ...where.toSql(), order: `${order}, id ASC` }, p);
  return { items: rows.map(view), meta: pageMeta(p, total, rows.length) };
}

async function findRow(q: Queryable, caller: Caller, id: string, lock = false): Promise<DeviceRow> {
  return findOwnedRow<DeviceRow>(q, 'devices', 'device', caller.tenantId, id, lock);
}

export async function getDevice(s: Pick<Services, 'db'>, caller: Caller, id: string): Promise<Device> {
  return view(await findRow(s.db, caller, id));
}

function mergePatch(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else if (typeof v === 'object' && !Array.isArray(v) && typeof out[k] === 'object' && out[k] !== null && !Array.isArray(out[k]))
      out[k] = mergePatch(out[k] as Record<string, unknown>, v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

const PATCH_FIELDS = new Set(['name', 'status', 'network_id', 'bus', 'capacity_mw', 'metadata', 'last_seen_at', 'heartbeat']);

/** Changes status (by the transition table), name, placement, metadata, or records a heartbeat. */
export async function updateDevice(s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string, patch: DevicePatch): Promise<Device> {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) throw new AppError('INVALID_REQUEST', 'the update must be a JSON object');
  const extra = Object.keys(patch).find((k) => !PATCH_FIELDS.has(k));
  if (extra) throw new AppError('INVALID_REQUEST', `cannot update "${extra}"; an update may carry ${[...PATCH_FIELDS].join(', ')}`, { field: extra });
  if (patch.name !== undefined) checkName(patch.name);
  if (patch.status !== undefined) checkStatus(patch.status);
  if (patch.network_id !== undefined && patch.network_id !== null && typeof patch.network_id !== 'string') throw invalid('network_id', 'must be a string');
  checkOptionalNumber('bus', patch.bus, true, 1);
  checkOptionalNumber('capacity_mw', patch.capacity_mw, false, 0);
  const metadata = checkMetadata(patch.metadata);
  const seen = checkSeenAt(patch.last_seen_at);
  if (patch.heartbeat !== undefined && typeof patch.heartbeat !== 'boolean') throw invalid('heartbeat', 'must be a boolean');
  if (Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined).length === 0) {
    throw new AppError('INVALID_REQUEST', 'the update is empty; send status, name, metadata, network_id, bus, capacity_mw, last_seen_at or heartbeat');
  }

  const result = await s.db.transaction(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    const oldStatus = row.status;
    const status = patch.status ?? oldStatus;
    if (!canTransition(oldStatus, status)) {
      throw new AppError(
        'CONFLICT',
        `device ${id} cannot go from ${oldStatus} to ${status}; from ${oldStatus} it may go to ${TRANSITIONS[oldStatus].join(', ')} (docs/devices.md)`,
        { device_id: id, status: oldStatus, requested: status, allowed: TRANSITIONS[oldStatus] },
      );
    }
    const networkId = patch.network_id !== undefined ? patch.network_id : row.network_id;
    const bus = patch.bus !== undefined ? patch.bus : patch.network_id !== undefined && patch.network_id !== row.network_id ? null : row.bus;
    if (patch.network_id !== undefined || patch.bus !== undefined) await checkPlacement(tx, caller.tenantId, networkId, bus);
    let lastSeen: Date | null = row.last_seen_at ? new Date(row.last_seen_at) : null;
    if (seen !== undefined) lastSeen = seen;
    if (patch.heartbeat || (status === 'online' && oldStatus !== 'online' && seen === undefined)) lastSeen = new Date();
    const { rows } = await tx.query<DeviceRow>(
      `UPDATE devices SET name=$3, status=$4, network_id=$5, bus=$6, capacity_mw=$7, metadata=$8, last_seen_at=$9, updated_at=now()
       WHERE id=$1 AND tenant_id=$2 RETURNING *`,
      [id, caller.tenantId, patch.name ?? row.name, status, networkId, bus,
        patch.capacity_mw !== undefined ? patch.capacity_mw : row.capacity_mw,
        JSON.stringify(metadata ? mergePatch(row.metadata ?? {}, metadata) : row.metadata ?? {}), lastSeen],
    );
    const device = view(rows[0]);
    const events = status === oldStatus ? [] : [
      await insertEvent(tx, statusEvent(caller.tenantId, device, oldStatus)),
      ...(await faultAlarm(tx, caller.tenantId, device, { status: oldStatus, network_id: row.network_id })),
    ];
    return { device, events };
  });
  await publishEvents(s.bus, result.events);
  return result.device;
}

export async function deleteDevice(s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string): Promise<void> {
  const events = await s.db.transaction(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    await tx.query('DELETE FROM devices WHERE id = $1', [id]);
    const device = view(row);
    const deleted = await insertEvent(tx, statusEvent(caller.tenantId, device, device.status, 'device.deleted'));
    // A deleted faulted device leaves fault: its alarm clears.
    const gone: Device = { ...device, status: 'offline', online: false };
    return [deleted, ...(await faultAlarm(tx, caller.tenantId, gone, { status: device.status, network_id: device.network_id }))];
  });
  await publishEvents(s.bus, events);
}

// ---- alarms: a device entering fault raises an alarm, leaving fault clears it ----
// Done inside the device's transaction (raiseAlarmInTx / clearAlarmInTx of the alarms
// domain), so "status fault" and "an open device_fault alarm" never disagree.
export const DEVICE_FAULT_ALARM = 'device_fault';

/** Raises or clears the device's fault alarm in tx when its status enters or leaves fault. */
async function faultAlarm(
  tx: Queryable,
  tenantId: string,
  device: Device,
  old: { status: DeviceStatus; network_id: string | null } | null,
): Promise<StoredEvent[]> {
  const source = { type: 'device', id: device.id };
  if (device.status === 'fault' && old?.status !== 'fault') {
    const r = await raiseAlarmInTx(tx, tenantId, {
      type: DEVICE_FAULT_ALARM,
      severity: 'error',
      network_id: device.network_id,
      source,
      message: `device ${device.name} (${device.type}, ${device.id}) is in fault`,
      details: { device_id: device.id, name: device.name, type: device.type, old_status: old?.status ?? null, bus: device.bus },
    });
    return r.events;
  }
  if (old?.status === 'fault' && device.status !== 'fault') {
    const r = await clearAlarmInTx(
      tx,
      tenantId,
      { type: DEVICE_FAULT_ALARM, source, network_id: old.network_id },
      `device left fault (now ${device.status})`,
    );
    return r.events;
  }
  return [];
}
