// Runs one power-flow task on this process's solver pool: the same function
// whether the task came from the in-process queue or from BullMQ on a worker.
import type { Services } from '../services.js';
import type { NetworkModel } from '../domain/network.js';
import type { SolveOptions, SolveOutcome } from '../powerflow/types.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { insertEvents, publishEvents, type NewEvent } from '../domain/events.js';
import { createBatcher, type Batcher } from '../lib/batcher.js';
import { loadVersion, networksChanged } from '../domain/networks.js';
import type { TaskRow } from '../domain/tasks.js';
import { evaluatePowerFlowAlarms } from '../domain/alarms.js';
import { encodeResultValues } from '../powerflow/resultValues.js';
import { deepFreeze } from '../lib/immutable.js';

const PROGRESS_WRITE_MS = 200;

// Immutable versions can be cached without invalidation.
const modelCache = new Map<string, NetworkModel>();
const MODEL_CACHE_SIZE = 64;
async function cachedModel(s: Services, networkId: string, version: number): Promise<NetworkModel> {
  const key = `${networkId}@${version}`;
  let m = modelCache.get(key);
  if (m) {
    modelCache.delete(key);
    modelCache.set(key, m);
    return m;
  }
  // Frozen: shared by every task of this version, and the solver pool keeps its packing.
  m = deepFreeze(await loadVersion(s.db, networkId, version));
  modelCache.set(key, m);
  if (modelCache.size > MODEL_CACHE_SIZE) modelCache.delete(modelCache.keys().next().value!);
  return m;
}

/** Running tasks of this process, so a cancel request can stop them. */
const running = new Map<string, AbortController>();

export function abortLocal(taskId: string): boolean {
  const c = running.get(taskId);
  if (!c) return false;
  c.abort();
  return true;
}

export function runningLocally(): number {
  return running.size;
}

export interface TaskResultView {
  task_id: string;
  network_id: string;
  network_version: number;
  status: SolveOutcome['status'];
  method: string;
  iterations: number | null;
  mismatch: number;
  duration_ms: number;
  tolerance: number;
  buses: SolveOutcome['buses'];
  branches: SolveOutcome['branches'];
  generators: SolveOutcome['generators'];
  losses: SolveOutcome['losses'];
  started_at: string;
  completed_at: string;
  message?: string;
}

