// The contract between the power-flow core (assembly/ + workers/ + src/powerflow/)
// and everything that calls it (the service, the CLI, benchmarks, tests).
import { ISLANDING_RULES, POWERFLOW_METHODS, type IslandingRule, type PowerFlowMethod } from '../schemas/vocabulary.js';

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
export type SolveStatus = 'converged' | 'diverged' | 'timeout' | 'cancelled';

export interface BusResult {
  id: number;
  v: number;       // p.u.
  theta: number;   // rad
  p_gen: number;   // MW
  q_gen: number;   // MVAr
  p_load: number;  // MW
  q_load: number;  // MVAr
  energized?: boolean; // with islanding isolate / new_reference: false for a de-energized bus (v = theta = 0)
}

export interface BranchResult {
  index: number;   // 0-based position in the network's branch list (parallel branches share from/to)
  from: number;
  to: number;
  p_from: number;  // MW
  q_from: number;  // MVAr
  p_to: number;
  q_to: number;
  loading: number; // % of rate_a, 0 when rate_a is 0 (unlimited) or out of service
}

/** One island of the network under islanding isolate / new_reference (CONTRACT "Islands"). */
export interface IslandSummary {
  buses: number[];
  reference_bus: number | null; // null when de-energized
  energized: boolean;
  load_mw: number;              // sum of the island's in-service loads
  generation_mw: number;        // sum of its in-service generators' set-points
}

export interface GeneratorResult {
  bus: number;
  p_gen: number;   // MW (0 when out of service)
  q_gen: number;   // MVAr
}

/** The solver's answer, without task metadata (the service adds task_id etc.). */
export interface SolveOutcome {
  status: SolveStatus;
  method: PowerFlowMethod;
  iterations: number;
  mismatch: number;          // last max-norm mismatch, p.u.
  tolerance: number;
  duration_ms: number;       // wall time of the solve in the worker
  buses: BusResult[];        // in network order
  branches: BranchResult[];  // in network order; out-of-service rows have zero flows
  generators: GeneratorResult[]; // in network order
  losses: { p_mw: number; q_mvar: number }; // series I^2 R / I^2 X, as MATPOWER get_losses
  message?: string;          // why it diverged / was rejected
  islands?: IslandSummary[]; // with islanding isolate / new_reference: every island, the largest first
  lost_load_mw?: number;     // sums over the de-energized islands
  lost_generation_mw?: number;
}

/** Raised (as a rejected promise) for inputs the solver cannot accept:
 *  islands without a slack, unknown bus numbers, no slack at all, singular Jacobian... */
export class PowerFlowInputError extends Error {
  constructor(message: string, public readonly code: 'TOPOLOGY_INVALID' | 'ISLANDED_BUS' | 'BUS_NOT_FOUND' | 'VALIDATION_FAILED', public readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'PowerFlowInputError';
  }
}
