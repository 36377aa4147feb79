// Polar power-flow Jacobian (MATPOWER dSbus_dV), written in place into the
// Jacobian's CSC values through the Ybus -> Jacobian slot map of the topology:
//   dS/dVa = j diag(V) conj(diag(Ibus) - Ybus diag(V))
//   dS/dVm = diag(V) conj(Ybus diag(V./|V|)) + conj(diag(Ibus)) diag(V./|V|)
// Per Ybus entry (i,k), with c = V_i conj(Y_ik V_k):
//   k != i:  dS_i/dVa_k = -j c            dS_i/dVm_k = c / |V_k|
//   k == i:  dS_i/dVa_i = j (S_i - c)     dS_i/dVm_i = (c + S_i) / |V_i|
// J = [ real(dS/dVa)  real(dS/dVm) ; imag(dS/dVa)  imag(dS/dVm) ] restricted to
// the P rows of non-ref buses, Q rows of pq buses, Va columns of non-ref buses
// and Vm columns of pq buses; absent combinations go to a dump slot.
// Needs topo.ir/ii/sr/si from mismatch.injections for the same V.
import { Topology } from './topology';

export function fillJacobian(topo: Topology): void {
  const nb = topo.nb;
  const yPtr = topo.yPtr, yIdx = topo.yIdx, yRe = topo.yRe, yIm = topo.yIm;
  const vr = topo.vr, vi = topo.vi, vm = topo.vm, sr = topo.sr, si = topo.si;
  const aIdx = topo.aIdx;
  const J = topo.jVal, map = topo.jMap;
  for (let i = 0; i < nb; i++) {
    if (unchecked(aIdx[i]) < 0) continue; // reference bus: no P/Q equation
    const ur = unchecked(vr[i]), ui = unchecked(vi[i]);
    const e = unchecked(yPtr[i + 1]);
    for (let p = unchecked(yPtr[i]); p < e; p++) {
      const k = unchecked(yIdx[p]);
      const gr = unchecked(yRe[p]), gi = unchecked(yIm[p]);
      const xr = unchecked(vr[k]), xi = unchecked(vi[k]);
      // Y_ik V_k
      const wr = gr * xr - gi * xi, wi = gr * xi + gi * xr;
      // c = V_i conj(Y_ik V_k)
      const cr = ur * wr + ui * wi, ci = ui * wr - ur * wi;
      const inv = 1.0 / unchecked(vm[k]);
      let aRe: f64, aIm: f64, mRe: f64, mIm: f64;
      if (k != i) {
        aRe = ci; aIm = -cr;
        mRe = cr * inv; mIm = ci * inv;
      } else {
        const s_r = unchecked(sr[i]), s_i = unchecked(si[i]);
        aRe = -(s_i - ci); aIm = s_r - cr;
        mRe = (cr + s_r) * inv; mIm = (ci + s_i) * inv;
      }
      const q = p << 2;
      unchecked(J[map[q]] = aRe);
      unchecked(J[map[q + 1]] = mRe);
      unchecked(J[map[q + 2]] = aIm);
      unchecked(J[map[q + 3]] = mIm);
    }
  }
}
