// Test-only entry (build/sparse.wasm): lets JavaScript drive SparseLU.
// JS writes the CSC pattern / values / right-hand side straight into the
// buffers below (their data pointers are exported) and then calls the
// *FromBuffers functions. Views must be re-created after any call that may
// grow memory (allocBuffers, analyzeFromBuffers).
import { SparseLU } from './lu';

let lu = new SparseLU();
let colPtr = new StaticArray<i32>(1);
let rowIdx = new StaticArray<i32>(0);
let values = new StaticArray<f64>(0);
let rhs = new StaticArray<f64>(0);

/** Allocates the exchange buffers for an n×n matrix with nnz entries. */
export function allocBuffers(n: i32, nnz: i32): void {
  colPtr = new StaticArray<i32>(n + 1);
  rowIdx = new StaticArray<i32>(nnz);
  values = new StaticArray<f64>(nnz);
  rhs = new StaticArray<f64>(n);
}

export function colPtrPtr(): usize { return changetype<usize>(colPtr); }
export function rowIdxPtr(): usize { return changetype<usize>(rowIdx); }
export function valuesPtr(): usize { return changetype<usize>(values); }
export function rhsPtr(): usize { return changetype<usize>(rhs); }

/** Symbolic analysis of the pattern in colPtr/rowIdx (a fresh SparseLU). */
export function analyzeFromBuffers(n: i32): void {
  lu = new SparseLU();
  lu.analyze(n, colPtr, rowIdx);
}

/** Numeric factorisation of the values buffer; 1 on success, 0 if singular. */
export function factorFromBuffers(): i32 {
  return lu.factor(values) ? 1 : 0;
}

/** Solves in place: rhs becomes x. */
export function solveFromBuffers(): void {
  lu.solve(rhs);
}

export function isSingular(): i32 { return lu.singular ? 1 : 0; }

/** Nonzeros in L (unit diagonal included) and U of the current factors. */
export function nnzL(): i32 { return lu.nnzL(); }
export function nnzU(): i32 { return lu.nnzU(); }
/** How many factor() calls needed the pivoting fallback since analyze. */
export function fallbacks(): i32 { return lu.fallbacks; }
/** Multiply-adds of one numeric factorisation (a cost measure for the ordering). */
export function flops(): f64 { return lu.flops(); }
/** Benchmark switch: supernodal panel updates on (1, default) or off (0). */
export function setSupernodes(on: i32): void { lu.setSupernodes(on != 0); }
