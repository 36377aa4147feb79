// Power flow: runPowerFlow (synchronous or queued), cancelTask, task(id).
import { runPowerFlow } from '../../domain/powerflow.js';
import { findTask, listTasks, type taskSummaryView, type TaskRow } from '../../domain/tasks.js';
import { AppError } from '../../lib/errors.js';
import { PowerFlowIn } from '../../schemas/networks.js';
import { need, type GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import type { FieldArgs, GqlEnum, IdArgs, Opt, PageArgs } from '../args.js';
import type { IslandingRule, PowerFlowMethod, TaskStatus } from '../../schemas/vocabulary.js';
import { checkInput } from './networks.js';
import { connection, defined, down, toNetwork, toPowerFlowResult, up } from './map.js';

interface TasksArgs extends PageArgs {
  status?: Opt<GqlEnum<TaskStatus>[]>;
  kind?: Opt<string>;
  networkId?: Opt<string>;
  from?: Opt<Date>;
  to?: Opt<Date>;
  sort?: Opt<string>;
}

interface RunPowerFlowArgs extends IdArgs {
  method?: Opt<GqlEnum<PowerFlowMethod>>;
  async?: Opt<boolean>;
  options?: Opt<{
    tolerance?: Opt<number>;
    maxIterations?: Opt<number>;
    flatStart?: Opt<boolean>;
    timeoutMs?: Opt<number>;
    enforceQLimits?: Opt<boolean>;
    islanding?: Opt<GqlEnum<IslandingRule>>;
  }>;
}

export const powerFlowResolvers = {
  Query: {
    task: query('read', async (caller, a: IdArgs, ctx) => {
      const t = await findTask(ctx.s, caller, a.id);
      // task(id) answers with a power-flow result (SPEC 4.5); a study task has none: say where to read it.
      if (t.kind === 'study') {
        const studyId = (t.options as { study_id?: string }).study_id;
        throw new AppError(
          'INVALID_FIELD',
          `task ${t.id} is a study, not a power flow: read it with study(id: "${studyId}") or tasks { study { status done total } }`,
          { field: 'id', kind: t.kind, study_id: studyId },
        );
      }
      if (t.kind === 'sensitivities') {
        throw new AppError(
          'INVALID_FIELD',
          `task ${t.id} is a sensitivities matrix, not a power flow: read it with GET /api/v1/tasks/${t.id}/export?format=json (or csv)`,
          { field: 'id', kind: t.kind },
        );
      }
      return toPowerFlowResult(t);
    }),
    tasks: query('read', async (caller, a: TasksArgs, ctx) => {
      const { items, meta } = await listTasks(ctx.s, caller, defined({
        status: a.status?.length ? a.status.map((x) => x.toLowerCase()).join(',') : undefined, kind: a.kind ?? undefined, network_id: a.networkId ?? undefined,
        from: a.from ? a.from.toISOString() : undefined, to: a.to ? a.to.toISOString() : undefined,
        page: a.page ?? undefined, page_size: a.pageSize ?? undefined, sort: a.sort ? snakeSort(a.sort) : undefined,
      }));
      return connection(items.map(toTask), meta);
    }),
  },
  Mutation: {
    runPowerFlow: mutation(
      { permission: 'compute', resourceType: 'network', rate: { ipClass: 'compute', endpoint: 'POST /networks/:id/powerflow' } },
      async (caller, a: RunPowerFlowArgs, ctx) => {
        const o = a.options ?? {};
        const req = checkInput(
          PowerFlowIn,
          defined({
            method: down<PowerFlowMethod>(a.method),
            async: a.async ?? undefined,
            tolerance: o.tolerance ?? undefined,
            max_iterations: o.maxIterations ?? undefined,
            flat_start: o.flatStart ?? undefined,
            timeout_ms: o.timeoutMs ?? undefined,
            enforce_q_limits: o.enforceQLimits ?? undefined,
            islanding: down<IslandingRule>(o.islanding),
          }),
          'options',
        );
        try {
          const answer = await runPowerFlow(ctx.s, caller, a.id, req);
          if (answer.kind === 'result') return toPowerFlowResult(answer.task);
          // Queued: the task as stored (status QUEUED, no results yet).
          return toPowerFlowResult(await findTask(ctx.s, caller, answer.task.task_id));
        } catch (e) {
          // A synchronous solve that ran out of timeout_ms is a result with status TIMEOUT, not a failure of the request.
          if (e instanceof AppError && e.code === 'GATEWAY_TIMEOUT' && typeof e.details?.task_id === 'string') {
            const t: TaskRow = await findTask(ctx.s, caller, e.details.task_id);
            return {
              ...toPowerFlowResult(t),
              status: 'TIMEOUT',
              error: { code: 'GATEWAY_TIMEOUT', message: e.message, details: e.details },
            };
          }
          throw e;
        }
      },
    ),
    cancelTask: mutation(
      { permission: 'compute', resourceType: 'task', resourceId: (a: { taskId: string }) => a.taskId },
      async (caller, a: { taskId: string }, ctx) => {
        const t = await ctx.s.tasks.cancel(caller, a.taskId);
        // finished between the read and the cancel: nothing was cancelled, as for a task found finished
        if (t.status !== 'cancelled') {
          throw new AppError('CONFLICT', `task ${a.taskId} is already ${t.status}; only queued or running tasks can be cancelled`, {
            task_id: a.taskId,
            status: t.status,
          });
        }
        return true;
      },
    ),
  },
  Task: {
    powerFlow: async (t: { id: string; kind: string }, _a: FieldArgs, ctx: GqlContext) => {
      if (t.kind !== 'powerflow') return null;
      return toPowerFlowResult(await findTask(ctx.s, need(ctx), t.id));
    },
  },
  PowerFlowResult: {
    network: async (r: { networkId: string }, _a: FieldArgs, ctx: GqlContext) => {
      const n = await ctx.loaders.network.load(r.networkId);
      return n ? toNetwork(n) : null; // deleted since

    },
  },
};

/** GraphQL sort names are camelCase (createdAt); the domain sorts by the REST names. */
function snakeSort(sort: string): string {
  return sort.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function toTask(t: ReturnType<typeof taskSummaryView> & { queue_position: number | null; raw_options?: unknown }) {
  const m = t.summary;
  return {
    id: t.task_id,
    kind: t.kind,
    status: up(t.status),
    networkId: t.network_id,
    networkVersion: t.network_version,
    options: camelKeys(t.options),
    queuePosition: t.queue_position,
    attempts: t.attempts,
    progress: t.progress
      ? {
          taskId: t.task_id,
          iteration: t.progress.iteration,
          maxIterations: t.progress.max_iterations,
          mismatch: t.progress.mismatch,
          timestamp: t.progress.updated_at ?? t.started_at ?? t.created_at,
        }
      : null,
    error: t.error ? { code: t.error.code, message: t.error.message, details: t.error.details ?? null } : null,
    summary: m
      ? {
          status: m.status,
          method: m.method ? up(m.method) : null,
          iterations: m.iterations,
          mismatch: m.mismatch,
          durationMs: m.duration_ms,
          tolerance: m.tolerance,
          losses: m.losses ? { pMw: m.losses.p_mw, qMvar: m.losses.q_mvar } : null,
          busCount: m.bus_count,
          branchCount: m.branch_count,
          generatorCount: m.generator_count,
          message: m.message ?? null,
        }
      : null,
    createdAt: t.created_at,
    startedAt: t.started_at,
    completedAt: t.completed_at,
    pollUrl: t.poll_url,
  };
}

function camelKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), v]));
}
