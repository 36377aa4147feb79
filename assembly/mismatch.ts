// Bus power injections S = V .* conj(Ybus * V) and the power-flow mismatch
// F = S - Sbus, as newtonpf / fdpf evaluate it. Ibus = Ybus*V and S are kept in
// the topology's work vectors (S is reused by the Jacobian).
import { Topology, PQ, REF } from './topology';
import { DecoupledSystem } from './decoupledSystem';
import { NewtonSystem } from './newtonSystem';
import { ptr, geti, getf, setf } from './sparse/raw';

/** vr + j vi = vm e^{j va} for one bus (raw data addresses). */
// @ts-ignore: decorator
@inline
export function rectBus(vm: usize, va: usize, vr: usize, vi: usize, i: i32): void {
  const m = getf(vm, i);
  NativeMath.sincos(getf(va, i));
  setf(vr, i, m * NativeMath.sincos_cos);
  setf(vi, i, m * NativeMath.sincos_sin);
}

/** Vm = abs(V), Va = angle(V) of V = vm e^{j va}: newtonpf's re-wrap after each
 *  update (a negative magnitude becomes positive with the angle moved by pi). */
// @ts-ignore: decorator
@inline
export function wrapBus(vm: usize, va: usize, i: i32): void {
  let m = getf(vm, i);
  let a = getf(va, i);
  if (m < 0.0) { m = -m; a += Math.PI; setf(vm, i, m); }
  if (a > Math.PI || a < -Math.PI) a = Math.atan2(Math.sin(a), Math.cos(a));
  setf(va, i, a);
}

/** Voltages from polar (vm, va) into rectangular (vr, vi) for every bus. */
export function polarToRect(topo: Topology): void {
  const vm = ptr(topo.vm), va = ptr(topo.va), vr = ptr(topo.vr), vi = ptr(topo.vi);
  for (let i = 0, nb = topo.nb; i < nb; i++) rectBus(vm, va, vr, vi, i);
}

/** Re-wrap every bus (abs / angle). */
export function wrapAll(topo: Topology): void {
  const vm = ptr(topo.vm), va = ptr(topo.va);
  for (let i = 0, nb = topo.nb; i < nb; i++) wrapBus(vm, va, i);
}

/** I = Ybus V and S = V conj(I) for every bus. */
export function injections(topo: Topology): void {
  const nb = topo.nb;
  const yPtr = ptr(topo.yPtr), yIdx = ptr(topo.yIdx), yRe = ptr(topo.yRe), yIm = ptr(topo.yIm);
  const vr = ptr(topo.vr), vi = ptr(topo.vi), ir = ptr(topo.ir), ii = ptr(topo.ii), sr = ptr(topo.sr), si = ptr(topo.si);
  let p = geti(yPtr, 0);
  for (let i = 0; i < nb; i++) {
    let ar = 0.0, ai = 0.0;
    const e = geti(yPtr, i + 1);
    for (; p < e; p++) {
      const k = geti(yIdx, p);
      const gr = getf(yRe, p), gi = getf(yIm, p);
      const xr = getf(vr, k), xi = getf(vi, k);
      ar += gr * xr - gi * xi;
      ai += gr * xi + gi * xr;
    }
    setf(ir, i, ar);
    setf(ii, i, ai);
    const ur = getf(vr, i), ui = getf(vi, i);
    setf(sr, i, ur * ar + ui * ai);
    setf(si, i, ui * ar - ur * ai);
  }
}

// @ts-ignore: decorator
@inline
function maxAbs(m: f64, v: f64): f64 {
  const a = Math.abs(v);
  return (a > m || a != a) ? a : m; // NaN sticks
}

/** Newton mismatch vector F = sys.rhs (P rows at Va unknowns, Q rows at Vm unknowns, in the block LU's
 *  step order: sys.aAt / mAt; its padding 0) and its max-norm. */
