// Generator reactive-limit enforcement around repeated core solves, as
// MATPOWER's runpf with pf.enforce_q_lims = 1 (legacy core, MATPOWER 8):
//   after a converged solve, every in-service generator with
//   Qg > Qmax + 5e-6 or Qg < Qmin - 5e-6 (MVAr, mpopt.opf.violation) is fixed at
//   that limit and its bus becomes pq; if all remaining pv/ref generators
//   violate, and all the same limit, the problem is infeasible (stop). The gen
//   table keeps pfsoln's Pg / Qg between runs (so a former slack keeps the Pg it
//   had). If a slack bus became pq, the first remaining pv bus of its island
//   becomes the slack (MATPOWER: of the network; it refuses several slacks) and
//   at the end all angles of that island are shifted so the original slack has
//   its original angle. Each re-run starts from the previous solution (V0 = V);
//   iterations are summed. Generators are never switched back to pv.
import { GEN_FIELDS, IN, OUT, STATUS, TYPE_PQ, TYPE_PV, TYPE_REF, genOffsets, inputOffsets, outputOffsets } from './abi.js';

/** MATPOWER mpopt.opf.violation, the Q limit tolerance in MVAr. */
export const Q_VIOLATION = 5e-6;

/** Runs `solveOnce` until no generator violates its Q limits. Mutates `input`
 *  (types, start voltages, generator Pg / Qg). `onRun(iterationsSoFar)` is
 *  called before every re-run (lets the caller offset progress numbers). */
export function solveWithQLimits(
  input: Float64Array,
  solveOnce: (input: Float64Array) => Float64Array,
  onRun: (iterationsSoFar: number) => void = () => {},
): Float64Array {
  const nb = input[IN.NB]!, nl = input[IN.NL]!, ng = input[IN.NG]!;
  void GEN_FIELDS;
  const io = inputOffsets(nb, nl);
  const go = genOffsets(nb, nl, ng);
  const oo = outputOffsets(nb, nl, ng);

  // original slack(s) and angle(s) per island
  const island = (i: number) => input[io.island + i]!;
  const ref0 = new Map<number, { bus: number; va: number }>();
  for (let i = 0; i < nb; i++) if (input[io.type + i] === TYPE_REF && !ref0.has(island(i))) ref0.set(island(i), { bus: i, va: input[io.va0 + i]! });

  onRun(0);
  let out = solveOnce(input);
  let its = out[OUT.ITER]!;
  let runs = 1;
  let changedRef = false;
  let limitedAny = false;
  for (;;) {
    if (out[OUT.STATUS] !== STATUS.CONVERGED) break;
    const mx: number[] = [], mn: number[] = [];
    for (let g = 0; g < ng; g++) {
      const q = out[oo.qg + g]!;
      if (q > input[go.qmax + g]! + Q_VIOLATION) mx.push(g);
      else if (q < input[go.qmin + g]! - Q_VIOLATION) mn.push(g);
    }
    if (mx.length === 0 && mn.length === 0) break;
    // infeasible: all remaining pv / ref generators violate, all the same limit
    const remaining: number[] = [];
    for (let g = 0; g < ng; g++) {
      const ty = input[io.type + input[go.bus + g]!]!;
      if (ty === TYPE_PV || ty === TYPE_REF) remaining.push(g);
    }
    const infeas = [...mx, ...mn].sort((a, b) => a - b);
    if (infeas.length === remaining.length && infeas.every((g, k) => g === remaining[k]) && (mx.length === 0 || mn.length === 0)) {
      out[OUT.STATUS] = STATUS.QLIM_INFEASIBLE;
      break;
    }
    // the gen table carries pfsoln's results into the next run
    for (let g = 0; g < ng; g++) {
      input[go.pg + g] = out[oo.pg + g]!;
      input[go.qg + g] = out[oo.qg + g]!;
    }
    for (const g of mx) input[go.qg + g] = input[go.qmax + g]!;
    for (const g of mn) input[go.qg + g] = input[go.qmin + g]!;
    for (const g of [...mx, ...mn]) input[io.type + input[go.bus + g]!] = TYPE_PQ;
    limitedAny = true;
    // bustypes: an island that lost its slack takes its first pv bus
    const hasRef = new Set<number>();
    for (let i = 0; i < nb; i++) if (input[io.type + i] === TYPE_REF) hasRef.add(island(i));
    let noSlack = false;
    for (const s of ref0.keys()) {
      if (hasRef.has(s)) continue;
      let k = -1;
      for (let i = 0; i < nb; i++) if (island(i) === s && input[io.type + i] === TYPE_PV) { k = i; break; }
      if (k < 0) { noSlack = true; break; }
      input[io.type + k] = TYPE_REF;
      changedRef = true;
    }
    if (noSlack) { out[OUT.STATUS] = STATUS.QLIM_INFEASIBLE; break; }
    // start the next run from the current solution
    for (let i = 0; i < nb; i++) {
      input[io.vm0 + i] = out[oo.vm + i]!;
      input[io.va0 + i] = out[oo.va + i]!;
    }
    onRun(its);
    out = solveOnce(input);
    its += out[OUT.ITER]!;
    runs++;
  }
  if (limitedAny && changedRef) {
    for (const [s, r] of ref0) {
      const shift = out[oo.va + r.bus]! - r.va;
      if (shift === 0) continue;
      for (let i = 0; i < nb; i++) if (island(i) === s) out[oo.va + i] = out[oo.va + i]! - shift;
    }
  }
  out[OUT.ITER] = its;
  out[OUT.QLIM_RUNS] = runs;
  return out;
}
