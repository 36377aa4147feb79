// TypeBox schemas of an OPF result (CONTRACT "Optimal power flow", "Islands"): the one source of
// its shape. src/opf/types.ts takes its types from here with Static<>; POST /networks/{id}/opf
// describes its answer with them (OpenAPI); test/result-schemas.test.ts checks real answers and
// the GraphQL types against them.
import { type Static, Type } from '@sinclair/typebox';
import { OPF_METHODS, OPF_STARTS, literals } from './vocabulary.js';
import { Timestamp } from './common.js';
import { IslandSummaryOut } from './powerflowResult.js';

export const OPF_STATUSES = ['converged', 'infeasible', 'diverged', 'timeout', 'cancelled'] as const;
export const OPF_SOLVERS = ['mips', 'highs'] as const;
export const BINDING_KINDS = [
  'generator_pmax',
  'generator_pmin',
  'generator_qmax',
  'generator_qmin',
  'bus_vmax',
  'bus_vmin',
  'branch_flow',
  'branch_angle',
  'total_generation',
] as const;

export const OpfBusOut = Type.Object({
  id: Type.Integer(),
  v: Type.Number({ description: 'p.u. (1 in DC)' }),
  theta: Type.Number({ description: 'radians, as power flow' }),
  lmp_p: Type.Number({ description: 'currency/MWh (MATPOWER LAM_P)' }),
  lmp_q: Type.Number({ description: 'currency/MVArh (LAM_Q; 0 in DC)' }),
  mu_vmin: Type.Number({ description: 'currency/p.u.h (MU_VMIN; 0 in DC)' }),
  mu_vmax: Type.Number({ description: 'currency/p.u.h (MU_VMAX; 0 in DC)' }),
  energized: Type.Optional(Type.Boolean({ description: 'with islanding isolate / new_reference: false for a de-energized bus' })),
});

export const OpfGeneratorOut = Type.Object({
  index: Type.Integer({ description: '0-based, model order' }),
  bus: Type.Integer(),
  p_mw: Type.Number(),
  q_mvar: Type.Number({ description: '0 in DC' }),
  mu_pmin: Type.Number({ description: 'currency/MWh' }),
  mu_pmax: Type.Number({ description: 'currency/MWh' }),
  mu_qmin: Type.Number({ description: 'currency/MVArh (0 in DC)' }),
  mu_qmax: Type.Number({ description: 'currency/MVArh (0 in DC)' }),
});

export const OpfBranchOut = Type.Object({
  index: Type.Integer(),
  from: Type.Integer(),
  to: Type.Integer(),
  p_from: Type.Number(), q_from: Type.Number(), p_to: Type.Number(), q_to: Type.Number(),
  loading: Type.Number({ description: '% of rate_a (0 when unlimited)' }),
  mu_sf: Type.Number({ description: 'currency/MVAh (MU_SF)' }),
  mu_st: Type.Number({ description: 'currency/MVAh (MU_ST)' }),
});

/** A MATPOWER DC line as runopf with toggle_dcline dispatches it (src/opf/dcLines.ts): mpc.dcline's PF, PT, QF, QT,
 *  VF, VT and MU_* columns; zeros when out of service. */
export const OpfDcLineOut = Type.Object({
  index: Type.Integer({ description: '0-based, model order' }),
  from: Type.Integer(), to: Type.Integer(), in_service: Type.Boolean(),
  p_from: Type.Number({ description: 'MW taken at from' }), p_to: Type.Number({ description: 'MW delivered at to' }),
  q_from: Type.Number({ description: 'MVAr injected at from (0 in DC)' }), q_to: Type.Number({ description: 'MVAr injected at to (0 in DC)' }),
  v_from: Type.Number({ description: 'p.u. at from (1 in DC)' }), v_to: Type.Number({ description: 'p.u. at to (1 in DC)' }),
  mu_pmin: Type.Number({ description: 'currency/MWh, of pmin ≤ p_from' }), mu_pmax: Type.Number({ description: 'currency/MWh, of p_from ≤ pmax' }),
  mu_qmin_from: Type.Number(), mu_qmax_from: Type.Number(), mu_qmin_to: Type.Number(), mu_qmax_to: Type.Number({ description: 'currency/MVArh (0 in DC)' }),
});

