// Power flow requests (SPEC 4.3): every solve becomes a task on the shared queue,
// so quotas, FIFO order, locking and stored results are the same whether the
// caller waits for the answer (synchronous) or polls the task (asynchronous).
// A synchronous one whose tenant has a free slot and nothing queued is solved at
// once and stored as a finished task in the group commit after its answer (src/queue/direct.ts).
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { getNetworkState } from './networks.js';
import { DEFAULT_SOLVE_OPTIONS, type SolveOptions } from '../powerflow/types.js';
import { taskView, type TaskRow } from './tasks.js';
import type { Static } from '@sinclair/typebox';
import type { PowerFlowIn } from '../schemas/networks.js';

/** POST /networks/{id}/powerflow's body (src/schemas/networks.ts), also what GraphQL and agents send. */
export type PowerFlowRequest = Static<typeof PowerFlowIn>;

export function solveOptions(r: PowerFlowRequest): SolveOptions {
  return {
    method: r.method ?? DEFAULT_SOLVE_OPTIONS.method,
    tolerance: r.tolerance ?? DEFAULT_SOLVE_OPTIONS.tolerance,
    maxIterations: r.max_iterations ?? DEFAULT_SOLVE_OPTIONS.maxIterations,
    flatStart: r.flat_start ?? false,
    enforceQLimits: r.enforce_q_limits ?? false,
    timeoutMs: r.timeout_ms ?? DEFAULT_SOLVE_OPTIONS.timeoutMs,
    ...(r.islanding && r.islanding !== 'refuse' ? { islanding: r.islanding } : {}),
  };
}

export type PowerFlowAnswer =
  | { kind: 'queued'; task: ReturnType<typeof taskView> }
  | { kind: 'result'; result: Record<string, unknown>; task: TaskRow };

export async function runPowerFlow(
  s: Pick<Services, 'networkStates' | 'tasks'>,
  caller: Caller,
  networkId: string,
  req: PowerFlowRequest,
): Promise<PowerFlowAnswer> {
  const net = await getNetworkState(s, caller, networkId);
  if (net.status === 'archived')
    throw new AppError('CONFLICT', `network ${networkId} is archived; restore it (status "ready") before running a power flow`, {
      network_id: networkId,
      status: net.status,
    });
  if (net.status === 'draft')
    throw new AppError('CONFLICT', `network ${networkId} is a draft; set its status to "ready" before running a power flow`, {
      network_id: networkId,
      status: net.status,
    });
  const options = solveOptions(req);
  // Synchronous with a free slot: solved at once, the task stored with its result (src/queue/direct.ts).
  const direct = req.async ? undefined : await s.tasks.direct?.run(caller, networkId, net.version, options);
  if (direct) return finishedAnswer(direct);
  const task = await s.tasks.submit(caller, networkId, net.version, options);
  if (req.async) return { kind: 'queued', task: taskView(task) };

  // Synchronous: wait for the task, bounded by timeout_ms (queueing included).
  const done = await s.tasks.waitFor(task.id, options.timeoutMs + 250);
  if (!done) {
    await s.tasks.cancel(caller, task.id).catch(() => {});
    throw new AppError(
      'GATEWAY_TIMEOUT',
      `power flow did not finish within timeout_ms ${options.timeoutMs}; the task was stopped (poll it for details, or use "async": true for long studies)`,
      { task_id: task.id, timeout_ms: options.timeoutMs },
    );
  }
  return finishedAnswer(done);
}

function finishedAnswer(t: TaskRow): PowerFlowAnswer {
  if (t.status === 'completed' && t.result) return { kind: 'result', result: t.result, task: t };
  const err = t.error ?? { code: 'INTERNAL_ERROR', message: `task ended ${t.status}` };
  if (err.code === 'POWERFLOW_DIVERGED') throw new AppError('POWERFLOW_DIVERGED', err.message, { task_id: t.id, ...err.details });
  if (err.code === 'GATEWAY_TIMEOUT') throw new AppError('GATEWAY_TIMEOUT', err.message, { task_id: t.id, ...err.details });
  if (t.status === 'cancelled') throw new AppError('CONFLICT', `power flow task ${t.id} was cancelled before it finished`, { task_id: t.id });
  const code = (['TOPOLOGY_INVALID', 'ISLANDED_BUS', 'BUS_NOT_FOUND', 'VALIDATION_FAILED'] as const).find((c) => c === err.code) ?? 'INTERNAL_ERROR';
  throw new AppError(code, err.message, { task_id: t.id, ...err.details });
}
