// Test matrices, a dense LU reference in plain JS, and a driver for build/sparse.wasm (SparseLU and
// BlockLU): shared by the sparse LU tests.
import assert from 'node:assert/strict';
import type { Csc, Pairing } from '../../bench/sparse-lu.js';
import { rng } from '../../src/lib/rng.js';
import { sparseLuInstance } from '../../src/engine/wasm.js';

// ---------------------------------------------------------------- wasm driver

const newInstance = sparseLuInstance;

export class WasmLU {
  private x = newInstance();
  private n = 0;
  private nnz = 0;
  /** Analyses a's pattern: with a pairing, for BlockLU (2×2 blocks), else for SparseLU. */
  analyze(a: Csc, pairing?: Pairing): void {
    this.n = a.n;
    this.nnz = a.colPtr[a.n];
    this.x.allocBuffers(a.n, this.nnz);
    if (pairing) this.x.allocBlockBuffers(a.n);
    new Int32Array(this.x.memory.buffer, this.x.colPtrPtr(), a.n + 1).set(a.colPtr);
    new Int32Array(this.x.memory.buffer, this.x.rowIdxPtr(), this.nnz).set(a.rowIdx);
    if (pairing) {
      new Int32Array(this.x.memory.buffer, this.x.blockOfPtr(), a.n).set(pairing.blockOf);
      new Int32Array(this.x.memory.buffer, this.x.posOfPtr(), a.n).set(pairing.posOf);
      this.x.analyzeBlocksFromBuffers(a.n, pairing.nb);
    } else {
      this.x.analyzeFromBuffers(a.n);
    }
  }
  get order(): number { return this.n; }
  factor(values: Float64Array): boolean {
    new Float64Array(this.x.memory.buffer, this.x.valuesPtr(), this.nnz).set(values);
    return this.x.factorFromBuffers() === 1;
  }
  get singular(): boolean { return this.x.isSingular() === 1; }
  /** Stored entries of L + U, the diagonal counted once. */
  get fill(): number { return this.x.nnzL() + this.x.nnzU() - this.n; }
  /** factor() calls that needed the pivoting fallback since analyze. */
  get fallbacks(): number { return this.x.fallbacks(); }
  /** BlockLU: pivoting fallbacks inside its scalar LU since analysed or reset (-1: never needed). */
  get scalarFallbacks(): number { return this.x.scalarFallbacks(); }
  /** BlockLU: forget a pivot order the scalar fallback adopted. */
  reset(): void { this.x.resetFromBuffers(); }
  /** Solves; BlockLU through its step-ordered solveSteps() when `steps`. */
  solve(b: Float64Array, steps = false): Float64Array {
    const view = new Float64Array(this.x.memory.buffer, this.x.rhsPtr(), this.n);
    view.set(b);
    if (steps) this.x.solveStepsFromBuffers(); else this.x.solveFromBuffers();
    return Float64Array.from(new Float64Array(this.x.memory.buffer, this.x.rhsPtr(), this.n));
  }
}

// ---------------------------------------------------------------- test matrices

/** Builds CSC from a list of (row, col, value) triplets; duplicates are summed. */
export function fromTriplets(n: number, rows: number[], cols: number[], vals: number[]): Csc {
  const maps: Map<number, number>[] = Array.from({ length: n }, () => new Map());
  for (let k = 0; k < rows.length; k++) {
    const m = maps[cols[k]];
    m.set(rows[k], (m.get(rows[k]) ?? 0) + vals[k]);
  }
  const colPtr = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) colPtr[j + 1] = colPtr[j] + maps[j].size;
  const rowIdx = new Int32Array(colPtr[n]);
  const values = new Float64Array(colPtr[n]);
  for (let j = 0; j < n; j++) {
    const entries = [...maps[j].entries()].sort((a, b) => a[0] - b[0]);
    entries.forEach(([r, v], t) => { rowIdx[colPtr[j] + t] = r; values[colPtr[j] + t] = v; });
  }
  return { n, colPtr, rowIdx, values };
}

export interface GenOptions {
  /** Average off-diagonal entries per column (before symmetrisation). */
  degree: number;
  /** Fraction of off-diagonal entries whose transpose is dropped. */
  unsymmetric: number;
  /** Diagonal dominant (|a_ii| > Σ|a_ij|) or random diagonal (may be tiny). */
  dominant: boolean;
}

/** Grid-like pattern: a ring of buses plus random "lines" to nearby buses and a
 *  few long ones, mirrored (structurally symmetric) unless asked otherwise. */
export function randomMatrix(n: number, seed: number, o: GenOptions): Csc {
  const r = rng(seed);
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const offSum = new Float64Array(n);
  const add = (i: number, j: number, v: number) => {
    rows.push(i); cols.push(j); vals.push(v);
    if (i !== j) offSum[i] += Math.abs(v);
  };
  const edges = Math.max(1, Math.round((n * o.degree) / 2));
  for (let e = 0; e < edges; e++) {
    const i = e < n ? e : Math.floor(r() * n);
    const span = r() < 0.9 ? 1 + Math.floor(r() * 20) : Math.floor(r() * n);
    const j = (i + span) % n;
    if (i === j) continue;
    add(i, j, r() * 2 - 1);
    if (r() >= o.unsymmetric) add(j, i, r() * 2 - 1);
  }
  for (let i = 0; i < n; i++) add(i, i, o.dominant ? offSum[i] + 0.5 + r() : r() * 2 - 1);
  return fromTriplets(n, rows, cols, vals);
}

export function withValues(a: Csc, values: Float64Array): Csc { return { ...a, values }; }

// ---------------------------------------------------------------- dense reference

