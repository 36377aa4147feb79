// solveOpf: the one function every door (REST, GraphQL, task queue, CLI, bench) calls.
//
//   const result = await solveOpf(pool, network, {
//     method: 'ac',            // 'ac' | 'dc' (default 'ac', CONTRACT)
//     tolerance: 1e-6,         // MIPS gradtol/comptol/costtol; feastol = max(5e-6, tolerance)
//     maxIterations: 150,      // MIPS max_it
//     timeoutMs: 30000,        // -> status 'timeout'
//     signal,                  // AbortSignal -> status 'cancelled'
//     onProgress,              // (OpfProgress) => void, once per MIPS iteration, in order, all before the
//                              // promise resolves; live as they happen once the solve has run 20 ms
//   });
//
// Resolves with an OpfResult (./types.ts, CONTRACT "Optimal power flow"): statuses converged,
// infeasible (with `binding`: the limits that bind or are violated, largest multiplier first),
// diverged, timeout, cancelled. Rejects with PowerFlowInputError for input the OPF cannot take
// (bad or missing costs, unknown buses, no slack, bad options): the doors answer 400 with it.
// The network is packed (./pack.ts) into one Float64Array transferred to a pool worker
// (src/opf/worker.ts), solved by the wasm MIPS (assembly/opf/), and unpacked here.
import { performance } from 'node:perf_hooks';
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import { PowerFlowInputError, type SolveOutcome } from '../powerflow/types.js';
import { islandSplit } from '../powerflow/islanding.js';
import { islandSummaries } from '../domain/networkValidation.js';
import { IN, OUT, OUT_BR, OUT_BR_FIELDS, OUT_BUS, OUT_BUS_FIELDS, OUT_GEN, OUT_GEN_FIELDS, SOLVER_CODE, STATUS } from './abi.js';
import { packOpf, type PackedOpf } from './pack.js';
import { dcLineResults } from './dcLines.js';
import { PROGRESS_FIELDS } from './worker.js';
import { DEFAULT_OPF_OPTIONS, type BindingLimit, type OpfOptions, type OpfProgress, type OpfResult, type OpfStatus } from './types.js';
import { solvePowerFlow } from '../powerflow/solve.js';

export interface OpfCall extends Partial<OpfOptions> {
  signal?: AbortSignal;
  onProgress?: (p: OpfProgress) => void;
  /** DC only: extra linear rows on the internal bus angles (./security.ts), encoded as the core reads
   *  them (assembly/opf/abi.ts: lo, hi, n, then n pairs of internal bus and coefficient, p.u.) */
  extraRows?: { count: number; values: Float64Array };
  /** receives the extra rows' multipliers (currency/MWh, upper minus lower side) of a solved problem */
  onRowMultipliers?: (mu: Float64Array) => void;
}

/** Most limits listed in an infeasible result's `binding`. */
const MAX_BINDING = 20;

/** The OPF options of a call, defaults filled. */
export function opfCallOptions(call: OpfCall): OpfOptions {
  const o: OpfOptions = { ...DEFAULT_OPF_OPTIONS };
  for (const k of ['method', 'tolerance', 'maxIterations', 'timeoutMs', 'start'] as const) {
    if (call[k] !== undefined) (o as unknown as Record<string, unknown>)[k] = call[k];
  }
  return o;
}

export function emptyResult(status: OpfStatus, o: OpfOptions, extra: Partial<OpfResult> = {}): OpfResult {
  return {
    status, objective: NaN, iterations: 0, method: o.method, solver: 'mips', buses: [], generators: [], branches: [],
    convergence: { feasibility: NaN, gradient: NaN, complementarity: NaN, cost: NaN }, duration_ms: 0, ...extra,
  };
}

export async function solveOpf(pool: SolverPool, network: NetworkModel, call: OpfCall = {}): Promise<OpfResult> {
  const rule = call.islanding ?? 'refuse';
  if (rule === 'refuse') {
    refuseIslands(network);
    return solveOpfModel(pool, network, call);
  }
  if (rule !== 'isolate' && rule !== 'new_reference') {
    throw new PowerFlowInputError(`unknown islanding rule '${String(rule)}' (refuse, isolate, new_reference)`, 'VALIDATION_FAILED', { field: 'islanding' });
  }
  // As power flow: the islands without a reference typed out before packing (src/powerflow/islanding.ts),
  // each energized island optimised with its own reference angle.
  const split = islandSplit(network, rule);
  const r = await solveOpfModel(pool, split.model, call);
  const out: OpfResult = { ...r, islands: split.islands, lost_load_mw: split.lostLoadMw, lost_generation_mw: split.lostGenerationMw };
  if (r.buses.length > 0)
    out.buses = r.buses.map((b, k) =>
      split.energized[k]
        ? { ...b, energized: true }
        : { ...b, v: 0, theta: 0, lmp_p: 0, lmp_q: 0, mu_vmin: 0, mu_vmax: 0, energized: false },
    );
  return out;
}

