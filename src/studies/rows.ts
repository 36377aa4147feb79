// StudyChunk (typed columns) -> StudyCaseRow[] (CONTRACT's GET /studies/{id}/cases entries).
import { studyCaseAt, studyCaseId } from './plan.js';
import {
  CASE_CODE, type StudyCaseMetrics, type StudyCaseReason, type StudyCaseRow, type StudyChunk, type StudyPlan, type StudyViolation,
  type StudyViolationType,
} from './types.js';
import { violationKindName } from './violations.js';
import { MON_BR, MON_BUS } from './abi.js';

const VIOLATION_TYPES: StudyViolationType[] = ['branch_overload', 'low_voltage', 'high_voltage'];

export function caseReason(code: number): StudyCaseReason | undefined {
  switch (code) {
    case CASE_CODE.MAX_ITERATIONS: return 'max_iterations';
    case CASE_CODE.NOT_FINITE: return 'not_finite';
    case CASE_CODE.SINGULAR: return 'singular';
    case CASE_CODE.SLACK_LOST: return 'slack_lost';
    case CASE_CODE.QLIM_INFEASIBLE: return 'q_limits_infeasible';
    case CASE_CODE.CANCELLED: return 'cancelled';
    default: return undefined;
  }
}

const orNull = (x: number): number | null => (Number.isNaN(x) ? null : x);

/** A row's count of new or worsened violations and the largest new or worsened loading. */
export function newViolationSummary(violations: StudyViolation[]): { new_violations: number; max_new_loading_percent: number | null } {
  let count = 0, max: number | null = null;
  for (const v of violations) {
    if (v.kind === 'pre_existing') continue;
    count++;
    if (v.type === 'branch_overload' && (max === null || v.value > max)) max = v.value;
  }
  return { new_violations: count, max_new_loading_percent: max };
}
const idOrNull = (x: number): number | null => (x < 0 ? null : x);

/** Iterations, extremes, loading, violations, monitored values and reason of the chunk's i-th case. */
export function caseMetricsAt(plan: StudyPlan, chunk: StudyChunk, i: number): StudyCaseMetrics {
  const code = chunk.code[i]!;
  const m: StudyCaseMetrics = {
    iterations: chunk.iterations[i]!,
    max_loading_percent: orNull(chunk.maxLoading[i]!),
    max_loading_branch: idOrNull(chunk.maxLoadingBranch[i]!),
    min_v: orNull(chunk.minV[i]!),
    min_v_bus: idOrNull(chunk.minVBus[i]!),
    max_v: orNull(chunk.maxV[i]!),
    max_v_bus: idOrNull(chunk.maxVBus[i]!),
    violations: [],
  };
  // A chunk not judged against the base case is the base case itself (record 0): its violations are its own.
  const judged = chunk.violationKind.length > 0;
  for (let v = chunk.violationStart[i]!; v < chunk.violationStart[i + 1]!; v++) {
    const base = judged ? chunk.violationBase[v]! : chunk.violationValue[v]!;
    m.violations.push({
      type: VIOLATION_TYPES[chunk.violationType[v]!]!,
      element: chunk.violationElement[v]!,
      value: chunk.violationValue[v]!,
      limit: chunk.violationLimit[v]!,
      base_value: orNull(base),
      kind: judged ? violationKindName(chunk.violationKind[v]!) : 'pre_existing',
    });
  }
  const nMb = plan.monitor.branches.length, nMbus = plan.monitor.buses.length;
  if (code === CASE_CODE.CONVERGED && nMb + nMbus > 0) {
    const b0 = i * nMb * MON_BR.FIELDS, u0 = i * nMbus * MON_BUS.FIELDS;
    const mb = chunk.monitoredBranches, mu = chunk.monitoredBuses;
    const br = (q: number, c: number) => mb[b0 + MON_BR.FIELDS * q + c]!, bus = (q: number, c: number) => mu[u0 + MON_BUS.FIELDS * q + c]!;
    m.monitored = {
      branches: plan.monitor.branches.map((index, q) => ({
        index, p_from: br(q, MON_BR.PF), q_from: br(q, MON_BR.QF), p_to: br(q, MON_BR.PT), q_to: br(q, MON_BR.QT), loading: br(q, MON_BR.LOADING),
      })),
      buses: plan.monitor.buses.map((id, q) => ({ id, v: bus(q, MON_BUS.VM), theta: bus(q, MON_BUS.VA) })),
    };
  }
  const reason = caseReason(code);
  if (reason) m.reason = reason;
  return m;
}

/** The rows of a chunk, in case order. */
export function studyChunkRows(plan: StudyPlan, chunk: StudyChunk): StudyCaseRow[] {
  const rows: StudyCaseRow[] = [];
  for (let k = chunk.start; k < chunk.end; k++) {
    const i = k - chunk.start;
    const code = chunk.code[i]!;
    const { scenario, contingency } = studyCaseAt(plan, k);
    const { monitored, reason, ...metrics } = caseMetricsAt(plan, chunk, i);
    const row: StudyCaseRow = {
      case_id: studyCaseId(plan, k),
      status: code === CASE_CODE.CONVERGED ? 'converged' : code === CASE_CODE.ISLANDED ? 'islanded' : code === CASE_CODE.SCREENED ? 'screened' : 'diverged',
      ...metrics,
      ...newViolationSummary(metrics.violations),
    };
    if (scenario !== null) row.scenario = scenario;
    if (contingency !== null) {
      const c = plan.contingencies[contingency]!;
      row.contingency = { id: c.id, branches: [...c.branches], generators: [...c.generators] };
    }
    // Not solved (islanding skip), or solved on what stayed energized with something lost.
    if (code === CASE_CODE.ISLANDED || chunk.islandStart[i + 1]! > chunk.islandStart[i]!) {
      row.islanded = {
        buses: Array.from(chunk.islandBuses.subarray(chunk.islandStart[i]!, chunk.islandStart[i + 1]!)),
        load_mw: chunk.islandLoadMw[i]!,
        generation_mw: chunk.islandGenerationMw[i]!,
      };
    }
    if (monitored) row.monitored = monitored;
    if (reason) row.reason = reason;
    rows.push(row);
  }
  return rows;
}
