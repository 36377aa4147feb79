// Supernodes of L: maximal runs of consecutive columns s..e such that
// L(c+1, c) ≠ 0 and struct L(:,c) = {c} ∪ struct L(:,c+1) for c in s..e-1.
// Then every column c of the run holds rows c..e followed by the same row
// list R, and whenever a column j of the run is needed by U(:,k), so are
// j+1, .., min(e, k-1) (each is reached from the one before). The
// refactorisation can therefore apply those columns' updates to the rows R
// together: one gather/scatter of x[r] for several multiply-adds, which is
// what bounds the speed of sparse LU. Power-flow Jacobians have many: the
// θ and |V| unknowns of a PQ bus share their structure.

/** snEnd[j] = last column of the supernode containing column j. Needs the
 *  rows of each L column sorted ascending (diagonal first). */
export function findSupernodes(n: i32, Lp: StaticArray<i32>, Li: StaticArray<i32>, snEnd: StaticArray<i32>): void {
  if (n == 0) return;
  unchecked(snEnd[n - 1] = n - 1);
  for (let j = n - 2; j >= 0; j--) {
    const a0 = unchecked(Lp[j]), a1 = unchecked(Lp[j + 1]), b1 = unchecked(Lp[j + 2]);
    // column j must be: j, j+1, then exactly column j+1's rows below its diagonal
    let same = a1 - a0 == b1 - a1 + 1 && a1 - a0 >= 2 && unchecked(Li[a0 + 1]) == j + 1;
    for (let t = 2; same && t < a1 - a0; t++) {
      if (unchecked(Li[a0 + t]) != unchecked(Li[a1 + t - 1])) same = false;
    }
    unchecked(snEnd[j] = same ? unchecked(snEnd[j + 1]) : j);
  }
}
