// Studies (CONTRACT.md "Studies"): the interface between the study engine
// (src/studies/ + assembly/study*.ts + workers/solver.ts) and the service that
// stores, queues and serves studies (src/domain/studies.ts, routes, GraphQL, CLI).
//
// The service's path through a study:
//
//   const plan = planStudy(network, request);        // plan.ts: throws AppError INVALID_FIELD (400)
//   plan.caseCount                                    // judge quotas / limits before queueing
//   const base = await solveStudyBase(pool, network, plan, { signal });          // solve.ts
//   for each chunk [start, end) of [0, plan.caseCount):
//     const chunk = await solveStudyChunk(pool, network, plan, start, end, { signal, onProgress });
//     store(chunk)                                    // compact typed arrays, structured-cloneable
//     rows = studyChunkRows(plan, chunk)              // rows.ts: StudyCaseRow[] as CONTRACT's GET /cases
//
// planStudy is pure and deterministic: any process (API, ROLE=worker) given the same
// network version and request gets the same plan, so a chunk can be solved anywhere
// from (network, request, start, end) alone. Every chunk solves the base case again
// inside its worker (one power flow) and warm-starts its contingencies from it, so a
// chunk needs nothing from another chunk and results do not depend on the number
// of workers or on which one solved what.
//
// Case order (case index k in [0, caseCount)):
//   kind contingency:              k = contingency position
//   kind scenarios, no contingencies: k = scenario
//   kind scenarios with contingencies: k = scenario * contingencyCount + contingency position
//     (scenario-major: a chunk reuses each scenario's intact solution for its contingencies)
// Case ids: `branch:<index>`, `generator:<index>` (n-1 shorthands), the request's `id` or
// `contingency:<position>` (N-k lists), `scenario:<s>`, and `scenario:<s>/<contingency id>`.
import {
  literals, STUDY_ISLANDING, STUDY_KINDS, STUDY_SCREENING_METHODS, STUDY_WARM_STARTS, type StudyCaseStatus, type StudyIslanding, type StudyScreeningMethod,
  type StudyViolationKind, type StudyViolationType, type StudyWarmStart,
} from '../schemas/vocabulary.js';
import { Type, type Static } from '@sinclair/typebox';
import { STATUS } from '../powerflow/abi.generated.js';
import { CODE, VIOL } from './abi.generated.js';

const Index = Type.Integer({ minimum: 0, description: '0-based position in the network list' });
const Column = Type.Array(Type.Number(), { description: 'one value per scenario (length = count)' });

export const ContingencySchema = Type.Object({
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  branches: Type.Optional(Type.Array(Index, { maxItems: 1000 })),
  generators: Type.Optional(Type.Array(Index, { maxItems: 1000 })),
}, { additionalProperties: false });

export const ContingencySetSchema = Type.Union([
  Type.Literal('n-1-branches'),
  Type.Literal('n-1-generators'),
  Type.Literal('n-1'),
  Type.Array(ContingencySchema),
]);

export const ScenariosSchema = Type.Object({
  count: Type.Integer({ minimum: 1 }),
  load_scale: Type.Optional(Column),
  loads: Type.Optional(Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.Object({
    p_mw: Column,
    q_mvar: Type.Optional(Column),
  }, { additionalProperties: false }))),
  generators: Type.Optional(Type.Record(Type.String({ pattern: '^[0-9]+$' }), Type.Object({
    p_mw: Column,
  }, { additionalProperties: false }))),
}, { additionalProperties: false });

export const MonitorSchema = Type.Object({
  branches: Type.Optional(Type.Union([Type.Literal('all'), Type.Array(Index)])),
  buses: Type.Optional(Type.Union([Type.Literal('all'), Type.Array(Type.Integer())])),
}, { additionalProperties: false });

