// The symbolic LU analyses this instance has done: each solver's system analyses its pattern once and
// refactors many times; tests read the count to check that reuse (index.ts analysisTotal).
import { BlockLU } from './sparse/blockLU';
import { SparseLU } from './sparse/lu';

let analyses: i32 = 0;
/** Number of symbolic LU analyses done by this instance (tests check reuse). */
export function analysisTotal(): i32 { return analyses; }

/** Analyses lu for the CSC pattern (colPtr, rowIdx) of an n × n matrix, and counts it. */
export function analyze(lu: SparseLU, n: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>): void {
  lu.analyze(n, colPtr, rowIdx);
  analyses++;
}

/** Analyses a 2×2 block LU (sparse/blockLU.ts) for the scalar pattern and its pairing, and counts it. */
export function analyzeBlocks(lu: BlockLU, n: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>,
                              nb: i32, blockOf: StaticArray<i32>, posOf: StaticArray<i32>): void {
  lu.analyze(n, colPtr, rowIdx, nb, blockOf, posOf);
  analyses++;
}

let pivotings: i32 = 0;
/** Pivoting factorisations (Gilbert–Peierls) of Newton Jacobians this instance did (tests: a diverging run's
 *  refactorisations on the adopted pivot sequence, sparse/tolerances.ts ADOPTED_PIVOT_TOL). */
export function pivotingTotal(): i32 { return pivotings; }
export function countPivotings(n: i32): void { pivotings += n; }

/** Counts an analysis done elsewhere (a factorisation's return to its analysed pivot order). */
export function countAnalysis(): void { analyses++; }
