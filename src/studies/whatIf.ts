// "What if this change is made?": apply it, solve warm, judge the limits — with the study
// engine (one implementation for a study's many cases and an agent's one change). The
// constraint check of agent control commands (src/domain/commands/handlers/control.ts) asks
// it for one change: a change the study engine can express (branches opened, generators
// taken out, generator and load set points moved) is a one-case study of the unchanged
// network, warm-started from its solution, every branch and bus monitored; any other change
// (a branch closed, new parameters) is the changed model's own power flow. The verdict then
// compares with the unchanged network's case, tolerating what the change does not clearly
// worsen. Numbers in, a verdict out: no HTTP, no database, no error codes.
import type { NetworkModel } from '../domain/networkModel.js';
import { busIslands } from '../domain/networkValidation.js';
import { PowerFlowInputError, type SolveOutcome } from '../powerflow/types.js';
import type { SolverPool } from '../engine/pool.js';
import { planStudy } from './plan.js';
import { studyChunkRows } from './rows.js';
import { solveStudyBase, solveStudyChunk } from './solve.js';
import type { MonitoredBranch, StudyRequest } from './types.js';
import { solvePowerFlow } from '../powerflow/solve.js';

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

/** The changed network's flows, from the study case (or the fallback power flow). */
export interface WhatIfFlows {
  status: 'converged';
  method: string;
  iterations: number;
  duration_ms: number;
  losses: { p_mw: number; q_mvar: number };
  buses: { id: number; v: number; theta: number }[];
  branches: Omit<MonitoredBranch, 'index'>[];
  /** how it was solved: a one-case study of the unchanged network, or the changed model's power flow */
  engine: 'study' | 'power_flow';
}

export type WhatIfVerdict =
  /** The changed network solves within every limit (or worsens none already violated beyond the tolerance). */
  | { ok: true; outcome: WhatIfFlows; islands: number }
  /** More islands than before; `buses` lose their connection to the first slack's island. */
  | { ok: false; reason: 'islanding'; buses: number[]; islandsBefore: number; islandsAfter: number }
  /** The solver cannot take the changed network (e.g. an island without a slack). */
  | { ok: false; reason: 'topology'; error: PowerFlowInputError }
  | { ok: false; reason: 'diverged'; iterations: number; mismatch: number }
  /** The solve was cancelled or ran out of time: no judgement. */
  | { ok: false; reason: 'incomplete'; status: 'cancelled' | 'timeout' }
  /** New (or clearly worse) limit violations, worst first. */
  | { ok: false; reason: 'limits'; violations: LimitViolation[]; outcome: WhatIfFlows };

export interface WhatIfOptions {
  /** Where the unchanged network's solution is kept between checks (Services.models keeps it with the version). */
  baseMemo?: { get(): BaseFlows | null | undefined; set(flows: BaseFlows | null): void };
  /** Ends the check (verdict 'incomplete', status 'cancelled'). */
  signal?: AbortSignal;
  /** Deadline in ms for the whole check (verdict 'incomplete', status 'timeout'). */
  timeoutMs?: number;
}

/** Bus voltages and branch flows of a solved network, in model order. */
interface Flows { buses: { id: number; v: number; theta: number }[]; branches: Omit<MonitoredBranch, 'index'>[] }
/** The unchanged network's solution, which judges "new or worse" (null: it did not solve). */
export type BaseFlows = Flows;

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
export function judgeLimits(before: NetworkModel, after: NetworkModel, base: Flows | null, outcome: Flows, branchIds: readonly string[]): LimitViolation[] {
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
    if (
      was !== undefined &&
      Math.max(bus.vmin - was, was - bus.vmax) > 1e-6 &&
      dev <= Math.max(bus.vmin - was, was - bus.vmax) + WORSEN_TOLERANCE.voltage
    )
      continue;
    violations.push({
      type: 'voltage',
      bus: r.id,
      voltage: round(r.v, 6),
      vmin: bus.vmin,
      vmax: bus.vmax,
      limit: r.v < bus.vmin ? bus.vmin : bus.vmax,
      ...(was !== undefined ? { voltage_before: round(was, 6) } : {}),
    });
  }
  const weight = (v: LimitViolation) => (v.type === 'overload' ? 1000 + v.loading : Math.abs(v.voltage - v.limit));
  return violations.sort((a, b) => weight(b) - weight(a));
}

