// run_powerflow: a power flow of the agent's network through the task queue (same FIFO,
// quotas, locking, stored result and alarms as POST /networks/{id}/powerflow).
import { Type } from '@sinclair/typebox';
import { AppError, type ErrorCode } from '../../../lib/errors.js';
import { loadVersion } from '../../networks.js';
import { runPowerFlow } from '../../powerflow.js';
import type { TaskRow } from '../../tasks.js';
import { abortError } from '../context.js';
import { defineCommand } from '../registry.js';
import { ISLANDING_RULES } from '../../../schemas/vocabulary.js';
import { agentNetwork, flowSummary, type FlowLike } from './network.js';

const lit = <T extends string>(values: readonly T[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** Task errors passed on as they are; anything else is an internal failure (its text is logged, not sent). */
const KNOWN: ErrorCode[] = ['POWERFLOW_DIVERGED', 'GATEWAY_TIMEOUT', 'TOPOLOGY_INVALID', 'ISLANDED_BUS', 'BUS_NOT_FOUND', 'VALIDATION_FAILED'];

export default defineCommand({
  name: 'run_powerflow',
  params: Type.Object({
    method: Type.Optional(lit(['newton_raphson', 'fast_decoupled', 'dc'] as const)),
    tolerance: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
    max_iterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    flat_start: Type.Optional(Type.Boolean()),
    enforce_q_limits: Type.Optional(Type.Boolean()),
    islanding: Type.Optional(lit(ISLANDING_RULES)),
  }),
  control: false, slot: true, anyState: false,
  async run(ctx, p) {
    const { s, caller } = ctx;
    const { summary } = await agentNetwork(s, caller, ctx.agent, ctx);
    const budget = ctx.remaining();
    const answer = await runPowerFlow(s, caller, summary.id, { ...p, async: true, timeout_ms: Math.max(1, budget - 20) });
    if (answer.kind !== 'queued') throw new Error('runPowerFlow answered synchronously to an async request');
    const taskId = answer.task.task_id;
    const aborted = new Promise<'aborted'>((resolve) => {
      if (ctx.signal.aborted) resolve('aborted');
      else ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    const done = await Promise.race([s.tasks.waitFor(taskId, budget + 250), aborted]);
    if (done === 'aborted' || done === undefined) {
      await s.tasks.cancel(caller, taskId).catch(() => {});
      ctx.checkpoint();
      throw abortError(ctx, 'timeout');
    }
    const t: TaskRow = done;
    if (t.status !== 'completed' || !t.result) {
      const err = t.error ?? { code: 'INTERNAL_ERROR', message: `power flow task ${t.id} ended ${t.status}` };
      const code = (KNOWN.find((k) => k === err.code) ?? (t.status === 'cancelled' ? 'CONFLICT' : 'INTERNAL_ERROR')) as ErrorCode;
      if (code === 'INTERNAL_ERROR') {
        s.log.error({ task_id: t.id, task_error: err, command_id: ctx.action.command_id }, 'the power flow task of an agent command failed');
        throw new AppError(
          code,
          `the power flow task ${t.id} of command run_powerflow failed (${t.status}); nothing was changed. Retry it; if it happens ` +
            `again, give an administrator the task_id`,
          { task_id: t.id, reason: 'internal_error' },
        );
      }
      throw new AppError(code, err.message, { task_id: t.id, ...(err.details ?? {}) });
    }
    const model = await loadVersion(s.db, summary.id, t.network_version);
    return {
      task_id: t.id,
      network_id: summary.id,
      network_version: t.network_version,
      ...flowSummary(model, t.result as FlowLike),
      constraint_checked: false,
    };
  },
});
