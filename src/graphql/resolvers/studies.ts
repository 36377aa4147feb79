// Studies over GraphQL: runStudy, cancelStudy, study(id) with its cases, and the
// studyProgress subscription. The same domain functions as REST (src/domain/studies.ts).
import type { Caller } from '../../domain/caller.js';
import { cancelStudy, getStudy, listStudyCases, submitStudy, type StudyView } from '../../domain/studies.js';
import { AppError } from '../../lib/errors.js';
import { checkStudyRequest, type StudyCaseRow } from '../../studies/index.js';
import { allow, need, type GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import type { FieldArgs, GqlEnum, IdArgs, Opt, PageArgs } from '../args.js';
import type {
  PowerFlowMethod, StudyCaseStatus, StudyIslanding, StudyKind, StudyScreeningMethod, StudyViolationType, StudyWarmStart,
} from '../../schemas/vocabulary.js';
import { PushIterator } from '../streams.js';
import { connection, defined, down, normalizeEvent, up } from './map.js';

interface RunStudyArgs extends IdArgs {
  kind: GqlEnum<StudyKind>;
  contingencies?: Opt<unknown>;
  scenarios?: Opt<unknown>;
  monitor?: Opt<unknown>;
  loadingLimitPercent?: Opt<number>;
  options?: Opt<{
    method?: Opt<GqlEnum<PowerFlowMethod>>; tolerance?: Opt<number>; maxIterations?: Opt<number>; enforceQLimits?: Opt<boolean>;
    islanding?: Opt<GqlEnum<StudyIslanding>>; screeningThresholdPercent?: Opt<number>; screeningMethod?: Opt<GqlEnum<StudyScreeningMethod>>;
    flowIncreasePercent?: Opt<number>; voltageIncreasePu?: Opt<number>; warmStart?: Opt<GqlEnum<StudyWarmStart>>;
  }>;
}

interface CasesArgs extends PageArgs {
  status?: Opt<GqlEnum<StudyCaseStatus>[]>;
  violation?: Opt<GqlEnum<StudyViolationType>[]>;
  /** only cases with a new or worsened violation (REST violation=new) */
  newViolations?: Opt<boolean>;
  sort?: Opt<string>;
}

const FINISHED = new Set(['completed', 'failed', 'cancelled']);

function toStudy(v: StudyView) {
  return {
    id: v.study_id,
    taskId: v.task_id,
    networkId: v.network_id,
    networkVersion: v.network_version,
    kind: up(v.kind),
    status: up(v.status),
    done: v.progress.done,
    total: v.progress.total,
    request: v.request,
    base: v.base,
    counts: {
      ...v.counts.by_status,
      branchOverload: v.counts.by_violation.branch_overload,
      lowVoltage: v.counts.by_violation.low_voltage,
      highVoltage: v.counts.by_violation.high_voltage,
      withViolations: v.counts.with_violations,
      casesWithLostLoad: v.counts.cases_with_lost_load,
      casesWithNewViolations: v.counts.cases_with_new_violations,
    },
    createdAt: v.timings.created_at,
    startedAt: v.timings.started_at,
    completedAt: v.timings.completed_at,
    wallMs: v.timings.wall_ms,
    solveMs: v.timings.solve_ms,
    error: v.error,
  };
}

function toCase(r: StudyCaseRow) {
  return {
    caseId: r.case_id,
    scenario: r.scenario ?? null,
    contingency: r.contingency ?? null,
    status: up(r.status),
    reason: r.reason ?? null,
    iterations: r.iterations,
    maxLoadingPercent: r.max_loading_percent,
    maxLoadingBranch: r.max_loading_branch,
    minV: r.min_v,
    minVBus: r.min_v_bus,
    maxV: r.max_v,
    maxVBus: r.max_v_bus,
    violations: r.violations.map((v) => ({
      type: up(v.type),
      element: v.element,
      value: v.value,
      limit: v.limit,
      baseValue: v.base_value,
      kind: up(v.kind),
    })),
    newViolations: r.new_violations,
    maxNewLoadingPercent: r.max_new_loading_percent,
    islanded: r.islanded ? { buses: r.islanded.buses, loadMw: r.islanded.load_mw, generationMw: r.islanded.generation_mw } : null,
    monitored: r.monitored ?? null,
  };
}

const progressOf = (v: StudyView) => ({ studyId: v.study_id, status: up(v.status), done: v.progress.done, total: v.progress.total, timestamp: new Date() });

/**
 * The study's state now, then one message per finished chunk (study.progress events from
 * any process), then its final state; completes when the study ends. Subscribes before
 * reading the state, and drops live messages older than it, so nothing is missed.
 */
async function studyProgress(ctx: GqlContext, caller: Caller, studyId: string): Promise<PushIterator<ReturnType<typeof progressOf>>> {
  const it = new PushIterator<ReturnType<typeof progressOf>>();
  let floor = -1; // done of the state read at subscription; null-free once known
  let pending: Record<string, unknown>[] | null = [];
  let chain = Promise.resolve();
  const onEvent = (m: Record<string, unknown>) => {
    const e = normalizeEvent(m);
    if (e.topic !== 'powerflow' || e.payload.study_id !== studyId) return;
    if (e.kind === 'study.progress') {
      const done = Number(e.payload.done);
      if (done < floor) return;
      floor = done;
      it.push({ studyId, status: 'RUNNING', done, total: Number(e.payload.total), timestamp: new Date(e.timestamp) });
    } else if (e.kind === 'study.finished') {
      // The final counts are read once the finish is stored (the event is published after it).
      chain = chain.then(() => getStudy(ctx.s, caller, studyId)).then((v) => { it.push(progressOf(v)); it.end(); }, (err) => it.fail(err));
    }
  };
  const unsubscribe = ctx.s.bus.subscribe('event', (m: Record<string, unknown>) => {
    if (m.tenant_id !== caller.tenantId) return;
    if (pending) pending.push(m);
    else onEvent(m);
  });
  it.onClose(unsubscribe);
  try {
    await ctx.s.bus.ready('event');
    const now = await getStudy(ctx.s, caller, studyId);
    it.push(progressOf(now));
    floor = now.progress.done;
    if (FINISHED.has(now.status)) {
      it.end();
      return it;
    }
    const live = pending;
    pending = null;
    for (const m of live) onEvent(m);
  } catch (e) {
    await it.return();
    throw e;
  }
  return it;
}

export const studyResolvers = {
  Query: {
    study: query('read', async (caller, a: IdArgs, ctx) => {
      try {
        return toStudy(await getStudy(ctx.s, caller, a.id));
      } catch (e) {
        if (e instanceof AppError && e.code === 'NOT_FOUND') return null;
        throw e;
      }
    }),
  },
  Mutation: {
    runStudy: mutation(
      { permission: 'compute', resourceType: 'network', rate: { ipClass: 'compute', endpoint: 'POST /networks/:id/studies' } },
      async (caller, a: RunStudyArgs, ctx) => {
        const o = a.options ?? {};
        // The same check as the REST body (the first error, naming its field).
        const request = checkStudyRequest(
          defined({
            kind: down<StudyKind>(a.kind),
            contingencies: a.contingencies ?? undefined,
            scenarios: a.scenarios ?? undefined,
            monitor: a.monitor ?? undefined,
            loading_limit_percent: a.loadingLimitPercent ?? undefined,
            method: down<PowerFlowMethod>(o.method),
            tolerance: o.tolerance ?? undefined,
            max_iterations: o.maxIterations ?? undefined,
            enforce_q_limits: o.enforceQLimits ?? undefined,
            islanding: down<StudyIslanding>(o.islanding),
            screening:
              o.screeningThresholdPercent == null && o.screeningMethod == null
                ? undefined
                : defined({
                    method: o.screeningMethod == null ? undefined : down(o.screeningMethod),
                    threshold_percent: o.screeningThresholdPercent ?? undefined,
                  }),
            violation_filter:
              o.flowIncreasePercent == null && o.voltageIncreasePu == null
                ? undefined
                : defined({
                    flow_increase_percent: o.flowIncreasePercent ?? undefined,
                    voltage_increase_pu: o.voltageIncreasePu ?? undefined,
                  }),
            warm_start: down<StudyWarmStart>(o.warmStart),
          }),
        );
        const sub = await submitStudy(ctx.s, caller, a.id, request);
        return toStudy(await getStudy(ctx.s, caller, sub.study_id));
      },
    ),
    cancelStudy: mutation({ permission: 'compute', resourceType: 'study' }, async (caller, a: IdArgs, ctx) => toStudy(await cancelStudy(ctx.s, caller, a.id))),
  },
  Task: {
    study: async (t: { kind: string; options: Record<string, unknown> }, _a: FieldArgs, ctx: GqlContext) => {
      const studyId = t.options.studyId;
      if (t.kind !== 'study' || typeof studyId !== 'string') return null;
      return toStudy(await getStudy(ctx.s, need(ctx), studyId));
    },
  },
  Study: {
    cases: async (st: { id: string }, a: CasesArgs, ctx: GqlContext) => {
      const caller = allow(ctx, 'read');
      const list = (v: string[] | null | undefined) => (v?.length ? v.map((x) => x.toLowerCase()).join(',') : undefined);
      const violation = a.newViolations ? [list(a.violation), 'new'].filter(Boolean).join(',') : list(a.violation);
      const { items, meta } = await listStudyCases(ctx.s, caller, st.id, {
        status: list(a.status), violation, sort: a.sort ?? undefined, page: a.page ?? 1, page_size: a.pageSize ?? 20,
      });
      return connection(items.map(toCase), meta);
    },
  },
  Subscription: {
    studyProgress: {
      subscribe: async (_r: unknown, a: { studyId: string }, ctx: GqlContext) => studyProgress(ctx, allow(ctx, 'read'), a.studyId),
      resolve: (m: unknown) => m,
    },
  },
};