export function toDense(a: Csc): Float64Array {
  const n = a.n, d = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) d[a.rowIdx[p] * n + j] += a.values[p];
  return d;
}

/** Dense LU with partial pivoting (row-major); null when a pivot is exactly 0. */
export function denseSolve(a: Csc, b: Float64Array): Float64Array | null {
  const n = a.n, m = toDense(a), x = Float64Array.from(b);
  for (let k = 0; k < n; k++) {
    let piv = k, best = Math.abs(m[k * n + k]);
    for (let i = k + 1; i < n; i++) { const t = Math.abs(m[i * n + k]); if (t > best) { best = t; piv = i; } }
    if (best === 0) return null;
    if (piv !== k) {
      for (let j = 0; j < n; j++) { const t = m[k * n + j]; m[k * n + j] = m[piv * n + j]; m[piv * n + j] = t; }
      const t = x[k]; x[k] = x[piv]; x[piv] = t;
    }
    const d = m[k * n + k];
    for (let i = k + 1; i < n; i++) {
      const f = m[i * n + k] / d;
      if (f === 0) continue;
      m[i * n + k] = f;
      const ri = i * n, rk = k * n;
      for (let j = k + 1; j < n; j++) m[ri + j] -= f * m[rk + j];
      x[i] -= f * x[k];
    }
  }
  for (let k = n - 1; k >= 0; k--) {
    let s = x[k];
    for (let j = k + 1; j < n; j++) s -= m[k * n + j] * x[j];
    x[k] = s / m[k * n + k];
  }
  return x;
}

export function residualInf(a: Csc, x: Float64Array, b: Float64Array): number {
  const r = Float64Array.from(b);
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) r[a.rowIdx[p]] -= a.values[p] * x[j];
  return maxAbs(r);
}

export function normInf(a: Csc): number {
  const rowSum = new Float64Array(a.n);
  for (let p = 0; p < a.rowIdx.length; p++) rowSum[a.rowIdx[p]] += Math.abs(a.values[p]);
  return maxAbs(rowSum);
}

export function maxAbs(v: Float64Array): number { let m = 0; for (const t of v) m = Math.max(m, Math.abs(t)); return m; }

export function randomVector(n: number, seed: number): Float64Array {
  const r = rng(seed), v = new Float64Array(n);
  for (let i = 0; i < n; i++) v[i] = r() * 2 - 1;
  return v;
}

/** Factors and solves with SparseLU and checks the residual ‖Ax − b‖∞ only. */
export function checkResidual(lu: WasmLU, a: Csc, seed: number, label: string): void {
  assert.equal(lu.factor(a.values), true, `${label}: factor reported singular`);
  const b = randomVector(a.n, seed);
  const x = lu.solve(b);
  const res = residualInf(a, x, b);
  assert.ok(res <= 1e-12 * (normInf(a) * maxAbs(x) + maxAbs(b)), `${label}: residual ${res}`);
}

/** Factors and solves with SparseLU and checks residual and agreement with the dense solve. */
export function checkSolve(lu: WasmLU, a: Csc, seed: number, label: string): void {
  assert.equal(lu.factor(a.values), true, `${label}: factor reported singular`);
  assert.equal(lu.singular, false);
  const b = randomVector(a.n, seed);
  const x = lu.solve(b);
  for (const t of x) assert.ok(Number.isFinite(t), `${label}: non-finite solution entry`);
  const res = residualInf(a, x, b);
  const scale = normInf(a) * maxAbs(x) + maxAbs(b);
  assert.ok(res <= 1e-12 * scale, `${label}: residual ${res} vs scale ${scale}`);
  const ref = denseSolve(a, b);
  assert.ok(ref !== null, `${label}: dense reference found the matrix singular`);
  const diff = maxAbs(x.map((t, i) => t - ref[i]));
  assert.ok(diff <= 1e-8 * maxAbs(ref), `${label}: |x - x_dense| = ${diff}, |x_dense| = ${maxAbs(ref)}`);
}

/** The same matrix with its rows permuted by perm (row i goes to perm[i]). */
export function permuteRows(a: Csc, perm: Int32Array): Csc {
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) { rows.push(perm[a.rowIdx[p]]); cols.push(j); vals.push(a.values[p]); }
  return fromTriplets(a.n, rows, cols, vals);
}

export function randomPermutation(n: number, seed: number): Int32Array {
  const r = rng(seed), p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); const t = p[i]; p[i] = p[j]; p[j] = t; }
  return p;
}

export function expectSingular(lu: WasmLU, values: Float64Array, label: string): void {
  assert.equal(lu.factor(values), false, `${label}: factor should report singular`);
  assert.equal(lu.singular, true, `${label}: singular flag`);
  const x = lu.solve(new Float64Array(values.length > 0 ? lu.order : 0).fill(1));
  assert.ok(x.every((t) => Number.isNaN(t)), `${label}: solve after a failed factor must give NaN, not an answer`);
}

/** Factors a three times, its values perturbed by 0, 1 and 2 % (a Newton iteration's refactorisations on one
 *  pattern) and checks each solve's residual; `after(it)` runs after each. */
export function checkRefactorisations(lu: WasmLU, a: Csc, after?: (it: number) => void): void {
  for (let it = 0; it < 3; it++) {
    const v = a.values.map((t, p) => t * (1 + 0.01 * it * Math.sin(p)));
    const m = withValues(a, v);
    assert.equal(lu.factor(v), true);
    const b = randomVector(a.n, it);
    const x = lu.solve(b);
    const res = residualInf(m, x, b);
    assert.ok(res <= 1e-10 * (normInf(m) * maxAbs(x) + maxAbs(b)), `iteration ${it}: residual ${res}`);
    after?.(it);
  }
}
