// SparseLU (assembly/sparse, compiled to build/sparse.wasm by `npm run build`)
// against a dense LU with partial pivoting written here in plain JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { matpowerJacobian, type Csc } from '../bench/sparse-lu.js';
import { rng } from '../src/lib/rng.js';
import {
  WasmLU, checkRefactorisations, checkResidual, checkSolve, expectSingular, fromTriplets, permuteRows, randomMatrix,
  randomPermutation, toDense, withValues,
} from './helpers/sparseMatrices.js';

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
  checkRefactorisations(lu, a);
  assert.ok(lu.fill < 3 * a.colPtr[a.n], `fill ${lu.fill}`);
});
