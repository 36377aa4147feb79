// The task life cycle on this process: claim, run with the runner of the task's kind
// (Services.runners, filled in bootstrap.ts), store the finish in groups, announce it.
import type { Services } from '../services.js';
import type { NetworkModel } from '../domain/networkModel.js';
import type { PowerFlowResult } from '../schemas/powerflowResult.js';
import { insertEvents, publishEvents, type NewEvent } from '../domain/eventLog.js';
import { createBatcher, type Batcher } from '../lib/batcher.js';
import { loadVersion, networksChanged } from '../domain/networks.js';
import { taskFromRow, type StoredTaskRow, type TaskRow } from '../domain/tasks.js';
import { decodeResultValues, encodeResultValues } from '../powerflow/resultValues.js';
import { unavailableDependency } from '../lib/unavailable.js';

/** How long a task waits for PostgreSQL to come back before its run fails (GRIDOPS_QUEUE_OUTAGE_MS). */
function outageWaitMs(): number {
  const v = Number(process.env.GRIDOPS_QUEUE_OUTAGE_MS ?? 120_000);
  return Number.isFinite(v) && v >= 0 ? v : 120_000;
}

/**
 * Runs a database step of a task's life again while PostgreSQL is away (a restart, a
 * failover), for up to outageWaitMs: the task waits for the database instead of failing,
 * and a solved result is written once the database is back instead of being solved again.
 * Every step is safe to repeat: the claim and the finish only move a row that is still
 * dispatched or running.
 */
export async function rideOutOutage<T>(s: Pick<Services, 'log'>, what: string, step: () => Promise<T>): Promise<T> {
  const end = Date.now() + outageWaitMs();
  let delay = 100;
  let warned = false;
  for (;;) {
    try {
      return await step();
    } catch (e) {
      if (!unavailableDependency(e) || Date.now() + delay > end) throw e;
      if (!warned) s.log.warn({ err: e, step: what }, 'the database is unavailable; the task waits for it');
      warned = true;
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(2 * delay, 2000);
    }
  }
}

/** A task's network version from Services.models: frozen, shared by every task of this version (the solver
 *  pool keeps its packing per model), read once and again while the database is away. */
export function cachedModel(s: Pick<Services, 'db' | 'log' | 'models'>, networkId: string, version: number): Promise<NetworkModel> {
  return s.models.version(networkId, version, () => rideOutOutage(s, 'load the network', () => loadVersion(s.db, networkId, version)));
}

/** A power-flow task's stored result (its schema: src/schemas/powerflowResult.ts). */
export type TaskResultView = PowerFlowResult;

/** Claims task `taskId` and runs it with the runner of its kind (Services.runners: power flow,
 *  study, OPF): the same function whether the task came from the in-process queue or BullMQ. */
export async function executeTask(s: Services, taskId: string): Promise<void> {
  if (!s.solver) throw new Error('this process has no solver pool (ROLE=api)');
  // Registered before the claim, so a cancel notice that arrives at any point after it finds
  // the controller (a cancel that commits before the claim makes the claim find nothing).
  const controller = s.localRuns.start(taskId);
  let task: TaskRow | undefined;
  try {
    task = await rideOutOutage(s, 'claim', () => s.taskLifecycle.claims.add(taskId));
  } finally {
    if (!task) s.localRuns.end(taskId);
  }
  if (!task) {
    // Cancelled or finished before this run. A run that finished it but died (kill -9)
    // between storing the result and storing its events is completed here.
    await rideOutOutage(s, 'complete an unannounced finish', () => announceIfUnannounced(s, taskId));
    return;
  }
  const runner = s.runners[task.kind];
  try {
    if (!runner) throw new Error(`no runner for tasks of kind '${task.kind}' in this process`);
    return await runner(s, task, controller.signal);
  } finally {
    s.localRuns.end(taskId);
  }
}

export interface Finish {
  task: TaskRow;
  status: 'completed' | 'failed' | 'cancelled';
  result: TaskResultView | null;
  failure: { code: string; message: string; details?: Record<string, unknown> } | null;
  completedAt: Date;
  model?: NetworkModel;
  /** The result's buses, branches and generators in their stored binary form (src/powerflow/resultValues.ts), when
   *  the solve gave them so: result's arrays are then empty. */
  values?: Buffer;
}

/** A finish's whole result, its values decoded (for the one judged of a batch; the others are stored as they are). */
function wholeResult(f: Finish): Record<string, unknown> | null {
  if (!f.result || !f.values) return f.result as unknown as Record<string, unknown> | null;
  return { ...f.result, ...decodeResultValues(f.values) };
}

// Columns of a task row without its result (the result is large and the caller has it).
const TASK_COLUMNS = 'id, seq, tenant_id, network_id, network_version, kind, status, options, progress, error, attempts, created_at, started_at, completed_at';

