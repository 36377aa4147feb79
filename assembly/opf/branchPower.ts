// The complex power a branch carries into each end, in polar voltages, with
// its first and second derivatives: MATPOWER's dSbr_dV and d2Sbr_dV2 for one
// branch, in closed form. With a = conj(yff), b = conj(yft), c = conj(ytt),
// d = conj(ytf) of the branch's π model (tap and phase shift included):
//   Sf = a Vf² + b Vf Vt e^{j(θf−θt)},   St = c Vt² + d Vt Vf e^{j(θt−θf)}.
// The bus injections are sums of these (plus shunts), so the AC-OPF's power
// balance and its |S| flow limits share one evaluation per branch.
// Variables in the order θf, θt, Vf, Vt; derivatives re[0..4) im[4..8),
// second derivatives (symmetric, all 16 stored) re[0..16) im[16..32).
import { branchAdmittance } from '../branchModel';
import { ptr, setf } from '../sparse/raw';

export const TH_F: i32 = 0;
export const TH_T: i32 = 1;
export const VM_F: i32 = 2;
export const VM_T: i32 = 3;

export class BranchPower {
  sfR: f64 = 0.0; sfI: f64 = 0.0;
  stR: f64 = 0.0; stI: f64 = 0.0;
  dSf: StaticArray<f64> = new StaticArray<f64>(8);
  dSt: StaticArray<f64> = new StaticArray<f64>(8);
  d2Sf: StaticArray<f64> = new StaticArray<f64>(32);
  d2St: StaticArray<f64> = new StaticArray<f64>(32);

  /** Sf, St and their gradients at (θf, θt, Vf, Vt); with `second`, the Hessians too. y holds
   *  a, b, c, d as re, im pairs (8 values) from offset o. */
  at(y: StaticArray<f64>, o: i32, thf: f64, tht: f64, vf: f64, vt: f64, second: bool): void {
    const aR = unchecked(y[o]), aI = unchecked(y[o + 1]), bR = unchecked(y[o + 2]), bI = unchecked(y[o + 3]);
    const cR = unchecked(y[o + 4]), cI = unchecked(y[o + 5]), dR = unchecked(y[o + 6]), dI = unchecked(y[o + 7]);
    const delta = thf - tht;
    const cs = Math.cos(delta), sn = Math.sin(delta);
    // b e^{jδ} and d e^{−jδ}
    const beR = bR * cs - bI * sn, beI = bR * sn + bI * cs;
    const deR = dR * cs + dI * sn, deI = dI * cs - dR * sn;
    const vv = vf * vt;
    const wR = vv * beR, wI = vv * beI; // b Vf Vt e^{jδ}
    const uR = vv * deR, uI = vv * deI; // d Vt Vf e^{−jδ}
    this.sfR = aR * vf * vf + wR; this.sfI = aI * vf * vf + wI;
    this.stR = cR * vt * vt + uR; this.stI = cI * vt * vt + uI;
    // raw element access (sparse/raw.ts): called once per branch per evaluation
    const f = ptr(this.dSf), t = ptr(this.dSt);
    setf(f, TH_F, -wI); setf(f, 4 + TH_F, wR);
    setf(f, TH_T, wI); setf(f, 4 + TH_T, -wR);
    setf(f, VM_F, 2.0 * aR * vf + vt * beR); setf(f, 4 + VM_F, 2.0 * aI * vf + vt * beI);
    setf(f, VM_T, vf * beR); setf(f, 4 + VM_T, vf * beI);
    setf(t, TH_F, uI); setf(t, 4 + TH_F, -uR);
    setf(t, TH_T, -uI); setf(t, 4 + TH_T, uR);
    setf(t, VM_F, vt * deR); setf(t, 4 + VM_F, vt * deI);
    setf(t, VM_T, 2.0 * cR * vt + vf * deR); setf(t, 4 + VM_T, 2.0 * cI * vt + vf * deI);
    if (!second) return;
    const F = ptr(this.d2Sf), T = ptr(this.d2St);
    setSym(F, TH_F, TH_F, -wR, -wI); setSym(F, TH_F, TH_T, wR, wI); setSym(F, TH_T, TH_T, -wR, -wI);
    setSym(F, TH_F, VM_F, -vt * beI, vt * beR); setSym(F, TH_F, VM_T, -vf * beI, vf * beR);
    setSym(F, TH_T, VM_F, vt * beI, -vt * beR); setSym(F, TH_T, VM_T, vf * beI, -vf * beR);
    setSym(F, VM_F, VM_F, 2.0 * aR, 2.0 * aI); setSym(F, VM_F, VM_T, beR, beI); setSym(F, VM_T, VM_T, 0.0, 0.0);
    setSym(T, TH_F, TH_F, -uR, -uI); setSym(T, TH_F, TH_T, uR, uI); setSym(T, TH_T, TH_T, -uR, -uI);
    setSym(T, TH_F, VM_F, vt * deI, -vt * deR); setSym(T, TH_F, VM_T, vf * deI, -vf * deR);
    setSym(T, TH_T, VM_F, -vt * deI, vt * deR); setSym(T, TH_T, VM_T, -vf * deI, vf * deR);
    setSym(T, VM_F, VM_F, 0.0, 0.0); setSym(T, VM_F, VM_T, deR, deI); setSym(T, VM_T, VM_T, 2.0 * cR, 2.0 * cI);
  }
}

// @ts-ignore: decorator
@inline function setSym(m: usize, a: i32, b: i32, re: f64, im: f64): void {
  setf(m, 4 * a + b, re); setf(m, 4 * b + a, re);
  setf(m, 16 + 4 * a + b, im); setf(m, 16 + 4 * b + a, im);
}

/** a, b, c, d of a branch into y[o..o+8): r, x series impedance, bc total charging (p.u.),
 *  ratio (0 = 1) and shift (radians) of the tap at the from end, as MATPOWER's makeYbus. */
export function branchCoefficients(y: StaticArray<f64>, o: i32, r: f64, x: f64, bc: f64, ratio: f64, shift: f64): void {
  branchAdmittance(r, x, bc, ratio, shift, y, o); // yff, yft, ytf, ytt
  const ytfR = unchecked(y[o + 4]), ytfI = unchecked(y[o + 5]), yttR = unchecked(y[o + 6]), yttI = unchecked(y[o + 7]);
  unchecked(y[o + 1] = -y[o + 1]); unchecked(y[o + 3] = -y[o + 3]);
  unchecked(y[o + 4] = yttR); unchecked(y[o + 5] = -yttI);
  unchecked(y[o + 6] = ytfR); unchecked(y[o + 7] = -ytfI);
}
