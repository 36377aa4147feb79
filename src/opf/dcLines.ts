// DC lines in the OPF as MATPOWER's runopf takes them with toggle_dcline (lib/toggle_dcline.m):
//  - ext2int: each in-service DC line is two dispatchable generators after the network's own, all "from"
//    terminals first, then all "to" terminals. The "from" one injects −p_from, the "to" one p_to. The
//    flow limits go on the "from" end when they are ≥ 0 and on the "to" end when < 0; everything else is
//    unbounded. A "from" terminal whose upper limit is 0 gets −1e-6 MW (MATPOWER's nudge away from its
//    dispatchable-load rule). Reactive limits are the line's own. Costs: the line's cost of p_from turned
//    into a cost of the "from" generator's output (−p_from); zero when the line has none, and always zero
//    on the "to" end.
//  - formulation: per line, (1 − loss1)·Pg_from + Pg_to = −loss0 (p.u.), from p_to = p_from − (loss0 +
//    loss1·p_from), written as a linear row on Pg (assembly/opf/opfRows.ts addPgRows).
//  - int2ext: p_from = −Pg_from, p_to = Pg_to, q from the terminals, v the terminals' VG: the solved bus voltage
//    in AC, the line's own set point in DC (MATPOWER's DC-OPF leaves VG as it was) and for a line not taken; the
//    line's multipliers are the sums of its terminals' (mu_pmin = from's mu_pmax + to's mu_pmin, and back).
// A DC line ending at an isolated bus is left out (zero flows), as the bus is.
import type { DcLine, GeneratorCost, NetworkModel } from '../domain/networkModel.js';
import type { Static } from '@sinclair/typebox';
import type { OpfDcLineOut } from '../schemas/opfResult.js';

export type OpfDcLine = Static<typeof OpfDcLineOut>;

/** A terminal generator, with what pack.ts writes of a generator. */
export interface DcLineTerminal {
  bus: number; // internal bus
  pmin: number;
  pmax: number;
  qmin: number;
  qmax: number; // MW, MVAr; ±Infinity = unbounded
  cost: GeneratorCost;
  mw: number;
  mvar: number; // the start point of start 'case'
}

export interface DcLineTerminals {
  /** model index of each DC line taken, in pair order */
  lines: number[];
  /** the "from" terminals, then the "to" terminals */
  terminals: DcLineTerminal[];
  /** the linking rows as the core reads them (lo, hi, n, then n pairs of generator and coefficient) */
  rows: number[];
  /** the least and largest total loss the lines can have within their limits (MW), for the capacity check */
  lossMinMw: number;
  lossMaxMw: number;
}

const ZERO_COST: GeneratorCost = { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [0, 0] };
/** MATPOWER's "from" terminal upper limit when it would be 0 (toggle_dcline: `fg(isload(fg), PMAX) = -1e-6`). */
const NOT_A_LOAD_MW = -1e-6;

/** JSON (the stored model) holds MATPOWER's ±Inf limits as ±Number.MAX_VALUE: unbounded again here. */
function limit(x: number): number {
  return Math.abs(x) >= Number.MAX_VALUE ? Math.sign(x) * Infinity : x;
}

/** The line's cost of p_from as a cost of −p_from: odd powers change sign; piecewise-linear points mirror. */
export function fromTerminalCost(c: GeneratorCost): GeneratorCost {
  if (c.model === 'polynomial') {
    const n = c.coefficients.length;
    return { ...c, coefficients: c.coefficients.map((a, i) => ((n - 1 - i) % 2 === 1 ? -a : a)) };
  }
  const pts: number[] = [];
  for (let k = c.coefficients.length / 2 - 1; k >= 0; k--) pts.push(-c.coefficients[2 * k]!, c.coefficients[2 * k + 1]!);
  return { ...c, coefficients: pts };
}

/** The terminal generators and linking rows of the in-service DC lines; `internalBus` maps a bus id to its
 *  internal index (−1 when isolated); `ng` is the number of the network's own generators in the OPF. */
