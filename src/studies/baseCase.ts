// The AC base case of a plan as a power flow (solvePowerFlow with the study's options), once per (network, plan)
// in a process: the warm start of the splitting outages solved as power flows (./islanded.ts), the values
// a case's violations are judged against (./violations.ts) and the state the ac_linear screen estimates
// from (./screening.ts).
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import type { SolveOutcome } from '../powerflow/types.js';
import type { StudyPlan } from './types.js';
import { solvePowerFlow } from '../powerflow/solve.js';

const bases = new WeakMap<StudyPlan, { network: NetworkModel; base: Promise<SolveOutcome> }>();

/** A study's power flows wait behind its chunks on the same pool: no power-flow timeout (the study's signal cancels them). */
const NO_TIMEOUT_MS = 2 ** 31 - 1;

export function studySolveOptions(plan: StudyPlan) {
  const o = plan.options;
  return { method: o.method, tolerance: o.tolerance, maxIterations: o.maxIterations, enforceQLimits: o.enforceQLimits, timeoutMs: NO_TIMEOUT_MS };
}

export function baseSolution(pool: SolverPool, network: NetworkModel, plan: StudyPlan, signal?: AbortSignal): Promise<SolveOutcome> {
  const hit = bases.get(plan);
  if (hit && hit.network === network) return hit.base;
  const base = solvePowerFlow(pool, network, studySolveOptions(plan), { signal });
  bases.set(plan, { network, base });
  base.catch(() => bases.delete(plan));
  return base;
}
