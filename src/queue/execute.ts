// Runs one power-flow task on this process's solver pool: the same function
// whether the task came from the in-process queue or from BullMQ on a worker.
import type { Services } from '../services.js';
import type { NetworkModel } from '../domain/network.js';
import type { SolveOptions, SolveOutcome } from '../powerflow/types.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { insertEvent, publishEvents, type StoredEvent } from '../domain/events.js';
import { loadVersion, networksChanged } from '../domain/networks.js';
import type { TaskRow } from '../domain/tasks.js';
import { evaluatePowerFlowAlarms } from '../domain/alarms.js';

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
  m = await loadVersion(s.db, networkId, version);
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
  const claimed = await s.db.query<TaskRow>(
    `UPDATE tasks SET status = 'running', started_at = now(), attempts = attempts + 1
     WHERE id = $1 AND status IN ('dispatched', 'running') RETURNING *`, [taskId]);
  const task = claimed.rows[0];
  if (!task) return; // cancelled (or finished) before it started
  const startedAt = new Date(task.started_at!);
  const ev = await insertEvent(s.db, { tenantId: task.tenant_id, topic: 'task', kind: 'task.running', networkId: task.network_id, payload: { task_id: task.id, network_id: task.network_id, status: 'running', attempt: task.attempts } });
  await publishEvents(s.bus, [ev]);

  const controller = new AbortController();
  running.set(task.id, controller);
  // A cancel that landed between the claim and this registration found no
  // controller to abort: look once more so the solve never runs for nothing.
  const recheck = await s.db.query<{ status: string }>('SELECT status FROM tasks WHERE id = $1', [task.id]);
  if (recheck.rows[0]?.status !== 'running') controller.abort();
  const opts = task.options as unknown as SolveOptions;
  let lastWrite = 0;
  let outcome: SolveOutcome | undefined;
  let failure: { code: string; message: string; details?: Record<string, unknown> } | undefined;
  try {
    const model = await cachedModel(s, task.network_id, task.network_version);
    outcome = await s.solver.solve(model, opts, {
      signal: controller.signal,
      onProgress: (p) => {
        const progress = { task_id: task.id, tenant_id: task.tenant_id, network_id: task.network_id, iteration: p.iteration, max_iterations: p.maxIterations, mismatch: p.mismatch, timestamp: new Date().toISOString() };
        void s.bus.publish('progress', progress);
        const now = Date.now();
        if (now - lastWrite >= PROGRESS_WRITE_MS) {
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

  // A cancel that raced with completion wins: the client was told "cancelled".
  const done = await s.db.query<TaskRow>(
    `UPDATE tasks SET status = $2, result = $3, error = $4, completed_at = $5
     WHERE id = $1 AND status = 'running' RETURNING *`,
    [task.id, status, result ? JSON.stringify(result) : null, failure ? JSON.stringify(failure) : null, completedAt]);
  const final = done.rows[0];
  if (!final) return;
  await networksChanged(s, [final.tenant_id]); // its network is no longer locked
  // Alarms first, so a caller woken by the announcement already sees them (docs/alarms.md).
  if (final.status === 'completed') await evaluatePowerFlowAlarms(s, final).catch((e) => s.log.error({ err: e, task: final.id }, 'alarm evaluation failed'));
  await announceFinished(s, final, true);
}

/** Events and bus notices of a finished task (stored first, then published). */
export async function announceFinished(s: Services, t: TaskRow, listsCurrent = false): Promise<void> {
  if (!listsCurrent) await networksChanged(s, [t.tenant_id]);
  const events: StoredEvent[] = [];
  const rstatus = (t.result as { status?: string } | null)?.status ?? t.status;
  events.push(await insertEvent(s.db, { tenantId: t.tenant_id, topic: 'task', kind: `task.${t.status}`, networkId: t.network_id, payload: { task_id: t.id, network_id: t.network_id, status: t.status, ...(t.error ? { error: t.error } : {}) } }));
  if (t.result || t.status !== 'cancelled') {
    events.push(await insertEvent(s.db, { tenantId: t.tenant_id, topic: 'powerflow', kind: 'powerflow.finished', networkId: t.network_id, payload: { task_id: t.id, network_id: t.network_id, status: rstatus, iterations: (t.result as { iterations?: number } | null)?.iterations ?? null } }));
  }
  await publishEvents(s.bus, events);
  await s.bus.publish('task', { task_id: t.id, tenant_id: t.tenant_id, status: t.status });
}
