// Generator outputs at a solved power flow, as MATPOWER's pfsoln (legacy core):
//  - generators at pv / ref buses: Qg = Q injection + Qd, shared among the
//    gens of a bus first equally, then in proportion to their Q ranges
//    (infinite limits replaced by a finite proxy M, zero total range -> equal
//    violation for all); gens at pq buses keep their given Qg;
//  - the first in-service generator at each ref bus takes the slack:
//    Pg = P injection + Pd - sum(Pg of the other gens at that bus).
// Used by pfsoln (a power flow's results) and by a study's reactive-limit loop
// (study/qLimits.ts), each with its own arrays: every array comes with the
// offset its first generator (or bus) is at.
import { Topology, PQ, REF } from './topology';

const EPS: f64 = 2.220446049250313e-16;

/** topo.sr / si: the solution's injections (p.u.); type: the bus types solved with. Generators g with
 *  off[g] != 0 (a study's outages) are skipped and their outputs left as they were. */
export function generatorOutputs(topo: Topology, type: StaticArray<i32>, ng: i32, baseMVA: f64,
  input: StaticArray<f64>, gBus: i32, gQmin: i32, gQmax: i32,
  pgIn: StaticArray<f64>, gPg: i32, qgIn: StaticArray<f64>, gQg: i32,
  pdIn: StaticArray<f64>, pdOff: i32, qdIn: StaticArray<f64>, qdOff: i32,
  off: StaticArray<u8> | null,
  pgOut: StaticArray<f64>, oPg: i32, qgOut: StaticArray<f64>, oQg: i32): void {
  const nb = topo.nb;
  const sr = topo.sr, si = topo.si;
  const ngg = topo.busN;           // on gens per bus
  const qTot = topo.busA, qMinT = topo.busB, qMaxT = topo.busC, mBus = topo.busD;
  for (let i = 0; i < nb; i++) {
    unchecked(ngg[i] = 0);
    unchecked(qTot[i] = 0.0); unchecked(qMinT[i] = 0.0); unchecked(qMaxT[i] = 0.0); unchecked(mBus[i] = 0.0);
  }
  let ngon = 0;
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[gBus + g]);
    if (off !== null && unchecked(off[g]) != 0) continue;
    unchecked(pgOut[oPg + g] = pgIn[gPg + g]);
    if (unchecked(type[bus]) == PQ) {
      unchecked(qgOut[oQg + g] = qgIn[gQg + g]); // not touched at pq buses
    } else {
      unchecked(qgOut[oQg + g] = si[bus] * baseMVA + qdIn[qdOff + bus]);
      unchecked(ngg[bus]++);
      ngon++;
    }
  }
  if (ngon > 1) {
    // equal split, finite proxy for infinite limits
    for (let g = 0; g < ng; g++) {
      const bus = <i32>unchecked(input[gBus + g]);
      if ((off !== null && unchecked(off[g]) != 0) || unchecked(type[bus]) == PQ) continue;
      const q = unchecked(qgOut[oQg + g]) / <f64>unchecked(ngg[bus]);
      unchecked(qgOut[oQg + g] = q);
      const qmin = unchecked(input[gQmin + g]), qmax = unchecked(input[gQmax + g]);
      let m = Math.abs(q);
      if (isFinite(qmax)) m += Math.abs(qmax);
      if (isFinite(qmin)) m += Math.abs(qmin);
      unchecked(mBus[bus] += m);
    }
    for (let g = 0; g < ng; g++) {
      const bus = <i32>unchecked(input[gBus + g]);
      if ((off !== null && unchecked(off[g]) != 0) || unchecked(type[bus]) == PQ) continue;
      const m = unchecked(mBus[bus]);
      const qmin = proxy(unchecked(input[gQmin + g]), m), qmax = proxy(unchecked(input[gQmax + g]), m);
      unchecked(qTot[bus] += qgOut[oQg + g]);
      unchecked(qMinT[bus] += qmin);
      unchecked(qMaxT[bus] += qmax);
    }
    for (let g = 0; g < ng; g++) {
      const bus = <i32>unchecked(input[gBus + g]);
      if ((off !== null && unchecked(off[g]) != 0) || unchecked(type[bus]) == PQ) continue;
      const m = unchecked(mBus[bus]);
      const qmin = proxy(unchecked(input[gQmin + g]), m), qmax = proxy(unchecked(input[gQmax + g]), m);
      const tot = unchecked(qTot[bus]), lo = unchecked(qMinT[bus]), hi = unchecked(qMaxT[bus]);
      if (Math.abs(lo - hi) < 10.0 * EPS) {
        unchecked(qgOut[oQg + g] = qmin + (tot - lo) / <f64>unchecked(ngg[bus]));
      } else {
        unchecked(qgOut[oQg + g] = qmin + ((tot - lo) / (hi - lo + EPS)) * (qmax - qmin));
      }
    }
  }

  // ---- slack generation: first on gen at each ref bus
  const first = topo.busN;
  for (let i = 0; i < nb; i++) unchecked(first[i] = -1);
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[gBus + g]);
    if (off !== null && unchecked(off[g]) != 0) continue;
    if (unchecked(type[bus]) == REF && unchecked(first[bus]) < 0) unchecked(first[bus] = g);
  }
  const others = topo.busA;
  for (let i = 0; i < nb; i++) unchecked(others[i] = 0.0);
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[gBus + g]);
    if (off !== null && unchecked(off[g]) != 0) continue;
    if (unchecked(type[bus]) == REF && unchecked(first[bus]) != g) unchecked(others[bus] += pgIn[gPg + g]);
  }
  for (let i = 0; i < nb; i++) {
    const g = unchecked(first[i]);
    if (g < 0) continue;
    unchecked(pgOut[oPg + g] = sr[i] * baseMVA + pdIn[pdOff + i] - others[i]);
  }
}

// @ts-ignore: decorator
@inline
function proxy(q: f64, m: f64): f64 {
  if (q == Infinity) return m;
  if (q == -Infinity) return -m;
  return q;
}
