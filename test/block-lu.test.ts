// BlockLU (assembly/sparse/blockLU.ts, the Newton solver's LU: θ/|V| unknowns of a bus paired in 2×2
// blocks), driven through build/sparse.wasm, against the dense LU with partial pivoting in plain JS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { busPairing, matpowerJacobian, type Csc, type Pairing } from '../bench/sparse-lu.js';
import { rng } from '../src/lib/rng.js';
import {
  WasmLU, checkRefactorisations, checkSolve, expectSingular, fromTriplets, maxAbs, normInf, randomPermutation, randomVector, residualInf,
  withValues,
} from './helpers/sparseMatrices.js';

const QUICK = process.env.QUICK === '1';

type Numbering = 'matpower' | 'interleaved' | 'random';

/**
 * A Jacobian-like matrix on a random grid of `buses` buses: every bus has a θ unknown, a share `pv` of
 * them no |V| unknown (the padded blocks); all four couplings between the unknowns of neighbouring buses.
 * Unknowns numbered MATPOWER's way (all θ, then all |V|), interleaved per bus, or at random.
 */
function pairedMatrix(buses: number, seed: number, o: { dominant: boolean; pv: number; numbering: Numbering }): Csc & { pairing: Pairing } {
  const r = rng(seed);
  const isPV = Array.from({ length: buses }, () => r() < o.pv);
  const th = new Int32Array(buses).fill(-1), mag = new Int32Array(buses).fill(-1);
  let n = 0;
  if (o.numbering === 'interleaved') {
    for (let i = 0; i < buses; i++) { th[i] = n++; if (!isPV[i]) mag[i] = n++; }
  } else {
    for (let i = 0; i < buses; i++) th[i] = n++;
    for (let i = 0; i < buses; i++) if (!isPV[i]) mag[i] = n++;
  }
  if (o.numbering === 'random') {
    const perm = randomPermutation(n, seed + 7);
    for (let i = 0; i < buses; i++) { th[i] = perm[th[i]]; if (mag[i] >= 0) mag[i] = perm[mag[i]]; }
  }
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const offSum = new Float64Array(n);
  const put = (i: number, j: number, v: number) => {
    if (i < 0 || j < 0) return;
    rows.push(i); cols.push(j); vals.push(v);
    if (i !== j) offSum[i] += Math.abs(v);
  };
  const couple = (a: number, b: number) => {
    for (const ra of [th[a], mag[a]]) for (const cb of [th[b], mag[b]]) put(ra, cb, r() * 2 - 1);
  };
  const edges = Math.max(1, Math.round(buses * 1.4));
  for (let e = 0; e < edges && buses > 1; e++) {
    const a = e < buses ? e : Math.floor(r() * buses);
    const b = (a + 1 + Math.floor(r() * (r() < 0.9 ? 15 : buses))) % buses;
    if (a === b) continue;
    couple(a, b);
    couple(b, a);
  }
  for (let i = 0; i < buses; i++) {          // the bus's own block: its θ/|V| coupling, then the diagonal
    put(th[i], mag[i], r() - 0.5);
    put(mag[i], th[i], r() - 0.5);
  }
  for (let i = 0; i < buses; i++) {
    for (const v of [th[i], mag[i]]) if (v >= 0) put(v, v, o.dominant ? offSum[v] + 0.5 + r() : r() * 2 - 1);
  }
  return { ...fromTriplets(n, rows, cols, vals), pairing: busPairing(n, th, mag) };
}

const sizes = [1, 2, 5, 17, 60, 250, 1000];

test('2×2 blocks, diagonally dominant, each numbering of the unknowns: matches dense LU, no fallback', () => {
  for (const numbering of ['matpower', 'interleaved', 'random'] as const) {
    for (const buses of sizes) {
      const a = pairedMatrix(buses, 100 + buses, { dominant: true, pv: 0.25, numbering });
      const lu = new WasmLU();
      lu.analyze(a, a.pairing);
      checkSolve(lu, a, buses, `${numbering} ${buses} buses`);
      assert.equal(lu.fallbacks, 0, `${numbering} ${buses} buses: dominant blocks need no pivoting`);
    }
  }
});

