// Networks: versioned models, scoped to the caller's tenant. Every door calls these.
import type { NetworkStatus } from '../schemas/vocabulary.js';
import type { Database, Queryable } from '../db/database.js';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError, notFound } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { orderBy, pageMeta, paging, selectPage, } from '../lib/paging.js';
import type { NetworkInput, NetworkModel } from './networkModel.js';
import { checkModel, storable, type StorableModel } from './networkCheck.js';
import { decodeModel, encodeModel } from './modelBlob.js';
import { islandSummaries, validateTopology } from './networkValidation.js';
import { opfFieldIssues } from '../opf/costs.js';
import { insertEvent, publishEvents, type StoredEvent } from './eventLog.js';
import { checkNetworkQuota } from '../security/quotas.js';
import { createBatcher, type Batcher } from '../lib/batcher.js';
import { Where } from '../db/where.js';
import type { Static } from '@sinclair/typebox';
import type { NetworkListQuery as NetworkListQuerySchema } from '../schemas/networks.js';
import type { BatchResult as BatchResultSchema } from '../schemas/common.js';
import { networkWritten } from '../cache/networkVersions.js';

export type { NetworkStatus };

export interface NetworkSummary {
  id: string;
  name: string;
  description: string;
  base_kv: number;
  base_mva: number;
  bus_count: number;
  branch_count: number;
  generator_count: number;
  load_count: number;
  status: NetworkStatus;
  tags: Record<string, string>;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type NetworkDetail = NetworkSummary & Pick<NetworkModel, 'buses' | 'branches' | 'generators' | 'loads' | 'dc_lines'>;

export interface NetworkRow extends Omit<NetworkSummary, 'status'> {
  status: 'draft' | 'ready' | 'archived';
  busy: boolean;
  tenant_id: string;
}

// A network is locked while one of its tasks is being solved (derived, so a
// crashed process can never leave a network locked forever).
const SELECT = `SELECT n.*, EXISTS (SELECT 1 FROM tasks t WHERE t.network_id = n.id AND t.status IN ('dispatched', 'running')) AS busy FROM networks n`;

/** A networks row (with `busy`: a task of it is being solved) as the summary every door shows. */
export function summary(r: NetworkRow): NetworkSummary {
  return {
    id: r.id, name: r.name, description: r.description, base_kv: r.base_kv, base_mva: r.base_mva,
    bus_count: r.bus_count, branch_count: r.branch_count, generator_count: r.generator_count, load_count: r.load_count,
    status: r.status === 'archived' ? 'archived' : r.busy ? 'locked' : r.status,
    tags: r.tags, version: r.version, created_at: new Date(r.created_at), updated_at: new Date(r.updated_at),
  };
}

async function insertNetwork(s: Services, q: Queryable, caller: Caller, { head: m, blob }: StorableModel,
  status: 'draft' | 'ready'): Promise<{ net: NetworkSummary; event: StoredEvent }> {
  await checkNetworkQuota(s, q, caller.tenantId);
  const id = newId('net');
  const { rows } = await q.query<NetworkRow>(
    `INSERT INTO networks (id, tenant_id, name, description, base_kv, base_mva, status, tags, bus_count, branch_count, generator_count, load_count, version)
     VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,1) RETURNING *, false AS busy`,
    [id, caller.tenantId, m.name, m.description, m.base_kv, m.base_mva, status, JSON.stringify(m.tags),
      m.bus_count, m.branch_count, m.generator_count, m.load_count],
  );
  await q.query('INSERT INTO network_versions (network_id, version, model_z, bus_ids) VALUES ($1, 1, $2, $3)', [id, blob.z, blob.busIds]);
  const event = await insertEvent(q, {
    tenantId: caller.tenantId,
    topic: 'topology',
    kind: 'network.created',
    networkId: id,
    payload: { network_id: id, kind: 'created', changes: { name: m.name, bus_count: m.bus_count }, actor: caller.actor.id },
  });
  return { net: summary(rows[0]), event };
}

export async function createNetwork(s: Services, caller: Caller, input: NetworkInput & { status?: 'draft' | 'ready' }): Promise<NetworkSummary> {
  // Compressed before the transaction: a large model's deflate must not hold PGlite's single connection.
  return storeNetwork(s, caller, await storable(checkModel(input)), input.status ?? 'ready');
}

/**
 * Stores a model that passed checkModel, in its stored form (src/domain/modelBlob.ts): a large import is
 * checked and encoded on its reader thread, so the model itself never reaches this thread.
 */
export async function storeNetwork(s: Services, caller: Caller, model: StorableModel, status: 'draft' | 'ready' = 'ready'): Promise<NetworkSummary> {
  const { net, event } = await s.db.transaction((tx) => insertNetwork(s, tx, caller, model, status));
  await networksChanged(s, [caller.tenantId]);
  await publishEvents(s.bus, [event]);
  return net;
}

/** GET /networks's query (src/schemas/networks.ts) and what GraphQL's NetworkFilter adds. */
export type NetworkListQuery = Static<typeof NetworkListQuerySchema> & {
  /** Every tag must match; one without value matches any value of its key (GraphQL NetworkFilter.tags). */
  tags?: { key: string; value?: string | null }[];
  created_after?: Date;
  created_before?: Date;
};

const SORTABLE = { name: 'name', created_at: 'created_at', updated_at: 'updated_at', bus_count: 'bus_count', status: 'status', id: 'id' };

/** The list query as a cache key: every field that shapes the page (not `tz`, which only renders it). */
function listKey(q: NetworkListQuery): string {
  return JSON.stringify([q.status, q.name, q.tag, q.tags, q.created_after, q.created_before, q.sort, q.page, q.page_size, q.cursor]);
}

/** Pages are cached per tenant until a network or a task's lock on one changes (src/cache/listCache.ts). */
export function listNetworks(
  s: Pick<Services, 'db' | 'lists'>,
  caller: Caller,
  q: NetworkListQuery,
): Promise<{ items: NetworkSummary[]; meta: Record<string, unknown> }> {
  return s.lists.read(caller.tenantId, 'networks', listKey(q), () => queryNetworks(s, caller, q));
}

/** Marks the tenants' network lists changed; every writer of networks (and of task locks) calls it after committing. */
export function networksChanged(s: Pick<Services, 'lists'>, tenantIds: Iterable<string>): Promise<void> {
  return s.lists.invalidate('networks', tenantIds);
}

async function queryNetworks(s: Pick<Services, 'db'>, caller: Caller, q: NetworkListQuery) {
  const p = paging(q);
  const where = Where.tenant(caller.tenantId);
  if (q.status === 'locked')
    where.raw(`EXISTS (SELECT 1 FROM tasks t WHERE t.network_id = n.id AND t.status IN ('dispatched','running')) AND status <> 'archived'`);
  else if (q.status) {
    where.add('status = ?', q.status);
    if (q.status !== 'archived')
      where.raw(`NOT EXISTS (SELECT 1 FROM tasks t WHERE t.network_id = n.id AND t.status IN ('dispatched','running'))`);
  }
  if (q.name) where.add('name ILIKE ?', `%${q.name.replace(/[\\%_]/g, (c) => '\\' + c)}%`);
  if (q.tag) {
    const i = q.tag.indexOf(':');
    if (i <= 0) throw new AppError('INVALID_FIELD', `tag filter must look like key:value, got "${q.tag}"`, { field: 'tag' });
    where.add('tags @> ?::jsonb', JSON.stringify({ [q.tag.slice(0, i)]: q.tag.slice(i + 1) }));
  }
  for (const t of q.tags ?? []) {
    // jsonb's own `?` (has key) operator: written with raw() so it is not taken for a parameter.
    if (t.value === undefined || t.value === null) where.raw(`tags ? ${where.param(t.key)}`);
    else where.add('tags @> ?::jsonb', JSON.stringify({ [t.key]: t.value }));
  }
  if (q.created_after) where.add('created_at > ?', q.created_after.toISOString());
  if (q.created_before) where.add('created_at < ?', q.created_before.toISOString());
  const order = orderBy(q.sort, SORTABLE);
  // One round trip: the page and the filtered total (a window count). Only a page past
  // the end has no row to carry the total, and then a count query answers it.
  const { rows, total } = await selectPage<NetworkRow>(s.db, {
    from: 'networks n', ...where.toSql(), order: `${order}, id ASC`,
    columns: `n.*, EXISTS (SELECT 1 FROM tasks t WHERE t.network_id = n.id AND t.status IN ('dispatched', 'running')) AS busy`,
  }, p);
  return { items: rows.map(summary), meta: pageMeta(p, total, rows.length) };
}

async function findRow(q: Queryable, caller: Caller, id: string, lock = false): Promise<NetworkRow> {
  const { rows } = await q.query<NetworkRow>(`${SELECT} WHERE n.id = $1 AND n.tenant_id = $2${lock ? ' FOR UPDATE OF n' : ''}`, [id, caller.tenantId]);
  if (!rows[0]) throw notFound('network', id);
  return rows[0];
}

type NetworkState = { status: 'draft' | 'ready' | 'archived'; version: number };

// Power-flow submissions arriving together read their networks with one statement.
export type NetworkStateReader = Batcher<{ id: string; tenantId: string }, NetworkState | undefined>;

export function createNetworkStateReader(db: Database): NetworkStateReader {
  return createBatcher(async (keys) => {
    const { rows } = await db.query<NetworkState & { id: string; tenant_id: string }>(
      'SELECT id, tenant_id, status, version FROM networks WHERE id = ANY($1::text[])',
      [keys.map((k) => k.id)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return keys.map((k) => {
      const r = byId.get(k.id);
      return r && r.tenant_id === k.tenantId ? { status: r.status, version: r.version } : undefined;
    });
  });
}

/** Stored status and current version, without the lock (power flows may run on a locked network). */
export async function getNetworkState(s: Pick<Services, 'networkStates'>, caller: Caller, id: string): Promise<NetworkState> {
  const state = await s.networkStates.add({ id, tenantId: caller.tenantId });
  if (!state) throw notFound('network', id);
  return state;
}

export async function getNetworkSummary(s: Pick<Services, 'db'>, caller: Caller, id: string): Promise<NetworkSummary> {
  return summary(await findRow(s.db, caller, id));
}

export async function loadVersion(q: Queryable, networkId: string, version: number): Promise<NetworkModel> {
  const { rows } = await q.query<{ model: NetworkModel | null; model_z: Uint8Array | null }>(
    'SELECT model, model_z FROM network_versions WHERE network_id = $1 AND version = $2', [networkId, version]);
  if (!rows[0]) throw new AppError('NOT_FOUND', `network ${networkId} version ${version} no longer exists`);
  return decodeModel(rows[0]);
}

/** A network's detail, cached like list pages (same generation: any change of the tenant's networks or their locks). */
export function getNetwork(s: Pick<Services, 'db' | 'lists'>, caller: Caller, id: string): Promise<NetworkDetail> {
  return s.lists.read(caller.tenantId, 'networks', `detail:${id}`, () => queryNetwork(s, caller, id));
}

async function queryNetwork(s: Pick<Services, 'db'>, caller: Caller, id: string): Promise<NetworkDetail> {
  const row = await findRow(s.db, caller, id);
  const model = await loadVersion(s.db, id, row.version);
  return {
    ...summary(row), buses: model.buses, branches: model.branches, generators: model.generators, loads: model.loads,
    ...(model.dc_lines ? { dc_lines: model.dc_lines } : {}),
  };
}

/** The current model and version (for power flow, export, agents' commands). */
export async function getModel(s: Pick<Services, 'db'>, caller: Caller, id: string): Promise<{ summary: NetworkSummary; model: NetworkModel }> {
  const row = await findRow(s.db, caller, id);
  return { summary: summary(row), model: await loadVersion(s.db, id, row.version) };
}

function assertMutable(row: NetworkRow, action: string) {
  if (row.busy)
    throw new AppError(
      'NETWORK_LOCKED',
      `network ${row.id} is locked while a power flow on it runs; ${action} it when the task has finished`,
      { network_id: row.id },
    );
}

export async function updateNetwork(
  s: Services,
  caller: Caller,
  id: string,
  input: NetworkInput & { status?: 'draft' | 'ready' | 'archived' },
): Promise<NetworkSummary> {
  const model = checkModel(input);
  // Compressed before the transaction: a large model's deflate must not hold PGlite's single connection.
  const blob = await encodeModel(model);
  const result = await s.db.transaction(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    assertMutable(row, 'update');
    if (row.status === 'archived' && input.status !== 'ready' && input.status !== 'draft') {
      throw new AppError('CONFLICT', `network ${id} is archived (read-only); send status "ready" or "draft" in the update to restore it`, {
        network_id: id,
        status: 'archived',
      });
    }
    const version = row.version + 1;
    await tx.query('INSERT INTO network_versions (network_id, version, model_z, bus_ids) VALUES ($1, $2, $3, $4)', [
      id,
      version,
      blob.z,
      blob.busIds,
    ]);
    const { rows } = await tx.query<NetworkRow>(
      `UPDATE networks SET name=$3, description=$4, base_kv=$5, base_mva=$6, tags=$7, bus_count=$8, branch_count=$9, generator_count=$10, load_count=$11,
         version=$12, status=$13, updated_at=now() WHERE id=$1 AND tenant_id=$2 RETURNING *, false AS busy`,
      [
        id,
        caller.tenantId,
        model.name,
        model.description,
        model.base_kv,
        model.base_mva,
        JSON.stringify(model.tags),
        model.buses.length,
        model.branches.length,
        model.generators.length,
        model.loads.length,
        version,
        input.status ?? (row.status === 'archived' ? 'ready' : row.status),
      ],
    );
    const event = await insertEvent(tx, {
      tenantId: caller.tenantId,
      topic: 'topology',
      kind: 'network.updated',
      networkId: id,
      payload: { network_id: id, kind: 'updated', changes: { version, status: rows[0].status }, actor: caller.actor.id },
    });
    return { net: summary(rows[0]), event };
  });
  await networkWritten(s, id);
  await networksChanged(s, [caller.tenantId]);
  await publishEvents(s.bus, [result.event]);
  return result.net;
}

/**
 * Stores a new version of a network from a changed model (agents' control commands, an OPF's apply).
 * `asWrite`: the write-time checks of PUT /networks/{id} too (locked by a running task, archived), made
 * under the row's lock, for a caller-initiated write that is not a control command.
 */
export async function saveModelVersion(s: Services, caller: Caller, id: string, expectedVersion: number, model: NetworkModel,
  change: Record<string, unknown>, opts: { asWrite?: boolean } = {}): Promise<NetworkSummary> {
  const blob = await encodeModel(model);
  const result = await s.db.transaction(async (tx) => {
    const row = await findRow(tx, caller, id, true);
    if (opts.asWrite) {
      assertMutable(row, 'change');
      if (row.status === 'archived') {
        const advice = `network ${id} is archived (read-only); restore it (PUT with status "ready") first`;
        throw new AppError('CONFLICT', advice, { network_id: id, status: 'archived' });
      }
    }
    if (row.version !== expectedVersion)
      throw new AppError(
        'CONFLICT',
        `network ${id} changed (version ${row.version}, expected ${expectedVersion}); retry on the current version`,
        { network_id: id, version: row.version },
      );
    const version = row.version + 1;
    await tx.query('INSERT INTO network_versions (network_id, version, model_z, bus_ids) VALUES ($1, $2, $3, $4)', [id, version, blob.z, blob.busIds]);
    const { rows } = await tx.query<NetworkRow>(`UPDATE networks SET version=$2, updated_at=now() WHERE id=$1 RETURNING *, false AS busy`, [id, version]);
    const event = await insertEvent(tx, {
      tenantId: caller.tenantId,
      topic: 'topology',
      kind: String(change.kind ?? 'network.changed'),
      networkId: id,
      payload: { network_id: id, kind: change.kind ?? 'changed', changes: { ...change, version }, actor: caller.actor.id },
    });
    return { net: summary(rows[0]), event };
  });
  await networkWritten(s, id);
  await networksChanged(s, [caller.tenantId]);
  await publishEvents(s.bus, [result.event]);
  return result.net;
}

async function deleteInTx(tx: Queryable, caller: Caller, id: string): Promise<StoredEvent> {
  const row = await findRow(tx, caller, id, true);
  assertMutable(row, 'delete');
  // Queued power flows of a deleted network can no longer run.
  await tx.query(`UPDATE tasks SET status='cancelled', completed_at=now(), error=$2 WHERE network_id=$1 AND status='queued'`, [
    id,
    JSON.stringify({ code: 'CONFLICT', message: 'network deleted before the task started' }),
  ]);
  await tx.query('DELETE FROM networks WHERE id = $1', [id]);
  return insertEvent(tx, {
    tenantId: caller.tenantId,
    topic: 'topology',
    kind: 'network.deleted',
    networkId: id,
    payload: { network_id: id, kind: 'deleted', changes: { name: row.name }, actor: caller.actor.id },
  });
}

export async function deleteNetwork(s: Services, caller: Caller, id: string): Promise<void> {
  const event = await s.db.transaction((tx) => deleteInTx(tx, caller, id));
  await networkWritten(s, id);
  await networksChanged(s, [caller.tenantId]);
  await publishEvents(s.bus, [event]);
}

export async function validateNetwork(s: Pick<Services, 'db'>, caller: Caller, id: string) {
  const { model } = await getModel(s, caller, id);
  const issues = [...validateTopology(model), ...opfFieldIssues(model)];
  return { valid: issues.length === 0, errors: issues.map((i) => ({ field: i.field, message: i.message, code: i.code })), islands: islandSummaries(model) };
}

export type BatchResult = Static<typeof BatchResultSchema>;

function batchError(e: unknown) {
  if (e instanceof AppError) return { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
  return { code: 'INTERNAL_ERROR', message: 'internal error' };
}

/** Each entry is judged alone: one bad entry fails only itself. */
export async function batchCreateNetworks(s: Services, caller: Caller, inputs: (NetworkInput & { status?: 'draft' | 'ready' })[]): Promise<BatchResult> {
  const out: BatchResult = { succeeded: [], failed: [] };
  for (let i = 0; i < inputs.length; i++) {
    try {
      out.succeeded.push({ index: i, id: (await createNetwork(s, caller, inputs[i])).id });
    } catch (e) {
      out.failed.push({ index: i, error: batchError(e) });
    }
  }
  return out;
}

export async function batchDeleteNetworks(s: Services, caller: Caller, ids: string[]): Promise<BatchResult> {
  const out: BatchResult = { succeeded: [], failed: [] };
  for (let i = 0; i < ids.length; i++) {
    try {
      await deleteNetwork(s, caller, ids[i]);
      out.succeeded.push({ index: i, id: ids[i] });
    } catch (e) {
      out.failed.push({ index: i, error: batchError(e) });
    }
  }
  return out;
}
