// Left-looking numeric LU on a static pattern (KLU's "refactor"): with the
// pivot sequence and the structure of L and U fixed by the analysis, column k
// is computed as x = L \ (P·A·Q)(:,k) by sparse updates taken in the stored
// topological order of U(:,k); no graph search, no allocation. Every pivot is
// checked, and the first one that is too small relative to its column is
// reported so the caller can switch to a pivoting factorisation.
import { LUFactors } from './factors';
import { PIVOT_TOL, SINGULAR_TOL } from './tolerances';

/**
 * Numeric factorisation of the matrix with values `values` (CSC order of the
 * analysed pattern Ap) into f, whose patterns are already set. q[k] is the
 * original column of step k; stepOf[p] is the pivot step of the row of entry p.
 * x is a zeroed work vector of length n and is left zeroed.
 * Returns -1 on success, else the step whose pivot failed the test
 * (|u_kk| < PIVOT_TOL·max|l_ik·u_kk|, tiny against the column, or not finite).
 */
export function refactorLU(
  n: i32, Ap: StaticArray<i32>, stepOf: StaticArray<i32>, values: StaticArray<f64>,
  q: StaticArray<i32>, f: LUFactors, x: StaticArray<f64>,
): i32 {
  const Lp = f.Lp, Li = f.Li, Lx = f.Lx, Up = f.Up, Ui = f.Ui, Ux = f.Ux;
  for (let k = 0; k < n; k++) {
    const col = unchecked(q[k]);
    let scale: f64 = 0.0;
    const aend = unchecked(Ap[col + 1]);
    for (let p = unchecked(Ap[col]); p < aend; p++) {
      const v = unchecked(values[p]);
      unchecked(x[stepOf[p]] = v);
      scale = max(scale, abs(v));
    }
    // U(:,k): each x[j] is final when reached (topological order); apply L(:,j).
    const udiag = unchecked(Up[k + 1]) - 1;
    for (let p = unchecked(Up[k]); p < udiag; p++) {
      const j = unchecked(Ui[p]);
      const xj = unchecked(x[j]);
      unchecked(x[j] = 0.0);
      unchecked(Ux[p] = xj);
      scale = max(scale, abs(xj));               // f64.max keeps a NaN
      const lend = unchecked(Lp[j + 1]);
      for (let t = unchecked(Lp[j]) + 1; t < lend; t++) {
        unchecked(x[Li[t]] -= Lx[t] * xj);
      }
    }
    const d = unchecked(x[k]);
    unchecked(x[k] = 0.0);
    const l0 = unchecked(Lp[k]) + 1, l1 = unchecked(Lp[k + 1]);
    let cmax: f64 = 0.0;
    for (let t = l0; t < l1; t++) cmax = max(cmax, abs(unchecked(x[Li[t]])));
    const ad = abs(d);
    scale = max(scale, max(cmax, ad));
    if (!(ad >= PIVOT_TOL * cmax) || !(ad > SINGULAR_TOL * scale) || !isFinite(scale)) {
      for (let t = l0; t < l1; t++) unchecked(x[Li[t]] = 0.0);
      return k;
    }
    unchecked(Ux[udiag] = d);
    const inv = 1.0 / d;
    for (let t = l0; t < l1; t++) {
      const i = unchecked(Li[t]);
      unchecked(Lx[t] = x[i] * inv);
      unchecked(x[i] = 0.0);
    }
  }
  return -1;
}
