// What the cores share about a branch, so power flow, studies, OPF and the coming
// PTDF/LODF read the same network the same way (#22 item 3).

/** A branch flow limit is enforced when its rate is set and finite: MATPOWER treats
 *  rate_a = 0 (and values of 1e10 and beyond) as unlimited. */
// @ts-ignore: decorator
@inline export function isRated(rate: f64): bool { return rate != 0.0 && rate < 1e10; }

/** The π model of MATPOWER's makeYbus: r, x series impedance, b total charging (p.u.), ratio (0 = 1)
 *  and shift (radians) of the tap at the from end; writes Yff, Yft, Ytf, Ytt (re, im each) to out[o..o+8).
 *  Power flow (ybus.ts, makeB.ts) and the AC-OPF (opf/branchPower.ts) both take it from here. */
// @ts-ignore: decorator
@inline
export function branchAdmittance(r: f64, x: f64, b: f64, ratio: f64, shift: f64, out: StaticArray<f64>, o: i32): void {
  const d = r * r + x * x;
  const ysr = r / d, ysi = -x / d;
  const tap = ratio == 0.0 ? 1.0 : ratio;
  let tr = tap, ti = 0.0;
  if (shift != 0.0) {
    tr = tap * Math.cos(shift);
    ti = tap * Math.sin(shift);
  }
  const tt = tr * tr + ti * ti;
  const yttr = ysr, ytti = ysi + 0.5 * b;
  // Yff = Ytt / tt
  unchecked(out[o] = yttr / tt);
  unchecked(out[o + 1] = ytti / tt);
  // Yft = -ys / conj(t) = -ys * t / tt
  unchecked(out[o + 2] = -(ysr * tr - ysi * ti) / tt);
  unchecked(out[o + 3] = -(ysr * ti + ysi * tr) / tt);
  // Ytf = -ys / t = -ys * conj(t) / tt
  unchecked(out[o + 4] = -(ysr * tr + ysi * ti) / tt);
  unchecked(out[o + 5] = -(ysi * tr - ysr * ti) / tt);
  unchecked(out[o + 6] = yttr);
  unchecked(out[o + 7] = ytti);
}

/** The DC model's branch susceptance b = 1 / (x · tap), tap 0 meaning 1, in MATPOWER's makeBdc
 *  order of operations (b = 1 ./ x, then b ./ tap). DC power flow, studies and the DC-OPF
 *  (and the coming PTDF/LODF) all take it from here. */
// @ts-ignore: decorator
@inline export function dcSusceptance(x: f64, ratio: f64): f64 { return 1.0 / x / (ratio != 0.0 ? ratio : 1.0); }

/** makeBdc's phase-shift injection Pfinj = −b · shift (p.u., shift in radians) of a branch with DC
 *  susceptance b: DC power flow, its results and the DC-OPF's balance and flow rows take it from here. */
// @ts-ignore: decorator
@inline export function dcShiftInjection(b: f64, shift: f64): f64 { return -b * shift; }
