// DC power flow: MATPOWER's makeBdc + dcpf + the DC part of runpf.
//   b = 1 ./ (x .* tap)                      (tap 0 means 1; r, b, Bs ignored)
//   Bbus = Cft' diag(b) Cft,  Pfinj = -b .* shift,  Pbusinj = Cft' Pfinj
//   Pbus = (Pg - Pd - Gs) / baseMVA - Pbusinj
//   Va(pv,pq) = Bbus(pv,pq; pv,pq) \ (Pbus(pv,pq) - Bbus(pv,pq; ref) Va0(ref))
//   Pf = (b .* (Va_f - Va_t) + Pfinj) * baseMVA, Pt = -Pf, Q = 0, Vm = 1
// The reduced Bbus is factorised once per topology and parameter set.
import { Topology, REF } from './topology';
import { progress } from './progress';
import { STATUS_CONVERGED, STATUS_NAN, STATUS_SINGULAR, STATUS_CANCELLED } from './abi';
import { dcSusceptance } from './branchModel';
import {
  BR_F, BR_T, BR_RATIO, BR_SHIFT, BR_X, BUS_GS, BUS_PD, GEN_PG, GEN_QG, OUT_BR_PT, OUT_BR_QF, OUT_BR_QT,
  OUT_BUS_PINJ, OUT_BUS_QINJ, OUT_GEN_QG,
} from './abi';

/** Bbus(pv,pq; pv,pq) values in topo.dc().val, from makeBdc's branch part (./makeBdc.ts, kept in
 *  topo.dc().branches for the angles and flows); branches with out[l] != 0 left out (studies). */
export function makeBdc(topo: Topology, input: StaticArray<f64>, brOff: i32, out: StaticArray<u8> | null): void {
  const nl = topo.nl;
  const sys = topo.dc();
  const val = sys.val, map = topo.reducedB().bMap;
  const bd = sys.branches;
  bd.fill(input, brOff + BR_F * nl, brOff + BR_T * nl, brOff + BR_X * nl, brOff + BR_RATIO * nl, brOff + BR_SHIFT * nl, out);
  const bl = bd.b;
  for (let p = 0; p < val.length; p++) unchecked(val[p] = 0.0);
  const pFF = topo.pFF, pFT = topo.pFT, pTF = topo.pTF, pTT = topo.pTT;
  for (let l = 0; l < nl; l++) {
    if (out !== null && unchecked(out[l]) != 0) continue;
    const b = unchecked(bl[l]);
    unchecked(val[map[pFF[l]]] += b);
    unchecked(val[map[pTT[l]]] += b);
    unchecked(val[map[pFT[l]]] -= b);
    unchecked(val[map[pTF[l]]] -= b);
  }
}

/** Per-branch DC susceptance b (into out[l]). */
// @ts-ignore: decorator
@inline
export function dcB(input: StaticArray<f64>, xOff: i32, tapOff: i32, l: i32): f64 {
  return dcSusceptance(unchecked(input[xOff + l]), unchecked(input[tapOff + l]));
}

/** Factorises the reduced Bbus of the network in `input` once per parameter hash (kept with the
 *  topology; the DC power flow and the sensitivities share it); false when it is singular. */
export function dcFactorised(topo: Topology, input: StaticArray<f64>, brOff: i32, hash: u64): bool {
  const sys = topo.dc();
  if (!(sys.ok && sys.hash == hash)) {
    makeBdc(topo, input, brOff, null);
    sys.ok = false;
    if (topo.nR > 0) {
      sys.analyze();
      if (!sys.lu.factor(sys.val)) return false;
    }
    sys.ok = true;
    sys.hash = hash;
  }
  return true;
}

/** Solves for topo.va (start angles in topo.va give the reference angles).
 *  Leaves Pbus (p.u.) in topo.busA and Bbus*Va (p.u.) in topo.busB for dcSoln. */
export function dcpf(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, genOff: i32, ng: i32,
  baseMVA: f64, hash: u64): i32 {
  const nb = topo.nb, nl = topo.nl;
  if (!dcFactorised(topo, input, brOff, hash)) return STATUS_SINGULAR;
  const f = topo.f, t = topo.t, va = topo.va;
  const bl = topo.dc().branches.b;
  const pbus = topo.busA;
  // Pbus = (Pg - Pd - Gs)/baseMVA - Pbusinj
  const pdOff = busOff + BUS_PD * nb, gsOff = busOff + BUS_GS * nb;
  for (let i = 0; i < nb; i++) unchecked(pbus[i] = 0.0);
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[genOff + g]);
    unchecked(pbus[bus] += input[genOff + GEN_PG * ng + g]);
  }
  for (let i = 0; i < nb; i++) {
    unchecked(pbus[i] = (pbus[i] - input[pdOff + i] - input[gsOff + i]) / baseMVA);
  }
  solveAngles(topo, input, brOff, pbus, null);
  // Bbus * Va (for the slack generation and the bus injections)
  const bva = topo.busB;
  for (let i = 0; i < nb; i++) unchecked(bva[i] = 0.0);
  let bad = false;
  for (let l = 0; l < nl; l++) {
    const a = unchecked(f[l]), c = unchecked(t[l]);
    const fl = unchecked(bl[l]) * (unchecked(va[a]) - unchecked(va[c]));
    unchecked(bva[a] += fl);
    unchecked(bva[c] -= fl);
  }
  for (let i = 0; i < nb; i++) if (!isFinite(unchecked(va[i]))) bad = true;
  const stop = progress(1, 0.0);
  if (bad) return STATUS_NAN;
  if (stop != 0) return STATUS_CANCELLED;
  return STATUS_CONVERGED;
}

