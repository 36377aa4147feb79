// Structure of the LU factors for a fixed pivot sequence (static pivoting):
// column k of P·A·Q needs x = L \ (P·A·Q)(:,k), whose pattern is the
// Gilbert–Peierls reach of the column in the graph of the L built so far.
// Rows above k form U(:,k), rows below k form L(:,k); both are then sorted
// ascending, which for U(:,k) is also a valid update order (see sort.ts). No cancellation is assumed, so the pattern holds for
// every matrix with this sparsity and these pivots. Run once per pattern.
import { LUFactors } from './factors';
import { reach } from './reach';
import { sortFactorColumns } from './sort';

/**
 * Fills the patterns (Lp, Li, Up, Ui) of f for the column order q (q[k] =
 * original column of step k) and row steps pinv (pinv[i] = step of original
 * row i). The diagonal of every step is always present, even when
 * structurally zero (the numeric phase then sees a zero pivot). Work arrays
 * have length n.
 */
export function symbolicLU(
  n: i32, Ap: StaticArray<i32>, Ai: StaticArray<i32>, q: StaticArray<i32>, pinv: StaticArray<i32>,
  f: LUFactors, colOf: StaticArray<i32>, xi: StaticArray<i32>, stack: StaticArray<i32>,
  pstack: StaticArray<i32>, mark: StaticArray<i32>,
): void {
  for (let j = 0; j < n; j++) {
    unchecked(colOf[j] = -1);                   // step j has no L column yet
    unchecked(mark[j] = -1);
  }
  let lnz = 0, unz = 0;
  for (let k = 0; k < n; k++) {
    const top = reach(n, Ap, Ai, unchecked(q[k]), pinv, f.Lp, f.Li, colOf, xi, stack, pstack, mark, k);
    f.reserveL(lnz + n - top + 1, lnz);
    f.reserveU(unz + n - top + 1, unz);
    const Li = f.Li, Ui = f.Ui;
    unchecked(f.Lp[k] = lnz);
    unchecked(f.Up[k] = unz);
    unchecked(Li[lnz++] = k);
    for (let p = top; p < n; p++) {
      const j = unchecked(xi[p]);
      if (j < k) unchecked(Ui[unz++] = j);
      else if (j > k) unchecked(Li[lnz++] = j);
    }
    unchecked(Ui[unz++] = k);
    unchecked(f.Lp[k + 1] = lnz);               // column k is now an edge source
    unchecked(colOf[k] = k);
  }
  unchecked(f.Lp[n] = lnz);
  unchecked(f.Up[n] = unz);
  sortFactorColumns(n, f.Lp, f.Li, null, f.Up, f.Ui, null);
}