/**
 * The task life cycle's writes, group-committed per process (src/lib/batcher.ts): the
 * claims of the jobs that start together are one UPDATE and one event INSERT; the
 * results that arrive together are one UPDATE, one event INSERT, one list invalidation
 * and one alarm evaluation per network (of its newest result: an older one of the same
 * batch would be judged "superseded" by it anyway, docs/alarms.md).
 */
export function createTaskLifecycle(services: () => Services): TaskLifecycle {
  const claims = createBatcher(async (ids: string[]): Promise<(TaskRow | undefined)[]> => {
    const s = services();
    const { rows } = await s.db.query<TaskRow>(
      `UPDATE tasks SET status = 'running', started_at = now(), attempts = attempts + 1
       WHERE id = ANY($1::text[]) AND status IN ('dispatched', 'running') RETURNING ${TASK_COLUMNS}`, [ids]);
    const byId = new Map<string, TaskRow>(rows.map((r) => [r.id, { ...r, result: null }]));
    const claimed = ids.map((id) => byId.get(id)).filter((t): t is TaskRow => t !== undefined);
    // The claim has committed: only its event is written again if the database goes away now.
    const events = await rideOutOutage(s, 'announce the claim', () =>
      insertEvents(
        s.db,
        claimed.map((t) => ({
          tenantId: t.tenant_id,
          topic: 'task' as const,
          kind: 'task.running',
          networkId: t.network_id,
          payload: { task_id: t.id, network_id: t.network_id, status: 'running', attempt: t.attempts },
        })),
      ),
    );
    await publishEvents(s.bus, events);
    return ids.map((id) => byId.get(id));
  });
  const finishes = createBatcher(async (items: Finish[]): Promise<undefined[]> => {
    const s = services();
    const { rowsIn, values } = packFinishes(items);
    const { rows } = await s.db.query<TaskRow>(
      `UPDATE tasks t SET status = x.status, result = x.result, error = x.error, completed_at = x.completed_at,
         result_values = CASE WHEN x.values_len > 0 THEN substring($2::bytea FROM x.values_at + 1 FOR x.values_len) END,
         result_bytes = coalesce(octet_length(x.result::text), 0) + x.values_len -- the tenant's stored results (resultStorage.ts)
       FROM json_to_recordset($1::json) AS x(id text, status text, result json, error jsonb, completed_at timestamptz, values_at int, values_len int)
       WHERE t.id = x.id AND t.status = 'running' RETURNING ${TASK_COLUMNS.split(', ').map((c) => `t.${c}`).join(', ')}`,
      [JSON.stringify(rowsIn), values]);
    if (rows.length === 0) return items.map(() => undefined);
    const byId = new Map(items.map((f) => [f.task.id, f]));
    const finals = rows
      .map((r) => ({ ...r, result: byId.get(r.id)!.result as unknown as Record<string, unknown> | null }))
      .sort((a, b) => Number(a.seq) - Number(b.seq));
    // The results have committed: what follows is retried on its own if the database goes
    // away now (retrying the whole finish would find the rows finished and skip their events).
    await rideOutOutage(s, 'announce the results', () => networksChanged(s, finals.map((t) => t.tenant_id))); // their networks are no longer locked
    // Alarms first, so a caller woken by the announcement already sees them (docs/alarms.md).
    const newest = new Map<string, TaskRow>();
    for (const t of finals) if (t.status === 'completed') newest.set(t.network_id, t);
    for (const t of newest.values()) {
      const f = byId.get(t.id)!;
      await s.powerFlowJudge.judge(s, { task: t, model: f.model, ...(f.values ? { result: wholeResult(f) } : {}) });
    }
    await rideOutOutage(s, 'announce the results', () => announceFinishedMany(s, finals, true));
    return items.map(() => undefined);
  });
  return { claims, finishes };
}

/**
 * The finishes of a batch as rows for one statement: each result's per-element values go in binary
 * (resultValues.ts), all of the batch's in one bytea parameter that each row takes its slice of
 * (`substring(values FROM values_at + 1 FOR values_len)`); the JSON carries the rest.
 */
export function packFinishes(items: Finish[]) {
  const values: Buffer[] = [];
  let at = 0;
  const rowsIn = items.map((f) => {
    const row = {
      id: f.task.id, status: f.status, result: f.result as unknown, error: f.failure, completed_at: f.completedAt.toISOString(), values_at: 0, values_len: 0,
    };
    const r = f.result;
    if (r && (f.values || r.buses.length + r.branches.length + r.generators.length > 0)) {
      const { buses, branches, generators, ...header } = r;
      const bin = f.values ?? encodeResultValues({ buses, branches, generators });
      row.result = header;
      row.values_at = at;
      row.values_len = bin.length;
      values.push(bin);
      at += bin.length;
    }
    return row;
  });
  return { rowsIn, values: Buffer.concat(values) };
}

export interface TaskLifecycle {
  claims: Batcher<string, TaskRow | undefined>;
  finishes: Batcher<Finish, void>;
}