/** DC branch flows, slack generation (first in-service gen at each ref bus) and
 *  bus injections into the output buffer. */
export function dcSoln(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, genOff: i32, ng: i32,
  baseMVA: f64, out: StaticArray<f64>, oBus: i32, oBr: i32, oGen: i32): void {
  const nb = topo.nb, nl = topo.nl;
  const f = topo.f, t = topo.t, type = topo.type, va = topo.va;
  const bd = topo.dc().branches;
  const pbus = topo.busA, bva = topo.busB;
  const gsOff = busOff + BUS_GS * nb;
  // bus injections Pg - Pd = (Bbus Va + Pbusinj) * baseMVA + Gs  (MW), Q = 0
  const pinj = topo.busC;
  for (let i = 0; i < nb; i++) unchecked(pinj[i] = bva[i] + bd.pbusinj[i]);
  for (let l = 0; l < nl; l++) {
    const pf = (unchecked(bd.b[l]) * (unchecked(va[f[l]]) - unchecked(va[t[l]])) + unchecked(bd.pfinj[l])) * baseMVA;
    unchecked(out[oBr + l] = pf);
    unchecked(out[oBr + OUT_BR_QF * nl + l] = 0.0);
    unchecked(out[oBr + OUT_BR_PT * nl + l] = -pf);
    unchecked(out[oBr + OUT_BR_QT * nl + l] = 0.0);
  }
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + OUT_BUS_PINJ * nb + i] = pinj[i] * baseMVA + input[gsOff + i]);
    unchecked(out[oBus + OUT_BUS_QINJ * nb + i] = 0.0);
  }
  // generators: Pg unchanged (Qg as given), except the first gen at each ref bus
  const seen = topo.busN;
  for (let i = 0; i < nb; i++) unchecked(seen[i] = 0);
  for (let g = 0; g < ng; g++) {
    const bus = <i32>unchecked(input[genOff + g]);
    let pg = unchecked(input[genOff + GEN_PG * ng + g]);
    if (unchecked(type[bus]) == REF && unchecked(seen[bus]) == 0) {
      unchecked(seen[bus] = 1);
      pg += (unchecked(bva[bus]) - unchecked(pbus[bus])) * baseMVA;
    }
    unchecked(out[oGen + g] = pg);
    unchecked(out[oGen + OUT_GEN_QG * ng + g] = input[genOff + GEN_QG * ng + g]);
  }
}

/** Pbus -= Pbusinj (phase shifters), then Va(non-ref) = Bbus(nr, nr) \ (Pbus(nr) - Bbus(nr, ref) Va(ref))
 *  with the factor in topo.dc().lu and makeBdc's branch part of the same Bbus (topo.dc().branches: the case's
 *  outages already left out), and Vm = 1. */
export function solveAngles(topo: Topology, input: StaticArray<f64>, brOff: i32, pbus: StaticArray<f64>, out: StaticArray<u8> | null): void {
  const nb = topo.nb, nl = topo.nl;
  const f = topo.f, t = topo.t, type = topo.type, rIdx = topo.rIdx, va = topo.va, vm = topo.vm;
  const sys = topo.dc();
  const bl = sys.branches.b, pbusinj = sys.branches.pbusinj;
  for (let i = 0; i < nb; i++) unchecked(pbus[i] -= pbusinj[i]);
  // rhs = Pbus(nonref) - Bbus(nonref, ref) Va0(ref)
  const rhs = sys.rhs;
  for (let i = 0; i < nb; i++) {
    const r = unchecked(rIdx[i]);
    if (r >= 0) unchecked(rhs[r] = pbus[i]);
  }
  for (let l = 0; l < nl; l++) {
    if (out !== null && unchecked(out[l]) != 0) continue;
    const a = unchecked(f[l]), c = unchecked(t[l]);
    const ta = unchecked(type[a]), tc = unchecked(type[c]);
    if ((ta == REF) == (tc == REF)) continue;
    const b = unchecked(bl[l]);
    // Bbus(a, c) = -b
    if (tc == REF) unchecked(rhs[rIdx[a]] += b * va[c]);
    else unchecked(rhs[rIdx[c]] += b * va[a]);
  }
  if (topo.nR > 0) sys.lu.solve(rhs);
  for (let i = 0; i < nb; i++) {
    const r = unchecked(rIdx[i]);
    if (r >= 0) unchecked(va[i] = rhs[r]);
    unchecked(vm[i] = 1.0);
  }
}
