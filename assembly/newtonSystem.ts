// Newton-Raphson's linear system on one topology: its LU analysed once from the Jacobian's CSC pattern
// (column Va(k), then Vm(k), rows P_i / Q_i of the buses i of Ybus column k in bus order), and the
// right-hand side. The LU works in 2×2 blocks, one per non-reference bus (its Va/Vm unknowns and P/Q equations:
// sparse/blockLU.ts); the Jacobian is written straight into its block values, one block per Ybus entry
// (jacobian.ts, through blockAt / diagAt). Built on a topology's first Newton solve (Topology.newton()),
// kept with it.
import { BlockLU } from './sparse/blockLU';
import { analyzeBlocks, countAnalysis } from './analysis';
import { Topology, REF } from './topology';

export class NewtonSystem {
  n: i32;
  /** per Ybus entry (i,k) of row k: 0 i is ref, 1 P row only, 2 P and Q rows */
  rows: StaticArray<u8>;
  lu: BlockLU = new BlockLU();
  /** per Ybus entry q (row i, column k of a non-reference bus k): index of its 2×2 block among the LU's
   *  block values (lu.blockValues()), -1 when bus i is the reference (no equation) */
  blockAt: StaticArray<i32>;
  /** per bus k: index of its diagonal block, -1 for the reference */
  diagAt: StaticArray<i32>;
  /** The mismatch / Newton step, in the LU's block-step order (lu.solveSteps()) */
  rhs: StaticArray<f64> = new StaticArray<f64>(0);
  /** per bus: position of its Va unknown (P equation) and Vm unknown (Q equation) in rhs, -1 if none */
  aAt: StaticArray<i32> = new StaticArray<i32>(0);
  mAt: StaticArray<i32> = new StaticArray<i32>(0);

  constructor(topo: Topology) {
    const nb = topo.nb;
    const yPtr = topo.yPtr, yIdx = topo.yIdx;
    const aIdx = topo.aIdx, mIdx = topo.mIdx, type = topo.type;
    const nJ = topo.nJ;
    let nnz = 0;
    for (let k = 0; k < nb; k++) {
      if (unchecked(type[k]) == REF) continue;
      let c = 0;
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        if (unchecked(aIdx[i]) >= 0) c++;
        if (unchecked(mIdx[i]) >= 0) c++;
      }
      nnz += unchecked(mIdx[k]) >= 0 ? 2 * c : c;
    }
    const jPtr = new StaticArray<i32>(nJ + 1);
    const jIdx = new StaticArray<i32>(nnz);
    const jDiag = new StaticArray<i32>(nJ);
    const jRows = new StaticArray<u8>(topo.nnzY);
    for (let q = 0; q < topo.nnzY; q++) {
      const i = unchecked(yIdx[q]);
      unchecked(jRows[q] = <u8>(unchecked(aIdx[i]) < 0 ? 0 : unchecked(mIdx[i]) < 0 ? 1 : 2));
    }
    let s = 0;
    for (let k = 0; k < nb; k++) {
      const ak = unchecked(aIdx[k]);
      if (ak < 0) continue;
      // column Va(k): rows P_i, Q_i for i in column k of Ybus (= row k's pattern)
      unchecked(jPtr[ak] = s);
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        const ai = unchecked(aIdx[i]), mi = unchecked(mIdx[i]);
        if (i == k) unchecked(jDiag[ak] = s);
        if (ai >= 0) unchecked(jIdx[s++] = ai);
        if (mi >= 0) unchecked(jIdx[s++] = mi);
      }
      const mk = unchecked(mIdx[k]);
      if (mk >= 0) {
        unchecked(jPtr[mk] = s);
        for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
          const i = unchecked(yIdx[q]);
          const ai = unchecked(aIdx[i]), mi = unchecked(mIdx[i]);
          if (i == k) unchecked(jDiag[mk] = s);
          if (ai >= 0) unchecked(jIdx[s++] = ai);
          if (mi >= 0) unchecked(jIdx[s++] = mi);
        }
      }
    }
    unchecked(jPtr[nJ] = s);
    this.n = nJ;
    this.rows = jRows;
    this.blockAt = new StaticArray<i32>(topo.nnzY);
    this.diagAt = new StaticArray<i32>(nb);
    if (nJ > 0) {
      // block of each unknown: the non-reference buses in bus order; position 0 Va / P, 1 Vm / Q
      const blockOf = new StaticArray<i32>(nJ), posOf = new StaticArray<i32>(nJ);
      let nbk = 0;
      for (let k = 0; k < nb; k++) {
        const ak = unchecked(aIdx[k]);
        if (ak < 0) continue;
        unchecked(blockOf[ak] = nbk);
        const mk = unchecked(mIdx[k]);
        if (mk >= 0) { unchecked(blockOf[mk] = nbk); unchecked(posOf[mk] = 1); }
        nbk++;
      }
      analyzeBlocks(this.lu, nJ, jPtr, jIdx, nbk, blockOf, posOf);
    }
    this.rhs = new StaticArray<f64>(this.lu.stepLength());
    this.aAt = new StaticArray<i32>(nb);
    this.mAt = new StaticArray<i32>(nb);
    for (let k = 0; k < nb; k++) {
      const ak = unchecked(aIdx[k]), mk = unchecked(mIdx[k]);
      unchecked(this.aAt[k] = ak < 0 ? -1 : this.lu.stepPosition(ak));
      unchecked(this.mAt[k] = mk < 0 ? -1 : this.lu.stepPosition(mk));
      // the block of each Ybus entry: where its P_i row sits in column Va(k) (block position 0,0)
      unchecked(this.diagAt[k] = ak < 0 ? -1 : this.lu.entrySlot(jDiag[ak]));
      let sA = ak < 0 ? 0 : unchecked(jPtr[ak]);
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const code = unchecked(jRows[q]);
        if (ak < 0 || code == 0) { unchecked(this.blockAt[q] = -1); continue; }
        unchecked(this.blockAt[q] = this.lu.entrySlot(sA));
        sA += code;
      }
    }
  }

  /** Back to the analysed pivot order if a factorisation fell back to pivoting since the analysis
   *  (the fallback's order stays for later solves: the last digits of a result would then depend on
   *  what this topology solved before). Studies call it before every case; a no-op otherwise. */
  resetPivoting(): void {
    if (this.n > 0 && this.lu.fallbacks > 0 && this.lu.reset()) countAnalysis();
  }
}
