// Task records: how a power-flow task looks to clients, and the SQL that moves it.
import { TASK_STATUSES } from '../schemas/vocabulary.js';
import type { Queryable } from '../db/database.js';
import type { ServiceCore } from '../services.js';
import type { Caller } from './caller.js';
import { AppError, notFound } from '../lib/errors.js';
import { listParam, orderBy, pageMeta, paging, selectPage, tenantWhere, } from '../lib/paging.js';
import { parseDateTime } from '../lib/time.js';
import { decodeResultValues } from '../powerflow/resultValues.js';
import type { Static } from '@sinclair/typebox';
import type { ResultSummary as ResultSummarySchema, TaskListQuery as TaskListQuerySchema } from '../schemas/tasks.js';

/** Internal states; 'dispatched' (handed to a solver, not started) shows as queued. */
export type TaskState = 'queued' | 'dispatched' | 'running' | 'completed' | 'failed' | 'cancelled';
export type TaskStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface TaskRow {
  id: string;
  seq: number;
  tenant_id: string;
  network_id: string;
  network_version: number;
  kind: string;
  status: TaskState;
  options: Record<string, unknown>;
  progress: { iteration: number; max_iterations: number; mismatch: number; updated_at?: string } | null;
  result: Record<string, unknown> | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export const FINISHED: readonly TaskState[] = ['completed', 'failed', 'cancelled'];

export function publicStatus(s: TaskState): TaskStatus {
  return s === 'dispatched' ? 'queued' : s;
}

/** REST is snake_case: options are stored as the solver takes them (flatStart, timeoutMs). */
export function optionsView(o: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o ?? {})) out[k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = v;
  return out;
}

export function taskView(t: TaskRow) {
  return {
    task_id: t.id,
    network_id: t.network_id,
    network_version: t.network_version,
    kind: t.kind,
    status: publicStatus(t.status),
    poll_url: `/api/v1/tasks/${t.id}`,
    options: optionsView(t.options),
    progress: t.progress,
    result: t.result,
    error: t.error,
    attempts: t.attempts,
    created_at: new Date(t.created_at),
    started_at: t.started_at ? new Date(t.started_at) : null,
    completed_at: t.completed_at ? new Date(t.completed_at) : null,
  };
}

/** A tasks row as stored (SELECT * / RETURNING *): the result's values may be in binary beside it. */
export type StoredTaskRow = TaskRow & { result_values?: Uint8Array | null };

/**
 * The task of a stored row, its result whole: the values stored in binary
 * (tasks.result_values, src/powerflow/resultValues.ts) rejoin the JSON header, in the
 * order the result has always had (buses, branches and generators before losses).
 */
export function taskFromRow(row: StoredTaskRow): TaskRow {
  const { result_values: values, ...task } = row;
  if (!values || !task.result) return withBranchIndex(task);
  const arrays = decodeResultValues(values);
  const result: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(task.result)) {
    if (k === 'losses') Object.assign(result, arrays);
    result[k] = v;
  }
  if (!('buses' in result)) Object.assign(result, arrays);
  task.result = result;
  return task;
}

/** Results stored before branches carried their index (whole JSON, before migration 007) get it on reading. */
function withBranchIndex(t: TaskRow): TaskRow {
  const branches = (t.result as { branches?: Record<string, unknown>[] } | null)?.branches;
  if (!Array.isArray(branches) || branches.length === 0 || 'index' in branches[0]!) return t;
  const indexed = branches.map((b, index) => ({ index, ...b }));
  return { ...t, result: { ...t.result, branches: indexed } };
}

/** What reads tasks: the database, and the tasks answered before they are stored (src/domain/pendingTasks.ts). */
export type TaskStore = Pick<ServiceCore, 'db' | 'pendingTasks'>;

export async function findTask(s: TaskStore, caller: Caller, id: string): Promise<TaskRow> {
  const pending = s.pendingTasks.get(caller.tenantId, id);
  if (pending) return pending;
  const { rows } = await s.db.query<StoredTaskRow>('SELECT * FROM tasks WHERE id = $1 AND tenant_id = $2', [id, caller.tenantId]);
  if (!rows[0]) throw notFound('task', id);
  return taskFromRow(rows[0]);
}

export async function taskById(q: Queryable, id: string): Promise<TaskRow | undefined> {
  const { rows } = await q.query<StoredTaskRow>('SELECT * FROM tasks WHERE id = $1', [id]);
  return rows[0] && taskFromRow(rows[0]);
}

/**
 * What a poll needs of a finished task without its per-element values: how the solve
 * ended and how big the answer is (GET /tasks/{id}?include=result has the values).
 */
export type ResultSummary = Static<typeof ResultSummarySchema>;

/** A task row read without its result values: the first 32 bytes of them (their counts) instead. */
type SummaryRow = TaskRow & { values_head?: Uint8Array | null; queue_position?: number | null };