export function dcLineTerminals(net: NetworkModel, internalBus: (id: number) => number, ng: number, baseMva: number): DcLineTerminals {
  const taken: { k: number; d: DcLine; f: number; t: number }[] = [];
  (net.dc_lines ?? []).forEach((d, k) => {
    if (!d.in_service) return;
    const f = internalBus(d.from),
      t = internalBus(d.to);
    if (f >= 0 && t >= 0) taken.push({ k, d, f, t });
  });
  const n = taken.length;
  const from: DcLineTerminal[] = [],
    to: DcLineTerminal[] = [],
    rows: number[] = [];
  let lossMinMw = 0,
    lossMaxMw = 0;
  taken.forEach(({ d, f, t }, k) => {
    const pmin = limit(d.pmin),
      pmax = limit(d.pmax);
    let fromPmax = pmin >= 0 ? -pmin : Infinity;
    const fromPmin = pmax >= 0 ? -pmax : -Infinity;
    if (fromPmin < 0 && fromPmax === 0) fromPmax = NOT_A_LOAD_MW;
    const pTo = d.p_from - (d.loss0 + d.loss1 * d.p_from);
    from.push({
      bus: f,
      pmin: fromPmin,
      pmax: fromPmax,
      qmin: limit(d.qmin_from),
      qmax: limit(d.qmax_from),
      cost: d.cost ? fromTerminalCost(d.cost) : ZERO_COST,
      mw: -d.p_from,
      mvar: d.q_from,
    });
    to.push({
      bus: t,
      pmin: pmin < 0 ? pmin : -Infinity,
      pmax: pmax < 0 ? pmax : Infinity,
      qmin: limit(d.qmin_to),
      qmax: limit(d.qmax_to),
      cost: ZERO_COST,
      mw: pTo,
      mvar: d.q_to,
    });
    rows.push(-d.loss0 / baseMva, -d.loss0 / baseMva, 2, ng + k, 1 - d.loss1, ng + n + k, 1);
    // loss0 + loss1·p_from over the flow limits
    const a = d.loss0 + d.loss1 * pmin,
      b = d.loss0 + d.loss1 * pmax;
    lossMinMw += Math.min(a, b);
    lossMaxMw += Math.max(a, b);
  });
  return { lines: taken.map((x) => x.k), terminals: [...from, ...to], rows, lossMinMw: n ? lossMinMw : 0, lossMaxMw: n ? lossMaxMw : 0 };
}

/** The DC lines' results from their terminals' (generator rows `at` and `at + n` of the core's output, read
 *  through `terminal`), in model order; lines not taken are zeros. `v(bus id)` is the solved voltage (AC), or
 *  undefined (DC): the line's set points then. */
export function dcLineResults(
  net: NetworkModel,
  lines: number[],
  terminal: (
    pair: number,
    end: 'from' | 'to',
  ) => { p: number; q: number; mu_pmin: number; mu_pmax: number; mu_qmin: number; mu_qmax: number },
  v: ((busId: number) => number) | undefined,
): OpfDcLine[] {
  const out: OpfDcLine[] = (net.dc_lines ?? []).map((d, index) => ({
    index,
    from: d.from,
    to: d.to,
    in_service: d.in_service,
    p_from: 0,
    p_to: 0,
    q_from: 0,
    q_to: 0,
    v_from: d.v_from,
    v_to: d.v_to,
    mu_pmin: 0,
    mu_pmax: 0,
    mu_qmin_from: 0,
    mu_qmax_from: 0,
    mu_qmin_to: 0,
    mu_qmax_to: 0,
  }));
  lines.forEach((index, k) => {
    const f = terminal(k, 'from'),
      t = terminal(k, 'to'),
      r = out[index]!;
    r.p_from = -f.p;
    r.p_to = t.p;
    r.q_from = f.q;
    r.q_to = t.q;
    if (v) {
      r.v_from = v(r.from);
      r.v_to = v(r.to);
    }
    r.mu_pmin = f.mu_pmax + t.mu_pmin;
    r.mu_pmax = f.mu_pmin + t.mu_pmax;
    r.mu_qmin_from = f.mu_qmin;
    r.mu_qmax_from = f.mu_qmax;
    r.mu_qmin_to = t.mu_qmin;
    r.mu_qmax_to = t.mu_qmax;
  });
  return out;
}
