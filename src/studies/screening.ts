// Contingency screening (CONTRACT "Contingency screening"): before the AC study, the outages of a chunk get an
// estimate of their post-contingency loading; a case is solved in AC only when its estimate could reach a new or
// worsened overload, the others are `screened` with the estimate as their max loading. Outages that split the
// network and generator outages are always solved.
//
//  - ac_linear (default): a fast-decoupled iteration (MATPOWER's XB: a P-θ then a Q-V half-step on B' and B''
//    without the outaged branches) from the AC base solution, run by the study loop itself on every outage of the
//    chunk (SIN_ESTIMATE_IT, assembly/study/loop.ts; B' and B'' factorised once, each outage's solves corrected by
//    Sherman–Morrison–Woodbury, assembly/study/compensation.ts), its flows from the full AC equations. The P step moves the
//    outaged flow as the LODF would; the Q step sees what the larger flows cost in reactive losses and how far
//    voltages sag, which is what an LODF on active flows misses (docs/studies.md "Screening"). A case is solved
//    when some rated branch's estimate comes within a margin of its trigger: the loading limit for a branch within
//    it in the base case, base × (1 + flow_increase_percent / 100) for one already overloaded (so a branch
//    overloaded before any outage does not keep every case). The margin, in loading points, is
//    (1 − threshold / 100) × (ESTIMATE_CHANGE_MARGIN × |estimate − base| + ESTIMATE_POINTS_MARGIN).
//    An outage that one iteration brings within that margin iterates on (sharpen() in assembly/study/loop.ts) until
//    its loading step contracts by half; it is then judged on its last iterate, the margin taken on the last step
//    (estimate − the iterate before) plus that step, which bounds what a contracting iteration has left to move.
//  - dc: the wave-3 rule, for comparison: DC base flows plus the outage's LODF column (one flow-shift solve per
//    outage on the DC power flow's factorised Bbus, assembly/sensitivity.ts); solved when any DC loading reaches
//    the threshold.
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import type { SolveOutcome } from '../powerflow/types.js';
import { packNetwork } from '../powerflow/pack.js';
import { DEFAULT_SOLVE_OPTIONS } from '../powerflow/types.js';
import { networkBridges } from '../sensitivities/compute.js';
import { studyCaseAt } from './plan.js';
import { CASE_CODE, type StudyChunk, type StudyPlan } from './types.js';
import { keepsCase, type ScreenRule } from './screenRule.js';
import { CaseLists } from './caseLists.js';
import { baseSolution } from './baseCase.js';
import { MON_BR, MON_BUS } from './abi.js';
import { solvePowerFlow } from '../powerflow/solve.js';

/** ac_linear: fast-decoupled iterations of the estimate. */
export const ESTIMATE_ITERATIONS = 1;
/** ac_linear: an estimate that one iteration leaves within its margin iterates on, up to this many iterations in all,
 *  until its loading step contracts (assembly/study/loop.ts sharpen()). */
export const ESTIMATE_SHARPEN_ITERATIONS = 6;
/** ac_linear margin at threshold 0 (scaled by 1 − threshold / 100): times the estimated change, plus loading points. */
export const ESTIMATE_CHANGE_MARGIN = 15;
export const ESTIMATE_POINTS_MARGIN = 1;

interface DcScreen {
  base: SolveOutcome;
  input: Float64Array;
  slot: Int32Array;
  order: Int32Array;
  bridges: Set<number>;
}
/** Flow-shift values computed per solver call (16 MB). */
const SHIFT_VALUES = 2_000_000;
const dcScreens = new WeakMap<StudyPlan, { network: NetworkModel; screen: Promise<DcScreen> }>();

