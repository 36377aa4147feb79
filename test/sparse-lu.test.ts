// SparseLU (assembly/sparse, compiled to build/sparse.wasm by `npm run build`)
// against a dense LU with partial pivoting written here in plain JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { matpowerJacobian, type Csc } from '../bench/sparse-lu.js';
import { rng } from '../src/lib/rng.js';
import { sparseLuInstance } from '../src/engine/wasm.js';

// ---------------------------------------------------------------- wasm driver

const newInstance = sparseLuInstance;

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
  /** Stored entries of L + U, the diagonal counted once. */
  get fill(): number { return this.x.nnzL() + this.x.nnzU() - this.n; }
  /** factor() calls that needed the pivoting fallback since analyze. */
  get fallbacks(): number { return this.x.fallbacks(); }
  solve(b: Float64Array): Float64Array {
    const view = new Float64Array(this.x.memory.buffer, this.x.rhsPtr(), this.n);
    view.set(b);
    this.x.solveFromBuffers();
    return Float64Array.from(new Float64Array(this.x.memory.buffer, this.x.rhsPtr(), this.n));
  }
}

// ---------------------------------------------------------------- test matrices

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

/** Factors and solves with SparseLU and checks the residual ‖Ax − b‖∞ only. */
function checkResidual(lu: WasmLU, a: Csc, seed: number, label: string): void {
  assert.equal(lu.factor(a.values), true, `${label}: factor reported singular`);
  const b = randomVector(a.n, seed);
  const x = lu.solve(b);
  const res = residualInf(a, x, b);
  assert.ok(res <= 1e-12 * (normInf(a) * maxAbs(x) + maxAbs(b)), `${label}: residual ${res}`);
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

/** The same matrix with its rows permuted by perm (row i goes to perm[i]). */
function permuteRows(a: Csc, perm: Int32Array): Csc {
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) { rows.push(perm[a.rowIdx[p]]); cols.push(j); vals.push(a.values[p]); }
  return fromTriplets(a.n, rows, cols, vals);
}

function randomPermutation(n: number, seed: number): Int32Array {
  const r = rng(seed), p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); const t = p[i]; p[i] = p[j]; p[j] = t; }
  return p;
}

function expectSingular(lu: WasmLU, values: Float64Array, label: string): void {
  assert.equal(lu.factor(values), false, `${label}: factor should report singular`);
  assert.equal(lu.singular, true, `${label}: singular flag`);
  const x = lu.solve(new Float64Array(values.length > 0 ? lu_n(lu) : 0).fill(1));
  assert.ok(x.every((t) => Number.isNaN(t)), `${label}: solve after a failed factor must give NaN, not an answer`);
}
const lu_n = (lu: WasmLU): number => (lu as unknown as { n: number }).n;

const QUICK = process.env.QUICK === '1';

// ---------------------------------------------------------------- tests

const sizes = [1, 2, 5, 17, 60, 250, 1000];

test('structurally symmetric, diagonally dominant: matches dense LU (n = 1 … 1000)', () => {
  for (const n of sizes) {
    const a = randomMatrix(n, 1000 + n, { degree: 3, unsymmetric: 0, dominant: true });
    const lu = new WasmLU();
    lu.analyze(a);
    checkSolve(lu, a, n, `n=${n}`);
    assert.equal(lu.fallbacks, 0, `n=${n}: a dominant diagonal needs no pivoting`);
  }
});

test('n = 2000, structurally symmetric and not dominant: matches dense LU', () => {
  const a = randomMatrix(2000, 42, { degree: 3, unsymmetric: 0, dominant: false });
  const lu = new WasmLU();
  lu.analyze(a);
  checkSolve(lu, a, 7, 'n=2000');
});

test('structurally unsymmetric, not diagonally dominant: matches dense LU', () => {
  for (const n of sizes) {
    const a = randomMatrix(n, 2000 + n, { degree: 4, unsymmetric: 0.3, dominant: false });
    const lu = new WasmLU();
    lu.analyze(a);
    checkSolve(lu, a, n + 1, `n=${n}`);
  }
});

