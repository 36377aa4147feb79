// The reduced susceptance patterns of one topology, shared by fast-decoupled (B', B'') and DC (Bdc):
// CSC patterns over the non-reference buses (B', Bdc) and the pq buses (B''), each with a map from a Ybus
// entry to its slot (the dump slot nnz for entries that fall outside). Built on first use (Topology.reducedB()).
import { Topology } from './topology';

export class ReducedB {
  /** non-ref × non-ref (B', Bdc) */
  bPtr: StaticArray<i32>;
  bIdx: StaticArray<i32>;
  bMap: StaticArray<i32>;
  nnzB: i32;
  /** pq × pq (B'') */
  qPtr: StaticArray<i32>;
  qIdx: StaticArray<i32>;
  qMap: StaticArray<i32>;
  nnzQ: i32;

  constructor(topo: Topology) {
    const nb = topo.nb;
    const yPtr = topo.yPtr, yIdx = topo.yIdx, yTr = topo.yTr;
    const rIdx = topo.rIdx, qIdx = topo.qIdx;
    let nnzB = 0, nnzQ = 0;
    for (let k = 0; k < nb; k++) {
      const rk = unchecked(rIdx[k]), qk = unchecked(qIdx[k]);
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        if (rk >= 0 && unchecked(rIdx[i]) >= 0) nnzB++;
        if (qk >= 0 && unchecked(qIdx[i]) >= 0) nnzQ++;
      }
    }
    const bPtr = new StaticArray<i32>(topo.nR + 1), bIdx = new StaticArray<i32>(nnzB);
    const qPtr = new StaticArray<i32>(topo.nQ + 1), qI = new StaticArray<i32>(nnzQ);
    const bMap = new StaticArray<i32>(topo.nnzY), qMap = new StaticArray<i32>(topo.nnzY);
    for (let p = 0; p < topo.nnzY; p++) { unchecked(bMap[p] = nnzB); unchecked(qMap[p] = nnzQ); }
    let sb = 0, sq = 0;
    for (let k = 0; k < nb; k++) {
      const rk = unchecked(rIdx[k]), qk = unchecked(qIdx[k]);
      if (rk >= 0) unchecked(bPtr[rk] = sb);
      if (qk >= 0) unchecked(qPtr[qk] = sq);
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        const p = unchecked(yTr[q]);   // entry (i, k)
        const ri = unchecked(rIdx[i]), qi = unchecked(qIdx[i]);
        if (rk >= 0 && ri >= 0) { unchecked(bIdx[sb] = ri); unchecked(bMap[p] = sb); sb++; }
        if (qk >= 0 && qi >= 0) { unchecked(qI[sq] = qi); unchecked(qMap[p] = sq); sq++; }
      }
    }
    unchecked(bPtr[topo.nR] = sb);
    unchecked(qPtr[topo.nQ] = sq);
    this.bPtr = bPtr; this.bIdx = bIdx; this.bMap = bMap; this.nnzB = nnzB;
    this.qPtr = qPtr; this.qIdx = qI; this.qMap = qMap; this.nnzQ = nnzQ;
  }
}
