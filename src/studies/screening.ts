// Contingency screening (CONTRACT "Contingency screening"): before the AC study, every single-branch outage of
// a chunk gets post-contingency flows estimated from the outage's LODF column (one flow-shift solve per outage on
// the DC power flow's factorised Bbus: assembly/sensitivity.ts). Outages that split the network, generator and
// multi-element outages are always solved in AC; so is every case whose estimate could reach a new or worsened
// overload. The others are `screened`, with the estimate as their max loading.
//
//  - ac_linear (default): from the AC base case (./baseCase.ts). The outaged branch's complex flow S_k moves onto
//    every branch m by LODF(m, k): P_m' = P_m + LODF·P_k and Q_m' = Q_m + LODF·Q_k at both ends, and the estimated
//    loading is the larger of that and the one with Q_m kept (reactive flow redistributes more locally than active
//    flow). A case is solved when some rated branch's estimate comes within a margin of its trigger: the loading
//    limit for a branch within it in the base case, base × (1 + flow_increase_percent / 100) for one already
//    overloaded (so a branch overloaded before any outage does not keep every case). The margin grows with the
//    estimated change and shrinks with the threshold: (1 − threshold / 100) × (AC_CHANGE_MARGIN × |estimate − base|
//    + AC_POINTS_MARGIN) loading points (docs/studies.md "Screening" has the measurements behind the factors).
//  - dc: the wave-3 rule, for comparison: base DC flows plus LODF, solved when any DC loading reaches the threshold.
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import type { SolveOutcome } from '../powerflow/types.js';
import { packNetwork } from '../powerflow/pack.js';
import { DEFAULT_SOLVE_OPTIONS } from '../powerflow/types.js';
import { networkBridges } from '../sensitivities/compute.js';
import { studyCaseAt } from './plan.js';
import { CASE_CODE, type StudyChunk, type StudyPlan } from './types.js';
import { CaseLists } from './caseLists.js';
import { baseSolution } from './baseCase.js';

/** ac_linear margin at threshold 0 (scaled by 1 − threshold / 100): times the estimated change, plus loading points. */
export const AC_CHANGE_MARGIN = 5;
export const AC_POINTS_MARGIN = 2.5;

interface Screen {
  /** the base flows the estimate starts from: AC (ac_linear) or DC (dc) */
  base: SolveOutcome;
  input: Float64Array;
  slot: Int32Array;
  order: Int32Array;
  bridges: Set<number>;
}
/** Flow-shift values computed per solver call (16 MB). */
const SHIFT_VALUES = 2_000_000;
const screens = new WeakMap<StudyPlan, { network: NetworkModel; screen: Promise<Screen> }>();

function screenOf(pool: SolverPool, network: NetworkModel, plan: StudyPlan, signal?: AbortSignal): Promise<Screen> {
  const hit = screens.get(plan);
  if (hit && hit.network === network) return hit.screen;
  const screen = (async () => {
    const packed = packNetwork(network, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' });
    const slot = new Int32Array(network.branches.length).fill(-1);
    packed.branchOrder.forEach((pos, l) => {
      slot[pos] = l;
    });
    const base = plan.screening?.method === 'dc'
      ? await pool.solve(network, { method: 'dc' }, { signal })
      : await baseSolution(pool, network, plan, signal);
    return { base, input: packed.input, slot, order: packed.branchOrder, bridges: new Set(networkBridges(network)) };
  })();
  screens.set(plan, { network, screen });
  screen.catch(() => screens.delete(plan));
  return screen;
}

/** A screened case: its estimated max loading and that branch (position). */
export interface ScreenedCase {
  maxLoading: number;
  maxLoadingBranch: number;
}

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
  signal?: AbortSignal,
): Promise<Map<number, ScreenedCase>> {
  const out = new Map<number, ScreenedCase>();
  // Threshold 0 solves every case (CONTRACT).
  if (!plan.screening || plan.kind !== 'contingency' || !(plan.screening.thresholdPercent > 0)) return out;
  const s = await screenOf(pool, network, plan, signal);
  if (s.base.status !== 'converged') return out;
  const candidates: { k: number; branch: number }[] = [];
  for (let k = start; k < end; k++) {
    const { contingency } = studyCaseAt(plan, k);
    if (contingency === null) continue;
    const c = plan.contingencies[contingency]!;
    if (c.branches.length !== 1 || c.generators.length !== 0 || s.bridges.has(c.branches[0]!) || s.slot[c.branches[0]!]! < 0) continue;
    candidates.push({ k, branch: c.branches[0]! });
  }
  if (candidates.length === 0) return out;
  const nl = s.order.length;
  const flow = s.base.branches,
    branches = network.branches;
  const threshold = plan.screening.thresholdPercent;
  const ac = plan.screening.method === 'ac_linear';
  // ac_linear: the loading at which each rated branch (model position) would count as a new or worsened overload
  const limit = plan.loadingLimitPercent;
  const trigger = Float64Array.from(branches, (b, pos) => {
    const base = flow[pos]?.loading ?? 0;
    return base > limit ? base * (1 + plan.violationFilter.flowIncreasePercent / 100) : limit;
  });
  const scale = 1 - threshold / 100;
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
    if (ac) judgeAc(part, shifts);
    else judgeDc(part, shifts);
  }
  return out;

  function judgeDc(part: { k: number; branch: number }[], shifts: Float64Array): void {
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

  function judgeAc(part: { k: number; branch: number }[], shifts: Float64Array): void {
    part.forEach(({ k, branch }, j) => {
      const o = j * nl,
        kk = s.slot[branch]!;
      const fk = flow[branch]!;
      // the outaged branch's flow as one through-flow (the mean of its two ends: losses split)
      const denominator = 1 - shifts[o + kk]!;
      const pk = (fk.p_from - fk.p_to) / 2 / denominator,
        qk = (fk.q_from - fk.q_to) / 2 / denominator;
      let maxLoading = Number.NaN,
        maxLoadingBranch = -1,
        solve = false;
      for (let m = 0; m < nl; m++) {
        if (m === kk) continue;
        const pos = s.order[m]!;
        const rate = branches[pos]!.rate_a;
        if (!(rate > 0)) continue;
        const b = flow[pos]!,
          lodf = shifts[o + m]!;
        const pf = b.p_from + lodf * pk,
          pt = b.p_to - lodf * pk;
        const qf = b.q_from + lodf * qk,
          qt = b.q_to - lodf * qk;
        const shifted = Math.max(pf * pf + qf * qf, pt * pt + qt * qt);
        const kept = Math.max(pf * pf + b.q_from * b.q_from, pt * pt + b.q_to * b.q_to);
        const loading = (Math.sqrt(Math.max(shifted, kept)) / rate) * 100;
        if (maxLoadingBranch < 0 || loading > maxLoading) {
          maxLoading = loading;
          maxLoadingBranch = pos;
        }
        const margin = scale * (AC_CHANGE_MARGIN * Math.abs(loading - b.loading) + AC_POINTS_MARGIN);
        if (loading >= trigger[pos]! - margin) solve = true;
      }
      if (!solve) out.set(k, { maxLoading, maxLoadingBranch });
    });
  }
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
  const nMb = 5 * plan.monitor.branches.length,
    nMu = 2 * plan.monitor.buses.length;
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
