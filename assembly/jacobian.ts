// Polar power-flow Jacobian (MATPOWER dSbus_dV), written in place into the
// Jacobian's CSC values, column after column (sequential writes):
//   dS/dVa = j diag(V) conj(diag(Ibus) - Ybus diag(V))
//   dS/dVm = diag(V) conj(Ybus diag(V./|V|)) + conj(diag(Ibus)) diag(V./|V|)
// Per Ybus entry (i,k), with c = V_i conj(Y_ik V_k):
//   k != i:  dS_i/dVa_k = -j c            dS_i/dVm_k = c / |V_k|
//   k == i:  dS_i/dVa_i = j (S_i - c)     dS_i/dVm_i = (c + S_i) / |V_i|
// J = [ real(dS/dVa)  real(dS/dVm) ; imag(dS/dVa)  imag(dS/dVm) ] restricted to
// the P rows of non-ref buses, Q rows of pq buses, Va columns of non-ref buses
// and Vm columns of pq buses. Column Va(k) (and Vm(k) right after it) holds the
// rows P_i, Q_i of the buses i of Ybus column k, in bus order; Ybus is
// structurally symmetric, so column k's pattern is row k's; Y_ik is read from
// the column-order copy topo.yT made by makeYbus (the precomputed Ybus ->
// Jacobian correspondence: Ybus entry q of row k feeds the next slots of
// columns Va(k) and Vm(k)).
// Every entry is written with the off-diagonal formulas, then the diagonal
// (slot NewtonSystem.diag of each column) gets its +j S / S/|V| terms.
// Needs topo.sr/si from mismatch.injections for the same V.
import { Topology } from './topology';
import { ptr, geti, getf, setf } from './sparse/raw';

/** A pinned bus's columns: 1 on its own P (Va column) and Q (Vm column) rows, 0 elsewhere. */
function identityColumns(J: usize, jPtr: usize, jDiag: usize, ak: i32, mk: i32): void {
  for (let q = geti(jPtr, ak); q < geti(jPtr, ak + 1); q++) setf(J, q, 0.0);
  setf(J, geti(jDiag, ak), 1.0);
  if (mk < 0) return;
  for (let q = geti(jPtr, mk); q < geti(jPtr, mk + 1); q++) setf(J, q, 0.0);
  setf(J, geti(jDiag, mk) + 1, 1.0);
}

export function fillJacobian(topo: Topology): void {
  const nb = topo.nb;
  const yPtr = ptr(topo.yPtr), yIdx = ptr(topo.yIdx), yT = ptr(topo.yT);
  const vr = ptr(topo.vr), vi = ptr(topo.vi), vm = ptr(topo.vm), sr = ptr(topo.sr), si = ptr(topo.si);
  const sys = topo.newton();
  const aIdx = ptr(topo.aIdx), mIdx = ptr(topo.mIdx), rows = ptr(sys.rows), jDiag = ptr(sys.diag);
  const J = ptr(sys.val), jPtr = ptr(sys.ptr);
  const pinnedOn = topo.anyPinned, pin = ptr(topo.pinned);
  for (let k = 0; k < nb; k++) {
    const ak = geti(aIdx, k);
    if (ak < 0) continue; // reference bus: no Va / Vm unknown
    const mk = geti(mIdx, k);
    if (pinnedOn && load<u8>(pin + <usize>k) != 0) { identityColumns(J, jPtr, jDiag, ak, mk); continue; }
    let sA = geti(jPtr, ak);
    const xr = getf(vr, k), xi = getf(vi, k);
    const inv = 1.0 / getf(vm, k);
    const e = geti(yPtr, k + 1);
    // every entry with the off-diagonal formulas first, the diagonal corrected below
    if (mk >= 0) {
      let sM = geti(jPtr, mk);
      for (let q = geti(yPtr, k); q < e; q++) {
        const code = load<u8>(rows + <usize>q);
        if (code == 0) continue; // row bus is the reference: no equation
        const i = geti(yIdx, q);
        const gr = getf(yT, 2 * q), gi = getf(yT, 2 * q + 1);
        const wr = gr * xr - gi * xi, wi = gr * xi + gi * xr;      // Y_ik V_k
        const ur = getf(vr, i), ui = getf(vi, i);
        const cr = ur * wr + ui * wi, ci = ui * wr - ur * wi;      // c = V_i conj(Y_ik V_k)
        setf(J, sA++, ci);
        setf(J, sM++, cr * inv);
        if (code == 2) {
          setf(J, sA++, -cr);
          setf(J, sM++, ci * inv);
        }
      }
      // diagonal: dS/dVa = j (S - c) = -j c + j S, dS/dVm = c/|V| + S/|V|
      const dA = geti(jDiag, ak), dM = geti(jDiag, mk);
      const s_r = getf(sr, k), s_i = getf(si, k);
      setf(J, dA, getf(J, dA) - s_i);
      setf(J, dA + 1, getf(J, dA + 1) + s_r);
      setf(J, dM, getf(J, dM) + s_r * inv);
      setf(J, dM + 1, getf(J, dM + 1) + s_i * inv);
    } else {
      for (let q = geti(yPtr, k); q < e; q++) {
        const code = load<u8>(rows + <usize>q);
        if (code == 0) continue;
        const i = geti(yIdx, q);
        const gr = getf(yT, 2 * q), gi = getf(yT, 2 * q + 1);
        const wr = gr * xr - gi * xi, wi = gr * xi + gi * xr;
        const ur = getf(vr, i), ui = getf(vi, i);
        const cr = ur * wr + ui * wi, ci = ui * wr - ur * wi;
        setf(J, sA++, ci);
        if (code == 2) setf(J, sA++, -cr);
      }
      // pv bus: only the P row of the diagonal
      const dA = geti(jDiag, ak);
      setf(J, dA, getf(J, dA) - getf(si, k));
    }
  }
}
