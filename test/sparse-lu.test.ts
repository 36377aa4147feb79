// SparseLU (assembly/sparse, compiled to build/sparse.wasm by `npm run build`)
// against a dense LU with partial pivoting written here in plain JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';

// ---------------------------------------------------------------- wasm driver

// lib ES2023 + @types/node do not declare the WebAssembly namespace: type what we use.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

interface SparseExports {
  memory: { buffer: ArrayBuffer };
  allocBuffers(n: number, nnz: number): void;
  colPtrPtr(): number;
  rowIdxPtr(): number;
  valuesPtr(): number;
  rhsPtr(): number;
  analyzeFromBuffers(n: number): void;
  factorFromBuffers(): number;
  solveFromBuffers(): void;
  isSingular(): number;
}

const wasmModule = new WA.Module(readFileSync(join(ROOT, 'build', 'sparse.wasm')));

function newInstance(): SparseExports {
  const inst = new WA.Instance(wasmModule, {
    env: { abort: (_m: number, _f: number, line: number, col: number) => { throw new Error(`wasm abort at ${line}:${col}`); } },
  });
  return inst.exports as unknown as SparseExports;
}

/** Compressed sparse column matrix, row indices ascending within each column. */
interface Csc { n: number; colPtr: Int32Array; rowIdx: Int32Array; values: Float64Array }

class WasmLU {
  private x = newInstance();
  private n = 0;
  private nnz = 0;
  analyze(a: Csc): void {
    this.n = a.n;
    this.nnz = a.colPtr[a.n];
    this.x.allocBuffers(a.n, this.nnz);
    new Int32Array(this.x.memory.buffer, this.x.colPtrPtr(), a.n + 1).set(a.colPtr);
    new Int32Array(this.x.memory.buffer, this.x.rowIdxPtr(), this.nnz).set(a.rowIdx);
    this.x.analyzeFromBuffers(a.n);
  }
  factor(values: Float64Array): boolean {
    new Float64Array(this.x.memory.buffer, this.x.valuesPtr(), this.nnz).set(values);
    return this.x.factorFromBuffers() === 1;
  }
  get singular(): boolean { return this.x.isSingular() === 1; }
  solve(b: Float64Array): Float64Array {
    const view = new Float64Array(this.x.memory.buffer, this.x.rhsPtr(), this.n);
    view.set(b);
    this.x.solveFromBuffers();
    return Float64Array.from(new Float64Array(this.x.memory.buffer, this.x.rhsPtr(), this.n));
  }
}

