// Fast-decoupled power flow (XB), MATPOWER's fdpf step for step:
//   mis = (V .* conj(Ybus V) - Sbus) ./ Vm; P = real(mis(pv,pq)); Q = imag(mis(pq))
//   while !converged && i < max_it:
//     i++
//     Va(pv,pq) -= B' \ P;  V = Vm e^{j Va};  mismatch; converged? -> stop
//     Vm(pq)    -= B''\ Q;  V = Vm e^{j Va};  mismatch; converged? -> stop
// (no angle re-wrap inside the loop; the result's angle(V) is taken at the end).
// B' and B'' are factorised once per topology and parameter set.
import { Topology } from './topology';
import { SolveResult } from './solveResult';
import { DecoupledSystem } from './decoupledSystem';
import { injections, mismatchFD, polarToRect, wrapAll, wrapBus } from './mismatch';
import { ptr, geti, getf, setf } from './sparse/raw';
import { makeBp, makeBpp } from './makeB';
import { RankTwoUpdate } from './sparse/woodbury';
import { progress } from './progress';
import { STATUS_CANCELLED, STATUS_CONVERGED, STATUS_MAXIT, STATUS_NAN, STATUS_SINGULAR } from './abi';


/** B' and B'' numeric factors for this parameter set (reused when unchanged). */
function factorB(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, baseMVA: f64, hash: u64): bool {
  const sys = topo.decoupled();
  if (!(sys.bpOk && sys.bpHash == hash)) {
    sys.generation++;
    makeBp(topo, input, brOff);
    sys.bpOk = false;
    if (topo.nR > 0) {
      sys.analyzeBp();
      if (!sys.luBp.factor(sys.bpVal)) return false;
    }
    sys.bpOk = true;
    sys.bpHash = hash;
  }
  if (!(sys.bppOk && sys.bppHash == hash)) {
    sys.generation++;
    makeBpp(topo, input, busOff, brOff, baseMVA);
    sys.bppOk = false;
    if (topo.nQ > 0) {
      sys.analyzeBpp();
      if (!sys.luBpp.factor(sys.bppVal)) return false;
    }
    sys.bppOk = true;
    sys.bppHash = hash;
  }
  return true;
}

// @ts-ignore: decorator
@inline
function mismatchMax(sys: DecoupledSystem): f64 {
  const a = sys.normP, b = sys.normQ;
  if (a != a || b != b) return NaN;
  return a > b ? a : b;
}

export function fdpf(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, baseMVA: f64, hash: u64,
  tol: f64, maxIt: i32, result: SolveResult): i32 {
  return fdIterate(topo, factorB(topo, input, busOff, brOff, baseMVA, hash), tol, maxIt, result);
}

/** B' and B'' of a study case: the base network without the branches marked in `out` (null: the intact network),
 *  refactorised on the base pattern. The factors then belong to the case: a later power flow rebuilds its own. */
export function factorBWithout(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, baseMVA: f64,
  out: StaticArray<u8> | null): bool {
  const sys = topo.decoupled();
  sys.bpOk = false;
  sys.bppOk = false;
  sys.generation++;
  makeBp(topo, input, brOff, out);
  if (topo.nR > 0) {
    sys.analyzeBp();
    if (!sys.luBp.factor(sys.bpVal)) return false;
  }
  makeBpp(topo, input, busOff, brOff, baseMVA, out);
  if (topo.nQ > 0) {
    sys.analyzeBpp();
    if (!sys.luBpp.factor(sys.bppVal)) return false;
  }
  return true;
}

/** The fast-decoupled iterations from topo.vm / va on factors prepared by the caller (factored:
 *  false when B' or B'' was singular); bpUpdate / bppUpdate (optional): the factors are another matrix's,
 *  each solve corrected by that update (a study's branch outage on the intact factors, study/compensation.ts).
 *  resume: topo.vr / vi / cosVa / sinVa and the system's mismatch (rhsP, rhsQ, norms) already hold the start
 *  state's, as a previous fdIterate leaves them or as a study's estimate sets them up: not evaluated again.
 *  evaluateLast false: the mismatch after the last Q half-step of maxIt is not evaluated (a study's estimate, judged
 *  by its flows: the caller evaluates it only to iterate on); such a run ends STATUS_MAXIT, or STATUS_NAN. */
