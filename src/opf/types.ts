// The contract between the OPF core (assembly/opf/, workers/, src/opf/) and its callers
// (the service's REST / GraphQL / task doors, the CLI, benchmarks, tests). CONTRACT.md
// "Optimal power flow" fixes the result's shape.
import type { Static } from '@sinclair/typebox';
import type { IslandingRule } from '../powerflow/types.js';
import type { OPF_STATUSES, OpfOutcomeOut } from '../schemas/opfResult.js';
import type { SecurityRequest } from './security.js';

export { OPF_METHODS, type OpfMethod } from '../schemas/vocabulary.js';
import type { OpfMethod } from '../schemas/vocabulary.js';

import type { OpfStart } from '../schemas/vocabulary.js';

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
  /** where MIPS starts (docs/opf.md "Start points"): 'default' MATPOWER's point between the bounds, then (AC) the
   *  case's state if that run does not converge; 'case' the model's voltages and dispatch (MATPOWER opf.start 2);
   *  'powerflow' the state of a power flow of the model (opf.start 3) */
  start?: OpfStart;
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
export type OpfStatus = (typeof OPF_STATUSES)[number];

// The result types are the result schemas' (src/schemas/opfResult.ts: one source for the core, the
// REST/OpenAPI description and the tests). CONTRACT's fields, plus MATPOWER's voltage and reactive-limit
// multipliers (MU_VMIN / MU_VMAX in currency/p.u.h, MU_QMIN / MU_QMAX in currency/MVArh; 0 in DC); a
// BindingLimit is a limit that binds (or is violated) at the end of an infeasible solve, largest first.
export type { BindingLimit, OpfBranch, OpfBus, OpfGenerator } from '../schemas/opfResult.js';

/** What an OPF solve answers, without the task's fields (the doors add task_id etc.). */
export type OpfResult = Static<typeof OpfOutcomeOut>;
