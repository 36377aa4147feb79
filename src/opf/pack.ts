// NetworkModel + OPF options -> the OPF input buffer (./abi.ts). The internal
// numbering is the power flow's (src/powerflow/ext2int.ts: isolated buses, open
// branches and generators out of service left out; loads in service summed per bus). Costs and limits are checked first (./costs.ts);
// every problem is a PowerFlowInputError the doors turn into a 400. In-service DC lines are two more
// generators each after the network's own, linked by a row on their P (./dcLines.ts, toggle_dcline).
import type { GeneratorCost, NetworkModel } from '../domain/networkModel.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { ext2int } from '../powerflow/ext2int.js';
import { BR_FIELDS, BUS_FIELDS, COST_CODE, GEN_FIELDS, IN, METHOD_CODE, OPF_ABI_VERSION, START_CODE } from './abi.js';
import { opfCostProblems, trimLeadingZeros } from './costs.js';
import { dcLineTerminals } from './dcLines.js';
import { OPF_METHODS, OPF_VIOLATION, type OpfOptions } from './types.js';

/** MIPS iterations a DC-OPF with linear costs gets before the LP solver takes over. */
export const LP_MIPS_ITERATIONS = 20;

export interface PackedOpf {
  input: Float64Array;
  /** ng: generators in the core, the DC lines' terminal pairs (2 per line in dcLineOrder) after the genOrder ones */
  nb: number; nl: number; ng: number;
  /** internal -> model position */
  busOrder: Int32Array; branchOrder: Int32Array; genOrder: Int32Array;
  /** model position of each DC line in the OPF, in the order of its terminal pair */
  dcLineOrder: number[];
  /** in-service demand and generator capacity (MW), the DC lines' least and largest total loss, for the capacity check */
  demandMw: number; pmaxMw: number; pminMw: number; lossMinMw: number; lossMaxMw: number;
}

export function checkOpfOptions(o: OpfOptions): void {
  const bad = (msg: string, field: string): never => { throw new PowerFlowInputError(msg, 'VALIDATION_FAILED', { field }); };
  if (!OPF_METHODS.includes(o.method)) bad(`unknown OPF method '${String(o.method)}' (dc, ac)`, 'method');
  if (!(typeof o.tolerance === 'number' && o.tolerance > 0 && o.tolerance < 1)) bad('tolerance must be a number between 0 and 1', 'tolerance');
  if (!(Number.isInteger(o.maxIterations) && o.maxIterations >= 1 && o.maxIterations <= 10000))
    bad('max_iterations must be an integer between 1 and 10000', 'max_iterations');
  if (!(typeof o.timeoutMs === 'number' && o.timeoutMs > 0)) bad('timeout_ms must be a positive number', 'timeout_ms');
}

