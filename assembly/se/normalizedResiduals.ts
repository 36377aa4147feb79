// Normalized residuals r_i / √Ω_ii with Ω = R − H G⁻¹ Hᵀ (the residual covariance) at the returned state:
// Ω_ii = σ_i² − H_i G⁻¹ H_iᵀ, with G⁻¹'s entries on the factor's pattern from one backward pass
// (./sparseInverse.ts); when the factorisation had to pivot off the symmetric order (or the caller asks, to
// compare), one solve of G y = H_iᵀ per measurement instead. A measurement with Ω_ii / σ_i² under CRITICAL is
// critical (no redundancy: its residual is 0 whatever its error) and has none.
import { Estimator } from './estimator';
import { getf, geti, ptr, setf } from '../sparse/raw';
import { progress } from '../progress';

export const CRITICAL: f64 = 1e-6;
/** Rows between two looks at the stop flag (a large set needs many solves). */
const STOP_EVERY: i32 = 256;
export const RESIDUALS_DONE: i32 = 0;
export const RESIDUALS_SINGULAR: i32 = 1;
export const RESIDUALS_STOPPED: i32 = 2;
export const OMEGA_NONE: i32 = 0;
export const OMEGA_BY_SUBSET: i32 = 1;
export const OMEGA_BY_SOLVES: i32 = 2;

/** Fills nr (NaN when critical or removed) and ratio (Ω_ii/σ²); RESIDUALS_SINGULAR when G cannot be factorised,
 *  RESIDUALS_STOPPED when the host asked to stop (progress with iteration −1 and the rows done). */
export function normalizedResiduals(e: Estimator, nr: StaticArray<f64>, ratio: StaticArray<f64>, y: StaticArray<f64>): i32 {
  e.evaluate(true);
  if (!e.g.factor()) return RESIDUALS_SINGULAR;
  const ms = e.ms, h = e.h;
  const bySubset = !e.omegaBySolves && e.inverse.compute(e.g.lu, h);
  e.omegaUsed = bySubset ? OMEGA_BY_SUBSET : OMEGA_BY_SOLVES;
  let s = 0; // the row's first pair slot in the subset's table
  for (let i = 0; i < ms.m; i++) {
    const k = unchecked(h.hp[i + 1]) - unchecked(h.hp[i]);
    if (unchecked(ms.w[i]) == 0.0) { unchecked(nr[i] = NaN); unchecked(ratio[i] = NaN); s += k * k; continue; }
    let q: f64;
    if (bySubset) q = e.inverse.quadratic(h, i, s);
    else {
      if (i % STOP_EVERY == STOP_EVERY - 1 && progress(-1, <f64>i) != 0) return RESIDUALS_STOPPED;
      q = bySolve(e, i, y);
    }
    s += k * k;
    const s2 = unchecked(ms.sigma[i]) * unchecked(ms.sigma[i]);
    const omega = s2 - q;
    unchecked(ratio[i] = omega / s2);
    unchecked(nr[i] = omega / s2 < CRITICAL ? NaN : unchecked(e.r[i]) / Math.sqrt(omega));
  }
  return RESIDUALS_DONE;
}

/** H_i G⁻¹ H_iᵀ by one solve of G y = H_iᵀ. */
function bySolve(e: Estimator, i: i32, y: StaticArray<f64>): f64 {
  const h = e.h, n = e.net.n;
  const hp = ptr(h.hp), hj = ptr(h.hj), hx = ptr(h.hx), yp = ptr(y);
  for (let j = 0; j < n; j++) setf(yp, j, 0.0);
  for (let p = geti(hp, i); p < geti(hp, i + 1); p++) setf(yp, geti(hj, p), getf(yp, geti(hj, p)) + getf(hx, p));
  e.g.solve(y);
  let q = 0.0;
  for (let p = geti(hp, i); p < geti(hp, i + 1); p++) q += getf(hx, p) * getf(yp, geti(hj, p));
  return q;
}