/** A limit that binds (or is violated) at the end of an infeasible solve, largest first. */
export const BindingLimitOut = Type.Object({
  kind: literals(BINDING_KINDS),
  index: Type.Optional(Type.Integer({ description: 'generator or branch index (0-based, model order)' })),
  bus: Type.Optional(Type.Integer()),
  from: Type.Optional(Type.Integer()),
  to: Type.Optional(Type.Integer()),
  multiplier: Type.Optional(Type.Number({ description: 'currency/MWh (or /MVAh)' })),
  message: Type.String(),
});

export const OpfConvergenceOut = Type.Object({
  feasibility: Type.Number(), gradient: Type.Number(), complementarity: Type.Number(), cost: Type.Number(),
}, { description: 'MIPS\'s last convergence measures' });

/** A binding post-contingency constraint of the security-constrained DC-OPF. */
export const OpfBindingContingencyOut = Type.Object({
  outage: Type.Union([Type.Integer(), Type.String()], { description: 'the outage id (a branch index for n-1-branches)' }),
  branch: Type.Integer(), flow_mw: Type.Number(), limit_mw: Type.Number(),
  mu: Type.Number({ description: 'currency/MWh, negative at the lower side' }),
});

/** With security: the preventive N-1 (CONTRACT "Security-constrained DC-OPF"). */
export const OpfSecurityOut = Type.Object({
  contingencies: Type.Integer({ description: 'outages listed' }),
  limit: Type.Union([Type.Literal('rate_c'), Type.Literal('rate_b'), Type.Literal('rate_a')]),
  binding: Type.Array(OpfBindingContingencyOut),
  excluded: Type.Array(Type.Union([Type.Integer(), Type.String()]), { description: 'outages that split the network: not constrained' }),
  rounds: Type.Integer({ description: 'DC-OPF solves of the constraint generation' }),
  constraints_added: Type.Integer({ description: 'post-contingency rows added over the rounds' }),
});

/** A run of the interior point that did not converge before the one that answered (start "default" retries from
 *  the case's state; docs/opf.md "Start points"). */
export const OpfEarlierRunOut = Type.Object({
  start: literals(OPF_STARTS), status: literals(OPF_STATUSES), iterations: Type.Integer(), duration_ms: Type.Number(),
  message: Type.Optional(Type.String()),
});

/** What an OPF solve answers (the core's OpfResult), without the task's fields. */
export const OpfOutcomeOut = Type.Object({
  status: literals(OPF_STATUSES),
  objective: Type.Number({ description: 'currency/h (MATPOWER f)' }),
  iterations: Type.Integer(),
  method: literals(OPF_METHODS),
  solver: literals(OPF_SOLVERS), // MIPS (MATPOWER's interior point), or HiGHS for an LP that MIPS did not solve
  buses: Type.Array(OpfBusOut, { description: 'model order' }),
  generators: Type.Array(OpfGeneratorOut, { description: 'model order' }),
  branches: Type.Array(OpfBranchOut, { description: 'model order' }),
  dc_lines: Type.Optional(Type.Array(OpfDcLineOut, { description: 'model order; present when the network has DC lines' })),
  message: Type.Optional(Type.String()),
  binding: Type.Optional(Type.Array(BindingLimitOut, { description: 'status infeasible: the limits pushing against each other' })),
  convergence: OpfConvergenceOut,
  duration_ms: Type.Number({ description: 'in the worker, around the wasm solve' }),
  islands: Type.Optional(Type.Array(IslandSummaryOut)),
  lost_load_mw: Type.Optional(Type.Number()),
  lost_generation_mw: Type.Optional(Type.Number()),
  security: Type.Optional(OpfSecurityOut),
  start: Type.Optional(literals(OPF_STARTS)), // where the interior point of this answer started
  earlier_runs: Type.Optional(Type.Array(OpfEarlierRunOut, { description: 'runs that did not converge before this one' })),
});

/** An OPF task's stored result; the synchronous answer adds `applied` when `apply: true` stored the dispatch. */
export const OpfResultOut = Type.Object({
  task_id: Type.String(),
  network_id: Type.String(),
  network_version: Type.Integer(),
  ...OpfOutcomeOut.properties,
  duration_ms: Type.Integer(),
  started_at: Type.Union([Timestamp, Type.Null()]),
  completed_at: Timestamp,
  applied: Type.Optional(Type.Object({ network_version: Type.Integer({ description: 'the version that holds the dispatch' }) })),
});

export type OpfBus = Static<typeof OpfBusOut>;
export type OpfGenerator = Static<typeof OpfGeneratorOut>;
export type OpfBranch = Static<typeof OpfBranchOut>;
export type BindingLimit = Static<typeof BindingLimitOut>;