// Every column but result_values, whose header (FORMAT, nb, nl, ng as float64) gives the counts.
const SUMMARY_COLUMNS = `id, seq, tenant_id, network_id, network_version, kind, status, options, progress, result, error, attempts,
  created_at, started_at, completed_at, substring(result_values FROM 1 FOR 32) AS values_head`;

function resultSummary(row: SummaryRow): ResultSummary | null {
  // a stored result's header (power flow, OPF, study…): the summary's own fields, and arrays of old results
  const r = row.result as (Partial<ResultSummary> & { buses?: unknown[]; branches?: unknown[]; generators?: unknown[] }) | null;
  if (!r) return null;
  let counts = [0, 0, 0];
  if (row.values_head && row.values_head.byteLength >= 32) {
    const f = new Float64Array(4);
    new Uint8Array(f.buffer).set(row.values_head.subarray(0, 32));
    counts = [f[1]!, f[2]!, f[3]!];
  } else {
    // Results stored before the binary values (migration 007) keep them in the JSON.
    counts = [r.buses?.length ?? 0, r.branches?.length ?? 0, r.generators?.length ?? 0];
  }
  return {
    status: String(r.status ?? row.status), method: r.method ?? null, iterations: r.iterations ?? null, mismatch: r.mismatch ?? null,
    duration_ms: r.duration_ms ?? null, tolerance: r.tolerance ?? null, losses: r.losses ?? null,
    bus_count: counts[0]!, branch_count: counts[1]!, generator_count: counts[2]!, ...(r.message ? { message: r.message } : {}),
    ...(typeof r.objective === 'number' ? { objective: r.objective } : {}), // an OPF's (currency/h)
  };
}

/** The task as a poll or a list shows it: everything but the result's values, with a summary of them. */
export function taskSummaryView(row: SummaryRow) {
  const { result: _result, ...v } = taskView({ ...row, result: null });
  return { ...v, summary: resultSummary(row), result_url: `/api/v1/tasks/${row.id}?include=result` };
}

export async function findTaskSummary(s: TaskStore, caller: Caller, id: string): Promise<SummaryRow> {
  // Answered, not yet stored: its result is whole here, and the summary counts its arrays.
  const pending = s.pendingTasks.get(caller.tenantId, id);
  if (pending) return pending;
  const { rows } = await s.db.query<SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM tasks WHERE id = $1 AND tenant_id = $2`, [id, caller.tenantId]);
  if (!rows[0]) throw notFound('task', id);
  return rows[0];
}

export { TASK_STATUSES };

/** GET /tasks's query (src/schemas/tasks.ts). */
export type TaskListQuery = Static<typeof TaskListQuerySchema>;

const SORTABLE = {
  created_at: 'created_at', started_at: 'started_at', completed_at: 'completed_at', status: 'status', kind: 'kind', network_id: 'network_id',
};

/**
 * The tenant's tasks, newest first by default: what is queued (with its place in the
 * tenant's FIFO queue), running and finished. from/to bound created_at.
 */
export async function listTasks(s: TaskStore, caller: Caller, query: TaskListQuery) {
  // The tenant's answered tasks are listed once stored: a list read waits for their group commit.
  await s.pendingTasks.settled(caller.tenantId);
  const p = paging(query);
  const w = tenantWhere(caller.tenantId);
  const add = w.add;
  const st = listParam('status', query.status, TASK_STATUSES);
  // 'dispatched' (handed to a solver, not started) is queued to clients.
  if (st) add('status = ANY(?::text[])', st.includes('queued') ? [...st, 'dispatched'] : st);
  if (query.kind) add('kind = ANY(?::text[])', query.kind.split(',').map((k) => k.trim()).filter(Boolean));
  if (query.network_id) add('network_id = ?', query.network_id);
  const from = query.from ? parseDateTime('from', query.from) : undefined;
  const to = query.to ? parseDateTime('to', query.to) : undefined;
  if (from && to && from > to) throw new AppError('INVALID_FIELD', `from (${query.from}) is after to (${query.to})`, { field: 'from' });
  if (from) add('created_at >= ?', from.toISOString());
  if (to) add('created_at <= ?', to.toISOString());
  const order = orderBy(query.sort, SORTABLE, '-created_at');
  const columns = `${SUMMARY_COLUMNS}, CASE WHEN t.status = 'queued' THEN
    (SELECT count(*)::int FROM tasks q WHERE q.tenant_id = t.tenant_id AND q.status = 'queued' AND q.seq <= t.seq) END AS queue_position`;
  const { rows, total } = await selectPage<SummaryRow>(s.db, { from: 'tasks t', columns, where: w.sql(), params: w.params, order: `${order}, seq DESC` }, p);
  return { items: rows.map((r) => ({ ...taskSummaryView(r), queue_position: r.queue_position ?? null })), meta: pageMeta(p, total, rows.length) };
}
