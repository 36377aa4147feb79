// Connected components of an undirected graph by union-find (path halving), the one
// island search of the code base: network validation (src/domain/networkValidation.ts), the
// what-if check of a change (src/studies/whatIf.ts) and the solver's packing of a
// case into islands (src/powerflow/pack.ts) all ask "which nodes hang together?".

export interface Components {
  /** Component of each node, 0..count-1, numbered in order of each component's lowest node. */
  label: Int32Array;
  count: number;
}

/**
 * Components of nodes 0..n-1 over the edges `forEachEdge` reports through `link(a, b)`.
 * Allocation: two Int32Arrays of n; no per-edge allocation.
 */
export function connectedComponents(n: number, forEachEdge: (link: (a: number, b: number) => void) => void): Components {
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!;
      i = parent[i]!;
    }
    return i;
  };
  forEachEdge((a, b) => {
    const ra = find(a);
    const rb = find(b);
    // The lower index becomes the root: labels below then follow the lowest node of each component.
    if (ra !== rb) parent[ra < rb ? rb : ra] = ra < rb ? ra : rb;
  });
  const label = new Int32Array(n);
  const labelOfRoot = new Int32Array(n).fill(-1);
  let count = 0;
  for (let i = 0; i < n; i++) {
    const r = find(i);
    if (labelOfRoot[r]! < 0) labelOfRoot[r] = count++;
    label[i] = labelOfRoot[r]!;
  }
  return { label, count };
}

/**
 * The bridges of an undirected multigraph: edges whose removal adds a component (Tarjan's
 * low-link, iterative so a 10,000-bus radial chain cannot overflow the stack). Parallel edges
 * are never bridges. Edge e joins from[e] and to[e]; answers the edge indexes, ascending.
 */
export function bridges(n: number, from: ArrayLike<number>, to: ArrayLike<number>): number[] {
  const m = from.length;
  const deg = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) { deg[from[e]! + 1]++; deg[to[e]! + 1]++; }
  for (let i = 0; i < n; i++) deg[i + 1] += deg[i]!;
  const adjNode = new Int32Array(2 * m), adjEdge = new Int32Array(2 * m), fill = deg.slice(0, n);
  for (let e = 0; e < m; e++) {
    const a = from[e]!, b = to[e]!;
    adjNode[fill[a]!] = b; adjEdge[fill[a]!++] = e;
    adjNode[fill[b]!] = a; adjEdge[fill[b]!++] = e;
  }
  const disc = new Int32Array(n).fill(-1), low = new Int32Array(n), parentEdge = new Int32Array(n).fill(-1), next = deg.slice(0, n);
  const stack = new Int32Array(n);
  const out: number[] = [];
  let time = 0;
  for (let root = 0; root < n; root++) {
    if (disc[root] !== -1) continue;
    let top = 0;
    stack[0] = root;
    disc[root] = low[root] = time++;
    while (top >= 0) {
      const v = stack[top]!;
      if (next[v]! < deg[v + 1]!) {
        const k = next[v]!++;
        const w = adjNode[k]!, e = adjEdge[k]!;
        if (e === parentEdge[v]) continue; // the edge we came by (a parallel edge has another index)
        if (disc[w] === -1) {
          parentEdge[w] = e;
          disc[w] = low[w] = time++;
          stack[++top] = w;
        } else if (disc[w]! < low[v]!) low[v] = disc[w]!;
      } else {
        top--;
        if (top >= 0) {
          const u = stack[top]!;
          if (low[v]! < low[u]!) low[u] = low[v]!;
          if (low[v]! > disc[u]!) out.push(parentEdge[v]!);
        }
      }
    }
  }
  return out.sort((a, b) => a - b);
}