/** islanding refuse: 422 ISLANDED_BUS for buses not connected to a slack bus (as a power flow). */
export function refuseIslands(network: NetworkModel): void {
  const orphans = islandSummaries(network).filter((i) => i.slack_bus === null).flatMap((i) => i.buses)
    .filter((id) => network.buses.find((b) => b.id === id)?.type !== 'isolated');
  if (orphans.length === 0) return;
  throw new PowerFlowInputError(
    `${orphans.length} bus(es) are not connected to a slack bus through closed branches: ` +
      `${orphans.slice(0, 20).join(', ')}${orphans.length > 20 ? ', …' : ''}; pass islanding "isolate" or "new_reference" to ` +
      `optimise the rest`,
    'ISLANDED_BUS',
    { buses: orphans.slice(0, 100) },
  );
}

/** The start point (docs/opf.md "Start points"): 'case' and 'powerflow' run once from the model's state (a power
 *  flow's, for 'powerflow'); 'default' runs from MATPOWER's point between the bounds and, for AC, when that run ends
 *  without converging (MATPOWER's MIPS fails so on case13659pegase and case_ACTIVSg10k), once more from the
 *  case's state, with what is left of timeout_ms; the first run is listed in `earlier_runs`. */
async function solveOpfModel(pool: SolverPool, network: NetworkModel, call: OpfCall): Promise<OpfResult> {
  const start = call.start ?? 'default';
  const t0 = performance.now();
  const timeoutMs = call.timeoutMs ?? DEFAULT_OPF_OPTIONS.timeoutMs;
  const left = () => Math.max(1, Math.round(timeoutMs - (performance.now() - t0)));
  if (start === 'powerflow') {
    const pfOptions = { method: call.method === 'dc' ? ('dc' as const) : ('newton_raphson' as const), timeoutMs, flatStart: false };
    const pf = await solvePowerFlow(pool, network, pfOptions, { signal: call.signal });
    if (pf.status === 'cancelled' || pf.status === 'timeout') {
      return emptyResult(pf.status, opfCallOptions(call), { message: `the power flow for the start point ended ${pf.status}`, start });
    }
    if (pf.status !== 'converged') {
      const r = await solveOnce(pool, network, { ...call, start: 'default', timeoutMs: left() });
      return {
        ...r,
        start: 'default',
        message: `the power flow for the start point ended ${pf.status} (${pf.iterations} iterations): started from the default ` +
          `point${r.message ? `; ${r.message}` : ''}`,
      };
    }
    const solved = withPowerFlowState(network, pf);
    return { ...(await solveOnce(pool, solved, { ...call, timeoutMs: left() })), start };
  }
  const first = await solveOnce(pool, network, call);
  // Only the AC problem is non-convex, where the start point decides whether MIPS converges; a DC-OPF is a
  // convex QP or LP (an LP that MIPS does not finish goes to HiGHS): a second run there would only cost.
  if (
    start !== 'default' ||
    call.method === 'dc' ||
    !(first.status === 'infeasible' || first.status === 'diverged') ||
    first.iterations === 0
  )
    return { ...first, start };
  const again = await solveOnce(pool, network, { ...call, start: 'case', timeoutMs: left() });
  const earlier = {
    start: 'default' as const,
    status: first.status,
    iterations: first.iterations,
    duration_ms: first.duration_ms,
    ...(first.message ? { message: first.message } : {}),
  };
  // the retry answers only when it did better; else the default run's answer stands, the retry listed
  if (again.status === 'converged' || again.status === 'timeout' || again.status === 'cancelled') return { ...again, start: 'case', earlier_runs: [earlier] };
  return {
    ...first,
    start: 'default',
    earlier_runs: [
      {
        start: 'case',
        status: again.status,
        iterations: again.iterations,
        duration_ms: again.duration_ms,
        ...(again.message ? { message: again.message } : {}),
      },
    ],
  };
}

/** The model with a solved power flow's voltages and generator outputs (the start point of start 'powerflow'). */
function withPowerFlowState(network: NetworkModel, pf: SolveOutcome): NetworkModel {
  const byId = new Map(pf.buses.map((b) => [b.id, b]));
  return {
    ...network,
    buses: network.buses.map((b) => {
      const r = byId.get(b.id);
      return r ? { ...b, v: r.v, theta: r.theta } : b;
    }),
    generators: network.generators.map((g, k) => {
      const r = pf.generators[k];
      return r && g.in_service ? { ...g, mw: r.p_gen, mvar: r.q_gen } : g;
    }),
  };
}

