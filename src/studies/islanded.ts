// Outages that split the network, solved on what stays energized (CONTRACT "Islands",
// studies field `islanding`, default isolate). The study loop in the core reports such a
// case as ISLANDED (and, under new_reference, an outage that took the reference bus's last
// generator as SLACK_LOST); each of them is then solved here as exactly the power flow of the
// changed model with the same islanding rule, warm from the base solution: the outage
// applied, bus voltages from the base case, on the same solver pool. Its metrics follow
// the core's rules (assembly/study/metrics.ts): branches with rate_a > 0 and buses that stay
// energized, strict limits, the first element winning a tie, elements in model order.
//
// Scenario cases are left as the core reported them (a scenario × splitting contingency
// stays `islanded`; docs/studies.md).
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import type { SolveOutcome } from '../powerflow/types.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { studyCaseAt } from './plan.js';
import { CASE_CODE, VIOLATION_CODE, type StudyChunk, type StudyPlan } from './types.js';
import { CaseLists, type ViolationTuple } from './caseLists.js';
import { baseSolution, studySolveOptions } from './baseCase.js';
import { MON_BR, MON_BUS } from './abi.js';
import { solvePowerFlow } from '../powerflow/solve.js';


/** The model of a contingency case: its branches open, its generators out, voltages from the base solution. */
export function contingencyModel(network: NetworkModel, plan: StudyPlan, contingency: number, base: SolveOutcome): NetworkModel {
  const c = plan.contingencies[contingency]!;
  const out = new Set(c.branches), gensOut = new Set(c.generators);
  return {
    ...network,
    buses: network.buses.map((b, k) => (base.buses.length > 0 ? { ...b, v: base.buses[k]!.v, theta: base.buses[k]!.theta } : b)),
    branches: network.branches.map((b, k) => (out.has(k) ? { ...b, status: 'open' as const } : b)),
    generators: network.generators.map((g, k) => (gensOut.has(k) ? { ...g, in_service: false } : g)),
  };
}

interface CaseValues {
  code: number;
  iterations: number;
  minV: number; minVBus: number; maxV: number; maxVBus: number; maxLoading: number; maxLoadingBranch: number;
  violations: ViolationTuple[];
  islandBuses: number[]; islandLoadMw: number; islandGenerationMw: number;
  monitoredBranches: number[]; monitoredBuses: number[];
}

function codeOf(o: SolveOutcome): number {
  if (o.status === 'converged') return CASE_CODE.CONVERGED;
  if (o.status === 'cancelled' || o.status === 'timeout') return CASE_CODE.CANCELLED;
  if (/singular/.test(o.message ?? '')) return CASE_CODE.SINGULAR;
  if (/finite/.test(o.message ?? '')) return CASE_CODE.NOT_FINITE;
  if (/reactive power limits/.test(o.message ?? '')) return CASE_CODE.QLIM_INFEASIBLE;
  return CASE_CODE.MAX_ITERATIONS;
}

/** A case's values from the power flow of its changed model (the core's metric rules). */
export function caseValues(model: NetworkModel, plan: StudyPlan, o: SolveOutcome): CaseValues {
  const v: CaseValues = {
    code: codeOf(o), iterations: o.iterations, minV: NaN, minVBus: -1, maxV: NaN, maxVBus: -1, maxLoading: NaN, maxLoadingBranch: -1,
    violations: [], islandBuses: [], islandLoadMw: o.lost_load_mw ?? 0, islandGenerationMw: o.lost_generation_mw ?? 0,
    monitoredBranches: [], monitoredBuses: [],
  };
  for (const isl of o.islands ?? []) if (!isl.energized) v.islandBuses.push(...isl.buses);
  const order = new Map(model.buses.map((b, k) => [b.id, k]));
  v.islandBuses.sort((a, b) => order.get(a)! - order.get(b)!);
  if (o.status !== 'converged') return v;
  const energized = (k: number) => o.buses[k]!.energized !== false && model.buses[k]!.type !== 'isolated';
  const limit = plan.loadingLimitPercent;
  model.branches.forEach((br, k) => {
    if (br.rate_a <= 0 || br.status !== 'closed' || !energized(order.get(br.from)!) || !energized(order.get(br.to)!)) return;
    const ld = o.branches[k]!.loading;
    if (v.maxLoadingBranch < 0 || ld > v.maxLoading) { v.maxLoading = ld; v.maxLoadingBranch = k; }
    if (ld > limit) v.violations.push([VIOLATION_CODE.branch_overload, k, ld, limit]);
  });
  let minV = Infinity, maxV = -Infinity;
  model.buses.forEach((b, k) => {
    if (!energized(k)) return;
    const vm = o.buses[k]!.v;
    if (vm < minV) { minV = vm; v.minV = vm; v.minVBus = b.id; }
    if (vm > maxV) { maxV = vm; v.maxV = vm; v.maxVBus = b.id; }
    if (vm < b.vmin) v.violations.push([VIOLATION_CODE.low_voltage, b.id, vm, b.vmin]);
    else if (vm > b.vmax) v.violations.push([VIOLATION_CODE.high_voltage, b.id, vm, b.vmax]);
  });
  for (const k of plan.monitor.branches) {
    const f = o.branches[k]!;
    v.monitoredBranches.push(f.p_from, f.q_from, f.p_to, f.q_to, f.loading);
  }
  for (const id of plan.monitor.buses) {
    const b = o.buses[order.get(id)!]!;
    v.monitoredBuses.push(b.v, b.theta);
  }
  return v;
}

