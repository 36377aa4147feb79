// Pivot acceptance thresholds shared by both numeric factorisations.

/** Threshold partial pivoting: a preferred pivot (the static diagonal) is kept
 *  while |pivot| ≥ PIVOT_TOL · max|candidates in its column| — KLU's default
 *  (0.001); it bounds the growth per step while keeping the sparse ordering. */
export const PIVOT_TOL: f64 = 1e-3;

/** A pivot whose magnitude is ≤ SINGULAR_TOL times the largest entry met while
 *  computing its column (A's column, the U part, the candidates) is rounding
 *  noise: the matrix is treated as numerically singular. */
export const SINGULAR_TOL: f64 = 1e-12;
