// pfsoln (MATPOWER 8, legacy core): results from the solved voltages.
//  - bus injections S = V conj(Ybus V) (MW / MVAr);
//  - branch flows Sf = Vf conj(Yff Vf + Yft Vt), St = Vt conj(Ytf Vf + Ytt Vt);
//  - generators at pv / ref buses: Qg = Q injection + Qd, shared among the
//    gens of a bus first equally, then in proportion to their Q ranges
//    (infinite limits replaced by a finite proxy M, zero total range -> equal
//    violation for all); gens at pq buses keep their given Qg;
//  - the first in-service generator at each ref bus takes the slack:
//    Pg = P injection + Pd - sum(Pg of the other gens at that bus).
import { Topology, PQ, REF } from './symbolic';
import { branchFlow } from './branchFlow';

const flow = new StaticArray<f64>(4);

const EPS: f64 = 2.220446049250313e-16;

export function pfsoln(topo: Topology, input: StaticArray<f64>, busOff: i32, genOff: i32, ng: i32,
  baseMVA: f64, out: StaticArray<f64>, oBus: i32, oBr: i32, oGen: i32): void {
  const nb = topo.nb, nl = topo.nl;
  const type = topo.type;
  const sr = topo.sr, si = topo.si;
  // topo.vr/vi and sr/si hold the solution and its injections (last mismatch evaluation)
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + 2 * nb + i] = sr[i] * baseMVA);
    unchecked(out[oBus + 3 * nb + i] = si[i] * baseMVA);
  }
  // ---- branch flows
  for (let l = 0; l < nl; l++) {
    branchFlow(topo, l, flow);
    unchecked(out[oBr + l] = flow[0] * baseMVA);
    unchecked(out[oBr + nl + l] = flow[1] * baseMVA);
    unchecked(out[oBr + 2 * nl + l] = flow[2] * baseMVA);
    unchecked(out[oBr + 3 * nl + l] = flow[3] * baseMVA);
  }

  // ---- generators
  const pdOff = busOff + 3 * nb, qdOff = busOff + 4 * nb;
  const gBus = genOff, gPg = genOff + ng, gQg = genOff + 2 * ng, gQmin = genOff + 3 * ng, gQmax = genOff + 4 * ng;
  const oPg = oGen, oQg = oGen + ng;
  const ngg = topo.busN;           // on gens per bus
  const qTot = topo.busA, qMinT = topo.busB, qMaxT = topo.busC, mBus = topo.busD;
  for (let i = 0; i < nb; i++) {
    unchecked(ngg[i] = 0);
    unchecked(qTot[i] = 0.0); unchecked(qMinT[i] = 0.0); unchecked(qMaxT[i] = 0.0); unchecked(mBus[i] = 0.0);
  }
  let ngon = 0;
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[gBus + g]);
    unchecked(out[oPg + g] = input[gPg + g]);
    if (unchecked(type[bus]) == PQ) {
      unchecked(out[oQg + g] = input[gQg + g]); // not touched at pq buses
    } else {
      unchecked(out[oQg + g] = si[bus] * baseMVA + input[qdOff + bus]);
      unchecked(ngg[bus]++);
      ngon++;
    }
  }
  if (ngon > 1) {
    // equal split, finite proxy for infinite limits
    for (let g = 0; g < ng; g++) {
      const bus = <i32>unchecked(input[gBus + g]);
      if (unchecked(type[bus]) == PQ) continue;
      const q = unchecked(out[oQg + g]) / <f64>unchecked(ngg[bus]);
      unchecked(out[oQg + g] = q);
      const qmin = unchecked(input[gQmin + g]), qmax = unchecked(input[gQmax + g]);
      let m = Math.abs(q);
      if (isFinite(qmax)) m += Math.abs(qmax);
      if (isFinite(qmin)) m += Math.abs(qmin);
      unchecked(mBus[bus] += m);
    }
    for (let g = 0; g < ng; g++) {
      const bus = <i32>unchecked(input[gBus + g]);
      if (unchecked(type[bus]) == PQ) continue;
      const m = unchecked(mBus[bus]);
      const qmin = proxy(unchecked(input[gQmin + g]), m), qmax = proxy(unchecked(input[gQmax + g]), m);
      unchecked(qTot[bus] += out[oQg + g]);
      unchecked(qMinT[bus] += qmin);
      unchecked(qMaxT[bus] += qmax);
    }
    for (let g = 0; g < ng; g++) {
      const bus = <i32>unchecked(input[gBus + g]);
      if (unchecked(type[bus]) == PQ) continue;
      const m = unchecked(mBus[bus]);
      const qmin = proxy(unchecked(input[gQmin + g]), m), qmax = proxy(unchecked(input[gQmax + g]), m);
      const tot = unchecked(qTot[bus]), lo = unchecked(qMinT[bus]), hi = unchecked(qMaxT[bus]);
      if (Math.abs(lo - hi) < 10.0 * EPS) {
        unchecked(out[oQg + g] = qmin + (tot - lo) / <f64>unchecked(ngg[bus]));
      } else {
        unchecked(out[oQg + g] = qmin + ((tot - lo) / (hi - lo + EPS)) * (qmax - qmin));
      }
    }
  }

  // ---- slack generation: first on gen at each ref bus
  const first = topo.busN;
  for (let i = 0; i < nb; i++) unchecked(first[i] = -1);
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[gBus + g]);
    if (unchecked(type[bus]) == REF && unchecked(first[bus]) < 0) unchecked(first[bus] = g);
  }
  const others = topo.busA;
  for (let i = 0; i < nb; i++) unchecked(others[i] = 0.0);
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[gBus + g]);
    if (unchecked(type[bus]) == REF && unchecked(first[bus]) != g) unchecked(others[bus] += input[gPg + g]);
  }
  for (let i = 0; i < nb; i++) {
    const g = unchecked(first[i]);
    if (g < 0) continue;
    unchecked(out[oPg + g] = sr[i] * baseMVA + input[pdOff + i] - others[i]);
  }
}

// @ts-ignore: decorator
@inline
function proxy(q: f64, m: f64): f64 {
  if (q == Infinity) return m;
  if (q == -Infinity) return -m;
  return q;
}