export async function executeTask(s: Services, taskId: string): Promise<void> {
  if (!s.solver) throw new Error('this process has no solver pool (ROLE=api)');
  // Registered before the claim, so a cancel notice that arrives at any point after it finds
  // the controller (a cancel that commits before the claim makes the claim find nothing).
  const controller = new AbortController();
  running.set(taskId, controller);
  let task: TaskRow | undefined;
  try {
    task = await lifecycle(s).claims.add(taskId);
  } finally {
    if (!task) running.delete(taskId);
  }
  if (!task) return; // cancelled (or finished) before it started
  const startedAt = new Date(task.started_at!);

  const opts = task.options as unknown as SolveOptions;
  // Progress is stored every PROGRESS_WRITE_MS from the solve's first iteration (not from
  // the claim: a task may wait for a solver thread): a shorter solve writes none, its
  // iterations still reach live clients through the bus.
  let lastWrite = 0;
  let model: NetworkModel | undefined;
  let outcome: SolveOutcome | undefined;
  let failure: { code: string; message: string; details?: Record<string, unknown> } | undefined;
  try {
    model = await cachedModel(s, task.network_id, task.network_version);
    outcome = await s.solver.solve(model, opts, {
      signal: controller.signal,
      onProgress: (p) => {
        const progress = { task_id: task.id, tenant_id: task.tenant_id, network_id: task.network_id, iteration: p.iteration, max_iterations: p.maxIterations, mismatch: p.mismatch, timestamp: new Date().toISOString() };
        void s.bus.publish('progress', progress);
        const now = Date.now();
        if (lastWrite === 0) lastWrite = now;
        else if (now - lastWrite >= PROGRESS_WRITE_MS) {
          lastWrite = now;
          void s.db.query(`UPDATE tasks SET progress = $2 WHERE id = $1 AND status = 'running'`, [task.id, JSON.stringify({ iteration: p.iteration, max_iterations: p.maxIterations, mismatch: p.mismatch, updated_at: progress.timestamp })]).catch(() => {});
        }
      },
    });
  } catch (e) {
    if (e instanceof PowerFlowInputError) failure = { code: e.code, message: e.message, details: e.details };
    else if ((e as Error).name === 'AbortError') outcome = undefined;
    else {
      s.log.error({ err: e, task: task.id }, 'solver failed');
      failure = { code: 'INTERNAL_ERROR', message: `the solver failed: ${(e as Error).message}` };
    }
  } finally {
    running.delete(task.id);
  }

  const completedAt = new Date();
  let status: 'completed' | 'failed' | 'cancelled';
  let result: TaskResultView | null = null;
  if (outcome) {
    result = {
      task_id: task.id, network_id: task.network_id, network_version: task.network_version, status: outcome.status, method: outcome.method,
      iterations: outcome.status === 'timeout' || outcome.status === 'cancelled' ? outcome.iterations ?? null : outcome.iterations,
      mismatch: outcome.mismatch, duration_ms: Math.round(outcome.duration_ms), tolerance: outcome.tolerance,
      buses: outcome.buses, branches: outcome.branches, generators: outcome.generators, losses: outcome.losses,
      started_at: startedAt.toISOString(), completed_at: completedAt.toISOString(), ...(outcome.message ? { message: outcome.message } : {}),
    };
    switch (outcome.status) {
      case 'converged':
        status = 'completed';
        break;
      case 'diverged':
        status = 'failed';
        failure = { code: 'POWERFLOW_DIVERGED', message: `power flow did not converge: mismatch ${outcome.mismatch.toExponential(3)} p.u. after ${outcome.iterations} iterations (tolerance ${outcome.tolerance})`, details: { iterations: outcome.iterations, mismatch: outcome.mismatch, tolerance: outcome.tolerance } };
        break;
      case 'timeout':
        status = 'failed';
        failure = { code: 'GATEWAY_TIMEOUT', message: `power flow exceeded timeout_ms ${opts.timeoutMs}`, details: { task_id: task.id, timeout_ms: opts.timeoutMs } };
        break;
      default:
        status = 'cancelled';
    }
  } else {
    status = failure ? 'failed' : 'cancelled';
  }

  // A cancel that raced with completion wins (the row is no longer 'running'): the client was told "cancelled".
  await lifecycle(s).finishes.add({ task, status, result, failure: failure ?? null, completedAt, model });
}