export function fdIterate(topo: Topology, factored: bool, tol: f64, maxIt: i32, result: SolveResult,
  bpUpdate: RankTwoUpdate | null = null, bppUpdate: RankTwoUpdate | null = null, resume: bool = false, evaluateLast: bool = true): i32 {
  const nb = topo.nb;
  const sys = topo.decoupled();
  result.iterations = 0;
  if (!factored) {
    wrapAll(topo);
    polarToRect(topo);
    injections(topo);
    mismatchFD(topo, sys);
    result.mismatch = mismatchMax(sys);
    return STATUS_SINGULAR;
  }
  const P = sys.rhsP, Q = sys.rhsQ;
  const rIdx = ptr(topo.rIdx), qIdx = ptr(topo.qIdx);
  const vm = ptr(topo.vm), va = ptr(topo.va), vr = ptr(topo.vr), vi = ptr(topo.vi);
  const pp = ptr(P), qp = ptr(Q);
  const cs = ptr(topo.cosVa), sn = ptr(topo.sinVa);
  if (!resume) {
    wrapAll(topo);
    // V = vm e^{j va} and the angles' cos / sin in one pass (one sincos per bus)
    for (let i = 0; i < nb; i++) {
      NativeMath.sincos(getf(va, i));
      const c = NativeMath.sincos_cos, s = NativeMath.sincos_sin, m = getf(vm, i);
      setf(cs, i, c); setf(sn, i, s);
      setf(vr, i, m * c); setf(vi, i, m * s);
    }
    injections(topo);
    mismatchFD(topo, sys);
  }
  let norm = mismatchMax(sys);
  let status = STATUS_MAXIT;
  if (sys.normP < tol && sys.normQ < tol) status = STATUS_CONVERGED;
  else if (!isFinite(norm)) status = STATUS_NAN;
  let it = 0;
  while (status == STATUS_MAXIT && it < maxIt) {
    it++;
    // ---- P half-iteration: update Va
    if (topo.nR > 0) {
      sys.luBp.solve(P);
      if (bpUpdate !== null) bpUpdate.apply(P);
    }
    for (let i = 0; i < nb; i++) {
      const r = geti(rIdx, i);
      if (r >= 0) {
        const a = getf(va, i) - getf(pp, r);
        setf(va, i, a);
        NativeMath.sincos(a);
        const c = NativeMath.sincos_cos, s = NativeMath.sincos_sin, m = getf(vm, i);
        setf(cs, i, c); setf(sn, i, s);
        setf(vr, i, m * c); setf(vi, i, m * s);
      }
    }
    injections(topo);
    mismatchFD(topo, sys);
    norm = mismatchMax(sys);
    if (sys.normP < tol && sys.normQ < tol) { progress(it, norm); status = STATUS_CONVERGED; break; }
    // ---- Q half-iteration: update Vm
    if (topo.nQ > 0) {
      sys.luBpp.solve(Q);
      if (bppUpdate !== null) bppUpdate.apply(Q);
    }
    for (let i = 0; i < nb; i++) {
      const q = geti(qIdx, i);
      if (q >= 0) { // angles unchanged: reuse their cos / sin
        const m = getf(vm, i) - getf(qp, q);
        setf(vm, i, m);
        setf(vr, i, m * getf(cs, i)); setf(vi, i, m * getf(sn, i));
      }
    }
    if (!evaluateLast && it == maxIt) {
      let sum = 0.0;
      for (let i = 0; i < nb; i++) sum += getf(vm, i) + getf(va, i);
      if (!isFinite(sum)) status = STATUS_NAN;
      break;
    }
    injections(topo);
    mismatchFD(topo, sys);
    norm = mismatchMax(sys);
    const stop = progress(it, norm);
    if (sys.normP < tol && sys.normQ < tol) { status = STATUS_CONVERGED; break; }
    if (!isFinite(norm)) { status = STATUS_NAN; break; }
    if (stop != 0) { status = STATUS_CANCELLED; break; }
  }
  // the solution is V = Vm e^{j Va}: report abs / angle; a bus re-wrapped gets its cos / sin again, so that the
  // state stays one a resumed call can go on from
  for (let i = 0; i < nb; i++) {
    const m = getf(vm, i), a = getf(va, i);
    if (m >= 0.0 && a <= Math.PI && a >= -Math.PI) continue;
    wrapBus(vm, va, i);
    NativeMath.sincos(getf(va, i));
    setf(cs, i, NativeMath.sincos_cos); setf(sn, i, NativeMath.sincos_sin);
  }
  result.iterations = it;
  result.mismatch = norm;
  return status;
}
