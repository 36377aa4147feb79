// Gilbert–Peierls left-looking LU with threshold partial pivoting: the
// fallback when the static pivot sequence meets a pivot that is too small.
// Column k of A·Q is solved against the L built so far (pattern by the reach,
// values in its topological order); among the rows not yet pivotal, the
// preferred row (the one the previous pivot sequence used at this step) is
// kept while it passes the threshold test, else the largest one is taken.
// Only when no candidate is distinguishable from rounding noise is the matrix
// singular. The factors' patterns are whatever the chosen pivots produce, so
// their storage may have to grow (the only allocation outside analyze).
import { LUFactors } from './factors';
import { reach } from './reach';
import { PIVOT_TOL, SINGULAR_TOL } from './tolerances';

/**
 * Factors P·A·Q = L·U into f. q[k] = original column of step k; prefer[k] =
 * original row preferred as pivot at step k. On success returns true, with
 * pinv[i] = step of original row i and f's row indices in steps. ident is the
 * identity map of length n; x (zeroed, left zeroed), xi, stack, pstack, mark
 * are work arrays of length n.
 */
export function pivotingLU(
  n: i32, Ap: StaticArray<i32>, Ai: StaticArray<i32>, values: StaticArray<f64>,
  q: StaticArray<i32>, prefer: StaticArray<i32>, ident: StaticArray<i32>,
  f: LUFactors, pinv: StaticArray<i32>, x: StaticArray<f64>,
  xi: StaticArray<i32>, stack: StaticArray<i32>, pstack: StaticArray<i32>, mark: StaticArray<i32>,
): bool {
  for (let i = 0; i < n; i++) {
    unchecked(pinv[i] = -1);
    unchecked(mark[i] = -1);
  }
  let lnz = 0, unz = 0;
  for (let k = 0; k < n; k++) {
    const col = unchecked(q[k]);
    // Graph nodes are original rows; row i has L column pinv[i] once pivotal.
    const top = reach(n, Ap, Ai, col, ident, f.Lp, f.Li, pinv, xi, stack, pstack, mark, k);
    f.reserveL(lnz + n - top + 1, lnz);
    f.reserveU(unz + n - top + 1, unz);
    const Lp = f.Lp, Li = f.Li, Lx = f.Lx, Ui = f.Ui, Ux = f.Ux;
    unchecked(Lp[k] = lnz);
    unchecked(f.Up[k] = unz);
    let scale: f64 = 0.0;
    const aend = unchecked(Ap[col + 1]);
    for (let p = unchecked(Ap[col]); p < aend; p++) {
      const v = unchecked(values[p]);
      unchecked(x[Ai[p]] = v);
      scale = max(scale, abs(v));
    }
    for (let px = top; px < n; px++) {
      const j = unchecked(xi[px]);
      const J = unchecked(pinv[j]);
      if (J < 0) continue;
      const xj = unchecked(x[j]);
      const lend = unchecked(Lp[J + 1]);
      for (let t = unchecked(Lp[J]) + 1; t < lend; t++) unchecked(x[Li[t]] -= Lx[t] * xj);
    }
    let ipiv = -1;
    let a: f64 = -1.0;
    for (let p = top; p < n; p++) {
      const i = unchecked(xi[p]);
      const t = abs(unchecked(x[i]));
      scale = max(scale, t);                     // f64.max keeps a NaN
      if (unchecked(pinv[i]) < 0) {
        if (t > a) { a = t; ipiv = i; }
      } else {
        unchecked(Ui[unz] = pinv[i]);
        unchecked(Ux[unz] = x[i]);
        unz++;
      }
    }
    if (ipiv < 0 || !(a > SINGULAR_TOL * scale) || !isFinite(scale)) {
      for (let p = top; p < n; p++) unchecked(x[xi[p]] = 0.0);
      return false;
    }
    const pref = unchecked(prefer[k]);
    if (unchecked(pinv[pref]) < 0 && abs(unchecked(x[pref])) >= PIVOT_TOL * a) ipiv = pref;
    const piv = unchecked(x[ipiv]);
    unchecked(Ui[unz] = k);
    unchecked(Ux[unz] = piv);
    unz++;
    unchecked(pinv[ipiv] = k);
    unchecked(Li[lnz] = ipiv);
    unchecked(Lx[lnz] = 1.0);
    lnz++;
    const inv = 1.0 / piv;
    for (let p = top; p < n; p++) {
      const i = unchecked(xi[p]);
      if (unchecked(pinv[i]) < 0) {
        unchecked(Li[lnz] = i);
        unchecked(Lx[lnz] = x[i] * inv);
        lnz++;
      }
      unchecked(x[i] = 0.0);
    }
    unchecked(Lp[k + 1] = lnz);
  }
  unchecked(f.Lp[n] = lnz);
  unchecked(f.Up[n] = unz);
  const Li = f.Li;
  for (let p = 0; p < lnz; p++) unchecked(Li[p] = pinv[Li[p]]);
  return true;
}