function dcScreenOf(pool: SolverPool, network: NetworkModel, plan: StudyPlan, signal?: AbortSignal): Promise<DcScreen> {
  const hit = dcScreens.get(plan);
  if (hit && hit.network === network) return hit.screen;
  const screen = (async () => {
    const packed = packNetwork(network, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' });
    const slot = new Int32Array(network.branches.length).fill(-1);
    packed.branchOrder.forEach((pos, l) => {
      slot[pos] = l;
    });
    const base = await solvePowerFlow(pool, network, { method: 'dc' }, { signal });
    return { base, input: packed.input, slot, order: packed.branchOrder, bridges: new Set(networkBridges(network)) };
  })();
  dcScreens.set(plan, { network, screen });
  screen.catch(() => dcScreens.delete(plan));
  return screen;
}

/** A screened case: its estimated max loading and that branch (position). */
export interface ScreenedCase {
  maxLoading: number;
  maxLoadingBranch: number;
}

/** Solves cases [start, end) of an estimate plan (the chunk's own range) with the study engine. */
export type EstimateChunk = (estimatePlan: StudyPlan) => Promise<StudyChunk>;

/**
 * The cases of [start, end) the screen takes out of the AC study (case position → its estimate);
 * every other case is solved in AC. Empty without screening, or when the base flow does not solve.
 */
export async function screenCases(
  pool: SolverPool,
  network: NetworkModel,
  plan: StudyPlan,
  start: number,
  end: number,
  signal: AbortSignal | undefined,
  estimate: EstimateChunk,
): Promise<Map<number, ScreenedCase>> {
  // Threshold 0 solves every case (CONTRACT).
  if (!plan.screening || plan.kind !== 'contingency' || !(plan.screening.thresholdPercent > 0)) return new Map();
  if (plan.screening.method === 'dc') return screenDc(pool, network, plan, start, end, signal);
  return screenAcLinear(pool, network, plan, start, end, signal, estimate);
}

/** Branch-only outages of [start, end) (generator outages are always solved). */
function branchOutages(plan: StudyPlan, start: number, end: number): number[] {
  const out: number[] = [];
  for (let k = start; k < end; k++) {
    const { contingency } = studyCaseAt(plan, k);
    if (contingency === null) continue;
    const c = plan.contingencies[contingency]!;
    if (c.branches.length > 0 && c.generators.length === 0) out.push(k);
  }
  return out;
}

/** The estimate's plan of a study: the same cases, one fast-decoupled iteration each from the base solution (more
 *  where `sharpen` says). */
const estimatePlans = new WeakMap<StudyPlan, StudyPlan>();
export function estimatePlanOf(plan: StudyPlan, listFrom: number, sharpen?: StudyPlan['estimateSharpen']): StudyPlan {
  const hit = estimatePlans.get(plan);
  if (hit) return hit;
  const p: StudyPlan = {
    ...plan,
    // the outages' iterations are fast-decoupled; the base case is solved with Newton-Raphson as the AC study's
    // (assembly/study/loop.ts), so the estimate starts from the AC base state
    options: { ...plan.options, method: 'fast_decoupled', enforceQLimits: false },
    monitor: { branches: [], buses: [] },
    // with estimateSharpen the core lists the branches within their margin of the trigger (assembly/study/metrics.ts
    // ScreenListing) whatever this limit; without, those above it
    loadingLimitPercent: listFrom,
    islanding: 'skip', // a splitting outage is solved in AC anyway
    screening: null,
    warmStart: 'default',
    estimateIterations: ESTIMATE_ITERATIONS,
    ...(sharpen ? { estimateSharpen: sharpen } : {}),
  };
  estimatePlans.set(plan, p);
  return p;
}

/** The ac_linear estimate of a plan from its AC base solution: the estimate's plan (one iteration, iterating on
 *  near a trigger), each branch's base loading and trigger, and the margins. */
export function acLinearEstimate(network: NetworkModel, plan: StudyPlan, base: SolveOutcome) {
  const limit = plan.loadingLimitPercent;
  const scale = 1 - plan.screening!.thresholdPercent / 100;
  const baseLoading = new Float64Array(network.branches.length);
  for (const b of base.branches) baseLoading[b.index] = b.loading;
  // the loading at which each branch would count as a new or worsened overload
  const trigger = baseLoading.map((l) => (l > limit ? l * (1 + plan.violationFilter.flowIncreasePercent / 100) : limit));
  // The lowest estimate that can come within its margin (a branch unloaded in the base case): list from there.
  const listFrom = Math.max(0, ((limit - scale * ESTIMATE_POINTS_MARGIN) / (1 + scale * ESTIMATE_CHANGE_MARGIN)) * 0.999);
  const change = scale * ESTIMATE_CHANGE_MARGIN, points = scale * ESTIMATE_POINTS_MARGIN;
  const estimatePlan = estimatePlanOf(plan, listFrom, { iterations: ESTIMATE_SHARPEN_ITERATIONS, change, points, trigger });
  return { estimatePlan, baseLoading, trigger, listFrom, change, points };
}

/** The ac_linear screen of cases [start, end): the estimate's plan, the verdict's rule (by branch position) and the
 *  cases it may take out; null when it takes out none (no branch-only outage, no rated branch, no base solution). */
export async function acLinearScreen(pool: SolverPool, network: NetworkModel, plan: StudyPlan, start: number, end: number,
  signal: AbortSignal | undefined): Promise<{ estimatePlan: StudyPlan; rule: ScreenRule; candidates: number[] } | null> {
  const candidates = branchOutages(plan, start, end);
  if (candidates.length === 0) return null;
  // no rated branch (case13659pegase): no estimate can clear a case, so none is made (rated as assembly/branchModel.ts)
  if (!network.branches.some((b) => b.status === 'closed' && b.rate_a > 0 && b.rate_a < 1e10)) return null;
  const base = await baseSolution(pool, network, plan, signal);
  if (base.status !== 'converged') return null;
  const { estimatePlan, baseLoading, trigger, listFrom, change, points } = acLinearEstimate(network, plan, base);
  const minTrigger = trigger.reduce((m, t, pos) => (network.branches[pos]!.rate_a > 0 ? Math.min(m, t) : m), Infinity);
  return { estimatePlan, candidates, rule: { listFrom, points, change, minTrigger, trigger, baseLoading } };
}

async function screenAcLinear(pool: SolverPool, network: NetworkModel, plan: StudyPlan, start: number, end: number,
  signal: AbortSignal | undefined, estimate: EstimateChunk): Promise<Map<number, ScreenedCase>> {
  const out = new Map<number, ScreenedCase>();
  const screen = await acLinearScreen(pool, network, plan, start, end, signal);
  if (!screen) return out;
  const est = await estimate(screen.estimatePlan);
  if (est.cancelled) return out;
  for (const k of screen.candidates) {
    const i = k - start;
    if (!keepsCase(screen.rule, est, i)) out.set(k, { maxLoading: est.maxLoading[i]!, maxLoadingBranch: est.maxLoadingBranch[i]! });
  }
  return out;
}

async function screenDc(pool: SolverPool, network: NetworkModel, plan: StudyPlan, start: number, end: number,
  signal?: AbortSignal): Promise<Map<number, ScreenedCase>> {
  const out = new Map<number, ScreenedCase>();
  const s = await dcScreenOf(pool, network, plan, signal);
  if (s.base.status !== 'converged') return out;
  const candidates: { k: number; branch: number }[] = [];
  for (const k of branchOutages(plan, start, end)) {
    const c = plan.contingencies[studyCaseAt(plan, k).contingency!]!;
    if (c.branches.length !== 1 || s.bridges.has(c.branches[0]!) || s.slot[c.branches[0]!]! < 0) continue;
    candidates.push({ k, branch: c.branches[0]! });
  }
  if (candidates.length === 0) return out;
  const nl = s.order.length;
  const flow = s.base.branches,
    branches = network.branches;
  const threshold = plan.screening!.thresholdPercent;
  // Shift columns in batches of at most SHIFT_VALUES numbers: a 2,000-case chunk of a 16,000-branch
  // network would otherwise hold 256 MB of them at once.
  const batch = Math.max(1, Math.floor(SHIFT_VALUES / Math.max(nl, 1)));
  for (let from = 0; from < candidates.length; from += batch) {
    const part = candidates.slice(from, from + batch);
    const shifts = await pool.runSensitivity(
      s.input.slice(),
      1,
      Float64Array.from(part, (c) => s.slot[c.branch]!),
      signal,
    );
    if (shifts === null) return new Map();
    part.forEach(({ k, branch }, j) => {
      const o = j * nl,
        kk = s.slot[branch]!;
      const fk = flow[branch]!.p_from;
      const lodf = fk / (1 - shifts[o + kk]!);
      let maxLoading = Number.NaN,
        maxLoadingBranch = -1;
      for (let m = 0; m < nl; m++) {
        if (m === kk) continue;
        const pos = s.order[m]!;
        const rate = branches[pos]!.rate_a;
        if (!(rate > 0)) continue;
        const loading = (Math.abs(flow[pos]!.p_from + shifts[o + m]! * lodf) / rate) * 100;
        if (maxLoadingBranch < 0 || loading > maxLoading) {
          maxLoading = loading;
          maxLoadingBranch = pos;
        }
      }
      if (!(maxLoading >= threshold)) out.set(k, { maxLoading, maxLoadingBranch });
    });
  }
  return out;
}

/** The chunk [start, end) from the AC chunk of the kept cases (in order) and the screened cases' DC estimates. */
export function mergeScreened(
  plan: StudyPlan,
  start: number,
  end: number,
  kept: number[],
  ac: StudyChunk,
  screened: Map<number, ScreenedCase>,
): StudyChunk {
  const n = end - start;
  const nMb = MON_BR.FIELDS * plan.monitor.branches.length,
    nMu = MON_BUS.FIELDS * plan.monitor.buses.length;
  const out: StudyChunk = {
    start,
    end,
    cancelled: ac.cancelled,
    code: new Uint8Array(n),
    iterations: new Uint16Array(n),
    minV: new Float64Array(n).fill(Number.NaN),
    minVBus: new Int32Array(n).fill(-1),
    maxV: new Float64Array(n).fill(Number.NaN),
    maxVBus: new Int32Array(n).fill(-1),
    maxLoading: new Float64Array(n).fill(Number.NaN),
    maxLoadingBranch: new Int32Array(n).fill(-1),
    violationStart: new Uint32Array(n + 1),
    violationType: new Uint8Array(0),
    violationElement: new Int32Array(0),
    violationValue: new Float64Array(0),
    violationLimit: new Float64Array(0),
    violationBase: new Float64Array(0),
    violationKind: new Uint8Array(0),
    islandStart: new Uint32Array(n + 1),
    islandBuses: new Int32Array(0),
    islandLoadMw: new Float64Array(n),
    islandGenerationMw: new Float64Array(n),
    monitoredBranches: new Float64Array(n * nMb).fill(Number.NaN),
    monitoredBuses: new Float64Array(n * nMu).fill(Number.NaN),
    solveMs: ac.solveMs,
  };
  const at = new Map(kept.map((k, j) => [k, j]));
  const lists = new CaseLists();
  let done = n;
  for (let i = 0; i < n; i++) {
    const k = start + i;
    const sc = screened.get(k);
    const j = at.get(k);
    if (sc) {
      out.code[i] = CASE_CODE.SCREENED;
      out.maxLoading[i] = sc.maxLoading;
      out.maxLoadingBranch[i] = sc.maxLoadingBranch;
    } else if (j !== undefined && j < ac.end - ac.start) {
      out.code[i] = ac.code[j]!;
      out.iterations[i] = ac.iterations[j]!;
      out.minV[i] = ac.minV[j]!;
      out.minVBus[i] = ac.minVBus[j]!;
      out.maxV[i] = ac.maxV[j]!;
      out.maxVBus[i] = ac.maxVBus[j]!;
      out.maxLoading[i] = ac.maxLoading[j]!;
      out.maxLoadingBranch[i] = ac.maxLoadingBranch[j]!;
      out.islandLoadMw[i] = ac.islandLoadMw[j]!;
      out.islandGenerationMw[i] = ac.islandGenerationMw[j]!;
      lists.copy(ac, j);
      if (nMb + nMu > 0 && ac.monitoredBranches.length >= (j + 1) * nMb) {
        out.monitoredBranches.set(ac.monitoredBranches.subarray(j * nMb, (j + 1) * nMb), i * nMb);
        out.monitoredBuses.set(ac.monitoredBuses.subarray(j * nMu, (j + 1) * nMu), i * nMu);
      }
    } else {
      done = Math.min(done, i); // a cancelled AC chunk: the cases from here on were not done
      out.code[i] = CASE_CODE.CANCELLED;
    }
    lists.end(out, i);
  }
  lists.finish(out);
  if (done < n) {
    // As an unscreened chunk reports a cancel: the cases done, in order, and cancelled set.
    return { ...sliceChunk(out, done), cancelled: true };
  }
  return out;
}

function sliceChunk(c: StudyChunk, n: number): StudyChunk {
  const nMb = c.monitoredBranches.length / Math.max(c.end - c.start, 1),
    nMu = c.monitoredBuses.length / Math.max(c.end - c.start, 1);
  return {
    ...c,
    end: c.start + n,
    code: c.code.slice(0, n),
    iterations: c.iterations.slice(0, n),
    minV: c.minV.slice(0, n),
    minVBus: c.minVBus.slice(0, n),
    maxV: c.maxV.slice(0, n),
    maxVBus: c.maxVBus.slice(0, n),
    maxLoading: c.maxLoading.slice(0, n),
    maxLoadingBranch: c.maxLoadingBranch.slice(0, n),
    violationStart: c.violationStart.slice(0, n + 1),
    islandStart: c.islandStart.slice(0, n + 1),
    islandLoadMw: c.islandLoadMw.slice(0, n),
    islandGenerationMw: c.islandGenerationMw.slice(0, n),
    monitoredBranches: c.monitoredBranches.slice(0, n * nMb),
    monitoredBuses: c.monitoredBuses.slice(0, n * nMu),
  };
}
