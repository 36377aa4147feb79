// A pivot sequence for the MIPS Newton system K = [M Aeᵀ; Ae 0] that static
// pivoting can keep. The (2,2) block is zero and M may have zero diagonal
// entries (voltage angles before λ grows), so K's own diagonal is no pivot
// sequence, and partial pivoting, which finds one, fills the factors many
// times over what a symmetric ordering would (measured: 18× the work on
// case2383wp). Instead every equality row c is matched to a variable v with
// Ae(c, v) ≠ 0 (a transversal: the largest entry of the row where it is free,
// augmenting paths for the rest), each pair is one node of a compressed graph
// ordered by AMD, and the pair is eliminated as a 2×2 pivot taken off the
// diagonal: column v on row c, then column c on row v. Its pivots are
// S(c, v) and S(v, c) − S(v, v)·S(c, c)/S(c, v): non-zero while the matched
// entry is, whatever S(v, v) and S(c, c) are. The LU still checks every pivot
// and pivots for real in the rare factorisation where one is too small.
import { amdOrder } from '../sparse/amd';

/** Writes q (column of each step) and prow (row pivotal at each step) for the n×n symmetric CSC
 *  pattern (rows ascending) whose first nx rows/columns are variables and the rest equality rows;
 *  val: the current values, which rank the candidates of the matching. */
