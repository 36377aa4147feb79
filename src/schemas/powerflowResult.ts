// TypeBox schemas of a power-flow result: the one source of its shape. The core's contract
// (src/powerflow/types.ts) takes its element types from here with Static<>, the REST doors
// describe their answers with them (OpenAPI), and test/result-schemas.test.ts checks real
// answers and the GraphQL types against them.
import { type Static, Type } from '@sinclair/typebox';
import { POWERFLOW_METHODS, literals } from './vocabulary.js';
import { Timestamp } from './common.js';

export const SOLVE_STATUSES = ['converged', 'diverged', 'timeout', 'cancelled'] as const;

export const BusResultOut = Type.Object({
  id: Type.Integer(),
  v: Type.Number({ description: 'voltage magnitude, p.u. (0 when de-energized)' }),
  theta: Type.Number({ description: 'voltage angle, radians' }),
  p_gen: Type.Number({ description: 'MW' }),
  q_gen: Type.Number({ description: 'MVAr' }),
  p_load: Type.Number({ description: 'MW' }),
  q_load: Type.Number({ description: 'MVAr' }),
  energized: Type.Optional(Type.Boolean({ description: 'with islanding isolate / new_reference: false for a de-energized bus' })),
});

export const BranchResultOut = Type.Object({
  index: Type.Integer({ description: '0-based position in the network\'s branch list (parallel branches share from/to)' }),
  from: Type.Integer(),
  to: Type.Integer(),
  p_from: Type.Number({ description: 'MW' }),
  q_from: Type.Number({ description: 'MVAr' }),
  p_to: Type.Number({ description: 'MW' }),
  q_to: Type.Number({ description: 'MVAr' }),
  loading: Type.Number({ description: '% of rate_a; 0 when rate_a is 0 (unlimited) or the branch is out of service' }),
});

export const GeneratorResultOut = Type.Object({
  bus: Type.Integer(),
  p_gen: Type.Number({ description: 'MW (0 when out of service)' }),
  q_gen: Type.Number({ description: 'MVAr' }),
});

export const DcLineResultOut = Type.Object({
  from: Type.Integer(), to: Type.Integer(), in_service: Type.Boolean(),
  p_from: Type.Number({ description: 'MW taken at from' }), p_to: Type.Number({ description: 'MW delivered at to' }),
  q_from: Type.Number({ description: 'MVAr injected at from' }), q_to: Type.Number({ description: 'MVAr injected at to' }),
}, { description: "a MATPOWER DC line as runpf solves it (a pair of injections); zeros when out of service" });

export const IslandSummaryOut = Type.Object({
  buses: Type.Array(Type.Integer()),
  reference_bus: Type.Union([Type.Integer(), Type.Null()], { description: 'null when de-energized' }),
  energized: Type.Boolean(),
  load_mw: Type.Number({ description: 'sum of the island\'s in-service loads' }),
  generation_mw: Type.Number({ description: 'sum of its in-service generators\' set-points' }),
});

export const LossesOut = Type.Object({
  p_mw: Type.Number(), q_mvar: Type.Number(),
}, { description: 'series I²R / I²X losses, as MATPOWER get_losses' });

/** What a solve answers (the core's SolveOutcome), without the task's fields. */
export const SolveOutcomeOut = Type.Object({
  status: literals(SOLVE_STATUSES),
  method: literals(POWERFLOW_METHODS),
  iterations: Type.Integer(),
  mismatch: Type.Number({ description: 'last max-norm power mismatch, p.u.' }),
  tolerance: Type.Number(),
  duration_ms: Type.Number({ description: 'wall time of the solve in the worker' }),
  buses: Type.Array(BusResultOut, { description: 'network order' }),
  branches: Type.Array(BranchResultOut, { description: 'network order; out-of-service rows carry zero flows' }),
  generators: Type.Array(GeneratorResultOut, { description: 'network order' }),
  losses: LossesOut,
  message: Type.Optional(Type.String({ description: 'why it diverged or was refused' })),
  islands: Type.Optional(Type.Array(IslandSummaryOut, { description: 'with islanding isolate / new_reference: every island, the largest first' })),
  lost_load_mw: Type.Optional(Type.Number()),
  lost_generation_mw: Type.Optional(Type.Number()),
  dc_lines: Type.Optional(Type.Array(DcLineResultOut, { description: 'network order; present when the network has DC lines' })),
});

/** A power-flow task's stored result: POST /networks/{id}/powerflow (synchronous) and GET /tasks/{id}?include=result. */
export const PowerFlowResultOut = Type.Object({
  task_id: Type.String(),
  network_id: Type.String(),
  network_version: Type.Integer(),
  ...SolveOutcomeOut.properties,
  iterations: Type.Union([Type.Integer(), Type.Null()], { description: 'null for a task stopped before its first iteration' }),
  duration_ms: Type.Integer({ description: 'wall time of the solve in the worker, rounded' }),
  started_at: Timestamp,
  completed_at: Timestamp,
});

/** POST /networks/{id}/powerflow|opf with "async": true. */
export const TaskSubmittedOut = Type.Object({
  task_id: Type.String(), network_id: Type.String(), status: Type.String(), poll_url: Type.String(), created_at: Timestamp,
});

export type BusResult = Static<typeof BusResultOut>;
export type BranchResult = Static<typeof BranchResultOut>;
export type GeneratorResult = Static<typeof GeneratorResultOut>;
export type IslandSummary = Static<typeof IslandSummaryOut>;
export type PowerFlowResult = Static<typeof PowerFlowResultOut>;