/** The change from `before` to `after` as one study case of `before` (branches opened, generators out,
 *  generator and load set points), or null when the study engine cannot express it. */
export function changeAsStudyCase(before: NetworkModel, after: NetworkModel): StudyRequest | null {
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (before.base_mva !== after.base_mva || !same(before.buses, after.buses)) return null;
  if (before.branches.length !== after.branches.length || before.generators.length !== after.generators.length
    || before.loads.length !== after.loads.length) return null;
  const branches: number[] = [], generators: number[] = [];
  const genP: Record<string, { p_mw: number[] }> = {}, loads: Record<string, { p_mw: number[]; q_mvar: number[] }> = {};
  for (const [i, b] of before.branches.entries()) {
    const a = after.branches[i]!;
    if (same(a, b)) continue;
    if (b.status !== 'closed' || a.status !== 'open' || !same({ ...a, status: b.status }, b)) return null;
    branches.push(i);
  }
  for (const [i, g] of before.generators.entries()) {
    const a = after.generators[i]!;
    if (same(a, g)) continue;
    if (g.in_service && !a.in_service && same({ ...a, in_service: true }, g)) { generators.push(i); continue; }
    if (a.in_service === g.in_service && g.in_service && same({ ...a, mw: g.mw }, g)) { genP[String(i)] = { p_mw: [a.mw] }; continue; }
    return null;
  }
  for (const [i, l] of before.loads.entries()) {
    const a = after.loads[i]!;
    if (same(a, l)) continue;
    if (!l.in_service || !a.in_service || !same({ ...a, mw: l.mw, mvar: l.mvar }, l)) return null;
    loads[String(i)] = { p_mw: [a.mw], q_mvar: [a.mvar] };
  }
  const outage = branches.length + generators.length > 0 ? [{ id: 'change', branches, generators }] : undefined;
  const setPoints = Object.keys(genP).length + Object.keys(loads).length > 0;
  const solve = { method: WHAT_IF_SOLVE.method, tolerance: WHAT_IF_SOLVE.tolerance, max_iterations: WHAT_IF_SOLVE.maxIterations,
    monitor: { branches: 'all' as const, buses: 'all' as const } };
  if (setPoints) return { kind: 'scenarios', ...solve, scenarios: { count: 1, loads, generators: genP }, ...(outage ? { contingencies: outage } : {}) };
  if (outage) return { kind: 'contingency', ...solve, contingencies: outage };
  return { kind: 'scenarios', ...solve, scenarios: { count: 1 } }; // no change at all: the network itself
}

const lossesOf = (branches: Flows['branches']) => ({
  p_mw: branches.reduce((s, b) => s + b.p_from + b.p_to, 0),
  q_mvar: branches.reduce((s, b) => s + b.q_from + b.q_to, 0),
});

type CaseAnswer =
  | { kind: 'solved'; flows: Flows; iterations: number; ms: number }
  | { kind: 'diverged'; iterations: number; mismatch: number }
  | { kind: 'topology'; error: PowerFlowInputError }
  | { kind: 'incomplete' };

/** The change as a one-case study: the unchanged network's base case and the changed case. */
async function studyCase(pool: SolverPool, before: NetworkModel, request: StudyRequest, opts: WhatIfOptions, signal: AbortSignal):
  Promise<{ base: Flows | null | undefined; changed: CaseAnswer }> {
  const plan = planStudy(before, request);
  const cachedBase = opts.baseMemo?.get();
  const basePromise = cachedBase !== undefined ? Promise.resolve(cachedBase)
    : solveStudyBase(pool, before, plan, { signal }).then((b) => (b.status === 'converged' && b.monitored ? flowsOf(b.monitored) : null));
  const [base, chunk] = await Promise.all([basePromise, solveStudyChunk(pool, before, plan, 0, 1, { signal })]);
  if (chunk.cancelled) return { base: undefined, changed: { kind: 'incomplete' } };
  const row = studyChunkRows(plan, chunk)[0]!;
  if (row.status === 'converged') return { base, changed: { kind: 'solved', flows: flowsOf(row.monitored!), iterations: row.iterations, ms: chunk.solveMs } };
  if (row.reason === 'slack_lost') {
    return {
      base,
      changed: {
        kind: 'topology',
        error: new PowerFlowInputError(
          'the change takes out the last generator of the slack bus: no reference remains',
          'TOPOLOGY_INVALID',
          {},
        ),
      },
    };
  }
  return { base, changed: { kind: 'diverged', iterations: row.iterations, mismatch: Number.NaN } };
}