export function kktOrder(n: i32, nx: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>, val: StaticArray<f64>,
  partner: StaticArray<i32>, q: StaticArray<i32>, prow: StaticArray<i32>): void {
  const neq = n - nx;
  const mateOfVar = new StaticArray<i32>(nx);   // equality row (0-based among rows) or −1
  const mateOfRow = new StaticArray<i32>(neq);  // variable or −1
  for (let v = 0; v < nx; v++) unchecked(mateOfVar[v] = -1);
  for (let e = 0; e < neq; e++) unchecked(mateOfRow[e] = -1);
  // the largest |entry| of every row, to tell real candidates from entries that are (now) ~0
  const rowMax = new StaticArray<f64>(neq);
  for (let e = 0; e < neq; e++) {
    let m = 0.0;
    for (let p = unchecked(colPtr[nx + e]); p < unchecked(colPtr[nx + e + 1]); p++) {
      if (unchecked(rowIdx[p]) < nx) m = Math.max(m, Math.abs(unchecked(val[p])));
    }
    unchecked(rowMax[e] = m);
  }
  // equality rows each variable appears in: a variable of one row only (a generator's Pg in its
  // bus's balance) is that row's private partner, whose entry does not move with the operating point
  const rowsOfVar = new StaticArray<i32>(nx);
  for (let e = 0; e < neq; e++) {
    for (let p = unchecked(colPtr[nx + e]); p < unchecked(colPtr[nx + e + 1]); p++) {
      const v = unchecked(rowIdx[p]);
      if (v < nx) unchecked(rowsOfVar[v]++);
    }
  }
  // pass 0: rows of one variable (fixed variables); then each row's natural partner (`partner`)
  // when free and significant; 1: a row whose largest entry's variable is free; 2: the largest free
  // private variable; 3: the largest free candidate; candidates of passes 2 and 3 are entries of at
  // least 1e-3 of the row's largest
  for (let pass = 0; pass < 4; pass++) {
    if (pass == 1) matchPartners(nx, neq, colPtr, rowIdx, val, rowMax, partner, mateOfRow, mateOfVar);
    for (let e = 0; e < neq; e++) {
      if (unchecked(mateOfRow[e]) >= 0) continue;
      const c = nx + e;
      let deg = 0, best = -1, bestAbs = -1.0, top = -1, topAbs = -1.0;
      for (let p = unchecked(colPtr[c]); p < unchecked(colPtr[c + 1]); p++) {
        const v = unchecked(rowIdx[p]);
        if (v >= nx) continue;
        deg++;
        const a = Math.abs(unchecked(val[p]));
        if (a > topAbs) { topAbs = a; top = v; }
        if (pass == 2 && unchecked(rowsOfVar[v]) != 1) continue;
        if (unchecked(mateOfVar[v]) < 0 && a > bestAbs && a >= SIGNIFICANT * unchecked(rowMax[e])) { bestAbs = a; best = v; }
      }
      let pick = -1;
      if (pass == 0) { if (deg == 1) pick = best; }
      else if (pass == 1) { if (top >= 0 && unchecked(mateOfVar[top]) < 0) pick = top; }
      else pick = best;
      if (pick >= 0 && bestAbs > 0.0) { unchecked(mateOfRow[e] = pick); unchecked(mateOfVar[pick] = e); }
    }
  }
  // then augmenting paths over significant entries, over non-zero ones, over any
  augment(nx, neq, colPtr, rowIdx, val, rowMax, SIGNIFICANT, mateOfRow, mateOfVar);
  augment(nx, neq, colPtr, rowIdx, val, rowMax, 1e-300, mateOfRow, mateOfVar);
  augment(nx, neq, colPtr, rowIdx, val, rowMax, 0.0, mateOfRow, mateOfVar);

  // compressed graph: one node per pair, one per unmatched variable or row
  const group = new StaticArray<i32>(n);
  let ng = 0;
  for (let v = 0; v < nx; v++) {
    unchecked(group[v] = ng);
    const e = unchecked(mateOfVar[v]);
    if (e >= 0) unchecked(group[nx + e] = ng);
    ng++;
  }
  for (let e = 0; e < neq; e++) if (unchecked(mateOfRow[e]) < 0) unchecked(group[nx + e] = ng++);
  const members = new StaticArray<i32>(2 * ng);  // first member, second (or −1)
  for (let g = 0; g < 2 * ng; g++) unchecked(members[g] = -1);
  for (let u = 0; u < n; u++) {
    const g = unchecked(group[u]);
    if (unchecked(members[2 * g]) < 0) unchecked(members[2 * g] = u); else unchecked(members[2 * g + 1] = u);
  }
  // group adjacency (symmetric because K's pattern is), without repeats
  const mark = new StaticArray<i32>(ng);
  for (let g = 0; g < ng; g++) unchecked(mark[g] = -1);
  const Gp = new StaticArray<i32>(ng + 1);
  let Gi = new StaticArray<i32>(0); // sized by the first pass
  for (let pass = 0; pass < 2; pass++) {
    let nnz = 0;
    for (let g = 0; g < ng; g++) {
      if (pass == 1) unchecked(Gp[g] = nnz);
      unchecked(mark[g] = g + pass * ng);
      for (let m = 0; m < 2; m++) {
        const u = unchecked(members[2 * g + m]);
        if (u < 0) continue;
        for (let p = unchecked(colPtr[u]); p < unchecked(colPtr[u + 1]); p++) {
          const h = unchecked(group[rowIdx[p]]);
          if (unchecked(mark[h]) == g + pass * ng) continue;
          unchecked(mark[h] = g + pass * ng);
          if (pass == 1) unchecked(Gi[nnz] = h);
          nnz++;
        }
      }
    }
    if (pass == 0) { Gi = new StaticArray<i32>(nnz); for (let g = 0; g < ng; g++) unchecked(mark[g] = -1); }
    else unchecked(Gp[ng] = nnz);
  }
  const perm = new StaticArray<i32>(ng);
  amdOrder(ng, Gp, Gi, perm);
  // A variable left unpaired (a generator's Pg or Qg) may have a tiny diagonal (a weak barrier, no
  // curvature): as a pivot before its constraint rows it would be rejected, after them it carries
  // their Schur complement. Such a variable waits until the last pair it touches has been eliminated.
  const posOf = new StaticArray<i32>(ng);
  for (let t = 0; t < ng; t++) unchecked(posOf[perm[t]] = t);
  const waitHead = new StaticArray<i32>(ng), waitNext = new StaticArray<i32>(ng), deferred = new StaticArray<bool>(ng);
  for (let g = 0; g < ng; g++) { unchecked(waitHead[g] = -1); unchecked(waitNext[g] = -1); }
  for (let g = 0; g < ng; g++) {
    const u = unchecked(members[2 * g]);
    if (unchecked(members[2 * g + 1]) >= 0 || u >= nx) continue;
    let diag = 0.0, colMax = 0.0;
    for (let p = unchecked(colPtr[u]); p < unchecked(colPtr[u + 1]); p++) {
      const a = Math.abs(unchecked(val[p]));
      if (unchecked(rowIdx[p]) == u) diag = a; else colMax = Math.max(colMax, a);
    }
    if (diag >= SIGNIFICANT * colMax) continue; // a strong diagonal pivots well where AMD puts it
    let last = -1, lastPos = unchecked(posOf[g]);
    for (let p = unchecked(Gp[g]); p < unchecked(Gp[g + 1]); p++) {
      const h = unchecked(Gi[p]);
      if (h == g || unchecked(members[2 * h + 1]) < 0) continue;
      if (unchecked(posOf[h]) > lastPos) { lastPos = unchecked(posOf[h]); last = h; }
    }
    if (last < 0) continue;
    unchecked(deferred[g] = true);
    unchecked(waitNext[g] = waitHead[last]); unchecked(waitHead[last] = g);
  }
  let k = 0;
  for (let t = 0; t < ng; t++) {
    const h = unchecked(perm[t]);
    if (unchecked(deferred[h])) continue;
    k = emit(h, members, q, prow, k);
    for (let g = unchecked(waitHead[h]); g >= 0; g = unchecked(waitNext[g])) k = emit(g, members, q, prow, k);
  }
}

