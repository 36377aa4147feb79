// The network model of shared/SPEC.md section 2 plus the extra fields of
// shared/CONTRACT.md ("Network model: fields beyond the specification").
// REST uses these snake_case names as they are; GraphQL maps them to camelCase.
// Units: voltages p.u., angles radians, powers MW / MVAr, impedances p.u. on base_mva.
import { BRANCH_STATUSES, BUS_TYPES, COST_MODELS, type BranchStatus, type BusType, type CostModel } from '../schemas/vocabulary.js';

/** MATPOWER bus types 3 (slack), 2 (pv), 1 (pq), 4 (isolated: left out of the solve).
 *  'isolated' is an additive enum value beyond the specification (docs/network-model.md). */
export { BRANCH_STATUSES, BUS_TYPES, type BranchStatus, type BusType };


export interface Bus {
  id: number;          // bus number (external, as in the case file)
  type: BusType;
  v: number;           // p.u., start value (pq) or stored value
  theta: number;       // radians; the slack's theta is the angle reference
  area: number;
  gs: number;          // shunt conductance, MW at 1 p.u.
  bs: number;          // shunt susceptance, MVAr at 1 p.u.
  base_kv: number;
  vmin: number;
  vmax: number;
  name: string;
  zone: number;
  /** Geographic position (WGS84 degrees), both or neither: the console draws the bus there. */
  lat?: number;
  lon?: number;
}

export interface Branch {
  from: number;
  to: number;
  r: number;
  x: number;
  b: number;           // total line charging, p.u.
  ratio: number;       // off-nominal tap (MATPOWER TAP); 0 = line (ratio 1)
  shift: number;       // phase shift, radians
  rate_a: number;      // MVA; 0 = unlimited
  rate_b?: number;     // MVA, MATPOWER RATE_B (short term); 0 or absent = not set
  rate_c?: number;     // MVA, MATPOWER RATE_C (emergency); 0 or absent = not set (security-constrained DC-OPF)
  status: BranchStatus; // only 'closed' is in service
  angmin: number;      // degrees: lower limit of theta_from - theta_to (MATPOWER ANGMIN; -360 = none)
  angmax: number;      // degrees: upper limit (MATPOWER ANGMAX; 360 = none)
}

/** Generator cost (MATPOWER gencost row): polynomial coefficients highest order first, in currency/h
 *  for P in MW; piecewise linear as x1,y1,x2,y2,... (MW, currency/h) with x increasing. */
export { COST_MODELS, type CostModel };
export interface GeneratorCost {
  model: CostModel;
  startup: number;     // currency, kept for unit commitment; not used by OPF
  shutdown: number;
  coefficients: number[];
}

export interface Generator {
  bus: number;
  mw: number;
  mvar: number;
  pmin: number | null;  // null = unlimited
  pmax: number | null;
  qmin: number | null;
  qmax: number | null;
  vg: number;
  in_service: boolean;
  cost: GeneratorCost | null; // null = no cost given (OPF refuses such an in-service generator)
  /** Cost of reactive power (MATPOWER gencost rows ng+1..2ng; MVAr in place of MW): AC-OPF only; absent = none. */
  reactive_cost?: GeneratorCost;
}

export interface Load {
  bus: number;
  mw: number;
  mvar: number;
  in_service: boolean;
}

/** A MATPOWER DC line (mpc.dcline, idx_dcline): a pair of injections at its terminals in power flow
 *  (toggle_dcline). MW, MVAr, p.u.; p_to follows from p_from and the loss model when solved. */
export interface DcLine {
  from: number;
  to: number;
  in_service: boolean;
  p_from: number;      // MW taken at `from`
  p_to: number;        // MW delivered at `to`
  q_from: number;      // MVAr injected at `from`
  q_to: number;        // MVAr injected at `to`
  v_from: number;      // voltage set point (p.u.) at `from`
  v_to: number;
  pmin: number;        // MW, flow limits at `from`
  pmax: number;
  qmin_from: number;   // MVAr
  qmax_from: number;
  qmin_to: number;
  qmax_to: number;
  loss0: number;       // MW: losses = loss0 + loss1 * p_from
  loss1: number;
  /** OPF cost of p_from (MATPOWER mpc.dclinecost, the gencost row format); absent = none (no cost) */
  cost?: GeneratorCost | null;
}

export interface NetworkModel {
  name: string;
  description: string;
  base_kv: number;
  base_mva: number;
  buses: Bus[];
  branches: Branch[];
  generators: Generator[];
  loads: Load[];
  /** MATPOWER DC lines; absent = none */
  dc_lines?: DcLine[];
  tags: Record<string, string>;
}

/** Input shapes: everything but the required fields may be omitted. */
export type BusInput = Pick<Bus, 'id' | 'type'> & Partial<Omit<Bus, 'id' | 'type'>>;
export type BranchInput = Pick<Branch, 'from' | 'to' | 'r' | 'x'> & Partial<Omit<Branch, 'from' | 'to' | 'r' | 'x'>>;
export type GeneratorCostInput = Pick<GeneratorCost, 'model' | 'coefficients'> & Partial<Pick<GeneratorCost, 'startup' | 'shutdown'>>;
export type GeneratorInput = Pick<Generator, 'bus' | 'mw'> & Partial<Omit<Generator, 'bus' | 'mw' | 'cost' | 'reactive_cost'>>
  & { cost?: GeneratorCostInput | null; reactive_cost?: GeneratorCostInput | null };
