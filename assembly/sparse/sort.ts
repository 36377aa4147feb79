// Ascending sort of the row indices inside each column of a factor. In step
// numbering an L(i,j) ≠ 0 always has i > j, so ascending order is also a
// topological order for the left-looking updates, and it makes the scatters
// into the work vector and the walk over L's columns move forward in memory.
// Run in analyze and after a pivoting fallback, never per factorisation.

/** Sorts idx[lo..hi) ascending, permuting val alongside when it is non-null. */
export function sortRange(idx: StaticArray<i32>, val: StaticArray<f64> | null, lo: i32, hi: i32): void {
  const m = hi - lo;
  if (m < 2) return;
  if (m <= 24) {
    insertion(idx, val, lo, hi);
    return;
  }
  // Heapsort: O(m log m) for the few long columns near the end of the ordering.
  for (let s = (m >> 1) - 1; s >= 0; s--) siftDown(idx, val, lo, s, m);
  for (let end = m - 1; end > 0; end--) {
    swap(idx, val, lo, lo + end);
    siftDown(idx, val, lo, 0, end);
  }
}

function insertion(idx: StaticArray<i32>, val: StaticArray<f64> | null, lo: i32, hi: i32): void {
  for (let a = lo + 1; a < hi; a++) {
    const key = unchecked(idx[a]);
    const kv = val !== null ? unchecked(val[a]) : 0.0;
    let b = a - 1;
    while (b >= lo && unchecked(idx[b]) > key) {
      unchecked(idx[b + 1] = idx[b]);
      if (val !== null) unchecked(val[b + 1] = val[b]);
      b--;
    }
    unchecked(idx[b + 1] = key);
    if (val !== null) unchecked(val[b + 1] = kv);
  }
}

function siftDown(idx: StaticArray<i32>, val: StaticArray<f64> | null, lo: i32, root: i32, m: i32): void {
  let r = root;
  for (;;) {
    let c = 2 * r + 1;
    if (c >= m) return;
    if (c + 1 < m && unchecked(idx[lo + c + 1]) > unchecked(idx[lo + c])) c++;
    if (unchecked(idx[lo + r]) >= unchecked(idx[lo + c])) return;
    swap(idx, val, lo + r, lo + c);
    r = c;
  }
}

// @ts-ignore: decorator
@inline function swap(idx: StaticArray<i32>, val: StaticArray<f64> | null, a: i32, b: i32): void {
  const t = unchecked(idx[a]);
  unchecked(idx[a] = idx[b]);
  unchecked(idx[b] = t);
  if (val !== null) {
    const v = unchecked(val[a]);
    unchecked(val[a] = val[b]);
    unchecked(val[b] = v);
  }
}

/** Sorts the off-diagonal rows of every column: L keeps its diagonal first,
 *  U its diagonal last. Values move along when given. */
export function sortFactorColumns(
  n: i32, Lp: StaticArray<i32>, Li: StaticArray<i32>, Lx: StaticArray<f64> | null,
  Up: StaticArray<i32>, Ui: StaticArray<i32>, Ux: StaticArray<f64> | null,
): void {
  for (let k = 0; k < n; k++) {
    sortRange(Li, Lx, unchecked(Lp[k]) + 1, unchecked(Lp[k + 1]));
    sortRange(Ui, Ux, unchecked(Up[k]), unchecked(Up[k + 1]) - 1);
  }
}
