// Test-only entry (build/sparse.wasm): lets JavaScript drive SparseLU and BlockLU.
// JS writes the CSC pattern / values / right-hand side (and, for BlockLU, the pairing of unknowns)
// straight into the buffers below (their data pointers are exported) and then calls the
// *FromBuffers functions. Views must be re-created after any call that may
// grow memory (allocBuffers, allocBlockBuffers, analyze*FromBuffers).
import { BlockLU } from './blockLU';
import { SparseLU } from './lu';

let lu = new SparseLU();
let blocks: BlockLU | null = null;
let colPtr = new StaticArray<i32>(1);
let rowIdx = new StaticArray<i32>(0);
let values = new StaticArray<f64>(0);
let rhs = new StaticArray<f64>(0);
let blockOf = new StaticArray<i32>(0);
let posOf = new StaticArray<i32>(0);

/** Allocates the exchange buffers for an n×n matrix with nnz entries. */
export function allocBuffers(n: i32, nnz: i32): void {
  colPtr = new StaticArray<i32>(n + 1);
  rowIdx = new StaticArray<i32>(nnz);
  values = new StaticArray<f64>(nnz);
  rhs = new StaticArray<f64>(n);
}

/** Allocates the pairing buffers (block and position of each of n unknowns) for BlockLU. */
export function allocBlockBuffers(n: i32): void {
  blockOf = new StaticArray<i32>(n);
  posOf = new StaticArray<i32>(n);
}

export function colPtrPtr(): usize { return changetype<usize>(colPtr); }
export function rowIdxPtr(): usize { return changetype<usize>(rowIdx); }
export function valuesPtr(): usize { return changetype<usize>(values); }
export function rhsPtr(): usize { return changetype<usize>(rhs); }
export function blockOfPtr(): usize { return changetype<usize>(blockOf); }
export function posOfPtr(): usize { return changetype<usize>(posOf); }

/** Symbolic analysis of the pattern in colPtr/rowIdx (a fresh SparseLU; BlockLU off). */
export function analyzeFromBuffers(n: i32): void {
  lu = new SparseLU();
  blocks = null;
  lu.analyze(n, colPtr, rowIdx);
}

/** Symbolic analysis in 2×2 blocks (a fresh BlockLU, used until the next analyze*): the pattern in
 *  colPtr/rowIdx, the pairing in blockOf/posOf, nb blocks. */
export function analyzeBlocksFromBuffers(n: i32, nb: i32): void {
  const b = new BlockLU();
  b.analyze(n, colPtr, rowIdx, nb, blockOf, posOf);
  blocks = b;
}

/** Numeric factorisation of the values buffer; 1 on success, 0 if singular. */
export function factorFromBuffers(): i32 {
  const b = blocks;
  if (b !== null) return b.factor(values) ? 1 : 0;
  return lu.factor(values) ? 1 : 0;
}

/** Solves in place: rhs becomes x. */
export function solveFromBuffers(): void {
  const b = blocks;
  if (b !== null) b.solve(rhs); else lu.solve(rhs);
}

export function isSingular(): i32 {
  const b = blocks;
  return (b !== null ? b.singular : lu.singular) ? 1 : 0;
}

/** Nonzeros in L (unit diagonal included) and U of the current factors. */
export function nnzL(): i32 { const b = blocks; return b !== null ? b.nnzL() : lu.nnzL(); }
export function nnzU(): i32 { const b = blocks; return b !== null ? b.nnzU() : lu.nnzU(); }
/** How many factor() calls needed the pivoting fallback since analyze. */
export function fallbacks(): i32 { const b = blocks; return b !== null ? b.fallbacks : lu.fallbacks; }
/** BlockLU: pivoting fallbacks of its scalar LU since it was analysed (or reset), -1 if it has none. */
export function scalarFallbacks(): i32 { const b = blocks; return b !== null ? b.scalarFallbacks() : -1; }
/** BlockLU: solves through solveSteps() (rhs moved into block-step order and back): rhs becomes x. */
export function solveStepsFromBuffers(): void {
  const b = blocks;
  if (b === null) return;
  const n = rhs.length;
  const y = new StaticArray<f64>(b.stepLength());
  for (let v = 0; v < n; v++) y[b.stepPosition(v)] = rhs[v];
  b.solveSteps(y);
  for (let v = 0; v < n; v++) rhs[v] = y[b.stepPosition(v)];
}
/** BlockLU: back to the analysed state (the scalar fallback forgets an adopted pivot order). */
export function resetFromBuffers(): void { const b = blocks; if (b !== null) b.reset(); }
/** Multiply-adds of one numeric factorisation (a cost measure for the ordering). */
export function flops(): f64 { return lu.flops(); }
/** Benchmark switch: supernodal panel updates on (1, default) or off (0). */
export function setSupernodes(on: i32): void { lu.setSupernodes(on != 0); }