async function solveOnce(pool: SolverPool, network: NetworkModel, call: OpfCall): Promise<OpfResult> {
  const o = opfCallOptions(call);
  const packed = packOpf(network, o);
  if (call.extraRows && call.extraRows.count > 0) {
    const x = call.extraRows, input = new Float64Array(packed.input.length + x.values.length);
    input.set(packed.input);
    input.set(x.values, packed.input.length);
    input[IN.NXROWS] = x.count;
    input[IN.XROWS_AT] = packed.input.length;
    packed.input = input;
  }
  const capacity = capacityCheck(packed, o.method);
  if (capacity) return emptyResult('infeasible', o, { message: capacity.message, binding: [capacity] });
  const { signal, onProgress } = call;
  if (signal?.aborted) return emptyResult('cancelled', o, { message: 'cancelled before it started' });
  const started = performance.now();
  let last: OpfProgress | undefined;
  // rows passed to onProgress (live ones, then the rest from the trailer); none after a stop (the pool passes no
  // live rows of a stopped job)
  let reported = 0;
  const report = (from: number, rows: Float64Array) => {
    for (let i = Math.max(reported - from, 0); PROGRESS_FIELDS * i < rows.length && !signal?.aborted; i++) {
      const p = rows.subarray(PROGRESS_FIELDS * i, PROGRESS_FIELDS * (i + 1));
      last = { iteration: p[0]!, maxIterations: o.maxIterations, feasibility: p[1]!, gradient: p[2]!, complementarity: p[3]!, objective: p[4]! };
      reported = from + i + 1;
      onProgress?.(last);
    }
  };
  const stopped = (status: 'timeout' | 'cancelled') => emptyResult(status, o, {
    message: status === 'timeout' ? `exceeded timeout_ms (${o.timeoutMs} ms)` : 'cancelled',
    iterations: last?.iteration ?? 0, duration_ms: performance.now() - started,
  });
  const ran = await pool.run('opf', { input: packed.input }, { timeoutMs: o.timeoutMs, signal, onLive: onProgress ? report : undefined });
  if (ran.stopped) return stopped(ran.stopped);
  const full = ran.value;
  const n = full[full.length - 1]!;
  const outLen = full.length - 1 - PROGRESS_FIELDS * n;
  report(0, full.subarray(outLen, outLen + PROGRESS_FIELDS * n));
  if (signal?.aborted) return stopped('cancelled'); // onProgress cancelled it
  const r = unpackOpf(network, packed, full.subarray(0, outLen), o);
  if (call.extraRows && call.onRowMultipliers && r.buses.length > 0) {
    const at = OUT.HEADER + OUT_BUS_FIELDS * packed.nb + OUT_BR_FIELDS * packed.nl + OUT_GEN_FIELDS * packed.ng;
    call.onRowMultipliers(full.slice(at, at + call.extraRows.count));
  }
  return r;
}

/** Limits no dispatch can meet: in-service capacity below demand (shunt conductance included: at
 *  1 p.u. in DC, at its least within the voltage limits in AC) plus the DC lines' least loss, or, in DC,
 *  minimum outputs above demand plus their largest loss (AC losses may absorb a surplus, so there it is
 *  left to the solver). */
export function capacityCheck(p: PackedOpf, method: OpfOptions['method']): BindingLimit | undefined {
  const tol = 1e-9 * Math.max(1, Math.abs(p.demandMw));
  if (p.pmaxMw < p.demandMw + p.lossMinMw - tol) {
    return { kind: 'total_generation', message: `in-service generation capacity ${round(p.pmaxMw)} MW is below the demand of ${round(p.demandMw)} MW`
      + (p.lossMinMw > 0 ? ` and the DC lines' least loss of ${round(p.lossMinMw)} MW` : '') };
  }
  if (method === 'dc' && p.pminMw > p.demandMw + p.lossMaxMw + tol) {
    return { kind: 'total_generation', message: `in-service generators' minimum output ${round(p.pminMw)} MW exceeds the demand of ${round(p.demandMw)} MW` };
  }
  return undefined;
}

function round(x: number): number { return Math.round(x * 1000) / 1000; }