/** The body of POST /api/v1/networks/{id}/studies. */
export const StudyRequestSchema = Type.Object({
  kind: literals(STUDY_KINDS),
  method: Type.Optional(Type.Union([Type.Literal('newton_raphson'), Type.Literal('fast_decoupled'), Type.Literal('dc')])),
  tolerance: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  max_iterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  enforce_q_limits: Type.Optional(Type.Boolean()),
  contingencies: Type.Optional(ContingencySetSchema),
  scenarios: Type.Optional(ScenariosSchema),
  monitor: Type.Optional(MonitorSchema),
  loading_limit_percent: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  /** contingency screening (CONTRACT "Contingency screening"): AC only for the cases that could cause a new or worsened overload */
  screening: Type.Optional(Type.Object({
    method: Type.Optional(literals(STUDY_SCREENING_METHODS)),
    threshold_percent: Type.Optional(Type.Number({ minimum: 0, maximum: 10000 })),
  }, { additionalProperties: false })),
  /** when a violation already in the base case counts as worsened (CONTRACT "Violations relative to the base case") */
  violation_filter: Type.Optional(Type.Object({
    flow_increase_percent: Type.Optional(Type.Number({ minimum: 0 })),
    voltage_increase_pu: Type.Optional(Type.Number({ minimum: 0 })),
  }, { additionalProperties: false })),
  /** an outage that splits the network: isolate (default), new_reference or skip (CONTRACT "Islands") */
  islanding: Type.Optional(literals(STUDY_ISLANDING)),
  /** kind scenarios: each scenario starts like a power flow (default), or from the scenario before it (previous) */
  warm_start: Type.Optional(literals(STUDY_WARM_STARTS)),
  /** solve from a state estimate (CONTRACT "State estimation"): src/stateEstimation/studyBase.ts */
  base: Type.Optional(Type.Object({ state_estimation: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false })),
}, { additionalProperties: false });

export type StudyRequest = Static<typeof StudyRequestSchema>;
export type StudyKind = StudyRequest['kind'];

/** One outage: branch / generator positions (0-based, in service in the network version). */
export interface StudyContingency {
  id: string;
  branches: number[];
  generators: number[];
}

/** Scenario columns, normalized (indexes as numbers, Float64Array columns of length count). */
export interface StudyScenarios {
  count: number;
  loadScale: Float64Array | null;
  loads: { index: number; p: Float64Array; q: Float64Array | null }[];
  generators: { index: number; p: Float64Array }[];
}

export interface StudyPlan {
  kind: StudyKind;
  options: { method: 'newton_raphson' | 'fast_decoupled' | 'dc'; tolerance: number; maxIterations: number; enforceQLimits: boolean };
  /** contingencies in case order; empty for a scenario sweep without contingencies. */
  contingencies: StudyContingency[];
  scenarios: StudyScenarios | null;
  /** number of cases (see the case order above). */
  caseCount: number;
  /** monitored branch positions and bus ids, ascending. */
  monitor: { branches: number[]; buses: number[] };
  loadingLimitPercent: number;
  islanding: StudyIslanding;
  /** screening: cases whose estimate cannot reach a new or worsened overload are not solved in AC (./screening.ts) */
  screening: { method: StudyScreeningMethod; thresholdPercent: number } | null;
  /** worsened = loading ≥ base × (1 + flowIncreasePercent / 100), or v further outside its limit by voltageIncreasePu */
  violationFilter: { flowIncreasePercent: number; voltageIncreasePu: number };
  /** 'previous': a scenario starts from the one before it in its chunk when that one converged (docs/studies.md) */
  warmStart: StudyWarmStart;
  /** the screen's estimate (./screening.ts, never a request's): outage cases run this many iterations and report
   *  the state reached, converged or not */
  estimateIterations?: number;
  /** the estimate refactorises B' / B'' per outage instead of updating the intact factors: the update's test reference */
  estimateRefactor?: boolean;
  /** the estimate iterates on where its first iteration comes within `change` × |change| + `points` of a branch's
   *  trigger (loading %, per branch position), up to `iterations` in all, until its loading step contracts */
  estimateSharpen?: { iterations: number; change: number; points: number; trigger: Float64Array };
}

export type { StudyCaseStatus, StudyViolationKind, StudyViolationType };

export interface StudyViolation {
  type: StudyViolationType;
  /** branch position (branch_overload) or bus id */
  element: number;
  /** loading % or v p.u. */
  value: number;
  /** loading_limit_percent, or the bus's vmin / vmax */
  limit: number;
  /** the element's value in the study's base case (null when the base case has none) */
  base_value: number | null;
  /** against the base case: new (within its limit there), worsened (beyond the violation filter) or pre_existing */
  kind: StudyViolationKind;
}

export interface MonitoredBranch { index: number; p_from: number; q_from: number; p_to: number; q_to: number; loading: number }
export interface MonitoredBus { id: number; v: number; theta: number }

/** What every solved case reports (a case row and the base summary). */
export interface StudyCaseMetrics {
  iterations: number;
  max_loading_percent: number | null;
  max_loading_branch: number | null;
  min_v: number | null;
  min_v_bus: number | null;
  max_v: number | null;
  max_v_bus: number | null;
  violations: StudyViolation[];
  reason?: StudyCaseReason;
  /** the request's monitored elements, converged cases only */
  monitored?: { branches: MonitoredBranch[]; buses: MonitoredBus[] };
}

