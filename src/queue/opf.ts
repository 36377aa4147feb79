// Running an OPF task (kind 'opf', src/domain/opf.ts): the network version's model on this
// process's solver pool (src/opf/solve.ts), progress per MIPS iteration on the bus (as power
// flow progress, with the OPF's own measures), and the result stored on the task.
import type { Services } from '../services.js';
import type { StoredTaskRow, TaskRow } from '../domain/tasks.js';
import { taskFromRow } from '../domain/tasks.js';
import { solveOpf } from '../opf/solve.js';
import { solveSecurityConstrainedDcOpf } from '../opf/security.js';
import type { OpfOptions, OpfResult } from '../opf/types.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { AppError } from '../lib/errors.js';
import { announceFinished, cachedModel } from './execute.js';

type Failure = { code: string; message: string; details?: Record<string, unknown> };

/** The task's final status and error from the solver's answer. */
function outcomeOf(r: OpfResult, o: OpfOptions): { status: 'completed' | 'failed' | 'cancelled'; failure: Failure | null } {
  switch (r.status) {
    case 'converged':
      return { status: 'completed', failure: null };
    case 'infeasible':
      return {
        status: 'failed',
        failure: {
          code: 'OPF_INFEASIBLE',
          message: `no dispatch meets the limits: ${r.message ?? 'the interior point method stopped infeasible'}`,
          details: { binding: r.binding ?? [], iterations: r.iterations },
        },
      };
    case 'diverged':
      return {
        status: 'failed',
        failure: {
          code: 'POWERFLOW_DIVERGED',
          message: `the OPF did not converge in ${r.iterations} iterations${r.message ? `: ${r.message}` : ''}`,
          details: { iterations: r.iterations, convergence: r.convergence },
        },
      };
    case 'timeout':
      return {
        status: 'failed',
        failure: {
          code: 'GATEWAY_TIMEOUT',
          message: `the OPF exceeded timeout_ms ${o.timeoutMs}`,
          details: { timeout_ms: o.timeoutMs, iterations: r.iterations },
        },
      };
    default:
      return { status: 'cancelled', failure: null };
  }
}

export async function runOpfTask(s: Services, task: TaskRow, signal: AbortSignal): Promise<void> {
  const o = task.options as unknown as OpfOptions;
  let result: OpfResult | undefined;
  let failure: Failure | null = null;
  let status: 'completed' | 'failed' | 'cancelled';
  try {
    const model = await cachedModel(s, task.network_id, task.network_version);
    const solve = o.security
      ? (pool: typeof s.solver, m: typeof model, call: Parameters<typeof solveOpf>[2]) => solveSecurityConstrainedDcOpf(pool!, m, o.security!, call)
      : (pool: typeof s.solver, m: typeof model, call: Parameters<typeof solveOpf>[2]) => solveOpf(pool!, m, call);
    result = await solve(s.solver, model, {
      ...o, signal,
      onProgress: (p) => {
        void s.bus.publish('progress', {
          task_id: task.id, tenant_id: task.tenant_id, network_id: task.network_id, kind: 'opf', iteration: p.iteration, max_iterations: p.maxIterations,
          mismatch: p.feasibility, timestamp: new Date().toISOString(),
          opf: { feasibility: p.feasibility, gradient: p.gradient, complementarity: p.complementarity, objective: p.objective },
        });
      },
    });
    ({ status, failure } = outcomeOf(result, o));
  } catch (e) {
    status = 'failed';
    if (e instanceof PowerFlowInputError || e instanceof AppError) {
      failure = { code: e.code, message: e.message, details: e.details as Record<string, unknown> };
    }
    else {
      s.log.error({ err: e, task: task.id }, 'OPF solver failed');
      failure = { code: 'INTERNAL_ERROR', message: `the OPF solver failed: ${(e as Error).message}` };
    }
  }
  const stored =
    status === 'completed' && result
      ? {
          task_id: task.id,
          network_id: task.network_id,
          network_version: task.network_version,
          ...result,
          duration_ms: Math.round(result.duration_ms),
          started_at: task.started_at,
          completed_at: new Date().toISOString(),
        }
      : null;
  // A cancel that raced the end wins (the row is no longer 'running').
  const { rows } = await s.db.query<StoredTaskRow>(
    `UPDATE tasks SET status = $2, result = $3::jsonb, error = $4, completed_at = now(),
       result_bytes = coalesce(octet_length($3::jsonb::text), 0)
     WHERE id = $1 AND status = 'running' RETURNING *`,
    [task.id, status, stored === null ? null : JSON.stringify(stored), failure === null ? null : JSON.stringify(failure)]);
  if (rows[0]) await announceFinished(s, taskFromRow(rows[0]));
}

