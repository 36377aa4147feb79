// The contract between the power-flow core (assembly/ + workers/ + src/powerflow/)
// and everything that calls it (the service, the CLI, benchmarks, tests).
import type { Static } from '@sinclair/typebox';
import { ISLANDING_RULES, POWERFLOW_METHODS, type IslandingRule, type PowerFlowMethod } from '../schemas/vocabulary.js';
import type { SOLVE_STATUSES, SolveOutcomeOut } from '../schemas/powerflowResult.js';

export { ISLANDING_RULES, POWERFLOW_METHODS, type IslandingRule, type PowerFlowMethod };

export interface SolveOptions {
  method: PowerFlowMethod;       // default newton_raphson
  tolerance: number;             // max-norm of the p.u. power mismatch, default 1e-8
  maxIterations: number;         // default 50 (service) / MATPOWER uses 10 NR, 30 FD
  flatStart: boolean;            // default false (CONTRACT "Power flow semantics")
  enforceQLimits: boolean;       // default false (MATPOWER pf.enforce_q_lims)
  timeoutMs: number;             // default 30000; exceeded -> status 'timeout'
  islanding?: IslandingRule;     // default 'refuse' (CONTRACT "Islands"; src/powerflow/islanding.ts)
}

export const DEFAULT_SOLVE_OPTIONS: SolveOptions = {
  method: 'newton_raphson',
  tolerance: 1e-8,
  maxIterations: 50,
  flatStart: false,
  enforceQLimits: false,
  timeoutMs: 30000,
};

export interface ProgressReport {
  iteration: number;
  maxIterations: number;
  mismatch: number;  // max-norm p.u. after this iteration
}

/** How a solve ended. 'timeout' and 'cancelled' carry no bus/branch results. */
export type SolveStatus = (typeof SOLVE_STATUSES)[number];

// The element and outcome types are the result schemas' (src/schemas/powerflowResult.ts: one
// source for the core, the REST/OpenAPI description and the tests).
export type { BranchResult, BusResult, GeneratorResult, IslandSummary } from '../schemas/powerflowResult.js';

/** The solver's answer, without task metadata (the service adds task_id etc.). */
export type SolveOutcome = Static<typeof SolveOutcomeOut>;

/** Raised (as a rejected promise) for inputs the solver cannot accept:
 *  islands without a slack, unknown bus numbers, no slack at all, singular Jacobian... */
export class PowerFlowInputError extends Error {
  constructor(
    message: string,
    public readonly code: 'TOPOLOGY_INVALID' | 'ISLANDED_BUS' | 'BUS_NOT_FOUND' | 'VALIDATION_FAILED',
    public readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'PowerFlowInputError';
  }
}