/** gridops_tasks_total and gridops_task_duration_seconds of a task finished in this process. */
export function countFinished(s: Pick<Services, 'metrics'>, t: TaskRow): void {
  s.metrics.tasks.inc({ kind: t.kind, status: t.status });
  if (t.started_at && t.completed_at) {
    const method = (t.options as { method?: string } | null)?.method ?? t.kind;
    s.metrics.taskDuration.observe({ kind: t.kind, method }, Math.max(0, new Date(t.completed_at).getTime() - new Date(t.started_at).getTime()) / 1000);
  }
}

/** Events and bus notices of a finished task (stored first, then published). */
export function announceFinished(s: Pick<Services, 'bus' | 'db' | 'lists' | 'metrics'>, t: TaskRow, listsCurrent = false): Promise<void> {
  return announceFinishedMany(s, [t], listsCurrent);
}

async function announceFinishedMany(s: Pick<Services, 'bus' | 'db' | 'lists' | 'metrics'>, tasks: TaskRow[], listsCurrent = false): Promise<void> {
  for (const t of tasks) countFinished(s, t); // finished once stored; counted before anyone is told
  if (!listsCurrent) await networksChanged(s, tasks.map((t) => t.tenant_id));
  const news: NewEvent[] = [];
  for (const t of tasks) {
    const rstatus = (t.result as { status?: string } | null)?.status ?? t.status;
    news.push({
      tenantId: t.tenant_id,
      topic: 'task',
      kind: `task.${t.status}`,
      networkId: t.network_id,
      payload: { task_id: t.id, network_id: t.network_id, status: t.status, ...(t.error ? { error: t.error } : {}) },
    });
    if (t.kind === 'study') {
      const studyId = (t.options as { study_id?: string }).study_id;
      news.push({
        tenantId: t.tenant_id,
        topic: 'powerflow',
        kind: 'study.finished',
        networkId: t.network_id,
        payload: { study_id: studyId, task_id: t.id, network_id: t.network_id, status: t.status, ...(t.error ? { error: t.error } : {}) },
      });
    } else if (t.kind === 'opf') {
      const objective = (t.result as { objective?: number } | null)?.objective ?? null;
      news.push({
        tenantId: t.tenant_id,
        topic: 'powerflow',
        kind: 'opf.finished',
        networkId: t.network_id,
        payload: { task_id: t.id, network_id: t.network_id, status: t.status, objective, ...(t.error ? { error: t.error } : {}) },
      });
    } else if (t.kind === 'state_estimation') {
      const r = t.result as { status?: string; J?: number | null; bad_data?: unknown[] } | null;
      news.push({
        tenantId: t.tenant_id,
        topic: 'powerflow',
        kind: 'state_estimation.finished',
        networkId: t.network_id,
        payload: {
          task_id: t.id,
          network_id: t.network_id,
          status: t.status,
          result_status: r?.status ?? null,
          J: r?.J ?? null,
          bad_data: r?.bad_data?.length ?? null,
          ...(t.error ? { error: t.error } : {}),
        },
      });
    } else if (t.kind === 'sensitivities') {
      const entries = (t.result as { entries?: number } | null)?.entries ?? null;
      news.push({
        tenantId: t.tenant_id,
        topic: 'powerflow',
        kind: 'sensitivities.finished',
        networkId: t.network_id,
        payload: { task_id: t.id, network_id: t.network_id, status: t.status, entries, ...(t.error ? { error: t.error } : {}) },
      });
    } else if (t.result || t.status !== 'cancelled') {
      news.push({
        tenantId: t.tenant_id,
        topic: 'powerflow',
        kind: 'powerflow.finished',
        networkId: t.network_id,
        payload: {
          task_id: t.id,
          network_id: t.network_id,
          status: rstatus,
          iterations: (t.result as { iterations?: number } | null)?.iterations ?? null,
        },
      });
    }
  }
  await publishEvents(s.bus, await insertEvents(s.db, news));
  await Promise.all(tasks.map((t) => s.bus.publish('task', { task_id: t.id, tenant_id: t.tenant_id, status: t.status })));
}

/**
 * A finished task whose task.completed / task.failed event was never stored: its run stored
 * the result, then died before the events (their writes are not one transaction, so that
 * alarms are judged before the announcement). Found when the job is run again after the
 * death; the finish is announced now. A finish of the last 2 s is left alone: its own run
 * may still be announcing it.
 */
async function announceIfUnannounced(s: Services, taskId: string): Promise<void> {
  const { rows } = await s.db.query<StoredTaskRow>(
    `SELECT t.* FROM tasks t WHERE t.id = $1 AND t.status IN ('completed', 'failed') AND t.completed_at < now() - interval '2 seconds'
       AND NOT EXISTS (SELECT 1 FROM events e WHERE e.tenant_id = t.tenant_id AND e.topic = 'task' AND e.created_at >= t.completed_at - interval '5 minutes'
                         AND e.kind = 'task.' || t.status AND e.payload->>'task_id' = t.id)`, [taskId]);
  if (!rows[0]) return;
  s.log.warn({ task: taskId }, 'announcing a finish whose run stopped before storing its events');
  await announceFinished(s, taskFromRow(rows[0]));
}