test('2×2 blocks, not dominant, all-PV and all-PQ: matches dense LU (the scalar LU where a block pivot fails)', () => {
  for (const pv of [0, 0.3, 1]) {
    for (const buses of [5, 60, 400]) {
      const a = pairedMatrix(buses, 200 + buses, { dominant: false, pv, numbering: 'matpower' });
      const lu = new WasmLU();
      lu.analyze(a, a.pairing);
      checkSolve(lu, a, buses + 1, `pv share ${pv}, ${buses} buses`);
    }
  }
});

test('a pivot block that fails goes to the scalar LU for that matrix only; reset forgets its pivot order', () => {
  const a = pairedMatrix(300, 301, { dominant: true, pv: 0.2, numbering: 'matpower' });
  const lu = new WasmLU();
  lu.analyze(a, a.pairing);
  checkSolve(lu, a, 1, 'start');
  assert.equal(lu.scalarFallbacks, -1, 'the scalar LU is not even analysed while the blocks do');
  // the θ rows shuffled among themselves: a block diagonal's P row is now another bus's, static block
  // pivots fail. BlockLU is analysed for the union of both patterns (the scalar numbering stays a's).
  const { n } = a;
  const thetaRows = Array.from({ length: n }, (_, i) => i).filter((i) => a.pairing.posOf[i] === 0);
  const shuffle = randomPermutation(thetaRows.length, 5);
  const rowTo = Int32Array.from({ length: n }, (_, i) => i);
  thetaRows.forEach((i, k) => { rowTo[i] = thetaRows[shuffle[k]]; });
  const aRows = Array.from(a.rowIdx), aCols = colsOf(a);
  const both = fromTriplets(n, [...aRows.map((i) => rowTo[i]), ...aRows], [...aCols, ...aCols],
    [...Array.from(a.values), ...new Array(aRows.length).fill(0)]);
  const onUnion = new WasmLU();
  onUnion.analyze(both, a.pairing);
  checkSolve(onUnion, both, 2, 'shuffled θ rows');
  assert.ok(onUnion.fallbacks >= 1, 'block pivots cannot work on shuffled rows');
  assert.ok(onUnion.scalarFallbacks >= 1, 'the scalar LU pivoted');
  // back to the original values on the same pattern: the blocks take it again
  const aOnUnion = valuesOn(both, a);
  const before = onUnion.fallbacks;
  checkSolve(onUnion, aOnUnion, 3, 'original values again');
  assert.equal(onUnion.fallbacks, before, 'a good matrix goes back to the block factorisation');
  // reset: the scalar LU forgets the adopted pivots, and answers as a fresh one would, bit for bit
  onUnion.reset();
  assert.equal(onUnion.scalarFallbacks, 0);
  const fresh = new WasmLU();
  fresh.analyze(both, a.pairing);
  const b = randomVector(n, 9);
  const moved = withValues(both, both.values.map((v) => 1.5 * v));
  assert.equal(onUnion.factor(moved.values), true);
  assert.equal(fresh.factor(moved.values), true);
  assert.deepEqual(onUnion.solve(b), fresh.solve(b));
});

function colsOf(a: Csc): number[] {
  const c: number[] = [];
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) c.push(j);
  return c;
}

/** Matrix `src`'s values placed on pattern `pattern` (a superset of src's pattern); zeros elsewhere. */
function valuesOn(pattern: Csc, src: Csc): Csc {
  const v = new Float64Array(pattern.values.length);
  for (let j = 0; j < src.n; j++) {
    for (let p = src.colPtr[j]; p < src.colPtr[j + 1]; p++) {
      for (let q = pattern.colPtr[j]; q < pattern.colPtr[j + 1]; q++) if (pattern.rowIdx[q] === src.rowIdx[p]) v[q] = src.values[p];
    }
  }
  return withValues(pattern, v);
}

