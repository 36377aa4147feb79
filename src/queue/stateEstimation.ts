// Running a state-estimation task (kind 'state_estimation', src/domain/stateEstimation.ts): the network version's
// model and the task's measurements on this process's solver pool (src/stateEstimation/solve.ts), progress per
// Gauss–Newton iteration on the bus (topic powerflow, kind state_estimation.progress), the result stored on the
// task, and the alarms judged on a converged estimate as on a power flow (src/domain/alarms.ts).
import type { Services } from '../services.js';
import type { StoredTaskRow, TaskRow } from '../domain/tasks.js';
import { taskFromRow } from '../domain/tasks.js';
import type { StateEstimationTaskOptions } from '../domain/stateEstimation.js';
import { solveStateEstimation } from '../stateEstimation/solve.js';
import type { StateEstimationResult } from '../stateEstimation/types.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { announceFinished, cachedModel } from './execute.js';

type Failure = { code: string; message: string; details?: Record<string, unknown> };

/** converged and unobservable are answers (an unobservable set is named, not an error); the rest fail. */
function outcomeOf(
  r: StateEstimationResult,
  o: StateEstimationTaskOptions,
): { status: 'completed' | 'failed' | 'cancelled'; failure: Failure | null } {
  switch (r.status) {
    case 'converged':
    case 'unobservable':
      return { status: 'completed', failure: null };
    case 'diverged':
      return {
        status: 'failed',
        failure: {
          code: 'POWERFLOW_DIVERGED',
          message: `the state estimate did not converge in ${o.maxIterations} iterations`,
          details: { iterations: r.iterations },
        },
      };
    case 'timeout':
      return {
        status: 'failed',
        failure: {
          code: 'GATEWAY_TIMEOUT',
          message: `the state estimate exceeded timeout_ms ${o.timeoutMs}`,
          details: { timeout_ms: o.timeoutMs },
        },
      };
    default:
      return { status: 'cancelled', failure: null };
  }
}

export async function runStateEstimationTask(s: Services, task: TaskRow, signal: AbortSignal): Promise<void> {
  const o = task.options as unknown as StateEstimationTaskOptions;
  let result: StateEstimationResult | undefined;
  let failure: Failure | null = null;
  let status: 'completed' | 'failed' | 'cancelled';
  const model = await cachedModel(s, task.network_id, task.network_version);
  try {
    result = await solveStateEstimation(s.solver!, model, o.measurements, {
      maxIterations: o.maxIterations,
      badDataThreshold: o.badDataThreshold,
      timeoutMs: o.timeoutMs,
      signal,
      onProgress: (iteration) => {
        void s.bus.publish('progress', {
          task_id: task.id,
          tenant_id: task.tenant_id,
          network_id: task.network_id,
          kind: 'state_estimation',
          iteration,
          max_iterations: o.maxIterations,
          mismatch: null,
          timestamp: new Date().toISOString(),
        });
      },
    });
    ({ status, failure } = outcomeOf(result, o));
  } catch (e) {
    status = 'failed';
    if (e instanceof PowerFlowInputError) failure = { code: e.code, message: e.message, details: e.details };
    else {
      s.log.error({ err: e, task: task.id }, 'state estimator failed');
      failure = { code: 'INTERNAL_ERROR', message: `the state estimator failed: ${(e as Error).message}` };
    }
  }
  const stored =
    status === 'completed' && result
      ? {
          task_id: task.id,
          network_id: task.network_id,
          network_version: task.network_version,
          at: o.at,
          max_age_s: o.max_age_s,
          ...result,
          duration_ms: Math.round(result.duration_ms),
          sources: o.sources,
          unread: o.unread,
          started_at: task.started_at,
          completed_at: new Date().toISOString(),
        }
      : null;
  const { rows } = await s.db.query<StoredTaskRow>(
    `UPDATE tasks SET status = $2, result = $3, error = $4, completed_at = now() WHERE id = $1 AND status = 'running' RETURNING *`,
    [task.id, status, stored === null ? null : JSON.stringify(stored), failure === null ? null : JSON.stringify(failure)],
  );
  if (!rows[0]) return;
  const row = taskFromRow(rows[0]);
  if (stored?.status === 'converged') {
    await s.powerFlowJudge.judge(s, { task: row, result: stored as unknown as Record<string, unknown>, model });
  }
  await announceFinished(s, row);
}