/** The chunk's case values, with some cases replaced. */
function rebuilt(plan: StudyPlan, chunk: StudyChunk, replaced: Map<number, CaseValues>): StudyChunk {
  const n = chunk.end - chunk.start;
  const lists = new CaseLists();
  const out: StudyChunk = {
    ...chunk,
    code: chunk.code.slice(),
    iterations: chunk.iterations.slice(),
    minV: chunk.minV.slice(),
    minVBus: chunk.minVBus.slice(),
    maxV: chunk.maxV.slice(),
    maxVBus: chunk.maxVBus.slice(),
    maxLoading: chunk.maxLoading.slice(),
    maxLoadingBranch: chunk.maxLoadingBranch.slice(),
    violationStart: new Uint32Array(n + 1),
    islandStart: new Uint32Array(n + 1),
    islandLoadMw: chunk.islandLoadMw.slice(),
    islandGenerationMw: chunk.islandGenerationMw.slice(),
    monitoredBranches: chunk.monitoredBranches.slice(),
    monitoredBuses: chunk.monitoredBuses.slice(),
  };
  const nMb = MON_BR.FIELDS * plan.monitor.branches.length, nMu = MON_BUS.FIELDS * plan.monitor.buses.length;
  for (let i = 0; i < n; i++) {
    const r = replaced.get(i);
    if (r) {
      out.code[i] = r.code; out.iterations[i] = Math.min(r.iterations, 65535);
      out.minV[i] = r.minV; out.minVBus[i] = r.minVBus; out.maxV[i] = r.maxV; out.maxVBus[i] = r.maxVBus;
      out.maxLoading[i] = r.maxLoading; out.maxLoadingBranch[i] = r.maxLoadingBranch;
      out.islandLoadMw[i] = r.islandLoadMw; out.islandGenerationMw[i] = r.islandGenerationMw;
      lists.add(r.violations, r.islandBuses);
      if (r.code === CASE_CODE.CONVERGED && nMb + nMu > 0 && out.monitoredBranches.length >= (i + 1) * nMb) {
        out.monitoredBranches.set(r.monitoredBranches, i * nMb);
        out.monitoredBuses.set(r.monitoredBuses, i * nMu);
      }
    } else {
      lists.copy(chunk, i);
    }
    lists.end(out, i);
  }
  lists.finish(out);
  return out;
}

/**
 * Solves the chunk's splitting contingency cases under the plan's islanding rule (isolate or
 * new_reference) and returns the chunk with their values; a chunk without such cases, or a plan
 * with islanding skip, comes back as it is.
 */
export async function solveIslandedCases(
  pool: SolverPool,
  network: NetworkModel,
  plan: StudyPlan,
  chunk: StudyChunk,
  signal?: AbortSignal,
): Promise<StudyChunk> {
  const rule = plan.islanding;
  if (rule === 'skip') return chunk;
  const n = chunk.end - chunk.start;
  const todo: { i: number; contingency: number }[] = [];
  for (let i = 0; i < n; i++) {
    const code = chunk.code[i]!;
    if (code !== CASE_CODE.ISLANDED && !(rule === 'new_reference' && code === CASE_CODE.SLACK_LOST)) continue;
    const { scenario, contingency } = studyCaseAt(plan, chunk.start + i);
    if (scenario === null && contingency !== null) todo.push({ i, contingency });
  }
  if (todo.length === 0) return chunk;
  const base = await baseSolution(pool, network, plan, signal);
  if (base.status !== 'converged') return chunk;
  const replaced = new Map<number, CaseValues>();
  // The pool's threads share the cases (each one a power flow of its own topology); two per
  // thread in flight bounds the memory of a chunk whose cases nearly all split the network.
  let next = 0;
  const one = async ({ i, contingency }: { i: number; contingency: number }) => {
    if (signal?.aborted) return;
    const model = contingencyModel(network, plan, contingency, base);
    try {
      const o = await solvePowerFlow(pool, model, { ...studySolveOptions(plan), islanding: rule }, { signal });
      if (o.status === 'cancelled') return;
      replaced.set(i, caseValues(model, plan, o));
    } catch (e) {
      if (!(e instanceof PowerFlowInputError)) throw e;
      replaced.set(i, {
        ...caseValues(model, plan, {
          status: 'diverged',
          message: 'singular',
          iterations: 0,
          buses: [],
          branches: [],
          generators: [],
        } as unknown as SolveOutcome),
        code: CASE_CODE.SINGULAR,
      });
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(todo.length, 2 * pool.threads) }, async () => {
      while (next < todo.length) await one(todo[next++]!);
    }),
  );
  return rebuilt(plan, chunk, replaced);
}
