// TypeBox schemas of the network resource (SPEC 2 + CONTRACT extra fields).
import { Type } from '@sinclair/typebox';
import { BRANCH_STATUSES, BUS_TYPES, COST_MODELS, ISLANDING_RULES, NETWORK_STATUSES, POWERFLOW_METHODS, literals } from './vocabulary.js';
import { PageQuery, Timestamp } from './common.js';

const num = (o: object = {}) => Type.Number(o);

export const BusIn = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  type: literals(BUS_TYPES),
  v: Type.Optional(num({ exclusiveMinimum: 0 })), theta: Type.Optional(num()), area: Type.Optional(Type.Integer()),
  gs: Type.Optional(num()), bs: Type.Optional(num()), base_kv: Type.Optional(num({ minimum: 0 })),
  vmin: Type.Optional(num({ minimum: 0 })), vmax: Type.Optional(num({ minimum: 0 })),
  name: Type.Optional(Type.String({ maxLength: 64 })), zone: Type.Optional(Type.Integer()),
  // geographic position (WGS84 degrees; both or neither): the console draws the bus there
  lat: Type.Optional(num({ minimum: -90, maximum: 90 })), lon: Type.Optional(num({ minimum: -180, maximum: 180 })),
}, { additionalProperties: false });

export const BranchStatus = literals(BRANCH_STATUSES);
export const BranchIn = Type.Object({
  from: Type.Integer(), to: Type.Integer(), r: num(), x: num(),
  b: Type.Optional(num()), ratio: Type.Optional(num({ minimum: 0 })), shift: Type.Optional(num()),
  rate_a: Type.Optional(num({ minimum: 0 })), status: Type.Optional(BranchStatus),
  // MATPOWER RATE_B / RATE_C (short-term and emergency MVA ratings; 0 = not set): the security-constrained DC-OPF's limits
  rate_b: Type.Optional(num({ minimum: 0 })), rate_c: Type.Optional(num({ minimum: 0 })),
  angmin: Type.Optional(num({ minimum: -360, maximum: 360 })), angmax: Type.Optional(num({ minimum: -360, maximum: 360 })),
}, { additionalProperties: false });

/** Generator cost (MATPOWER gencost row); src/opf/costs.ts checks what a schema cannot (convexity, lengths). */
export const GeneratorCostIn = Type.Object({
  model: literals(COST_MODELS),
  startup: Type.Optional(num()), shutdown: Type.Optional(num()),
  coefficients: Type.Array(num(), { minItems: 1, maxItems: 128 }),
}, { additionalProperties: false });

const limit = Type.Optional(Type.Union([num(), Type.Null()]));
export const GeneratorIn = Type.Object({
  bus: Type.Integer(), mw: num(), mvar: Type.Optional(num()),
  pmin: limit, pmax: limit, qmin: limit, qmax: limit,
  vg: Type.Optional(num({ exclusiveMinimum: 0 })), in_service: Type.Optional(Type.Boolean()),
  cost: Type.Optional(Type.Union([GeneratorCostIn, Type.Null()])),
  // MATPOWER's gencost rows ng+1..2ng: a cost on reactive power (MVAr), used by the AC-OPF; null or absent = none
  reactive_cost: Type.Optional(Type.Union([GeneratorCostIn, Type.Null()])),
}, { additionalProperties: false });

export const LoadIn = Type.Object({
  bus: Type.Integer(), mw: num(), mvar: Type.Optional(num()), in_service: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

/** A MATPOWER DC line (mpc.dcline; src/domain/networkModel.ts DcLine): MW, MVAr, p.u. */
export const DcLineIn = Type.Object({
  from: Type.Integer(), to: Type.Integer(), in_service: Type.Optional(Type.Boolean()),
  p_from: num(), p_to: Type.Optional(num()), q_from: Type.Optional(num()), q_to: Type.Optional(num()),
  v_from: Type.Optional(num({ exclusiveMinimum: 0 })), v_to: Type.Optional(num({ exclusiveMinimum: 0 })),
  pmin: Type.Optional(num()), pmax: Type.Optional(num()), qmin_from: Type.Optional(num()), qmax_from: Type.Optional(num()),
  qmin_to: Type.Optional(num()), qmax_to: Type.Optional(num()), loss0: Type.Optional(num()), loss1: Type.Optional(num()),
  // MATPOWER's mpc.dclinecost: the OPF cost of p_from; null or absent = none
  cost: Type.Optional(Type.Union([GeneratorCostIn, Type.Null()])),
}, { additionalProperties: false });

/** What a PSS/E import could not hold or read differently from psse2mpc (src/psse/warnings.ts). */
export const ImportWarningOut = Type.Object({
  code: Type.String(), count: Type.Integer(), first_line: Type.Optional(Type.Integer()), message: Type.String(),
});

const Tags = Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 256 }));

