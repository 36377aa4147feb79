// The contract between the OPF core (assembly/opf/, workers/, src/opf/) and its callers
// (the service's REST / GraphQL / task doors, the CLI, benchmarks, tests). CONTRACT.md
// "Optimal power flow" fixes the result's shape.
import type { IslandingRule, IslandSummary } from '../powerflow/types.js';
import type { SecurityOutcome, SecurityRequest } from './security.js';

export { OPF_METHODS, type OpfMethod } from '../schemas/vocabulary.js';
import type { OpfMethod } from '../schemas/vocabulary.js';

export interface OpfOptions {
  method: OpfMethod;          // default 'ac' (CONTRACT)
  /** MIPS gradtol, comptol and costtol (default 1e-6, MATPOWER's); feastol is opf.violation 5e-6,
   *  or the tolerance itself when that is larger. */
  tolerance: number;
  maxIterations: number;      // MIPS max_it, default 150
  timeoutMs: number;          // default 30000; exceeded -> status 'timeout'
  /** islands without a slack (CONTRACT "Islands"): refuse (default), isolate or new_reference */
  islanding?: IslandingRule;
  /** preventive N-1 (CONTRACT "Security-constrained DC-OPF"; ./security.ts), method dc only */
  security?: SecurityRequest;
}

export const DEFAULT_OPF_OPTIONS: OpfOptions = { method: 'ac', tolerance: 1e-6, maxIterations: 150, timeoutMs: 30000 };
/** MATPOWER's opf.violation: the feasibility tolerance MIPS gets when mips.feastol is 0. */
export const OPF_VIOLATION = 5e-6;

/** One MIPS iteration, as reported to onProgress (MATPOWER's verbose columns). */
export interface OpfProgress {
  iteration: number;
  maxIterations: number;
  feasibility: number;      // feascond
  gradient: number;         // gradcond
  complementarity: number;  // compcond
  objective: number;        // currency/h
}

/** converged; infeasible (MIPS stopped with the constraints still violated, or the limits cannot
 *  be met at all); diverged (stopped while feasible, e.g. numerically failed); timeout; cancelled.
 *  timeout / cancelled carry no bus / branch / generator results. */
export type OpfStatus = 'converged' | 'infeasible' | 'diverged' | 'timeout' | 'cancelled';

/** CONTRACT's fields, plus MATPOWER's voltage and reactive-limit multipliers (MU_VMIN / MU_VMAX in
 *  currency/p.u.h, MU_QMIN / MU_QMAX in currency/MVArh; 0 in DC). */
export interface OpfBus { id: number; v: number; theta: number; lmp_p: number; lmp_q: number; mu_vmin: number; mu_vmax: number; energized?: boolean }
export interface OpfGenerator { index: number; bus: number; p_mw: number; q_mvar: number; mu_pmin: number; mu_pmax: number; mu_qmin: number; mu_qmax: number }
export interface OpfBranch {
  index: number; from: number; to: number;
  p_from: number; q_from: number; p_to: number; q_to: number;
  loading: number; mu_sf: number; mu_st: number;
}
/** A limit that binds (or is violated) at the end of an infeasible solve, largest first. */
export interface BindingLimit {
  kind: 'generator_pmax' | 'generator_pmin' | 'generator_qmax' | 'generator_qmin' | 'bus_vmax' | 'bus_vmin' | 'branch_flow' | 'branch_angle' | 'total_generation';
  index?: number;           // generator or branch index (0-based, model order)
  bus?: number;
  from?: number;
  to?: number;
  multiplier?: number;      // currency/MWh (or /MVAh)
  message: string;
}

export interface OpfResult {
  status: OpfStatus;
  objective: number;        // currency/h (MATPOWER f); NaN when there is no solution
  iterations: number;
  method: OpfMethod;
  /** which solver answered: MIPS (MATPOWER's interior point), or HiGHS for a DC-OPF with linear costs (an LP)
   *  that MIPS did not solve — the way MATPOWER hands LPs to GLPK (docs/opf.md) */
  solver: 'mips' | 'highs';
  buses: OpfBus[];          // model order; theta in radians, as power flow
  generators: OpfGenerator[];
  branches: OpfBranch[];
  message?: string;
  binding?: BindingLimit[]; // status 'infeasible'
  /** MIPS's last convergence measures (for diagnostics). */
  convergence: { feasibility: number; gradient: number; complementarity: number; cost: number };
  duration_ms: number;      // in the worker, around the wasm solve
  /** with islanding isolate / new_reference: every island, the largest first, and what was lost */
  islands?: IslandSummary[];
  lost_load_mw?: number;
  lost_generation_mw?: number;
  /** with `security`: the outages, limit, binding post-contingency constraints and excluded (splitting) outages */
  security?: SecurityOutcome;
}