/** One entry of GET /api/v1/studies/{id}/cases (CONTRACT), plus `reason` (an addition):
 *  why a case did not converge: max_iterations | not_finite | singular | slack_lost | q_limits_infeasible | cancelled. */
export interface StudyCaseRow extends StudyCaseMetrics {
  case_id: string;
  scenario?: number;
  contingency?: { id: string; branches: number[]; generators: number[] };
  status: StudyCaseStatus;
  /** violations of kind new or worsened */
  new_violations: number;
  /** the largest loading among new or worsened overloads, null without any */
  max_new_loading_percent: number | null;
  islanded?: { buses: number[]; load_mw: number; generation_mw: number };
}

export type StudyCaseReason = 'max_iterations' | 'not_finite' | 'singular' | 'slack_lost' | 'q_limits_infeasible' | 'cancelled';

/** The base case (network version as stored, no outage, no scenario): the summary of GET /studies/{id}. */
export interface StudyBaseSummary extends StudyCaseMetrics {
  status: 'converged' | 'diverged';
  /** ms inside the worker */
  solve_ms: number;
}

/** Codes of StudyChunk.code (one per case). */
export const CASE_CODE = {
  CONVERGED: STATUS.CONVERGED,
  MAX_ITERATIONS: STATUS.MAXIT,
  NOT_FINITE: STATUS.NAN,
  SINGULAR: STATUS.SINGULAR,
  CANCELLED: STATUS.CANCELLED,
  ISLANDED: CODE.ISLANDED,
  SLACK_LOST: CODE.SLACK_LOST,
  QLIM_INFEASIBLE: CODE.QLIM_INFEASIBLE,
  /** not solved in AC: the DC screen kept its loading below the threshold (src/studies/screening.ts) */
  SCREENED: 20,
} as const;

/** Codes of StudyChunk.violationType. */
export const VIOLATION_CODE = { branch_overload: VIOL.OVERLOAD, low_voltage: VIOL.LOW_V, high_voltage: VIOL.HIGH_V } as const;
/** Codes of StudyChunk.violationKind (the order of STUDY_VIOLATION_KINDS). */
export const VIOLATION_KIND_CODE = { new: 0, worsened: 1, pre_existing: 2 } as const;

/**
 * The results of cases [start, end) as columns (typed arrays: structured-cloneable and
 * transferable; a row costs ~60 bytes plus its violations). A cancelled chunk has
 * end < the requested end: cases [start, end) are complete, the rest were not solved.
 * Bus values are bus ids, branch values branch positions (-1 = none).
 */
export interface StudyChunk {
  start: number;
  end: number;
  cancelled: boolean;
  code: Uint8Array;              // CASE_CODE per case
  iterations: Uint16Array;
  minV: Float64Array;            // NaN when not converged
  minVBus: Int32Array;
  maxV: Float64Array;
  maxVBus: Int32Array;
  maxLoading: Float64Array;      // NaN when no branch has rate_a > 0 or not converged
  maxLoadingBranch: Int32Array;
  /** violations of case i: [violationStart[i], violationStart[i + 1]) */
  violationStart: Uint32Array;
  violationType: Uint8Array;
  violationElement: Int32Array;
  violationValue: Float64Array;
  violationLimit: Float64Array;
  /** per violation: the element's base-case value (NaN: none) and its VIOLATION_KIND_CODE; empty until
   *  solveStudyChunk judged the chunk against the base case (./violations.ts) */
  violationBase: Float64Array;
  violationKind: Uint8Array;
  /** islanded cases: cut-off bus ids [islandStart[i], islandStart[i + 1]) and their MW */
  islandStart: Uint32Array;
  islandBuses: Int32Array;
  islandLoadMw: Float64Array;
  islandGenerationMw: Float64Array;
  /** monitored values, case-major: per case plan.monitor.branches.length × 5 (p_from, q_from,
   *  p_to, q_to, loading) and plan.monitor.buses.length × 2 (v, theta); NaN when not converged. */
  monitoredBranches: Float64Array;
  monitoredBuses: Float64Array;
  /** estimates only (./screening.ts): per case the last loading step of an estimate that iterated on (REC.EST_STEP) */
  estimateStep?: Float64Array;
  /** ms inside the worker for the chunk (base solve included) */
  solveMs: number;
}

export interface StudyChunkHooks {
  signal?: AbortSignal;
  /** cases done in this chunk so far (reported at most every ~100 ms, and at the end) */
  onProgress?: (done: number, total: number) => void;
}
