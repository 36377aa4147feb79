// The ac_linear screen's verdict on one estimated outage (docs/studies.md "Screening"), in one place for the two
// sides that apply it: src/studies/screening.ts on a decoded estimate (branch positions), and the solver thread
// that runs a chunk's estimate and its kept cases as one task (workers/solver.ts, on the core's raw records:
// internal branch indexes). The rule reads an element's trigger and base loading by the index its violations
// carry, so each side hands them in its own order. Also here: the kept cases' study buffer cut out of the chunk's.
import { CASE_FIELDS, REC, SEC, SIN, VIOL, VIOL_FIELDS, studySections, type StudyWorkerResult } from './abi.js';
import { STATUS } from '../powerflow/abi.generated.js';

/** What the verdict needs besides the estimate itself (./screening.ts acLinearEstimate). */
export interface ScreenRule {
  /** the lowest estimate the core lists */
  listFrom: number;
  /** margin: loading points, and times the estimated change (both scaled by 1 − threshold / 100) */
  points: number;
  change: number;
  /** the lowest trigger of a rated branch */
  minTrigger: number;
  /** per branch, in the order of the estimate's violation elements: the loading that counts as a new or worsened
   *  overload, and the base case's loading */
  trigger: ArrayLike<number>;
  baseLoading: ArrayLike<number>;
}

/** An estimate's columns the verdict reads (a decoded StudyChunk, or rawEstimate below). */
export interface EstimateColumns {
  code: ArrayLike<number>;
  maxLoading: ArrayLike<number>;
  estimateStep?: ArrayLike<number>;
  violationStart: ArrayLike<number>;
  violationType: ArrayLike<number>;
  violationElement: ArrayLike<number>;
  violationValue: ArrayLike<number>;
  violationLimit: ArrayLike<number>;
}

/** Whether estimated case i must be solved in AC: it split the network, its estimate failed, or some branch's
 *  estimate comes within its margin of the trigger. */
export function keepsCase(rule: ScreenRule, est: EstimateColumns, i: number): boolean {
  const code = est.code[i]!;
  if (code !== STATUS.CONVERGED && code !== STATUS.MAXIT) return true;
  if (Number.isNaN(est.maxLoading[i]!)) return true; // no estimate (or no rated branch)
  // An estimate that iterated on (its first iteration came within the margin): its last step bounds what is left
  // to move, each later step being at most half the one before (checked: Infinity when it did not contract), and
  // the margin applies to its last step instead of its first. The other estimates: one iteration, margin on the
  // change from the base state.
  const step = est.estimateStep?.[i] ?? -1;
  if (!(step < Infinity) || (step >= 0 && rule.listFrom + step + rule.points >= rule.minTrigger)) return true;
  for (let v = est.violationStart[i]!; v < est.violationStart[i + 1]!; v++) {
    if (est.violationType[v] !== VIOL.OVERLOAD) continue;
    const element = est.violationElement[v]!, loading = est.violationValue[v]!;
    const from = step >= 0 ? est.violationLimit[v]! : rule.baseLoading[element]!;
    const margin = Math.max(step, 0) + rule.change * Math.abs(loading - from) + rule.points;
    if (!(loading < rule.trigger[element]! - margin)) return true; // NaN keeps it too
  }
  return false;
}

/** The estimate's columns straight from the core's records (record 0: the base case), internal indexes. */
export function rawEstimate(r: Pick<StudyWorkerResult, 'records' | 'violations'>, count: number): EstimateColumns {
  const code = new Float64Array(count), maxLoading = new Float64Array(count), estimateStep = new Float64Array(count);
  const violationStart = new Float64Array(count + 1);
  const before = r.records.length > 0 ? r.records[REC.NVIOL]! : 0; // the base case's own, listed first
  let n = 0;
  for (let i = 0; i < count; i++) {
    const o = REC.FIELDS * (i + 1);
    code[i] = r.records[o + REC.CODE]!;
    maxLoading[i] = r.records[o + REC.MAXLOAD]!;
    estimateStep[i] = r.records[o + REC.EST_STEP]!;
    n += r.records[o + REC.NVIOL]!;
    violationStart[i + 1] = n;
  }
  const column = (field: number) => Float64Array.from({ length: n }, (_, v) => r.violations[VIOL_FIELDS * (before + v) + field]!);
  return {
    code, maxLoading, estimateStep, violationStart,
    violationType: column(VIOL.TYPE), violationElement: column(VIOL.ELEMENT), violationValue: column(VIOL.VALUE), violationLimit: column(VIOL.LIMIT),
  };
}

/** The study buffer of cases `cases` (chunk positions, ascending) of a chunk's buffer: the same header, fixed
 *  sections, outages and scenarios, only those case rows (their outage offsets still hold). */
export function keptStudy(study: Float64Array, cases: ArrayLike<number>, nb: number, nl: number, ng: number): Float64Array {
  const from = studySections(study, nb, nl, ng);
  const header = study.slice(0, SIN.HEADER);
  header[SIN.NCASES] = cases.length;
  const to = studySections(header, nb, nl, ng);
  const out = new Float64Array(to.end);
  out.set(study.subarray(0, from.cases), 0); // the header and the sections before the cases
  out[SIN.NCASES] = cases.length;
  for (let j = 0; j < cases.length; j++) {
    const c = from.cases + CASE_FIELDS * cases[j]!;
    out.set(study.subarray(c, c + CASE_FIELDS), to.cases + CASE_FIELDS * j);
  }
  out.set(study.subarray(from.start[SEC.CASES + 1]!, from.end), to.start[SEC.CASES + 1]!);
  return out;
}

/** A screened chunk's kept cases, run by the solver thread right after the chunk's estimate (the study kind's
 *  `kept`, workers/solver.ts): the AC study's packed network and chunk buffer, and the verdict's inputs, its
 *  trigger and base loadings in the estimate's internal branch order. */
export interface KeptCasesTask {
  input: Float64Array;
  study: Float64Array;
  monitorPerCase: number;
  /** 1 where the chunk's case is a branch-only outage, the cases the screen may take out */
  candidates: Uint8Array;
  rule: ScreenRule;
  nb: number;
  nl: number;
  ng: number;
}

/** The kept cases' run: the core's result for them, and which of the chunk's cases they are (ascending). */
export type KeptCasesResult = StudyWorkerResult & { cases: Float64Array };
/** A study task's answer: the chunk's records, or a screened chunk's estimate and its kept cases' run. */
export type StudyTaskResult = StudyWorkerResult & { kept?: KeptCasesResult };

/** The chunk cases the AC study solves: those the screen may not take out, and those whose estimate keeps them. */
export function keptCases(task: KeptCasesTask, estimate: Pick<StudyWorkerResult, 'records' | 'violations'>): number[] {
  const n = task.candidates.length;
  const est = rawEstimate(estimate, n);
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (task.candidates[i] === 0 || keepsCase(task.rule, est, i)) out.push(i);
  return out;
}