/** Output buffer -> OpfResult in model order (left-out rows: zero flows and multipliers). */
export function unpackOpf(net: NetworkModel, p: PackedOpf, out: Float64Array, o: OpfOptions): OpfResult {
  const code = out[OUT.STATUS]!;
  if (code === STATUS.BAD_INPUT) throw new PowerFlowInputError('the OPF core rejected the packed network', 'VALIDATION_FAILED');
  const convergence = { feasibility: out[OUT.FEAS]!, gradient: out[OUT.GRAD]!, complementarity: out[OUT.COMP]!, cost: out[OUT.COST]! };
  const solver: OpfResult['solver'] = out[OUT.SOLVER] === SOLVER_CODE.highs ? 'highs' : 'mips';
  const base = { method: o.method, solver, iterations: out[OUT.ITER]!, duration_ms: out[OUT.SOLVE_MS]!, convergence };
  if (code === STATUS.CANCELLED) return emptyResult('cancelled', o, { ...base, message: 'stopped' });
  const { nb, nl, ng } = p;
  const oBus = OUT.HEADER, oBr = oBus + OUT_BUS_FIELDS * nb, oGen = oBr + OUT_BR_FIELDS * nl;
  const dc = o.method === 'dc';
  const buses = net.buses.map((b) => ({ id: b.id, v: dc ? 1 : b.v, theta: b.theta, lmp_p: 0, lmp_q: 0, mu_vmin: 0, mu_vmax: 0 }));
  // column c of a section of n rows starts at section + c * n (assembly/opf/abi.ts)
  const bus = (c: number, i: number) => out[oBus + c * nb + i]!;
  for (let i = 0; i < nb; i++) {
    const r = buses[p.busOrder[i]!]!;
    r.v = bus(OUT_BUS.VM, i); r.theta = bus(OUT_BUS.VA, i); r.lmp_p = bus(OUT_BUS.LAM_P, i); r.lmp_q = dc ? 0 : bus(OUT_BUS.LAM_Q, i);
    r.mu_vmin = bus(OUT_BUS.MU_VMIN, i); r.mu_vmax = bus(OUT_BUS.MU_VMAX, i);
  }
  const gen = (c: number, g: number) => out[oGen + c * ng + g]!;
  const generators = net.generators.map((g, index) => ({ index, bus: g.bus, p_mw: 0, q_mvar: 0, mu_pmin: 0, mu_pmax: 0, mu_qmin: 0, mu_qmax: 0 }));
  for (let g = 0; g < p.genOrder.length; g++) {
    const r = generators[p.genOrder[g]!]!;
    r.p_mw = gen(OUT_GEN.PG, g); r.q_mvar = dc ? 0 : gen(OUT_GEN.QG, g);
    r.mu_pmin = gen(OUT_GEN.MU_PMIN, g); r.mu_pmax = gen(OUT_GEN.MU_PMAX, g);
    r.mu_qmin = gen(OUT_GEN.MU_QMIN, g); r.mu_qmax = gen(OUT_GEN.MU_QMAX, g);
  }
  // the DC lines' terminal pairs follow the network's generators (./dcLines.ts)
  const n = p.dcLineOrder.length, ng0 = p.genOrder.length;
  const terminal = (k: number, end: 'from' | 'to') => {
    const g = ng0 + k + (end === 'to' ? n : 0);
    return { p: gen(OUT_GEN.PG, g), q: dc ? 0 : gen(OUT_GEN.QG, g), mu_pmin: gen(OUT_GEN.MU_PMIN, g), mu_pmax: gen(OUT_GEN.MU_PMAX, g),
      mu_qmin: dc ? 0 : gen(OUT_GEN.MU_QMIN, g), mu_qmax: dc ? 0 : gen(OUT_GEN.MU_QMAX, g) };
  };
  const vById = new Map(buses.map((b) => [b.id, b.v]));
  const dcLines =
    net.dc_lines && net.dc_lines.length > 0
      ? dcLineResults(net, p.dcLineOrder, terminal, dc ? undefined : (id) => vById.get(id) ?? 0)
      : undefined;
  const branches = net.branches.map((b, index) => ({ index, from: b.from, to: b.to, p_from: 0, q_from: 0, p_to: 0, q_to: 0, loading: 0, mu_sf: 0, mu_st: 0 }));
  const muAngle = new Float64Array(net.branches.length * 2);
  const br = (c: number, l: number) => out[oBr + c * nl + l]!;
  for (let l = 0; l < nl; l++) {
    const k = p.branchOrder[l]!;
    const r = branches[k]!;
    r.p_from = br(OUT_BR.PF, l); r.q_from = dc ? 0 : br(OUT_BR.QF, l); r.p_to = br(OUT_BR.PT, l); r.q_to = dc ? 0 : br(OUT_BR.QT, l);
    r.mu_sf = br(OUT_BR.MU_SF, l); r.mu_st = br(OUT_BR.MU_ST, l);
    muAngle[2 * k] = br(OUT_BR.MU_ANGMIN, l); muAngle[2 * k + 1] = br(OUT_BR.MU_ANGMAX, l);
    const rate = net.branches[k]!.rate_a;
    if (rate > 0) r.loading = 100 * Math.max(Math.hypot(r.p_from, r.q_from), Math.hypot(r.p_to, r.q_to)) / rate;
  }
  let status: OpfStatus;
  let message: string | undefined;
  let binding: BindingLimit[] | undefined;
  if (code === STATUS.CONVERGED) status = 'converged';
  else {
    const feasible = convergence.feasibility < Math.max(o.tolerance, 5e-6);
    status = feasible ? 'diverged' : 'infeasible';
    message = `${code === STATUS.MAXIT ? `MIPS did not converge in ${base.iterations} iterations` : 'MIPS failed numerically'}`
      + (feasible ? '' : ` with the limits still violated (feasibility ${convergence.feasibility.toExponential(2)}): the problem is probably infeasible`);
    if (!feasible) binding = bindingLimits(net, buses, generators, branches, muAngle);
  }
  return {
    status, objective: out[OUT.F]!, ...base, buses, generators, branches,
    ...(dcLines ? { dc_lines: dcLines } : {}), ...(message ? { message } : {}), ...(binding ? { binding } : {}),
  };
}

