// Running a power-flow task (kind 'powerflow', src/domain/powerflow.ts): the network version's
// model on this process's solver pool, progress per iteration on the bus (and stored every
// PROGRESS_WRITE_MS), the result stored through the batched task life cycle (./execute.ts).
import type { Services } from '../services.js';
import type { NetworkModel } from '../domain/networkModel.js';
import type { TaskRow } from '../domain/tasks.js';
import { PowerFlowInputError, type SolveOptions, type SolveOutcome } from '../powerflow/types.js';
import { cachedModel, rideOutOutage, type Finish, type TaskResultView } from './execute.js';
import { solvePowerFlow as solveOnPool } from '../powerflow/solve.js';

const PROGRESS_WRITE_MS = 200;

export async function runPowerFlowTask(s: Services, task: TaskRow, signal: AbortSignal): Promise<void> {
  const finish = await solvePowerFlow(s, task, signal, { binaryValues: true });
  // A cancel that raced with completion wins (the row is no longer 'running'): the client was told "cancelled".
  await rideOutOutage(s, 'store the result', () => s.taskLifecycle.finishes.add(finish));
}

/** Solves a running task's power flow: its finish (status, result or failure), not yet stored. binaryValues: the
 *  result's per-element values may come as Finish.values, in their stored form, for a finish that is only stored
 *  (the queue's runs); an answer that returns them (src/queue/direct.ts) wants the arrays. */
export async function solvePowerFlow(s: Services, task: TaskRow, signal?: AbortSignal, options: { binaryValues?: boolean } = {}): Promise<Finish> {
  const startedAt = new Date(task.started_at!);

  const opts = task.options as unknown as SolveOptions;
  // Progress is stored every PROGRESS_WRITE_MS from the solve's first iteration (not from
  // the claim: a task may wait for a solver thread): a shorter solve writes none, its
  // iterations still reach live clients through the bus.
  let lastWrite = 0;
  let model: NetworkModel | undefined;
  let outcome: (SolveOutcome & { values?: Buffer }) | undefined;
  let failure: { code: string; message: string; details?: Record<string, unknown> } | undefined;
  try {
    model = await cachedModel(s, task.network_id, task.network_version);
    outcome = await solveOnPool(s.solver!, model, opts, {
      signal,
      binaryValues: options.binaryValues,
      onProgress: (p) => {
        const progress = {
          task_id: task.id,
          tenant_id: task.tenant_id,
          network_id: task.network_id,
          iteration: p.iteration,
          max_iterations: p.maxIterations,
          mismatch: p.mismatch,
          timestamp: new Date().toISOString(),
        };
        void s.bus.publish('progress', progress);
        const now = Date.now();
        if (lastWrite === 0) lastWrite = now;
        else if (now - lastWrite >= PROGRESS_WRITE_MS) {
          lastWrite = now;
          void s.db
            .query(`UPDATE tasks SET progress = $2 WHERE id = $1 AND status = 'running'`, [
              task.id,
              JSON.stringify({
                iteration: p.iteration,
                max_iterations: p.maxIterations,
                mismatch: p.mismatch,
                updated_at: progress.timestamp,
              }),
            ])
            .catch(() => {});
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
  }

  const completedAt = new Date();
  let status: 'completed' | 'failed' | 'cancelled';
  let result: TaskResultView | null = null;
  if (outcome) {
    if (outcome.status === 'converged' || outcome.status === 'diverged') {
      s.metrics.solverIterations.observe({ method: outcome.method }, outcome.iterations);
      s.metrics.solveDuration.observe({ method: outcome.method }, outcome.duration_ms / 1000);
    }
    result = {
      task_id: task.id, network_id: task.network_id, network_version: task.network_version, status: outcome.status, method: outcome.method,
      iterations: outcome.status === 'timeout' || outcome.status === 'cancelled' ? outcome.iterations ?? null : outcome.iterations,
      mismatch: outcome.mismatch, duration_ms: Math.round(outcome.duration_ms), tolerance: outcome.tolerance,
      buses: outcome.buses, branches: outcome.branches, generators: outcome.generators, losses: outcome.losses,
      ...(outcome.islands ? { islands: outcome.islands, lost_load_mw: outcome.lost_load_mw, lost_generation_mw: outcome.lost_generation_mw } : {}),
      ...(outcome.dc_lines ? { dc_lines: outcome.dc_lines } : {}),
      started_at: startedAt.toISOString(), completed_at: completedAt.toISOString(), ...(outcome.message ? { message: outcome.message } : {}),
    };
    switch (outcome.status) {
      case 'converged':
        status = 'completed';
        break;
      case 'diverged':
        status = 'failed';
        failure = {
          code: 'POWERFLOW_DIVERGED',
          message: `power flow did not converge: mismatch ${outcome.mismatch.toExponential(3)} p.u. after ${outcome.iterations} ` +
            `iterations (tolerance ${outcome.tolerance})`,
          details: { iterations: outcome.iterations, mismatch: outcome.mismatch, tolerance: outcome.tolerance },
        };
        break;
      case 'timeout':
        status = 'failed';
        failure = {
          code: 'GATEWAY_TIMEOUT',
          message: `power flow exceeded timeout_ms ${opts.timeoutMs}`,
          details: { task_id: task.id, timeout_ms: opts.timeoutMs },
        };
        break;
      default:
        status = 'cancelled';
    }
  } else {
    status = failure ? 'failed' : 'cancelled';
  }

  return { task, status, result, failure: failure ?? null, completedAt, model, ...(outcome?.values ? { values: outcome.values } : {}) };
}