// ---------------------------------------------------------------- test matrices

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Builds CSC from a list of (row, col, value) triplets; duplicates are summed. */
function fromTriplets(n: number, rows: number[], cols: number[], vals: number[]): Csc {
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

interface GenOptions {
  /** Average off-diagonal entries per column (before symmetrisation). */
  degree: number;
  /** Fraction of off-diagonal entries whose transpose is dropped. */
  unsymmetric: number;
  /** Diagonal dominant (|a_ii| > Σ|a_ij|) or random diagonal (may be tiny). */
  dominant: boolean;
}

/** Grid-like pattern: a ring of buses plus random "lines" to nearby buses and a
 *  few long ones, mirrored (structurally symmetric) unless asked otherwise. */
function randomMatrix(n: number, seed: number, o: GenOptions): Csc {
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

function withValues(a: Csc, values: Float64Array): Csc { return { ...a, values }; }

// ---------------------------------------------------------------- dense reference

function toDense(a: Csc): Float64Array {
  const n = a.n, d = new Float64Array(n * n);
  for (let j = 0; j < n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) d[a.rowIdx[p] * n + j] += a.values[p];
  return d;
}

/** Dense LU with partial pivoting (row-major); null when a pivot is exactly 0. */
function denseSolve(a: Csc, b: Float64Array): Float64Array | null {
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

function residualInf(a: Csc, x: Float64Array, b: Float64Array): number {
  const r = Float64Array.from(b);
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) r[a.rowIdx[p]] -= a.values[p] * x[j];
  return maxAbs(r);
}

function normInf(a: Csc): number {
  const rowSum = new Float64Array(a.n);
  for (let p = 0; p < a.rowIdx.length; p++) rowSum[a.rowIdx[p]] += Math.abs(a.values[p]);
  return maxAbs(rowSum);
}

function maxAbs(v: Float64Array): number { let m = 0; for (const t of v) m = Math.max(m, Math.abs(t)); return m; }

function randomVector(n: number, seed: number): Float64Array {
  const r = rng(seed), v = new Float64Array(n);
  for (let i = 0; i < n; i++) v[i] = r() * 2 - 1;
  return v;
}

/** Factors and solves with SparseLU and checks residual and agreement with the dense solve. */
function checkSolve(lu: WasmLU, a: Csc, seed: number, label: string): void {
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

// ---------------------------------------------------------------- tests

const sizes = [5, 17, 60, 250, 1000];

test('structurally symmetric, diagonally dominant: matches dense LU', () => {
  for (const n of sizes) {
    const a = randomMatrix(n, 1000 + n, { degree: 3, unsymmetric: 0, dominant: true });
    const lu = new WasmLU();
    lu.analyze(a);
    checkSolve(lu, a, n, `n=${n}`);
  }
});

test('structurally unsymmetric, not diagonally dominant: matches dense LU', () => {
  for (const n of sizes) {
    const a = randomMatrix(n, 2000 + n, { degree: 4, unsymmetric: 0.3, dominant: false });
    const lu = new WasmLU();
    lu.analyze(a);
    checkSolve(lu, a, n + 1, `n=${n}`);
  }
});

test('refactor with new values on the same pattern, no re-analysis (Newton style)', () => {
  const n = 400;
  const a = randomMatrix(n, 77, { degree: 3, unsymmetric: 0.1, dominant: true });
  const lu = new WasmLU();
  lu.analyze(a);
  const r = rng(5);
  for (let it = 0; it < 6; it++) {
    const v = a.values.map((t) => t * (0.5 + r()));
    // keep dominance on the diagonal for some iterations, drop it for others
    const m = withValues(a, v);
    checkSolve(lu, m, 100 + it, `iteration ${it}`);
  }
});

test('zero column is reported singular', () => {
  const a = randomMatrix(50, 9, { degree: 3, unsymmetric: 0, dominant: true });
  const v = Float64Array.from(a.values);
  for (let p = a.colPtr[7]; p < a.colPtr[8]; p++) v[p] = 0;
  const lu = new WasmLU();
  lu.analyze(a);
  assert.equal(lu.factor(v), false);
  assert.equal(lu.singular, true);
  // a good matrix on the same pattern factors again afterwards
  checkSolve(lu, a, 3, 'after singular');
});

test('two equal rows are reported singular', () => {
  const n = 6;
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const r = rng(4);
  const dense: number[][] = Array.from({ length: n }, () => Array.from({ length: n }, () => (r() < 0.6 ? r() * 2 - 1 : 0)));
  for (let i = 0; i < n; i++) dense[i][i] = 3 + r();
  dense[4] = dense[1].slice();
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (dense[i][j] !== 0) { rows.push(i); cols.push(j); vals.push(dense[i][j]); }
  const a = fromTriplets(n, rows, cols, vals);
  const lu = new WasmLU();
  lu.analyze(a);
  assert.equal(lu.factor(a.values), false);
  assert.equal(lu.singular, true);
});

test('structurally singular pattern is reported singular', () => {
  // rows 0 and 1 only have entries in column 0: no matching covers both
  const a = fromTriplets(4, [0, 1, 2, 2, 3, 2, 3], [0, 0, 1, 2, 2, 3, 3], [1, 2, 1, 1, 2, 3, 1]);
  const lu = new WasmLU();
  lu.analyze(a);
  assert.equal(lu.factor(a.values), false);
  assert.equal(lu.singular, true);
});
