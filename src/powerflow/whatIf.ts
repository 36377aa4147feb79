// "What if this change is made?": solve a changed network warm next to the unchanged one
// and judge it against the grid's limits. The constraint check of agent control commands
// (src/domain/commands/handlers/control.ts) asks it for one change; contingency studies ask
// it for many. Numbers in, a verdict out: no HTTP, no database, no error codes.
import type { NetworkModel } from '../domain/networkModel.js';
import { busIslands } from '../domain/networkValidation.js';
import { PowerFlowInputError, type SolveOutcome } from './types.js';

/** How much worse an element already outside its limit before the change may get (percentage points of
 *  loading, p.u. of voltage) before the change is refused: a change must not be blocked by an existing
 *  violation it barely touches (an operator may be relieving it step by step). */
export const WORSEN_TOLERANCE = { loading: 1, voltage: 0.005 } as const;

/** Solver settings of a what-if solve: Newton–Raphson from the stored state (warm), tight tolerance. */
export const WHAT_IF_SOLVE = { method: 'newton_raphson', tolerance: 1e-8, maxIterations: 30, flatStart: false, enforceQLimits: false } as const;

export interface OverloadViolation {
  type: 'overload';
  branch_id: string;
  branch: { index: number; from: number; to: number };
  loading: number;
  limit: 100;
  rate_a: number;
  flow_mva: number;
  loading_before?: number;
}

export interface VoltageViolation {
  type: 'voltage';
  bus: number;
  voltage: number;
  vmin: number;
  vmax: number;
  limit: number;
  voltage_before?: number;
}

export type LimitViolation = OverloadViolation | VoltageViolation;

export type WhatIfVerdict =
  /** The changed network solves within every limit (or worsens none already violated beyond the tolerance). */
  | { ok: true; outcome: SolveOutcome; islands: number }
  /** More islands than before; `buses` lose their connection to the first slack's island. */
  | { ok: false; reason: 'islanding'; buses: number[]; islandsBefore: number; islandsAfter: number }
  /** The solver cannot take the changed network (e.g. an island without a slack). */
  | { ok: false; reason: 'topology'; error: PowerFlowInputError }
  | { ok: false; reason: 'diverged'; iterations: number; mismatch: number }
  /** The solve was cancelled or ran out of time: no judgement. */
  | { ok: false; reason: 'incomplete'; status: 'cancelled' | 'timeout' }
  /** New (or clearly worse) limit violations, worst first. */
  | { ok: false; reason: 'limits'; violations: LimitViolation[]; outcome: SolveOutcome };

export interface WhatIfOptions {
  /** Names the unchanged network (e.g. "net_…@version", immutable): its solution is cached under it. */
  baseKey?: string;
}

/** Solves one model: a solver pool with WHAT_IF_SOLVE and the caller's deadline and signal, typically. */
export type Solve = (model: NetworkModel) => Promise<SolveOutcome>;

// Base-case solutions per immutable network version, to judge "new or worse".
const baseCache = new Map<string, SolveOutcome>();
const BASE_CACHE_SIZE = 32;

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

/** Islands among the non-isolated buses; bus id → island label. */
function islandsOf(m: NetworkModel): Map<number, number> {
  const { label } = busIslands(m);
  const out = new Map<number, number>();
  m.buses.forEach((b, i) => {
    if (b.type !== 'isolated') out.set(b.id, label[i]!);
  });
  return out;
}

/** Buses that lose their connection to the main island (the first slack's) through the change, when the
 *  change raises the number of islands. */
export function islanding(before: NetworkModel, after: NetworkModel): { buses: number[]; islandsBefore: number; islandsAfter: number } | null {
  const cb = islandsOf(before);
  const ca = islandsOf(after);
  const islandsBefore = new Set(cb.values()).size;
  const islandsAfter = new Set(ca.values()).size;
  if (islandsAfter <= islandsBefore) return null;
  const slack = after.buses.find((b) => b.type === 'slack' && ca.has(b.id));
  const cut = slack ? after.buses.filter((b) => cb.get(b.id) === cb.get(slack.id) && ca.has(b.id) && ca.get(b.id) !== ca.get(slack.id)).map((b) => b.id) : [];
  return { buses: cut, islandsBefore, islandsAfter };
}

