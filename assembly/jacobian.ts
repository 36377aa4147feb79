// Polar power-flow Jacobian (MATPOWER dSbus_dV), written in place into the 2×2 block values of
// Newton's LU (NewtonSystem, sparse/blockLU.ts), one block per Ybus entry:
//   dS/dVa = j diag(V) conj(diag(Ibus) - Ybus diag(V))
//   dS/dVm = diag(V) conj(Ybus diag(V./|V|)) + conj(diag(Ibus)) diag(V./|V|)
// Per Ybus entry (i,k), with c = V_i conj(Y_ik V_k):
//   k != i:  dS_i/dVa_k = -j c            dS_i/dVm_k = c / |V_k|
//   k == i:  dS_i/dVa_i = j (S_i - c)     dS_i/dVm_i = (c + S_i) / |V_i|
// J = [ real(dS/dVa)  real(dS/dVm) ; imag(dS/dVa)  imag(dS/dVm) ] restricted to the P rows of non-ref
// buses, Q rows of pq buses, Va columns of non-ref buses and Vm columns of pq buses. The block of entry
// (i,k) is [dP_i/dVa_k dP_i/dVm_k; dQ_i/dVa_k dQ_i/dVm_k], stored column-major (two f64x2 stores); a pv
// bus has no Vm column (that block column is padding, left as analyze set it: zero, the identity on the
// diagonal) and no Q row (0 written there). Ybus is structurally symmetric, so column k's pattern is row
// k's; Y_ik is read from the column-order copy topo.yT made by makeYbus.
// Every entry is written with the off-diagonal formulas, then the diagonal block gets its +j S / S/|V|
// terms. Needs topo.sr/si from mismatch.injections for the same V.
import { Topology } from './topology';
import { ptr, geti, getf, setf } from './sparse/raw';

/** A pinned bus's columns: 1 on its own P (Va column) and Q (Vm column) rows, 0 elsewhere. */
function identityColumns(A: usize, blockAt: usize, q0: i32, q1: i32, d: i32, pq: bool): void {
  const zero = f64x2.splat(0.0);
  for (let q = q0; q < q1; q++) {
    const b = geti(blockAt, q);
    if (b < 0) continue;
    const a = A + (<usize>b << 3);
    v128.store(a, zero);
    if (pq) v128.store(a, zero, 16);
  }
  setf(A, d, 1.0);
  if (pq) setf(A, d + 3, 1.0);
}

export function fillJacobian(topo: Topology): void {
  const nb = topo.nb;
  const yPtr = ptr(topo.yPtr), yIdx = ptr(topo.yIdx), yT = ptr(topo.yT);
  const vr = ptr(topo.vr), vi = ptr(topo.vi), vm = ptr(topo.vm), sr = ptr(topo.sr), si = ptr(topo.si);
  const sys = topo.newton();
  const mIdx = ptr(topo.mIdx), rows = ptr(sys.rows), blockAt = ptr(sys.blockAt), diagAt = ptr(sys.diagAt);
  const A = ptr(sys.lu.blockValues());
  const pinnedOn = topo.anyPinned, pin = ptr(topo.pinned);
  for (let k = 0; k < nb; k++) {
    const d = geti(diagAt, k);
    if (d < 0) continue; // reference bus: no Va / Vm unknown
    const pq = geti(mIdx, k) >= 0;
    const q0 = geti(yPtr, k), q1 = geti(yPtr, k + 1);
    if (pinnedOn && load<u8>(pin + <usize>k) != 0) { identityColumns(A, blockAt, q0, q1, d, pq); continue; }
    const xr = getf(vr, k), xi = getf(vi, k);
    const inv = 1.0 / getf(vm, k);
    // every entry with the off-diagonal formulas first, the diagonal corrected below
    for (let q = q0; q < q1; q++) {
      const b = geti(blockAt, q);
      if (b < 0) continue; // row bus is the reference: no equation
      const i = geti(yIdx, q);
      const gr = getf(yT, 2 * q), gi = getf(yT, 2 * q + 1);
      const wr = gr * xr - gi * xi, wi = gr * xi + gi * xr;      // Y_ik V_k
      const ur = getf(vr, i), ui = getf(vi, i);
      const cr = ur * wr + ui * wi, ci = ui * wr - ur * wi;      // c = V_i conj(Y_ik V_k)
      const hasQ = load<u8>(rows + <usize>q) == 2;
      const a = A + (<usize>b << 3);
      // column Va_k: (dP, dQ) = (ci, -cr); column Vm_k: (cr, ci) / |V_k|
      v128.store(a, f64x2(ci, hasQ ? -cr : 0.0));
      if (pq) v128.store(a, f64x2(cr * inv, hasQ ? ci * inv : 0.0), 16);
    }
    // diagonal: dS/dVa = j (S - c) = -j c + j S, dS/dVm = c/|V| + S/|V|
    const s_r = getf(sr, k), s_i = getf(si, k);
    setf(A, d, getf(A, d) - s_i);
    if (pq) {
      setf(A, d + 1, getf(A, d + 1) + s_r);
      setf(A, d + 2, getf(A, d + 2) + s_r * inv);
      setf(A, d + 3, getf(A, d + 3) + s_i * inv);
    }
  }
}
