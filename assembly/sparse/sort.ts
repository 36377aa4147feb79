// Ascending sort of the row indices inside each column of a factor. In step
// numbering an L(i,j) ≠ 0 always has i > j, so ascending order is also a
// topological order for the left-looking updates, and it makes the scatters
// into the work vector and the walk over L's columns move forward in memory.
// Run in analyze and after a pivoting fallback, never per factorisation.

/** Sorts the off-diagonal rows of every column: L keeps its diagonal first,
 *  U its diagonal last. Values move along when given. */
export function sortFactorColumns(
  n: i32, Lp: StaticArray<i32>, Li: StaticArray<i32>, Lx: StaticArray<f64> | null,
  Up: StaticArray<i32>, Ui: StaticArray<i32>, Ux: StaticArray<f64> | null,
): void {
  sortColumnsByTranspose(n, Lp, Li, Lx, 1, 0);
  sortColumnsByTranspose(n, Up, Ui, Ux, 0, 1);
}

/** Sorts the rows of every column's range [P[k] + skipHead, P[k+1] − skipTail) by a double
 *  transpose: the entries are bucketed by row (columns ascending), then dealt back to their columns
 *  row by row, which leaves each column ascending. O(nnz + n) instead of Σ m log m: the factors of
 *  a large KKT system have columns of hundreds of entries. */
function sortColumnsByTranspose(n: i32, P: StaticArray<i32>, I: StaticArray<i32>, X: StaticArray<f64> | null,
  skipHead: i32, skipTail: i32): void {
  const rowStart = new StaticArray<i32>(n + 1);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const hi = unchecked(P[k + 1]) - skipTail;
    for (let p = unchecked(P[k]) + skipHead; p < hi; p++) { unchecked(rowStart[I[p] + 1]++); m++; }
  }
  if (m == 0) return;
  for (let i = 0; i < n; i++) unchecked(rowStart[i + 1] += rowStart[i]);
  const col = new StaticArray<i32>(m);
  const v = X !== null ? new StaticArray<f64>(m) : new StaticArray<f64>(0);
  const fill = new StaticArray<i32>(n);
  for (let i = 0; i < n; i++) unchecked(fill[i] = rowStart[i]);
  for (let k = 0; k < n; k++) {
    const hi = unchecked(P[k + 1]) - skipTail;
    for (let p = unchecked(P[k]) + skipHead; p < hi; p++) {
      const q = unchecked(fill[I[p]]++);
      unchecked(col[q] = k);
      if (X !== null) unchecked(v[q] = X[p]);
    }
  }
  for (let k = 0; k < n; k++) unchecked(fill[k] = P[k] + skipHead);
  for (let i = 0; i < n; i++) {
    for (let q = unchecked(rowStart[i]); q < unchecked(rowStart[i + 1]); q++) {
      const p = unchecked(fill[col[q]]++);
      unchecked(I[p] = i);
      if (X !== null) unchecked(X[p] = v[q]);
    }
  }
}
