// Pivot acceptance thresholds shared by both numeric factorisations.

/** Threshold partial pivoting: a preferred pivot (the static diagonal) is kept
 *  while |pivot| ≥ PIVOT_TOL · max|candidates in its column| — KLU's default
 *  (0.001); it bounds the growth per step while keeping the sparse ordering. */
export const PIVOT_TOL: f64 = 1e-3;

/** A Newton Jacobian's refactorisation on a pivot sequence the pivoting fallback adopted (BlockLU's scalar
 *  LU): a pivot is kept while |pivot| ≥ ADOPTED_PIVOT_TOL · max|candidates|. The first factorisation pivots for
 *  real at PIVOT_TOL; the later ones reuse its sequence (KLU's factor once, refactor many) unless a pivot falls
 *  a hundred times further. A Newton run that diverges otherwise pivoted anew at each of its iterations (50
 *  Gilbert–Peierls factorisations, about 75 ms a case on case2383wp); the iterate's own mismatch, not the step,
 *  decides convergence, so a less exact step costs at most an iteration. */
export const ADOPTED_PIVOT_TOL: f64 = 1e-5;

/** A pivot whose magnitude is ≤ SINGULAR_TOL times the largest entry met while
 *  computing its column (A's column, the U part, the candidates) is rounding
 *  noise: the matrix is treated as numerically singular. */
export const SINGULAR_TOL: f64 = 1e-12;
