// Branch flows from the solved voltages (MATPOWER pfsoln), p.u.:
//   Sf = Vf conj(Yff Vf + Yft Vt),  St = Vt conj(Ytf Vf + Ytt Vt)
// with the branch's pi-model admittances in topo.brY (ybus.ts) and V in topo.vr / vi.
import { Topology } from './topology';
import { dcB } from './dcpf';
import { BR_RATIO, BR_SHIFT, BR_X } from './abi';
import { geti, getf, ptr, setf } from './sparse/raw';

/** Pf, Qf, Pt, Qt of branch l (p.u.) into flow[0..3]. */
// @ts-ignore: decorator
@inline
export function branchFlow(topo: Topology, l: i32, flow: StaticArray<f64>): void {
  branchFlowAt(ptr(topo.f), ptr(topo.t), ptr(topo.vr), ptr(topo.vi), ptr(topo.brY), l, ptr(flow));
}

/** branchFlow on the raw addresses of topo.f, t, vr, vi, brY and of the four flows (sparse/raw.ts): a loop over
 *  every branch of every case reads them once. */
// @ts-ignore: decorator
@inline
export function branchFlowAt(fb: usize, tb: usize, vr: usize, vi: usize, brY: usize, l: i32, fl: usize): void {
  const a = geti(fb, l), c = geti(tb, l);
  const o = 8 * l;
  const far = getf(vr, a), fai = getf(vi, a), tr = getf(vr, c), ti = getf(vi, c);
  const yffr = getf(brY, o), yffi = getf(brY, o + 1), yftr = getf(brY, o + 2), yfti = getf(brY, o + 3);
  const ytfr = getf(brY, o + 4), ytfi = getf(brY, o + 5), yttr = getf(brY, o + 6), ytti = getf(brY, o + 7);
  const ifr = yffr * far - yffi * fai + yftr * tr - yfti * ti;
  const ifi = yffr * fai + yffi * far + yftr * ti + yfti * tr;
  const itr = ytfr * far - ytfi * fai + yttr * tr - ytti * ti;
  const iti = ytfr * fai + ytfi * far + yttr * ti + ytti * tr;
  setf(fl, 0, far * ifr + fai * ifi);
  setf(fl, 1, fai * ifr - far * ifi);
  setf(fl, 2, tr * itr + ti * iti);
  setf(fl, 3, ti * itr - tr * iti);
}

/** DC flows of branch l: Pf = b (Va_f - Va_t) + Pfinj, Pt = -Pf, Q = 0 (p.u., dcpf.ts dcSoln). */
// @ts-ignore: decorator
@inline
export function dcBranchFlow(topo: Topology, input: StaticArray<f64>, brOff: i32, l: i32, flow: StaticArray<f64>): void {
  const nl = topo.nl;
  const b = dcB(input, brOff + BR_X * nl, brOff + BR_RATIO * nl, l);
  const pf = b * (unchecked(topo.va[topo.f[l]]) - unchecked(topo.va[topo.t[l]])) - b * unchecked(input[brOff + BR_SHIFT * nl + l]);
  unchecked(flow[0] = pf);
  unchecked(flow[1] = 0.0);
  unchecked(flow[2] = -pf);
  unchecked(flow[3] = 0.0);
}