interface Finish {
  task: TaskRow;
  status: 'completed' | 'failed' | 'cancelled';
  result: TaskResultView | null;
  failure: { code: string; message: string; details?: Record<string, unknown> } | null;
  completedAt: Date;
  model?: NetworkModel;
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
function lifecycle(s: Services) {
  let l = lifecycles.get(s);
  if (l) return l;
  const claims = createBatcher(async (ids: string[]): Promise<(TaskRow | undefined)[]> => {
    const { rows } = await s.db.query<TaskRow>(
      `UPDATE tasks SET status = 'running', started_at = now(), attempts = attempts + 1
       WHERE id = ANY($1::text[]) AND status IN ('dispatched', 'running') RETURNING ${TASK_COLUMNS}`, [ids]);
    const byId = new Map<string, TaskRow>(rows.map((r) => [r.id, { ...r, result: null }]));
    const claimed = ids.map((id) => byId.get(id)).filter((t): t is TaskRow => t !== undefined);
    const events = await insertEvents(s.db, claimed.map((t) => ({ tenantId: t.tenant_id, topic: 'task' as const, kind: 'task.running', networkId: t.network_id, payload: { task_id: t.id, network_id: t.network_id, status: 'running', attempt: t.attempts } })));
    await publishEvents(s.bus, events);
    return ids.map((id) => byId.get(id));
  });
  const finishes = createBatcher(async (items: Finish[]): Promise<undefined[]> => {
    // Each result's per-element values go in binary (resultValues.ts), all of the batch's in
    // one bytea parameter that each row takes its slice of; the JSON carries the rest.
    const values: Buffer[] = [];
    let at = 0;
    const rowsIn = items.map((f) => {
      const row = { id: f.task.id, status: f.status, result: f.result as unknown, error: f.failure, completed_at: f.completedAt.toISOString(), values_at: 0, values_len: 0 };
      const r = f.result;
      if (r && r.buses.length + r.branches.length + r.generators.length > 0) {
        const { buses, branches, generators, ...header } = r;
        const bin = encodeResultValues({ buses, branches, generators });
        row.result = header;
        row.values_at = at;
        row.values_len = bin.length;
        values.push(bin);
        at += bin.length;
      }
      return row;
    });
    const { rows } = await s.db.query<TaskRow>(
      `UPDATE tasks t SET status = x.status, result = x.result, error = x.error, completed_at = x.completed_at,
         result_values = CASE WHEN x.values_len > 0 THEN substring($2::bytea FROM x.values_at + 1 FOR x.values_len) END
       FROM json_to_recordset($1::json) AS x(id text, status text, result json, error jsonb, completed_at timestamptz, values_at int, values_len int)
       WHERE t.id = x.id AND t.status = 'running' RETURNING ${TASK_COLUMNS.split(', ').map((c) => `t.${c}`).join(', ')}`,
      [JSON.stringify(rowsIn), Buffer.concat(values)]);
    if (rows.length === 0) return items.map(() => undefined);
    const byId = new Map(items.map((f) => [f.task.id, f]));
    const finals = rows.map((r) => ({ ...r, result: byId.get(r.id)!.result as unknown as Record<string, unknown> | null })).sort((a, b) => Number(a.seq) - Number(b.seq));
    await networksChanged(s, finals.map((t) => t.tenant_id)); // their networks are no longer locked
    // Alarms first, so a caller woken by the announcement already sees them (docs/alarms.md).
    const newest = new Map<string, TaskRow>();
    for (const t of finals) if (t.status === 'completed') newest.set(t.network_id, t);
    for (const t of newest.values()) {
      await evaluatePowerFlowAlarms(s, t, undefined, byId.get(t.id)!.model).catch((e) => s.log.error({ err: e, task: t.id }, 'alarm evaluation failed'));
    }
    await announceFinishedMany(s, finals, true);
    return items.map(() => undefined);
  });
  l = { claims, finishes };
  lifecycles.set(s, l);
  return l;
}
const lifecycles = new WeakMap<Services, { claims: Batcher<string, TaskRow | undefined>; finishes: Batcher<Finish, void> }>();

/** Events and bus notices of a finished task (stored first, then published). */
export function announceFinished(s: Services, t: TaskRow, listsCurrent = false): Promise<void> {
  return announceFinishedMany(s, [t], listsCurrent);
}

async function announceFinishedMany(s: Services, tasks: TaskRow[], listsCurrent = false): Promise<void> {
  if (!listsCurrent) await networksChanged(s, tasks.map((t) => t.tenant_id));
  const news: NewEvent[] = [];
  for (const t of tasks) {
    const rstatus = (t.result as { status?: string } | null)?.status ?? t.status;
    news.push({ tenantId: t.tenant_id, topic: 'task', kind: `task.${t.status}`, networkId: t.network_id, payload: { task_id: t.id, network_id: t.network_id, status: t.status, ...(t.error ? { error: t.error } : {}) } });
    if (t.result || t.status !== 'cancelled') {
      news.push({ tenantId: t.tenant_id, topic: 'powerflow', kind: 'powerflow.finished', networkId: t.network_id, payload: { task_id: t.id, network_id: t.network_id, status: rstatus, iterations: (t.result as { iterations?: number } | null)?.iterations ?? null } });
    }
  }
  await publishEvents(s.bus, await insertEvents(s.db, news));
  await Promise.all(tasks.map((t) => s.bus.publish('task', { task_id: t.id, tenant_id: t.tenant_id, status: t.status })));
}