export const NetworkIn = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
  description: Type.Optional(Type.String({ maxLength: 256 })),
  base_kv: Type.Optional(num({ exclusiveMinimum: 0 })),
  base_mva: Type.Optional(num({ exclusiveMinimum: 0 })),
  buses: Type.Array(BusIn, { minItems: 1, maxItems: 100000 }),
  branches: Type.Optional(Type.Array(BranchIn, { maxItems: 200000 })),
  generators: Type.Optional(Type.Array(GeneratorIn, { maxItems: 100000 })),
  loads: Type.Optional(Type.Array(LoadIn, { maxItems: 100000 })),
  dc_lines: Type.Optional(Type.Array(DcLineIn, { maxItems: 10000 })),
  tags: Type.Optional(Tags),
  status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('ready')])),
}, { additionalProperties: false });

export const NetworkUpdate = Type.Object({
  ...NetworkIn.properties,
  status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('ready'), Type.Literal('archived')])),
}, { additionalProperties: false });

export const NetworkStatus = literals(NETWORK_STATUSES);

export const NetworkOut = Type.Object({
  id: Type.String(), name: Type.String(), description: Type.String(), base_kv: Type.Number(), base_mva: Type.Number(),
  bus_count: Type.Integer(), branch_count: Type.Integer(), generator_count: Type.Integer(), load_count: Type.Integer(),
  status: NetworkStatus, tags: Tags, version: Type.Integer(), created_at: Timestamp, updated_at: Timestamp,
});

/** GET /networks/{id}/layout (src/layout/networkLayout.ts). */
export const NetworkLayoutOut = Type.Object({
  network_id: Type.String(),
  version: Type.Integer(),
  source: Type.Union([Type.Literal('coordinates'), Type.Literal('computed'), Type.Literal('mixed')], {
    description:
      "coordinates: every bus's lat/lon, projected; computed: the structure layout; mixed: computed around the buses that have coordinates",
  }),
  bus_ids: Type.Array(Type.Integer(), { description: 'bus ids in model order' }),
  positions: Type.Array(Type.Number(), { description: 'x, y per bus in bus_ids order, interleaved (y up)' }),
});

export const NetworkDetailOut = Type.Object({
  ...NetworkOut.properties,
  buses: Type.Array(Type.Object({}, { additionalProperties: true })),
  branches: Type.Array(Type.Object({}, { additionalProperties: true })),
  generators: Type.Array(Type.Object({}, { additionalProperties: true })),
  loads: Type.Array(Type.Object({}, { additionalProperties: true })),
  dc_lines: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
});

export const NetworkListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(NetworkStatus),
  name: Type.Optional(Type.String({ maxLength: 64 })),
  tag: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });

export const ValidationOut = Type.Object({
  valid: Type.Boolean(),
  errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String(), code: Type.String() })),
  // (additive) the islands over closed branches, the largest first; slack_bus null: none (CONTRACT "Islands").
  islands: Type.Optional(Type.Array(Type.Object({ buses: Type.Array(Type.Integer()), slack_bus: Type.Union([Type.Integer(), Type.Null()]) }))),
});

export const PowerFlowIn = Type.Object({
  method: Type.Optional(literals(POWERFLOW_METHODS)),
  tolerance: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1 })),
  max_iterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  async: Type.Optional(Type.Boolean()),
  flat_start: Type.Optional(Type.Boolean()),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600000 })),
  enforce_q_limits: Type.Optional(Type.Boolean()),
  // Islands without a slack: refuse (default, 422 ISLANDED_BUS), isolate (de-energize them) or new_reference (CONTRACT "Islands").
  islanding: Type.Optional(literals(ISLANDING_RULES)),
}, { additionalProperties: false });

export const BatchCreateIn = Type.Object({ networks: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 20 }) }, { additionalProperties: false });
export const BatchDeleteIn = Type.Object({ ids: Type.Array(Type.String(), { minItems: 1, maxItems: 50 }) }, { additionalProperties: false });