test('solveSteps (a right-hand side already in block order, as Newton builds it) equals solve, also after a fallback', () => {
  const a = pairedMatrix(200, 501, { dominant: false, pv: 0.3, numbering: 'random' });
  const lu = new WasmLU();
  lu.analyze(a, a.pairing);
  const b = randomVector(a.n, 3);
  assert.equal(lu.factor(a.values), true);
  assert.deepEqual(lu.solve(b, true), lu.solve(b));
  // a zero diagonal block everywhere a θ row moved: the scalar LU solves, through the same entry
  const v = Float64Array.from(a.values);
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) if (a.rowIdx[p] === j) v[p] = 0;
  const zeroDiag = withValues(a, v);
  const before = lu.fallbacks;
  assert.equal(lu.factor(v), true);
  assert.ok(lu.fallbacks > before, 'zero diagonals (a pv block is then singular): the block pivots fail');
  const x = lu.solve(b, true);
  assert.deepEqual(x, lu.solve(b));
  assert.ok(residualInf(zeroDiag, x, b) <= 1e-9 * (normInf(zeroDiag) * maxAbs(x) + maxAbs(b)));
  expectSingular(lu, new Float64Array(a.values.length), 'all zero');
  assert.ok(lu.solve(b, true).every((t) => Number.isNaN(t)), 'solveSteps after a failed factor gives NaN');
});

test('singular matrices are reported singular (NaN out, never an answer), and the next good one factors', () => {
  const a = pairedMatrix(80, 401, { dominant: true, pv: 0.2, numbering: 'interleaved' });
  const lu = new WasmLU();
  lu.analyze(a, a.pairing);
  const zeroCol = Float64Array.from(a.values);
  for (let p = a.colPtr[11]; p < a.colPtr[12]; p++) zeroCol[p] = 0;
  expectSingular(lu, zeroCol, 'zero column');
  checkSolve(lu, a, 4, 'after the zero column');
  for (const bad of [NaN, Infinity]) {
    for (const p of [0, Math.floor(a.values.length / 2), a.values.length - 1]) {
      const v = Float64Array.from(a.values);
      v[p] = bad;
      expectSingular(lu, v, `value[${p}] = ${bad}`);
    }
  }
  checkSolve(lu, a, 5, 'after NaN');
});

test('one unknown, and no unknowns at all', () => {
  const one = { ...fromTriplets(1, [0], [0], [4]), pairing: { nb: 1, blockOf: new Int32Array(1), posOf: new Int32Array(1) } };
  const lu = new WasmLU();
  lu.analyze(one, one.pairing);
  checkSolve(lu, one, 1, 'one PV bus');
  const empty: Csc = { n: 0, colPtr: new Int32Array(1), rowIdx: new Int32Array(0), values: new Float64Array(0) };
  const e = new WasmLU();
  e.analyze(empty, { nb: 0, blockOf: new Int32Array(0), posOf: new Int32Array(0) });
  assert.equal(e.factor(empty.values), true);
  assert.equal(e.solve(new Float64Array(0)).length, 0);
});

test('MATPOWER Newton-Raphson Jacobians (case118, case300) in blocks match dense LU', { skip: !existsSync(join(CASES_DIR, 'case300.m')) }, () => {
  for (const c of ['case118', 'case300']) {
    const a = matpowerJacobian(c);
    const lu = new WasmLU();
    lu.analyze(a, a.pairing);
    checkSolve(lu, a, 1, c);
    assert.equal(lu.fallbacks, 0, `${c}: the Jacobian at the solution needs no pivoting`);
  }
});

test('case9241pegase Jacobian in blocks: small residual, repeated factorisations, fill like the scalar LU', { skip: QUICK || !existsSync(join(CASES_DIR, 'case9241pegase.m')) }, () => {
  const a = matpowerJacobian('case9241pegase');
  const lu = new WasmLU(), scalar = new WasmLU();
  lu.analyze(a, a.pairing);
  scalar.analyze(a);
  // the Jacobian itself factors in blocks; the perturbed ones (no longer Jacobians) may need pivots,
  // as they do in the scalar LU
  checkRefactorisations(lu, a, (it) => { if (it === 0) assert.equal(lu.fallbacks, 0); });
  assert.equal(scalar.factor(a.values), true);
  // blocks store the padding and the zeros inside blocks: more entries, but of the same order
  assert.ok(lu.fill < 2 * scalar.fill, `block fill ${lu.fill} vs scalar ${scalar.fill}`);
});