test('zero diagonal (rows permuted): the pivoting fallback finds the pivots, and its order is reused', () => {
  for (const n of [6, 40, 300, 1500]) {
    const base = randomMatrix(n, 3000 + n, { degree: 3, unsymmetric: 0.2, dominant: true });
    const a = permuteRows(base, randomPermutation(n, n));
    const lu = new WasmLU();
    lu.analyze(a);
    checkSolve(lu, a, n, `n=${n}`);
    assert.ok(lu.fallbacks >= 1, `n=${n}: static diagonal pivots cannot work here`);
    // the same matrix scaled: the adopted pivot sequence is static now
    const before = lu.fallbacks;
    checkSolve(lu, withValues(a, a.values.map((v) => 3 * v)), n + 1, `n=${n} again`);
    assert.equal(lu.fallbacks, before, `n=${n}: second factorisation should reuse the adopted pivots`);
  }
});

test('refactor with new values on the same pattern, no re-analysis (Newton style)', () => {
  const n = 400;
  const a = randomMatrix(n, 77, { degree: 3, unsymmetric: 0.1, dominant: true });
  const lu = new WasmLU();
  lu.analyze(a);
  const r = rng(5);
  for (let it = 0; it < 8; it++) {
    const v = a.values.map((t) => t * (0.5 + r()));
    checkSolve(lu, withValues(a, v), 100 + it, `iteration ${it}`);
  }
  assert.equal(lu.fallbacks, 0);
});

test('a pivot that collapses mid-sequence triggers the fallback, later iterations stay right', () => {
  const n = 300;
  const a = randomMatrix(n, 78, { degree: 3, unsymmetric: 0, dominant: true });
  const lu = new WasmLU();
  lu.analyze(a);
  checkSolve(lu, a, 1, 'start');
  // zero every diagonal entry of a few columns: static pivots there are 0
  const v = Float64Array.from(a.values);
  for (const j of [3, 50, 199]) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) if (a.rowIdx[p] === j) v[p] = 0;
  checkSolve(lu, withValues(a, v), 2, 'zeroed diagonals');
  assert.ok(lu.fallbacks >= 1);
  checkSolve(lu, a, 3, 'back to the original values');
  checkSolve(lu, withValues(a, a.values.map((t) => -t)), 4, 'negated');
});

test('AMD ordering keeps fill low on a randomly numbered 2-D grid', () => {
  // 60×60 five-point grid, numbered at random. Ordered row by row it would
  // fill its band (≈ 2·n·√n entries in L+U); in the random numbering, far
  // more. A minimum-degree order must do clearly better than the band.
  const side = 60, n = side * side;
  const label = randomPermutation(n, 9);
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const add = (i: number, j: number, v: number) => { rows.push(label[i]); cols.push(label[j]); vals.push(v); };
  for (let y = 0; y < side; y++) for (let x = 0; x < side; x++) {
    const i = y * side + x;
    add(i, i, 4.5);
    if (x + 1 < side) { add(i, i + 1, -1); add(i + 1, i, -1); }
    if (y + 1 < side) { add(i, i + side, -1); add(i + side, i, -1); }
  }
  const a = fromTriplets(n, rows, cols, vals);
  const lu = new WasmLU();
  lu.analyze(a);
  checkResidual(lu, a, 11, 'grid');
  const nnzA = a.colPtr[n];
  assert.ok(lu.fill < 8 * nnzA, `fill ${lu.fill} vs nnz(A) ${nnzA}`);
  assert.ok(lu.fill < 0.4 * n * side * 2, `fill ${lu.fill} is not far below the band's ${n * side * 2}`);
});

test('dense rows, dense matrix, diagonal matrix, empty matrix', () => {
  // arrow: one row and column couple to every node (AMD orders such dense
  // nodes last instead of letting them fill everything)
  const n = 600, r = rng(31);
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  for (let i = 0; i < n; i++) {
    rows.push(i); cols.push(i); vals.push(i === 0 ? n : 2 + r());
    if (i > 0) { rows.push(0, i); cols.push(i, 0); vals.push(r() - 0.5, r() - 0.5); }
    if (i > 1) { rows.push(i - 1, i); cols.push(i, i - 1); vals.push(-0.3, -0.4); }
  }
  const arrow = fromTriplets(n, rows, cols, vals);
  let lu = new WasmLU();
  lu.analyze(arrow);
  checkSolve(lu, arrow, 1, 'arrow');
  assert.ok(lu.fill < 4 * arrow.colPtr[n], `arrow fill ${lu.fill}`);

  const m = 30, dr: number[] = [], dc: number[] = [], dv: number[] = [];
  const r2 = rng(32);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) { dr.push(i); dc.push(j); dv.push(r2() - 0.5); }
  const dense = fromTriplets(m, dr, dc, dv);
  lu = new WasmLU();
  lu.analyze(dense);
  checkSolve(lu, dense, 2, 'dense 30x30');

  const diag = fromTriplets(10, [...Array(10).keys()], [...Array(10).keys()], [...Array(10).keys()].map((i) => i + 1));
  lu = new WasmLU();
  lu.analyze(diag);
  checkSolve(lu, diag, 3, 'diagonal');
  assert.equal(lu.fill, 10);

  const empty: Csc = { n: 0, colPtr: new Int32Array(1), rowIdx: new Int32Array(0), values: new Float64Array(0) };
  lu = new WasmLU();
  lu.analyze(empty);
  assert.equal(lu.factor(empty.values), true);
  assert.equal(lu.solve(new Float64Array(0)).length, 0);
});

