// get_losses: series losses of each in-service branch,
//   loss = baseMVA * |Vf / tau - Vt|^2 / (r - j x),  tau = tap e^{j shift}
// i.e. I^2 R (real) and I^2 X (imaginary) of the series impedance only.
import { Topology } from './topology';
import { BR_R, BR_RATIO, BR_SHIFT, BR_X } from './abi';

/** Total series losses, MW and MVAr. */
export class Losses {
  p: f64 = 0.0;
  q: f64 = 0.0;
}

export function losses(topo: Topology, input: StaticArray<f64>, brOff: i32, baseMVA: f64, into: Losses): void {
  const nl = topo.nl;
  const f = topo.f, t = topo.t, vr = topo.vr, vi = topo.vi;
  const rOff = brOff + BR_R * nl, xOff = brOff + BR_X * nl, tapOff = brOff + BR_RATIO * nl, shOff = brOff + BR_SHIFT * nl;
  let sp = 0.0, sq = 0.0;
  for (let l = 0; l < nl; l++) {
    const ratio = unchecked(input[tapOff + l]);
    const tap = ratio == 0.0 ? 1.0 : ratio;
    const sh = unchecked(input[shOff + l]);
    let tr = tap, ti = 0.0;
    if (sh != 0.0) { tr = tap * Math.cos(sh); ti = tap * Math.sin(sh); }
    const tt = tr * tr + ti * ti;
    const a = unchecked(f[l]), c = unchecked(t[l]);
    const far = unchecked(vr[a]), fai = unchecked(vi[a]);
    // Vf / tau = Vf conj(tau) / |tau|^2
    const dr = (far * tr + fai * ti) / tt - unchecked(vr[c]);
    const di = (fai * tr - far * ti) / tt - unchecked(vi[c]);
    const v2 = (dr * dr + di * di) * baseMVA;
    const r = unchecked(input[rOff + l]), x = unchecked(input[xOff + l]);
    const z2 = r * r + x * x;
    // 1 / (r - jx) = (r + jx) / (r^2 + x^2)
    sp += v2 * r / z2;
    sq += v2 * x / z2;
  }
  into.p = sp;
  into.q = sq;
}
