// Approximate minimum degree ordering (Amestoy, Davis & Duff 1996) of the
// pattern of A + Aᵀ, following the quotient-graph formulation of SuiteSparse
// AMD / CSparse cs_amd: eliminated nodes become *elements*; a variable's
// adjacency is a list of elements followed by a list of variables, so fill is
// never stored explicitly. Degrees are approximate (upper bounds from
// |Le \ Lk|), elements covered by the new element are absorbed (also
// "aggressively", when they are not adjacent to the pivot itself),
// indistinguishable variables are merged into supervariables, and the result
// is a postorder of the assembly tree. Runs once per pattern (in analyze), so
// it may allocate.

/** Encodes "absorbed into / child of j" in a pointer slot: flip(flip(j)) = j. */
// @ts-ignore: decorator
@inline function flip(i: i32): i32 { return -i - 2; }

/** Resets the w marks when the counter would overflow. w[i] == 0 means dead. */
function clearMarks(mark: i32, lemax: i32, w: StaticArray<i32>, n: i32): i32 {
  if (mark < 2 || mark + lemax < 0) {
    for (let k = 0; k < n; k++) if (unchecked(w[k]) != 0) unchecked(w[k] = 1);
    mark = 2;
  }
  return mark;
}

/**
 * Fill-reducing symmetric ordering of an n×n CSC pattern (Ap, Ai), computed on
 * A + Aᵀ with the diagonal ignored. Writes perm[k] = the original index that
 * becomes the k-th pivot (perm must have length ≥ n).
 */
