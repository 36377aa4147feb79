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