export type LoadInput = Pick<Load, 'bus' | 'mw'> & Partial<Omit<Load, 'bus' | 'mw'>>;
export type DcLineInput = Pick<DcLine, 'from' | 'to' | 'p_from'> & Partial<Omit<DcLine, 'from' | 'to' | 'p_from' | 'cost'>>
  & { cost?: GeneratorCostInput | null };
export interface NetworkInput {
  name: string;
  description?: string;
  base_kv?: number;
  base_mva?: number;
  buses: BusInput[];
  branches?: BranchInput[];
  generators?: GeneratorInput[];
  loads?: LoadInput[];
  dc_lines?: DcLineInput[];
  tags?: Record<string, string>;
}

export const NETWORK_DEFAULTS = { description: '', base_kv: 110.0, base_mva: 100.0 } as const;

/** Fill every default of SPEC section 2 and CONTRACT; does not validate. */
function costOf(c: GeneratorCostInput): GeneratorCost {
  return { model: c.model, startup: c.startup ?? 0, shutdown: c.shutdown ?? 0, coefficients: [...c.coefficients] };
}

export function withDefaults(input: NetworkInput): NetworkModel {
  const baseKv = input.base_kv ?? NETWORK_DEFAULTS.base_kv;
  return {
    name: input.name,
    description: input.description ?? NETWORK_DEFAULTS.description,
    base_kv: baseKv,
    base_mva: input.base_mva ?? NETWORK_DEFAULTS.base_mva,
    buses: input.buses.map((b) => ({
      id: b.id,
      type: b.type,
      v: b.v ?? 1.0,
      theta: b.theta ?? 0.0,
      area: b.area ?? 1,
      gs: b.gs ?? 0,
      bs: b.bs ?? 0,
      base_kv: b.base_kv ?? baseKv,
      vmin: b.vmin ?? 0.9,
      vmax: b.vmax ?? 1.1,
      name: b.name ?? '',
      zone: b.zone ?? 1,
      ...(b.lat != null ? { lat: b.lat } : {}), ...(b.lon != null ? { lon: b.lon } : {}), // one without the other: refused by validateModel
    })),
    branches: (input.branches ?? []).map((br) => ({
      from: br.from,
      to: br.to,
      r: br.r,
      x: br.x,
      b: br.b ?? 0,
      ratio: br.ratio ?? 0,
      shift: br.shift ?? 0,
      rate_a: br.rate_a ?? 0,
      ...(br.rate_b !== undefined ? { rate_b: br.rate_b } : {}),
      ...(br.rate_c !== undefined ? { rate_c: br.rate_c } : {}),
      status: br.status ?? 'closed',
      angmin: br.angmin ?? -360,
      angmax: br.angmax ?? 360,
    })),
    generators: (input.generators ?? []).map((g) => ({
      bus: g.bus,
      mw: g.mw,
      mvar: g.mvar ?? 0,
      pmin: g.pmin ?? null,
      pmax: g.pmax ?? null,
      qmin: g.qmin ?? null,
      qmax: g.qmax ?? null,
      vg: g.vg ?? 1.0,
      in_service: g.in_service ?? true,
      cost: g.cost ? costOf(g.cost) : null,
      ...(g.reactive_cost ? { reactive_cost: costOf(g.reactive_cost) } : {}),
    })),
    loads: (input.loads ?? []).map((l) => ({
      bus: l.bus,
      mw: l.mw,
      mvar: l.mvar ?? 0,
      in_service: l.in_service ?? true,
    })),
    ...(input.dc_lines && input.dc_lines.length > 0 ? { dc_lines: input.dc_lines.map(dcLineWithDefaults) } : {}),
    tags: input.tags ?? {},
  };
}

/** MATPOWER's defaults for a DC line's optional columns: lossless, unlimited, 1 p.u. set points. */
export function dcLineWithDefaults(d: DcLineInput): DcLine {
  return {
    from: d.from, to: d.to, in_service: d.in_service ?? true, p_from: d.p_from, p_to: d.p_to ?? d.p_from, q_from: d.q_from ?? 0, q_to: d.q_to ?? 0,
    v_from: d.v_from ?? 1, v_to: d.v_to ?? 1, pmin: d.pmin ?? -Number.MAX_VALUE, pmax: d.pmax ?? Number.MAX_VALUE,
    qmin_from: d.qmin_from ?? -9999, qmax_from: d.qmax_from ?? 9999, qmin_to: d.qmin_to ?? -9999, qmax_to: d.qmax_to ?? 9999,
    loss0: d.loss0 ?? 0, loss1: d.loss1 ?? 0,
    ...(d.cost ? { cost: { startup: 0, shutdown: 0, ...d.cost } } : {}),
  };
}
