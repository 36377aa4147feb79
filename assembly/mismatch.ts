// Bus power injections S = V .* conj(Ybus * V) and the power-flow mismatch
// F = S - Sbus, as newtonpf / fdpf evaluate it. Ibus = Ybus*V and S are kept in
// the topology's work vectors so the Jacobian can reuse them.
import { Topology, PQ, REF } from './topology';

/** Voltages from polar (vm, va) into rectangular (vr, vi) for every bus. */
export function polarToRect(topo: Topology): void {
  const nb = topo.nb;
  const vm = topo.vm, va = topo.va, vr = topo.vr, vi = topo.vi;
  for (let i = 0; i < nb; i++) {
    const m = unchecked(vm[i]);
    NativeMath.sincos(unchecked(va[i]));
    unchecked(vr[i] = m * NativeMath.sincos_cos);
    unchecked(vi[i] = m * NativeMath.sincos_sin);
  }
}

/** vr + j vi = vm e^{j va} for one bus. */
// @ts-ignore: decorator
@inline
export function polarToRectBus(topo: Topology, i: i32): void {
  const m = unchecked(topo.vm[i]);
  NativeMath.sincos(unchecked(topo.va[i]));
  unchecked(topo.vr[i] = m * NativeMath.sincos_cos);
  unchecked(topo.vi[i] = m * NativeMath.sincos_sin);
}

/** Vm = abs(V), Va = angle(V) of V = vm e^{j va}: newtonpf's re-wrap after each update
 *  (a negative magnitude turns into a positive one with the angle moved by pi). */
// @ts-ignore: decorator
@inline
export function wrapPolar(topo: Topology, i: i32): void {
  let m = unchecked(topo.vm[i]);
  let a = unchecked(topo.va[i]);
  if (m < 0.0) { m = -m; a += Math.PI; }
  if (a > Math.PI || a < -Math.PI) {
    a = Math.atan2(Math.sin(a), Math.cos(a));
  }
  unchecked(topo.vm[i] = m);
  unchecked(topo.va[i] = a);
}

/** I = Ybus V and S = V conj(I) for every bus. */
export function injections(topo: Topology): void {
  const nb = topo.nb;
  const yPtr = topo.yPtr, yIdx = topo.yIdx, yRe = topo.yRe, yIm = topo.yIm;
  const vr = topo.vr, vi = topo.vi, ir = topo.ir, ii = topo.ii, sr = topo.sr, si = topo.si;
  for (let i = 0; i < nb; i++) {
    let ar = 0.0, ai = 0.0;
    const e = unchecked(yPtr[i + 1]);
    for (let p = unchecked(yPtr[i]); p < e; p++) {
      const k = unchecked(yIdx[p]);
      const gr = unchecked(yRe[p]), gi = unchecked(yIm[p]);
      const xr = unchecked(vr[k]), xi = unchecked(vi[k]);
      ar += gr * xr - gi * xi;
      ai += gr * xi + gi * xr;
    }
    unchecked(ir[i] = ar);
    unchecked(ii[i] = ai);
    const ur = unchecked(vr[i]), ui = unchecked(vi[i]);
    unchecked(sr[i] = ur * ar + ui * ai);
    unchecked(si[i] = ui * ar - ur * ai);
  }
}

// @ts-ignore: decorator
@inline
function maxAbs(m: f64, v: f64): f64 {
  const a = Math.abs(v);
  return (a > m || a != a) ? a : m; // NaN sticks
}

/** Newton mismatch vector F (P rows at Va unknowns, Q rows at Vm unknowns) and its max-norm. */
export function mismatchNR(topo: Topology, F: StaticArray<f64>): f64 {
  const nb = topo.nb;
  const aIdx = topo.aIdx, mIdx = topo.mIdx;
  const sr = topo.sr, si = topo.si, pSch = topo.pSch, qSch = topo.qSch;
  let norm = 0.0;
  for (let i = 0; i < nb; i++) {
    const a = unchecked(aIdx[i]);
    if (a < 0) continue;
    const dp = unchecked(sr[i]) - unchecked(pSch[i]);
    unchecked(F[a] = dp);
    norm = maxAbs(norm, dp);
    const m = unchecked(mIdx[i]);
    if (m >= 0) {
      const dq = unchecked(si[i]) - unchecked(qSch[i]);
      unchecked(F[m] = dq);
      norm = maxAbs(norm, dq);
    }
  }
  return norm;
}

/** Fast-decoupled mismatch (S - Sbus) ./ Vm: P at non-ref buses, Q at pq buses.
 *  Returns max-norms in normP / normQ globals. */
export let normP: f64 = 0.0;
export let normQ: f64 = 0.0;
export function mismatchFD(topo: Topology, P: StaticArray<f64>, Q: StaticArray<f64>): void {
  const nb = topo.nb;
  const rIdx = topo.rIdx, qIdx = topo.qIdx, type = topo.type;
  const sr = topo.sr, si = topo.si, pSch = topo.pSch, qSch = topo.qSch, vm = topo.vm;
  let np = 0.0, nq = 0.0;
  for (let i = 0; i < nb; i++) {
    const ty = unchecked(type[i]);
    if (ty == REF) continue;
    const m = unchecked(vm[i]);
    const dp = (unchecked(sr[i]) - unchecked(pSch[i])) / m;
    unchecked(P[rIdx[i]] = dp);
    np = maxAbs(np, dp);
    if (ty == PQ) {
      const dq = (unchecked(si[i]) - unchecked(qSch[i])) / m;
      unchecked(Q[qIdx[i]] = dq);
      nq = maxAbs(nq, dq);
    }
  }
  normP = np;
  normQ = nq;
}