/** Limit violations of `outcome` (the changed network) that are new, or clearly worse than in `base`. */
export function judgeLimits(before: NetworkModel, after: NetworkModel, base: SolveOutcome | null, outcome: SolveOutcome, branchIds: readonly string[]): LimitViolation[] {
  const violations: LimitViolation[] = [];
  outcome.branches.forEach((f, i) => {
    const br = after.branches[i];
    if (br?.status !== 'closed' || !(br.rate_a > 0) || !(f.loading > 100 + 1e-6)) return;
    const was = base?.branches[i]?.loading;
    // Already overloaded before the change: refused only when the change makes it clearly worse.
    if (was !== undefined && before.branches[i]?.status === 'closed' && was > 100 + 1e-6 && f.loading <= was + WORSEN_TOLERANCE.loading) return;
    violations.push({
      type: 'overload', branch_id: branchIds[i]!, branch: { index: i, from: br.from, to: br.to }, loading: round(f.loading, 3), limit: 100, rate_a: br.rate_a,
      flow_mva: round(Math.max(Math.hypot(f.p_from, f.q_from), Math.hypot(f.p_to, f.q_to)), 3), ...(was !== undefined ? { loading_before: round(was, 3) } : {}),
    });
  });
  const baseV = new Map((base?.buses ?? []).map((b) => [b.id, b.v]));
  const busById = new Map(after.buses.map((b) => [b.id, b]));
  for (const r of outcome.buses) {
    const bus = busById.get(r.id);
    if (!bus || bus.type === 'isolated') continue;
    const dev = Math.max(bus.vmin - r.v, r.v - bus.vmax);
    if (!(dev > 1e-6)) continue;
    const was = baseV.get(r.id);
    if (was !== undefined && Math.max(bus.vmin - was, was - bus.vmax) > 1e-6 && dev <= Math.max(bus.vmin - was, was - bus.vmax) + WORSEN_TOLERANCE.voltage) continue;
    violations.push({ type: 'voltage', bus: r.id, voltage: round(r.v, 6), vmin: bus.vmin, vmax: bus.vmax, limit: r.v < bus.vmin ? bus.vmin : bus.vmax, ...(was !== undefined ? { voltage_before: round(was, 6) } : {}) });
  }
  const weight = (v: LimitViolation) => (v.type === 'overload' ? 1000 + v.loading : Math.abs(v.voltage - v.limit));
  return violations.sort((a, b) => weight(b) - weight(a));
}

/**
 * Would `after` (a changed copy of `before`) be acceptable? Checks islanding first (no solve needed),
 * then solves the changed network warm next to the unchanged one (cached under opts.baseKey) and judges
 * branch loadings and bus voltages, tolerating existing violations the change does not clearly worsen.
 */
export async function whatIf(solve: Solve, before: NetworkModel, after: NetworkModel, branchIds: readonly string[], opts: WhatIfOptions = {}): Promise<WhatIfVerdict> {
  const isl = islanding(before, after);
  if (isl) return { ok: false, reason: 'islanding', ...isl };
  const cached = opts.baseKey ? baseCache.get(opts.baseKey) : undefined;
  // An unsolvable base case only means nothing was violated "before": every violation then counts as new.
  const basePromise = cached ? Promise.resolve(cached) : solve(before).then((o) => (o.status === 'converged' ? o : null), () => null);
  let base: SolveOutcome | null;
  let outcome: SolveOutcome;
  try {
    [base, outcome] = await Promise.all([basePromise, solve(after)]);
  } catch (e) {
    if (e instanceof PowerFlowInputError) return { ok: false, reason: 'topology', error: e };
    throw e;
  }
  if (base && opts.baseKey && !baseCache.has(opts.baseKey)) {
    baseCache.set(opts.baseKey, base);
    if (baseCache.size > BASE_CACHE_SIZE) baseCache.delete(baseCache.keys().next().value!);
  }
  if (outcome.status === 'cancelled' || outcome.status === 'timeout') return { ok: false, reason: 'incomplete', status: outcome.status };
  if (outcome.status !== 'converged') return { ok: false, reason: 'diverged', iterations: outcome.iterations, mismatch: outcome.mismatch };
  const violations = judgeLimits(before, after, base, outcome, branchIds);
  if (violations.length > 0) return { ok: false, reason: 'limits', violations, outcome };
  return { ok: true, outcome, islands: new Set(islandsOf(after).values()).size };
}
