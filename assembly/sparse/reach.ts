// The Gilbert–Peierls reach: the nonzero pattern of x = L \ b is the set of
// nodes reachable from the pattern of b in the directed graph of L (edge
// j → i for every L(i,j) ≠ 0). A depth-first search returns them in a
// topological order, which is the order the triangular solve must use.

/**
 * Nodes reachable from column `col` of (Ap, Ai) — each row mapped through
 * rowMap to a graph node — in the graph whose node j has out-edges
 * Li[Lp[c]+1 .. Lp[c+1]) when c = colOf[j] ≥ 0 (the first entry of an L
 * column is its diagonal, skipped) and none when colOf[j] < 0.
 * Writes them to xi[top..n-1] in topological order and returns top.
 * mark[] entries equal to `stamp` are "visited"; pass a fresh stamp per call.
 */
export function reach(
  n: i32, Ap: StaticArray<i32>, Ai: StaticArray<i32>, col: i32, rowMap: StaticArray<i32>,
  Lp: StaticArray<i32>, Li: StaticArray<i32>, colOf: StaticArray<i32>,
  xi: StaticArray<i32>, stack: StaticArray<i32>, pstack: StaticArray<i32>,
  mark: StaticArray<i32>, stamp: i32,
): i32 {
  let top = n;
  const pend = unchecked(Ap[col + 1]);
  for (let p = unchecked(Ap[col]); p < pend; p++) {
    const r = unchecked(rowMap[Ai[p]]);
    if (unchecked(mark[r]) == stamp) continue;
    // iterative DFS from r; pstack[h] = next edge to try at depth h
    let h = 0;
    unchecked(stack[0] = r);
    unchecked(mark[r] = stamp);
    let c = unchecked(colOf[r]);
    unchecked(pstack[0] = c < 0 ? 0 : unchecked(Lp[c]) + 1);
    while (h >= 0) {
      const j = unchecked(stack[h]);
      c = unchecked(colOf[j]);
      const end = c < 0 ? 0 : unchecked(Lp[c + 1]);
      let q = unchecked(pstack[h]);
      let pushed = false;
      for (; q < end; q++) {
        const i = unchecked(Li[q]);
        if (unchecked(mark[i]) == stamp) continue;
        unchecked(pstack[h] = q + 1);           // resume here after the child
        unchecked(mark[i] = stamp);
        const ci = unchecked(colOf[i]);
        h++;
        unchecked(stack[h] = i);
        unchecked(pstack[h] = ci < 0 ? 0 : unchecked(Lp[ci]) + 1);
        pushed = true;
        break;
      }
      if (!pushed) {                            // all children done: postorder emit
        h--;
        unchecked(xi[--top] = j);
      }
    }
  }
  return top;
}