export function packOpf(net: NetworkModel, o: OpfOptions): PackedOpf {
  checkOpfOptions(o);
  const problems = opfCostProblems(net, o.method);
  if (problems.length > 0) {
    throw new PowerFlowInputError(
      problems.length === 1
        ? problems[0]!
        : `${problems.length} generator cost problems: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; ...' : ''}`,
      'VALIDATION_FAILED',
      { field: 'generators', problems: problems.slice(0, 50) },
    );
  }
  const base = net.base_mva;
  if (!(base > 0 && Number.isFinite(base))) throw new PowerFlowInputError('base_mva must be a positive number', 'VALIDATION_FAILED', { field: 'base_mva' });
  const ext = ext2int(net, 'dispatch');
  const { nb, busOrder, branchOrder, genOrder, genBus, busLoadP, busLoadQ } = ext;
  if (!Array.prototype.some.call(busOrder, (k: number) => net.buses[k]!.type === 'slack'))
    throw new PowerFlowInputError('the network has no slack bus: OPF needs one as the angle reference', 'TOPOLOGY_INVALID', {});
  if (o.method === 'dc') for (const l of branchOrder) {
    const br = net.branches[l]!;
    if (br.x === 0)
      throw new PowerFlowInputError(
        `branch ${l + 1} (${br.from}-${br.to}) has x = 0: the DC model needs a reactance`,
        'VALIDATION_FAILED',
        { branch: l, branch_index: l },
      );
  }
  // reactive costs (AC only: MATPOWER's DC-OPF drops them)
  const reactive = (m: NetworkModel['generators'][number]) => (o.method === 'ac' ? m.reactive_cost ?? null : null);
  if (genOrder.length === 0) throw new PowerFlowInputError('no generator is in service: nothing to dispatch', 'VALIDATION_FAILED', { field: 'generators' });
  const nl = branchOrder.length;
  const internalBus = (id: number) => { const k = ext.position(id); return k >= 0 ? ext.busIndex[k]! : -1; };
  const dcl = dcLineTerminals(net, internalBus, genOrder.length, base);
  // what pack writes of a generator: the network's in service, then the DC lines' terminals
  const units = [
    ...Array.from(genOrder, (i, g) => {
      const m = net.generators[i]!;
      return { ...m, internalBus: genBus[g]!, pmin: m.pmin ?? -Infinity, pmax: m.pmax ?? Infinity,
        qmin: m.qmin ?? -Infinity, qmax: m.qmax ?? Infinity, cost: m.cost!, reactive: reactive(m) };
    }),
    ...dcl.terminals.map((t) => ({ ...t, internalBus: t.bus, reactive: null })),
  ];
  const ng = units.length;

  const costs: number[] = [];
  const head = IN.HEADER, bus = head, br = bus + BUS_FIELDS * nb, gen = br + BR_FIELDS * nl;
  const genCostBase = gen + GEN_FIELDS * ng;
  // cost values are appended after the gen table
  let costLen = 0;
  for (const u of units) costLen += u.cost.coefficients.length + (u.reactive?.coefficients.length ?? 0);
  const input = new Float64Array(genCostBase + costLen + dcl.rows.length);
  input[IN.VERSION] = OPF_ABI_VERSION;
  input[IN.METHOD] = METHOD_CODE[o.method];
  input[IN.NB] = nb; input[IN.NL] = nl; input[IN.NG] = ng;
  input[IN.BASEMVA] = base;
  input[IN.FEASTOL] = Math.max(OPF_VIOLATION, o.tolerance);
  input[IN.GRADTOL] = o.tolerance; input[IN.COMPTOL] = o.tolerance; input[IN.COSTTOL] = o.tolerance;
  // A DC-OPF with linear costs is an LP: MIPS with Mehrotra's predictor–corrector (assembly/opf/mips.ts)
  // solves the shared ones in 3–12 iterations; one it has not finished in LP_MIPS_ITERATIONS goes to HiGHS
  // (src/opf/worker.ts).
  const lp = o.method === 'dc'
    && units.every((g) => g.cost.model === 'piecewise_linear' || trimLeadingZeros(g.cost.coefficients).length <= 2);
  input[IN.MAXIT] = lp ? Math.min(o.maxIterations, LP_MIPS_ITERATIONS) : o.maxIterations;
  input[IN.TIME_LIMIT_S] = o.timeoutMs / 1000;
  // 'powerflow' arrives here as a model holding the power flow's state (./solve.ts): both start from the model's state
  input[IN.START] = o.start === 'case' || o.start === 'powerflow' ? START_CODE.CASE : START_CODE.DEFAULT;

  const pd = new Float64Array(nb), qd = new Float64Array(nb);
  let demand = 0;
  for (let i = 0; i < nb; i++) {
    pd[i] = busLoadP[busOrder[i]!]!; qd[i] = busLoadQ[busOrder[i]!]!; demand += pd[i]!;
  }
  const TYPE = { slack: 3, pv: 2, pq: 1, isolated: 4 } as const;
  for (let i = 0; i < nb; i++) {
    const b = net.buses[busOrder[i]!]!;
    const row = [TYPE[b.type], b.v, b.theta, pd[i]!, qd[i]!, b.gs, b.bs, b.vmin, b.vmax];
    for (let c = 0; c < BUS_FIELDS; c++) input[bus + c * nb + i] = row[c]!;
    // shunt conductance draws power at |V| = 1 in the DC model; in AC at least gs·V² within the voltage limits
    demand += o.method === 'dc' ? b.gs : b.gs * (b.gs > 0 ? b.vmin : b.vmax) ** 2;
  }
  for (let l = 0; l < nl; l++) {
    const b = net.branches[branchOrder[l]!]!;
    const row = [ext.branchFrom[l]!, ext.branchTo[l]!, b.r, b.x, b.b, b.ratio, b.shift, b.rate_a,
      b.angmin ?? -360, b.angmax ?? 360];
    for (let c = 0; c < BR_FIELDS; c++) input[br + c * nl + l] = row[c]!;
  }
  let pmaxMw = 0, pminMw = 0;
  for (let g = 0; g < ng; g++) {
    const m = units[g]!;
    const p = costColumns(m.cost, costs.length);
    costs.push(...p.values);
    const q = m.reactive ? costColumns(m.reactive, costs.length) : { model: COST_CODE.none, n: 0, offset: 0, values: [] };
    costs.push(...q.values);
    const row = [m.internalBus, m.pmin, m.pmax, m.qmin, m.qmax, p.model, p.n, p.offset, m.mw, m.mvar ?? 0, q.model, q.n, q.offset];
    for (let c = 0; c < GEN_FIELDS; c++) input[gen + c * ng + g] = row[c]!;
    // the DC lines' terminals move power, they do not make it: the capacity check counts the network's own
    if (g < genOrder.length) { pmaxMw += m.pmax; pminMw += m.pmin; }
  }
  input.set(costs, genCostBase);
  const rowsAt = genCostBase + costs.length;
  input.set(dcl.rows, rowsAt);
  input[IN.NPGROWS] = dcl.lines.length;
  input[IN.PGROWS_AT] = rowsAt;
  return {
    input: input.subarray(0, rowsAt + dcl.rows.length).slice(), nb, nl, ng,
    busOrder, branchOrder, genOrder, dcLineOrder: dcl.lines,
    demandMw: demand, pmaxMw, pminMw, lossMinMw: dcl.lossMinMw, lossMaxMw: dcl.lossMaxMw,
  };
}

/** One cost's gen columns (model code, NCOST, offset into the cost values) and its values. */
function costColumns(cost: GeneratorCost, offset: number): { model: number; n: number; offset: number; values: number[] } {
  const values = cost.model === 'polynomial' ? trimLeadingZeros(cost.coefficients) : cost.coefficients;
  return { model: COST_CODE[cost.model], n: cost.model === 'polynomial' ? values.length : values.length / 2, offset, values };
}