/** The steps of group g from step k: a single pivot, or a pair's two off-diagonal ones. */
function emit(g: i32, members: StaticArray<i32>, q: StaticArray<i32>, prow: StaticArray<i32>, k: i32): i32 {
  {
    const a = unchecked(members[2 * g]), b = unchecked(members[2 * g + 1]);
    if (b < 0) { unchecked(q[k] = a); unchecked(prow[k] = a); return k + 1; }
    // a is the variable (smaller index), b its row: column a on row b, column b on row a
    unchecked(q[k] = a); unchecked(prow[k] = b);
    unchecked(q[k + 1] = b); unchecked(prow[k + 1] = a);
    return k + 2;
  }
}

/** A matched entry below this fraction of its row's largest is avoided while another choice exists. */
const SIGNIFICANT: f64 = 1e-3;

/** Augmenting paths (depth-first, explicit stack, a free variable looked for first at each row, as
 *  MC21) for the rows still unmatched, through entries |a| ≥ frac·rowMax (frac 0: any entry). */
function augment(nx: i32, neq: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>, val: StaticArray<f64>,
  rowMax: StaticArray<f64>, frac: f64, mateOfRow: StaticArray<i32>, mateOfVar: StaticArray<i32>): void {
  const visited = new StaticArray<i32>(nx);
  for (let v = 0; v < nx; v++) unchecked(visited[v] = -1);
  const rowStack = new StaticArray<i32>(neq), posStack = new StaticArray<i32>(neq), viaVar = new StaticArray<i32>(neq);
  for (let e0 = 0; e0 < neq; e0++) {
    if (unchecked(mateOfRow[e0]) >= 0) continue;
    let top = 0;
    unchecked(rowStack[0] = e0); unchecked(posStack[0] = colPtr[nx + e0]);
    let found = -1;
    while (top >= 0 && found < 0) {
      const e = unchecked(rowStack[top]), c = nx + e;
      const lim = frac * unchecked(rowMax[e]);
      // look-ahead: a free variable of this row ends the path at once
      for (let p = unchecked(colPtr[c]); p < unchecked(colPtr[c + 1]); p++) {
        const v = unchecked(rowIdx[p]);
        if (v >= nx || unchecked(mateOfVar[v]) >= 0 || !(Math.abs(unchecked(val[p])) >= lim)) continue;
        unchecked(visited[v] = e0); unchecked(viaVar[top] = v); found = top;
        break;
      }
      if (found >= 0) break;
      let p = unchecked(posStack[top]);
      let pushed = false;
      for (; p < unchecked(colPtr[c + 1]); p++) {
        const v = unchecked(rowIdx[p]);
        if (v >= nx || unchecked(visited[v]) == e0 || !(Math.abs(unchecked(val[p])) >= lim)) continue;
        unchecked(visited[v] = e0);
        unchecked(viaVar[top] = v);
        const next = unchecked(mateOfVar[v]);
        if (next < 0) { found = top; break; }
        unchecked(posStack[top] = p + 1);
        top++;
        unchecked(rowStack[top] = next); unchecked(posStack[top] = colPtr[nx + next]);
        pushed = true;
        break;
      }
      if (found >= 0 || pushed) continue;
      top--;
    }
    if (found < 0) continue; // structurally rank deficient: this row stays a 1×1 (zero) pivot
    for (let t = found; t >= 0; t--) {
      const e = unchecked(rowStack[t]), v = unchecked(viaVar[t]);
      unchecked(mateOfRow[e] = v); unchecked(mateOfVar[v] = e);
    }
  }
}

/** Pass 1 of the matching: each row with its natural partner, when that variable is free and the
 *  entry significant (a fixed variable's row always takes its variable). */
function matchPartners(nx: i32, neq: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>, val: StaticArray<f64>,
  rowMax: StaticArray<f64>, partner: StaticArray<i32>, mateOfRow: StaticArray<i32>, mateOfVar: StaticArray<i32>): void {
  for (let e = 0; e < neq; e++) {
    if (unchecked(mateOfRow[e]) >= 0) continue;
    const v = unchecked(partner[e]);
    if (v < 0 || v >= nx || unchecked(mateOfVar[v]) >= 0) continue;
    for (let p = unchecked(colPtr[nx + e]); p < unchecked(colPtr[nx + e + 1]); p++) {
      if (unchecked(rowIdx[p]) != v) continue;
      const a = Math.abs(unchecked(val[p]));
      // a fixed variable's row (one entry) always takes it; others if the entry is significant
      if (a > 0.0 && (unchecked(colPtr[nx + e + 1]) - unchecked(colPtr[nx + e]) <= 2 || a >= SIGNIFICANT * unchecked(rowMax[e]))) {
        unchecked(mateOfRow[e] = v); unchecked(mateOfVar[v] = e);
      }
      break;
    }
  }
}