/** The limits with the largest multipliers at MIPS's last iterate: at an infeasible end those are the
 *  limits pushing against each other (as best an interior-point method can tell). */
function bindingLimits(
  net: NetworkModel,
  buses: OpfResult['buses'],
  gens: OpfResult['generators'],
  brs: OpfResult['branches'],
  muAngle: Float64Array,
): BindingLimit[] {
  const all: BindingLimit[] = [];
  for (const g of gens) {
    if (g.mu_pmax > 0)
      all.push({
        kind: 'generator_pmax',
        index: g.index,
        bus: g.bus,
        multiplier: g.mu_pmax,
        message: `generator ${g.index} (bus ${g.bus}) at its pmax ${net.generators[g.index]!.pmax} MW`,
      });
    if (g.mu_pmin > 0)
      all.push({
        kind: 'generator_pmin',
        index: g.index,
        bus: g.bus,
        multiplier: g.mu_pmin,
        message: `generator ${g.index} (bus ${g.bus}) at its pmin ${net.generators[g.index]!.pmin} MW`,
      });
    if (g.mu_qmax > 0)
      all.push({
        kind: 'generator_qmax',
        index: g.index,
        bus: g.bus,
        multiplier: g.mu_qmax,
        message: `generator ${g.index} (bus ${g.bus}) at its qmax ${net.generators[g.index]!.qmax} MVAr`,
      });
    if (g.mu_qmin > 0)
      all.push({
        kind: 'generator_qmin',
        index: g.index,
        bus: g.bus,
        multiplier: g.mu_qmin,
        message: `generator ${g.index} (bus ${g.bus}) at its qmin ${net.generators[g.index]!.qmin} MVAr`,
      });
  }
  net.buses.forEach((b, k) => {
    const r = buses[k]!;
    if (r.mu_vmax > 0) all.push({ kind: 'bus_vmax', bus: b.id, multiplier: r.mu_vmax, message: `bus ${b.id} at its vmax ${b.vmax} p.u.` });
    if (r.mu_vmin > 0) all.push({ kind: 'bus_vmin', bus: b.id, multiplier: r.mu_vmin, message: `bus ${b.id} at its vmin ${b.vmin} p.u.` });
  });
  for (const b of brs) {
    const mu = Math.max(b.mu_sf, b.mu_st);
    if (mu > 0)
      all.push({
        kind: 'branch_flow',
        index: b.index,
        from: b.from,
        to: b.to,
        multiplier: mu,
        message: `branch ${b.index} (${b.from}-${b.to}) at its rate_a ${net.branches[b.index]!.rate_a} MVA`,
      });
    const ma = Math.max(muAngle[2 * b.index]!, muAngle[2 * b.index + 1]!);
    if (ma > 0)
      all.push({
        kind: 'branch_angle',
        index: b.index,
        from: b.from,
        to: b.to,
        multiplier: ma,
        message: `branch ${b.index} (${b.from}-${b.to}) at its angle limit`,
      });
  }
  all.sort((a, b) => b.multiplier! - a.multiplier!);
  return all.slice(0, MAX_BINDING);
}
