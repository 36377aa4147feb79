// Power flow: runPowerFlow (synchronous or queued), cancelTask, task(id).
import { runPowerFlow } from '../../domain/powerflow.js';
import { findTask, type TaskRow } from '../../domain/tasks.js';
import { AppError } from '../../lib/errors.js';
import { PowerFlowIn } from '../../routes/api/v1/networks/schema.js';
import type { GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import { checkInput } from './networks.js';
import { defined, down, toNetwork, toPowerFlowResult } from './map.js';

type Args = Record<string, any>;

export const powerFlowResolvers = {
  Query: {
    task: query('read', async (caller, a, ctx) => toPowerFlowResult(await findTask(ctx.s.db, caller, a.id))),
  },
  Mutation: {
    runPowerFlow: mutation({ permission: 'compute', resourceType: 'network', rate: { ipClass: 'compute', endpoint: 'POST /networks/:id/powerflow' } }, async (caller, a, ctx) => {
      const o = a.options ?? {};
      const req = checkInput<Record<string, unknown>>(PowerFlowIn, defined({
        method: down(a.method), async: a.async ?? undefined, tolerance: o.tolerance ?? undefined, max_iterations: o.maxIterations ?? undefined,
        flat_start: o.flatStart ?? undefined, timeout_ms: o.timeoutMs ?? undefined, enforce_q_limits: o.enforceQLimits ?? undefined,
      }), 'options');
      try {
        const answer = await runPowerFlow(ctx.s, caller, a.id, req);
        if (answer.kind === 'result') return toPowerFlowResult(answer.task);
        // Queued: the task as stored (status QUEUED, no results yet).
        return toPowerFlowResult(await findTask(ctx.s.db, caller, answer.task.task_id));
      } catch (e) {
        // A synchronous solve that ran out of timeout_ms is a result with status TIMEOUT, not a failure of the request.
        if (e instanceof AppError && e.code === 'GATEWAY_TIMEOUT' && typeof e.details?.task_id === 'string') {
          const t: TaskRow = await findTask(ctx.s.db, caller, e.details.task_id);
          return { ...toPowerFlowResult(t), status: 'TIMEOUT', error: { code: 'GATEWAY_TIMEOUT', message: e.message, details: e.details } };
        }
        throw e;
      }
    }),
    cancelTask: mutation({ permission: 'compute', resourceType: 'task', resourceId: (a) => a.taskId }, async (caller, a, ctx) => {
      await ctx.s.tasks.cancel(caller, a.taskId);
      return true;
    }),
  },
  PowerFlowResult: {
    network: async (r: { networkId: string }, _a: Args, ctx: GqlContext) => {
      const n = await ctx.loaders.network.load(r.networkId);
      return n ? toNetwork(n) : null; // deleted since

    },
  },
};