export function mismatchNR(topo: Topology, sys: NewtonSystem): f64 {
  const nb = topo.nb;
  const F = sys.rhs;
  const aAt = ptr(sys.aAt), mAt = ptr(sys.mAt);
  const sr = ptr(topo.sr), si = ptr(topo.si), pSch = ptr(topo.pSch), qSch = ptr(topo.qSch);
  const f = ptr(F);
  // the padding (a pv bus's missing Q row) is 0 again, whatever a failed solve left there
  memory.fill(f, 0, <usize>F.length << 3);
  const pinnedOn = topo.anyPinned, pin = ptr(topo.pinned);
  let norm = 0.0;
  for (let i = 0; i < nb; i++) {
    const a = geti(aAt, i);
    if (a < 0) continue;
    // a pinned bus is held out of the equations (Topology.pinned): no mismatch, so no step
    if (pinnedOn && load<u8>(pin + <usize>i) != 0) continue;
    const dp = getf(sr, i) - getf(pSch, i);
    setf(f, a, dp);
    norm = maxAbs(norm, dp);
    const m = geti(mAt, i);
    if (m >= 0) {
      const dq = getf(si, i) - getf(qSch, i);
      setf(f, m, dq);
      norm = maxAbs(norm, dq);
    }
  }
  return norm;
}

/** Fast-decoupled mismatch (S - Sbus) ./ Vm: P at non-ref buses into sys.rhsP, Q at pq buses into
 *  sys.rhsQ, their max-norms into sys.normP / normQ. */
export function mismatchFD(topo: Topology, sys: DecoupledSystem): void {
  const P = sys.rhsP, Q = sys.rhsQ;
  const nb = topo.nb;
  const rIdx = ptr(topo.rIdx), qIdx = ptr(topo.qIdx), type = ptr(topo.type);
  const sr = ptr(topo.sr), si = ptr(topo.si), pSch = ptr(topo.pSch), qSch = ptr(topo.qSch), vm = ptr(topo.vm);
  const pp = ptr(P), qp = ptr(Q);
  let np = 0.0, nq = 0.0;
  for (let i = 0; i < nb; i++) {
    const ty = geti(type, i);
    if (ty == REF) continue;
    const m = getf(vm, i);
    const dp = (getf(sr, i) - getf(pSch, i)) / m;
    setf(pp, geti(rIdx, i), dp);
    np = maxAbs(np, dp);
    if (ty == PQ) {
      const dq = (getf(si, i) - getf(qSch, i)) / m;
      setf(qp, geti(qIdx, i), dq);
      nq = maxAbs(nq, dq);
    }
  }
  sys.normP = np;
  sys.normQ = nq;
}

/** mismatchFD's entries of bus i alone (P at a non-ref bus, Q at a pq bus), by the same arithmetic; the norms are
 *  left to mismatchFDNorms. A study's estimate starts from the base mismatch with two buses changed. */
export function mismatchFDBus(topo: Topology, sys: DecoupledSystem, i: i32): void {
  const ty = unchecked(topo.type[i]);
  if (ty == REF) return;
  const m = unchecked(topo.vm[i]);
  unchecked(sys.rhsP[topo.rIdx[i]] = (unchecked(topo.sr[i]) - unchecked(topo.pSch[i])) / m);
  if (ty == PQ) unchecked(sys.rhsQ[topo.qIdx[i]] = (unchecked(topo.si[i]) - unchecked(topo.qSch[i])) / m);
}

/** sys.normP / normQ of the mismatch in sys.rhsP / rhsQ, as mismatchFD sets them (NaN sticks). */
export function mismatchFDNorms(topo: Topology, sys: DecoupledSystem): void {
  const pp = ptr(sys.rhsP), qp = ptr(sys.rhsQ);
  let np = 0.0, nq = 0.0;
  for (let r = 0, n = topo.nR; r < n; r++) np = maxAbs(np, getf(pp, r));
  for (let q = 0, n = topo.nQ; q < n; q++) nq = maxAbs(nq, getf(qp, q));
  sys.normP = np;
  sys.normQ = nq;
}