export function amdOrder(n: i32, Ap: StaticArray<i32>, Ai: StaticArray<i32>, perm: StaticArray<i32>): void {
  if (n <= 0) return;
  // --- C = pattern of A + Aᵀ without the diagonal, with elbow room ------------
  const nnz = unchecked(Ap[n]);
  const degA = new StaticArray<i32>(n);           // count of Aᵀ entries per column
  for (let p = 0; p < nnz; p++) unchecked(degA[Ai[p]]++);
  const Tp = new StaticArray<i32>(n + 1);
  for (let i = 0; i < n; i++) unchecked(Tp[i + 1] = Tp[i] + degA[i]);
  const Ti = new StaticArray<i32>(max(nnz, 1));
  for (let i = 0; i < n; i++) unchecked(degA[i] = Tp[i]);
  for (let j = 0; j < n; j++) {
    for (let p = unchecked(Ap[j]); p < unchecked(Ap[j + 1]); p++) {
      const i = unchecked(Ai[p]);
      unchecked(Ti[degA[i]++] = j);
    }
  }
  const seen = new StaticArray<i32>(n);
  for (let j = 0; j < n; j++) unchecked(seen[j] = -1);
  const Cp = new StaticArray<i32>(n + 1);
  // First pass: count the union of column j of A and of Aᵀ.
  for (let j = 0; j < n; j++) {
    let c = 0;
    unchecked(seen[j] = j);                       // drops the diagonal
    for (let p = unchecked(Ap[j]); p < unchecked(Ap[j + 1]); p++) {
      const i = unchecked(Ai[p]);
      if (unchecked(seen[i]) != j) { unchecked(seen[i] = j); c++; }
    }
    for (let p = unchecked(Tp[j]); p < unchecked(Tp[j + 1]); p++) {
      const i = unchecked(Ti[p]);
      if (unchecked(seen[i]) != j) { unchecked(seen[i] = j); c++; }
    }
    unchecked(Cp[j + 1] = Cp[j] + c);
  }
  let cnz = unchecked(Cp[n]);
  const nzmax = cnz + cnz / 5 + 2 * n;          // room for new elements before garbage collection
  const Ci = new StaticArray<i32>(nzmax);
  for (let j = 0; j < n; j++) unchecked(seen[j] = -1);
  for (let j = 0; j < n; j++) {
    let q = unchecked(Cp[j]);
    unchecked(seen[j] = j);
    for (let p = unchecked(Ap[j]); p < unchecked(Ap[j + 1]); p++) {
      const i = unchecked(Ai[p]);
      if (unchecked(seen[i]) != j) { unchecked(seen[i] = j); unchecked(Ci[q++] = i); }
    }
    for (let p = unchecked(Tp[j]); p < unchecked(Tp[j + 1]); p++) {
      const i = unchecked(Ti[p]);
      if (unchecked(seen[i]) != j) { unchecked(seen[i] = j); unchecked(Ci[q++] = i); }
    }
  }

  // --- Workspace --------------------------------------------------------------
  // len: length of a node's/element's list in Ci; nv: size of a supervariable
  // (negated while it is in the new element Lk, 0 once absorbed); elen: number
  // of elements in a variable's list (-1 absorbed variable, -2 element);
  // degree: approximate external degree; w: marks (0 = dead element);
  // head/next/last: degree lists, reused as hash buckets (hhead) and tree lists.
  const len = new StaticArray<i32>(n + 1);
  const nv = new StaticArray<i32>(n + 1);
  const next = new StaticArray<i32>(n + 1);
  const head = new StaticArray<i32>(n + 1);
  const elen = new StaticArray<i32>(n + 1);
  const degree = new StaticArray<i32>(n + 1);
  const w = new StaticArray<i32>(n + 1);
  const hhead = new StaticArray<i32>(n + 1);
  const last = new StaticArray<i32>(n + 1);

  let dense = <i32>max(16.0, 10.0 * Math.sqrt(<f64>n)); // rows denser than this are ordered last
  dense = min(n - 2, dense);
  for (let k = 0; k < n; k++) unchecked(len[k] = Cp[k + 1] - Cp[k]);
  unchecked(len[n] = 0);
  for (let i = 0; i <= n; i++) {
    unchecked(head[i] = -1);
    unchecked(last[i] = -1);
    unchecked(next[i] = -1);
    unchecked(hhead[i] = -1);
    unchecked(nv[i] = 1);
    unchecked(w[i] = 1);
    unchecked(elen[i] = 0);
    unchecked(degree[i] = len[i]);
  }
  let lemax = 0;
  let mark = clearMarks(0, 0, w, n);
  unchecked(elen[n] = -2);                        // n is a pseudo-element collecting dense rows
  unchecked(Cp[n] = -1);                          // ... and a root of the assembly tree
  unchecked(w[n] = 0);
  let nel = 0;
  let mindeg = 0;

  for (let i = 0; i < n; i++) {
    const d = unchecked(degree[i]);
    if (d == 0) {                                 // isolated: an element at once
      unchecked(elen[i] = -2);
      nel++;
      unchecked(Cp[i] = -1);
      unchecked(w[i] = 0);
    } else if (d > dense) {                       // dense: absorbed into pseudo-element n
      unchecked(nv[i] = 0);
      unchecked(elen[i] = -1);
      nel++;
      unchecked(Cp[i] = flip(n));
      unchecked(nv[n]++);
    } else {
      if (unchecked(head[d]) != -1) unchecked(last[head[d]] = i);
      unchecked(next[i] = head[d]);
      unchecked(head[d] = i);
    }
  }

  while (nel < n) {
    // --- Pivot: a variable of minimum approximate degree --------------------
    let k = -1;
    for (; mindeg < n; mindeg++) {
      k = unchecked(head[mindeg]);
      if (k != -1) break;
    }
    if (unchecked(next[k]) != -1) unchecked(last[next[k]] = -1);
    unchecked(head[mindeg] = next[k]);
    const elenk = unchecked(elen[k]);
    let nvk = unchecked(nv[k]);
    nel += nvk;

    // --- Garbage collection: compact Ci when the new element may not fit ----
    if (elenk > 0 && cnz + mindeg >= nzmax) {
      for (let j = 0; j < n; j++) {
        const p = unchecked(Cp[j]);
        if (p >= 0) {                             // live node or element: tag its first slot
          unchecked(Cp[j] = Ci[p]);
          unchecked(Ci[p] = flip(j));
        }
      }
      let q = 0;
      for (let p = 0; p < cnz;) {
        const j = flip(unchecked(Ci[p++]));
        if (j >= 0) {
          unchecked(Ci[q] = Cp[j]);
          unchecked(Cp[j] = q++);
          const l = unchecked(len[j]);
          for (let t = 0; t < l - 1; t++) unchecked(Ci[q++] = Ci[p++]);
        }
      }
      cnz = q;
    }

    // --- New element Lk = union of k's variables and its elements' variables --
    let dk = 0;
    unchecked(nv[k] = -nvk);                      // k is in Lk
    let p = unchecked(Cp[k]);
    const pk1 = elenk == 0 ? p : cnz;             // in place when k touches no element
    let pk2 = pk1;
    for (let k1 = 1; k1 <= elenk + 1; k1++) {
      let e: i32, pj: i32, ln: i32;
      if (k1 > elenk) {
        e = k;
        pj = p;
        ln = unchecked(len[k]) - elenk;
      } else {
        e = unchecked(Ci[p++]);
        pj = unchecked(Cp[e]);
        ln = unchecked(len[e]);
      }
      for (let k2 = 1; k2 <= ln; k2++) {
        const i = unchecked(Ci[pj++]);
        const nvi = unchecked(nv[i]);
        if (nvi <= 0) continue;                   // dead or already in Lk
        dk += nvi;
        unchecked(nv[i] = -nvi);
        unchecked(Ci[pk2++] = i);
        // unlink i from its degree list
        if (unchecked(next[i]) != -1) unchecked(last[next[i]] = last[i]);
        if (unchecked(last[i]) != -1) unchecked(next[last[i]] = next[i]);
        else unchecked(head[degree[i]] = next[i]);
      }
      if (e != k) {                               // e is covered by Lk: absorb it
        unchecked(Cp[e] = flip(k));
        unchecked(w[e] = 0);
      }
    }
    if (elenk != 0) cnz = pk2;
    unchecked(degree[k] = dk);
    unchecked(Cp[k] = pk1);
    unchecked(len[k] = pk2 - pk1);
    unchecked(elen[k] = -2);

    // --- w[e] - mark = |Le \ Lk| for every element e adjacent to Lk -----------
    mark = clearMarks(mark, lemax, w, n);
    for (let pk = pk1; pk < pk2; pk++) {
      const i = unchecked(Ci[pk]);
      const eln = unchecked(elen[i]);
      if (eln <= 0) continue;
      const nvi = -unchecked(nv[i]);
      const wnvi = mark - nvi;
      const pe = unchecked(Cp[i]) + eln;
      for (let q = unchecked(Cp[i]); q < pe; q++) {
        const e = unchecked(Ci[q]);
        const we = unchecked(w[e]);
        if (we >= mark) unchecked(w[e] = we - nvi);
        else if (we != 0) unchecked(w[e] = degree[e] + wnvi);
      }
    }

    // --- Approximate degrees of the variables in Lk, pruning their lists ------
    for (let pk = pk1; pk < pk2; pk++) {
      const i = unchecked(Ci[pk]);
      const p1 = unchecked(Cp[i]);
      const p2 = p1 + unchecked(elen[i]) - 1;
      let pn = p1;
      let h: i32 = 0, d: i32 = 0;
      for (let q = p1; q <= p2; q++) {
        const e = unchecked(Ci[q]);
        const we = unchecked(w[e]);
        if (we != 0) {
          const dext = we - mark;
          if (dext > 0) {
            d += dext;
            unchecked(Ci[pn++] = e);
            h += e;
          } else {                                // Le ⊆ Lk: aggressive absorption
            unchecked(Cp[e] = flip(k));
            unchecked(w[e] = 0);
          }
        }
      }
      unchecked(elen[i] = pn - p1 + 1);           // + the new element k
      const p3 = pn;
      const p4 = p1 + unchecked(len[i]);
      for (let q = p2 + 1; q < p4; q++) {
        const j = unchecked(Ci[q]);
        const nvj = unchecked(nv[j]);
        if (nvj <= 0) continue;                   // dead, or in Lk (now reached via k)
        d += nvj;
        unchecked(Ci[pn++] = j);
        h += j;
      }
      if (d == 0) {                               // mass elimination: i only touches Lk
        unchecked(Cp[i] = flip(k));
        const nvi = -unchecked(nv[i]);
        dk -= nvi;
        nvk += nvi;
        nel += nvi;
        unchecked(nv[i] = 0);
        unchecked(elen[i] = -1);
      } else {
        unchecked(degree[i] = min(degree[i], d));
        unchecked(Ci[pn] = Ci[p3]);               // make room for k as the first element
        unchecked(Ci[p3] = Ci[p1]);
        unchecked(Ci[p1] = k);
        unchecked(len[i] = pn - p1 + 1);
        h = (h < 0 ? -h : h) % n;
        unchecked(next[i] = hhead[h]);            // hash bucket for supervariable detection
        unchecked(hhead[h] = i);
        unchecked(last[i] = h);
      }
    }
    unchecked(degree[k] = dk);
    lemax = max(lemax, dk);
    mark = clearMarks(mark + lemax, lemax, w, n);

    // --- Supervariables: merge variables of Lk with identical adjacency -------
    for (let pk = pk1; pk < pk2; pk++) {
      let i = unchecked(Ci[pk]);
      if (unchecked(nv[i]) >= 0) continue;
      const h = unchecked(last[i]);
      i = unchecked(hhead[h]);
      unchecked(hhead[h] = -1);
      for (; i != -1 && unchecked(next[i]) != -1; i = unchecked(next[i]), mark++) {
        const ln = unchecked(len[i]);
        const eln = unchecked(elen[i]);
        const ci = unchecked(Cp[i]);
        for (let q = ci + 1; q <= ci + ln - 1; q++) unchecked(w[Ci[q]] = mark);
        let jlast = i;
        for (let j = unchecked(next[i]); j != -1;) {
          let ok = unchecked(len[j]) == ln && unchecked(elen[j]) == eln;
          const cj = unchecked(Cp[j]);
          for (let q = cj + 1; ok && q <= cj + ln - 1; q++) {
            if (unchecked(w[Ci[q]]) != mark) ok = false;
          }
          if (ok) {                               // j is indistinguishable from i
            unchecked(Cp[j] = flip(i));
            unchecked(nv[i] += nv[j]);
            unchecked(nv[j] = 0);
            unchecked(elen[j] = -1);
            j = unchecked(next[j]);
            unchecked(next[jlast] = j);
          } else {
            jlast = j;
            j = unchecked(next[j]);
          }
        }
      }
    }

    // --- Finalise Lk: external degrees, back into the degree lists -----------
    let pw = pk1;
    for (let pk = pk1; pk < pk2; pk++) {
      const i = unchecked(Ci[pk]);
      const nvi = -unchecked(nv[i]);
      if (nvi <= 0) continue;
      unchecked(nv[i] = nvi);
      let d = unchecked(degree[i]) + dk - nvi;
      d = min(d, n - nel - nvi);
      if (unchecked(head[d]) != -1) unchecked(last[head[d]] = i);
      unchecked(next[i] = head[d]);
      unchecked(last[i] = -1);
      unchecked(head[d] = i);
      mindeg = min(mindeg, d);
      unchecked(degree[i] = d);
      unchecked(Ci[pw++] = i);
    }
    unchecked(nv[k] = nvk);
    unchecked(len[k] = pw - pk1);
    if (pw == pk1) {                              // element with no variables: a root
      unchecked(Cp[k] = -1);
      unchecked(w[k] = 0);
    }
    if (elenk != 0) cnz = pw;
  }

  // --- Postorder the assembly tree (Cp holds flipped parent pointers) ---------
  for (let i = 0; i < n; i++) unchecked(Cp[i] = flip(Cp[i]));
  for (let j = 0; j <= n; j++) unchecked(head[j] = -1);
  for (let j = n; j >= 0; j--) {                  // absorbed variables under their parent
    if (unchecked(nv[j]) > 0) continue;
    const parent = unchecked(Cp[j]);
    unchecked(next[j] = head[parent]);
    unchecked(head[parent] = j);
  }
  for (let e = n; e >= 0; e--) {                  // elements under their parent
    if (unchecked(nv[e]) <= 0) continue;
    const parent = unchecked(Cp[e]);
    if (parent != -1) {
      unchecked(next[e] = head[parent]);
      unchecked(head[parent] = e);
    }
  }
  const post = new StaticArray<i32>(n + 1);
  let k = 0;
  for (let i = 0; i <= n; i++) {
    if (unchecked(Cp[i]) == -1) k = treePostorder(i, k, head, next, post, w);
  }
  for (let t = 0; t < n; t++) unchecked(perm[t] = post[t]);
}

/** Depth-first postorder of the tree rooted at j (children in head/next lists). */
function treePostorder(j: i32, k: i32, head: StaticArray<i32>, next: StaticArray<i32>,
                       post: StaticArray<i32>, stack: StaticArray<i32>): i32 {
  let top = 0;
  unchecked(stack[0] = j);
  while (top >= 0) {
    const p = unchecked(stack[top]);
    const i = unchecked(head[p]);
    if (i == -1) {
      top--;
      unchecked(post[k++] = p);
    } else {
      unchecked(head[p] = next[i]);
      unchecked(stack[++top] = i);
    }
  }
  return k;
}
