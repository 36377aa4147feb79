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
// the column-order copy topo.yT made by makeYbus.
// Needs topo.sr/si from mismatch.injections for the same V.
import { Topology } from './topology';

export function fillJacobian(topo: Topology): void {
  const nb = topo.nb;
  const yPtr = topo.yPtr, yIdx = topo.yIdx, yT = topo.yT;
  const vr = topo.vr, vi = topo.vi, vm = topo.vm, sr = topo.sr, si = topo.si;
  const aIdx = topo.aIdx, mIdx = topo.mIdx;
  const J = topo.jVal, jPtr = topo.jPtr;
  for (let k = 0; k < nb; k++) {
    const ak = unchecked(aIdx[k]);
    if (ak < 0) continue; // reference bus: no Va / Vm unknown
    const mk = unchecked(mIdx[k]);
    const hasM = mk >= 0;
    let sA = unchecked(jPtr[ak]);
    let sM = hasM ? unchecked(jPtr[mk]) : 0;
    const xr = unchecked(vr[k]), xi = unchecked(vi[k]);
    const inv = 1.0 / unchecked(vm[k]);
    const e = unchecked(yPtr[k + 1]);
    for (let q = unchecked(yPtr[k]); q < e; q++) {
      const i = unchecked(yIdx[q]);
      const ai = unchecked(aIdx[i]);
      const mi = unchecked(mIdx[i]);
      if (ai < 0) continue; // row bus is the reference: no equation
      const gr = unchecked(yT[2 * q]), gi = unchecked(yT[2 * q + 1]);
      // Y_ik V_k
      const wr = gr * xr - gi * xi, wi = gr * xi + gi * xr;
      // c = V_i conj(Y_ik V_k)
      const ur = unchecked(vr[i]), ui = unchecked(vi[i]);
      const cr = ur * wr + ui * wi, ci = ui * wr - ur * wi;
      let aRe: f64, aIm: f64, mRe: f64, mIm: f64;
      if (i != k) {
        aRe = ci; aIm = -cr;
        mRe = cr * inv; mIm = ci * inv;
      } else {
        const s_r = unchecked(sr[k]), s_i = unchecked(si[k]);
        aRe = ci - s_i; aIm = s_r - cr;
        mRe = (cr + s_r) * inv; mIm = (ci + s_i) * inv;
      }
      // P row (every non-ref bus), then Q row (pq buses)
      unchecked(J[sA++] = aRe);
      if (hasM) unchecked(J[sM++] = mRe);
      if (mi >= 0) {
        unchecked(J[sA++] = aIm);
        if (hasM) unchecked(J[sM++] = mIm);
      }
    }
  }
}