function flowsOf(m: { buses: { id: number; v: number; theta: number }[]; branches: MonitoredBranch[] }): Flows {
  return { buses: m.buses, branches: m.branches.map(({ index: _, ...f }) => f) };
}

/** The changed model's own power flow (for a change the study engine cannot express). */
async function powerFlowCase(pool: SolverPool, before: NetworkModel, after: NetworkModel, opts: WhatIfOptions, signal: AbortSignal, timeoutMs: number):
  Promise<{ base: Flows | null | undefined; changed: CaseAnswer }> {
  const solve = (m: NetworkModel) => solvePowerFlow(pool, m, { ...WHAT_IF_SOLVE, timeoutMs }, { signal });
  const cachedBase = opts.baseMemo?.get();
  const basePromise = cachedBase !== undefined ? Promise.resolve(cachedBase)
    : solve(before).then((o) => (o.status === 'converged' ? o : null), () => null);
  let base: Flows | null, outcome: SolveOutcome;
  try {
    [base, outcome] = await Promise.all([basePromise, solve(after)]);
  } catch (e) {
    if (e instanceof PowerFlowInputError) return { base: undefined, changed: { kind: 'topology', error: e } };
    throw e;
  }
  if (outcome.status === 'cancelled' || outcome.status === 'timeout') return { base: undefined, changed: { kind: 'incomplete' } };
  if (outcome.status !== 'converged') return { base, changed: { kind: 'diverged', iterations: outcome.iterations, mismatch: outcome.mismatch } };
  return { base, changed: { kind: 'solved', flows: outcome, iterations: outcome.iterations, ms: outcome.duration_ms } };
}

/**
 * Would `after` (a changed copy of `before`) be acceptable? Checks islanding first (no solve needed),
 * then solves the change warm with the study engine (or the changed model's power flow when the
 * engine cannot express it) next to the unchanged network (its solution kept in opts.baseMemo),
 * and judges branch loadings and bus voltages, tolerating existing violations the change does not
 * clearly worsen.
 */
export async function whatIf(
  pool: SolverPool,
  before: NetworkModel,
  after: NetworkModel,
  branchIds: readonly string[],
  opts: WhatIfOptions = {},
): Promise<WhatIfVerdict> {
  const isl = islanding(before, after);
  if (isl) return { ok: false, reason: 'islanding', ...isl };
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const request = changeAsStudyCase(before, after);
  const engine: WhatIfFlows['engine'] = request ? 'study' : 'power_flow';
  const { base, changed } = request
    ? await studyCase(pool, before, request, opts, signal)
    : await powerFlowCase(pool, before, after, opts, signal, timeoutMs);
  if (changed.kind === 'incomplete') return { ok: false, reason: 'incomplete', status: deadline.aborted ? 'timeout' : 'cancelled' };
  if (changed.kind === 'topology') return { ok: false, reason: 'topology', error: changed.error };
  // An unsolvable base case only means nothing was violated "before": every violation then counts as new.
  if (base !== undefined && opts.baseMemo && opts.baseMemo.get() === undefined) opts.baseMemo.set(base);
  if (changed.kind === 'diverged') return { ok: false, reason: 'diverged', iterations: changed.iterations, mismatch: changed.mismatch };
  const flows = changed.flows;
  const outcome: WhatIfFlows = {
    status: 'converged', method: WHAT_IF_SOLVE.method, iterations: changed.iterations, duration_ms: changed.ms,
    losses: lossesOf(flows.branches), buses: flows.buses, branches: flows.branches, engine,
  };
  const violations = judgeLimits(before, after, base ?? null, flows, branchIds);
  if (violations.length > 0) return { ok: false, reason: 'limits', violations, outcome };
  return { ok: true, outcome, islands: new Set(islandsOf(after).values()).size };
}
