// Violations relative to the base case (CONTRACT "Violations relative to the base case"): each violation of
// a case is judged against the same element in the study's base case. `new`: within its limit there;
// `worsened`: already violated and moved further by at least the study's violation filter (loading ≥ base ×
// (1 + flow_increase_percent / 100); v at least voltage_increase_pu further outside its limit);
// `pre_existing`: the rest. The base values are the base power flow's (./baseCase.ts).
import type { SolveOutcome } from '../powerflow/types.js';
import { STUDY_VIOLATION_KINDS } from '../schemas/vocabulary.js';
import { VIOLATION_CODE, VIOLATION_KIND_CODE, type StudyChunk, type StudyPlan, type StudyViolationKind } from './types.js';

/** The base case's values by element: loading % per branch position, v per bus id (NaN: not solved there). */
export interface BaseValues {
  loading: Float64Array;
  v: Map<number, number>;
}

export function baseValuesOf(base: SolveOutcome | null, branchCount: number): BaseValues {
  const loading = new Float64Array(branchCount).fill(Number.NaN);
  const v = new Map<number, number>();
  if (base?.status === 'converged') {
    for (const b of base.branches) loading[b.index] = b.loading;
    for (const b of base.buses) if (b.energized !== false) v.set(b.id, b.v);
  }
  return { loading, v };
}

/** The base-case value of a violation's element (type: VIOLATION_CODE). */
export function baseValueOf(base: BaseValues, type: number, element: number): number {
  return type === VIOLATION_CODE.branch_overload ? (base.loading[element] ?? Number.NaN) : (base.v.get(element) ?? Number.NaN);
}

/** The kind of a violation of `type` (VIOLATION_CODE) with `value` against `limit`, given the element's base value. */
export function violationKindCode(plan: StudyPlan, type: number, value: number, limit: number, base: number): number {
  const f = plan.violationFilter;
  if (type === VIOLATION_CODE.branch_overload) {
    if (!(base > limit)) return VIOLATION_KIND_CODE.new;
    return value >= base * (1 + f.flowIncreasePercent / 100) ? VIOLATION_KIND_CODE.worsened : VIOLATION_KIND_CODE.pre_existing;
  }
  // the base value against the case's own limit (the bus's vmin / vmax)
  const low = type === VIOLATION_CODE.low_voltage;
  if (!(low ? base < limit : base > limit)) return VIOLATION_KIND_CODE.new;
  const further = low ? base - value : value - base;
  return further >= f.voltageIncreasePu ? VIOLATION_KIND_CODE.worsened : VIOLATION_KIND_CODE.pre_existing;
}

export const violationKindName = (code: number): StudyViolationKind => STUDY_VIOLATION_KINDS[code]!;

/** The chunk with every violation judged against the base case (violationBase, violationKind filled). */
export function judgeViolations(plan: StudyPlan, chunk: StudyChunk, base: BaseValues): StudyChunk {
  const n = chunk.violationType.length;
  const baseCol = new Float64Array(n), kind = new Uint8Array(n);
  for (let v = 0; v < n; v++) {
    const type = chunk.violationType[v]!;
    baseCol[v] = baseValueOf(base, type, chunk.violationElement[v]!);
    kind[v] = violationKindCode(plan, type, chunk.violationValue[v]!, chunk.violationLimit[v]!, baseCol[v]!);
  }
  return { ...chunk, violationBase: baseCol, violationKind: kind };
}
