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