test('zero column is reported singular, and the next good matrix factors', () => {
  const a = randomMatrix(50, 9, { degree: 3, unsymmetric: 0, dominant: true });
  const v = Float64Array.from(a.values);
  for (let p = a.colPtr[7]; p < a.colPtr[8]; p++) v[p] = 0;
  const lu = new WasmLU();
  lu.analyze(a);
  expectSingular(lu, v, 'zero column');
  checkSolve(lu, a, 3, 'after singular');
});

test('two equal rows are reported singular', () => {
  for (const [n, seed] of [[6, 4], [40, 5], [200, 6]]) {
    const base = randomMatrix(n, seed, { degree: 4, unsymmetric: 0, dominant: true });
    // copy row 1 onto row n-2 (the pattern becomes the union, values equal)
    const d = toDense(base);
    for (let j = 0; j < n; j++) d[(n - 2) * n + j] = d[1 * n + j];
    const rows: number[] = [], cols: number[] = [], vals: number[] = [];
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (d[i * n + j] !== 0) { rows.push(i); cols.push(j); vals.push(d[i * n + j]); }
    const a = fromTriplets(n, rows, cols, vals);
    const lu = new WasmLU();
    lu.analyze(a);
    expectSingular(lu, a.values, `n=${n}`);
  }
});

test('structurally singular pattern is reported singular', () => {
  // rows 0 and 1 only have entries in column 0: no matching covers both
  const a = fromTriplets(4, [0, 1, 2, 2, 3, 2, 3], [0, 0, 1, 2, 2, 3, 3], [1, 2, 1, 1, 2, 3, 1]);
  const lu = new WasmLU();
  lu.analyze(a);
  expectSingular(lu, a.values, 'structural');
});

test('NaN or infinite values are reported singular, never passed on', () => {
  const a = randomMatrix(80, 12, { degree: 3, unsymmetric: 0, dominant: true });
  const lu = new WasmLU();
  lu.analyze(a);
  for (const bad of [NaN, Infinity]) {
    for (const p of [0, Math.floor(a.values.length / 2), a.values.length - 1]) {
      const v = Float64Array.from(a.values);
      v[p] = bad;
      expectSingular(lu, v, `value[${p}] = ${bad}`);
    }
  }
  checkSolve(lu, a, 5, 'after NaN');
});

test('MATPOWER Newton-Raphson Jacobians (case118, case300) match dense LU', { skip: !existsSync(join(CASES_DIR, 'case300.m')) }, () => {
  for (const c of ['case118', 'case300']) {
    const a = matpowerJacobian(c);
    const lu = new WasmLU();
    lu.analyze(a);
    checkSolve(lu, a, 1, c);
  }
});

test('case9241pegase Newton-Raphson Jacobian: small residual, repeated factorisations', { skip: QUICK || !existsSync(join(CASES_DIR, 'case9241pegase.m')) }, () => {
  const a = matpowerJacobian('case9241pegase');
  const lu = new WasmLU();
  lu.analyze(a);
  for (let it = 0; it < 3; it++) {
    const v = a.values.map((t, p) => t * (1 + 0.01 * it * Math.sin(p)));
    const m = withValues(a, v);
    assert.equal(lu.factor(v), true);
    const b = randomVector(a.n, it);
    const x = lu.solve(b);
    const res = residualInf(m, x, b);
    assert.ok(res <= 1e-10 * (normInf(m) * maxAbs(x) + maxAbs(b)), `iteration ${it}: residual ${res}`);
  }
  assert.ok(lu.fill < 3 * a.colPtr[a.n], `fill ${lu.fill}`);
});
