// Connectivity of one outage case: union-find over the in-service branches that
// are not out (path halving, union by smaller root), then the buses whose
// component holds no reference bus. O(nl α) per case, no allocation: the parent
// and mark arrays are sized once per study.
import { REF } from './topology';

/** Components of the graph (nb buses, branches f/t without those with out[l] != 0)
 *  into parent (root per bus after the call); returns the component count. */
export function components(nb: i32, nl: i32, f: StaticArray<i32>, t: StaticArray<i32>, out: StaticArray<u8>, parent: StaticArray<i32>): i32 {
  for (let i = 0; i < nb; i++) unchecked(parent[i] = i);
  let n = nb;
  for (let l = 0; l < nl; l++) {
    if (unchecked(out[l]) != 0) continue;
    const a = root(parent, unchecked(f[l])), b = root(parent, unchecked(t[l]));
    if (a == b) continue;
    if (a < b) unchecked(parent[b] = a); else unchecked(parent[a] = b);
    n--;
  }
  for (let i = 0; i < nb; i++) unchecked(parent[i] = root(parent, i));
  return n;
}

// @ts-ignore: decorator
@inline
function root(parent: StaticArray<i32>, i: i32): i32 {
  while (unchecked(parent[i]) != i) {
    const g = unchecked(parent[unchecked(parent[i])]);
    unchecked(parent[i] = g);
    i = g;
  }
  return i;
}

/** Marks (mark[i] = 1) the buses whose component has no reference bus; returns their count. */
export function cutOff(nb: i32, type: StaticArray<i32>, parent: StaticArray<i32>, mark: StaticArray<u8>): i32 {
  for (let i = 0; i < nb; i++) unchecked(mark[i] = 1);
  for (let i = 0; i < nb; i++) if (unchecked(type[i]) == REF) unchecked(mark[unchecked(parent[i])] = 0);
  let n = 0;
  for (let i = 0; i < nb; i++) {
    const m = unchecked(mark[unchecked(parent[i])]);
    if (m != 0) n++;
  }
  // second pass: a bus is cut off when its root is marked (roots themselves included)
  for (let i = 0; i < nb; i++) unchecked(parent[i] = unchecked(mark[unchecked(parent[i])]));
  for (let i = 0; i < nb; i++) unchecked(mark[i] = <u8>unchecked(parent[i]));
  return n;
}

/** Branches whose outage alone splits their component (bridges of the multigraph of nb buses and branches f/t):
 *  bridge[l] = 1, else 0. Tarjan's low-link, iteratively (no recursion depth on long radial feeders); a parallel
 *  branch is never a bridge since the walk skips only the branch it arrived by, not every branch to the parent.
 *  A study finds them once per topology: a single-branch outage that is not a bridge needs no connectivity search. */
export function findBridges(nb: i32, nl: i32, f: StaticArray<i32>, t: StaticArray<i32>, bridge: StaticArray<u8>): void {
  // adjacency (CSR) of both ends; entry e of bus i: the branch l = adj[e] >> 1, the other end by its low bit
  const start = new StaticArray<i32>(nb + 1), adj = new StaticArray<i32>(2 * nl);
  for (let l = 0; l < nl; l++) { unchecked(start[f[l] + 1]++); unchecked(start[t[l] + 1]++); unchecked(bridge[l] = 0); }
  for (let i = 0; i < nb; i++) unchecked(start[i + 1] += start[i]);
  const fill = new StaticArray<i32>(nb);
  for (let i = 0; i < nb; i++) unchecked(fill[i] = start[i]);
  for (let l = 0; l < nl; l++) { unchecked(adj[fill[f[l]]++] = l << 1); unchecked(adj[fill[t[l]]++] = (l << 1) | 1); }
  const disc = new StaticArray<i32>(nb), low = new StaticArray<i32>(nb);
  const stack = new StaticArray<i32>(nb), via = new StaticArray<i32>(nb); // via: the branch a bus was reached by
  for (let i = 0; i < nb; i++) unchecked(disc[i] = -1);
  let time = 0;
  for (let r = 0; r < nb; r++) {
    if (unchecked(disc[r]) >= 0) continue;
    let top = 0;
    unchecked(stack[0] = r); unchecked(via[r] = -1);
    unchecked(disc[r] = time); unchecked(low[r] = time); time++;
    unchecked(fill[r] = start[r]); // next adjacency entry to walk
    while (top >= 0) {
      const u = unchecked(stack[top]);
      const e = unchecked(fill[u]);
      if (e < unchecked(start[u + 1])) {
        unchecked(fill[u] = e + 1);
        const a = unchecked(adj[e]), l = a >> 1;
        if (l == unchecked(via[u])) continue;
        const w = (a & 1) != 0 ? unchecked(f[l]) : unchecked(t[l]);
        if (unchecked(disc[w]) < 0) {
          unchecked(disc[w] = time); unchecked(low[w] = time); time++;
          unchecked(via[w] = l); unchecked(fill[w] = start[w]);
          unchecked(stack[++top] = w);
        } else if (unchecked(disc[w]) < unchecked(low[u])) unchecked(low[u] = disc[w]);
      } else {
        top--;
        const l = unchecked(via[u]);
        if (l < 0) continue;
        const p = unchecked(f[l]) == u ? unchecked(t[l]) : unchecked(f[l]);
        if (unchecked(low[u]) < unchecked(low[p])) unchecked(low[p] = low[u]);
        if (unchecked(low[u]) > unchecked(disc[p])) unchecked(bridge[l] = 1);
      }
    }
  }
}
