// Micro-benchmark of SparseLU (build/sparse.wasm): analyze once, then factor +
// solve many times on power-flow-like matrices.
//   npx asc assembly/sparse/exports.ts --target sparse && npx tsc -p tsconfig.json
//   node dist/bench/sparse-lu.js [repeats]
// Matrices: "grid n=20000" is a grid-graph pattern (a meshed lattice with a
// random spanning tree, extra local lines and a few long ones; average degree
// ≈ 2.7 like real transmission grids) with Laplacian-like values; "NR
// Jacobian" matrices are the 2×2-block pattern of a Newton-Raphson Jacobian
// (θ for every non-slack bus, |V| for PQ buses) on such a grid, sized like the
// named MATPOWER cases.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';

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
  nnzL(): number;
  nnzU(): number;
  fallbacks(): number;
}

interface Csc { n: number; colPtr: Int32Array; rowIdx: Int32Array; values: Float64Array }

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

/** Edges of a meshed grid-like graph on nb buses (randomly numbered). */
function gridGraph(nb: number, seed: number): [number, number][] {
  const r = rng(seed);
  const w = Math.ceil(Math.sqrt(nb));
  const cand: [number, number][] = [];
  for (let v = 0; v < nb; v++) {
    if ((v % w) + 1 < w && v + 1 < nb) cand.push([v, v + 1]);
    if (v + w < nb) cand.push([v, v + w]);
  }
  for (let i = cand.length - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [cand[i], cand[j]] = [cand[j], cand[i]]; }
  const parent = Int32Array.from({ length: nb }, (_, i) => i);
  const find = (x: number): number => { while (parent[x] !== x) { parent[x] = parent[parent[x]]; x = parent[x]; } return x; };
  const edges: [number, number][] = [];
  for (const [a, b] of cand) {
    const ra = find(a), rb = find(b);
    if (ra !== rb) { parent[ra] = rb; edges.push([a, b]); } else if (r() < 0.3) edges.push([a, b]);
  }
  for (let e = 0; e < nb / 200; e++) {            // a few longer lines
    const a = Math.floor(r() * nb), b = Math.min(nb - 1, a + Math.floor(r() * 10 * w));
    if (a !== b) edges.push([a, b]);
  }
  const label = Int32Array.from({ length: nb }, (_, i) => i);
  for (let i = nb - 1; i > 0; i--) { const j = Math.floor(r() * (i + 1)); [label[i], label[j]] = [label[j], label[i]]; }
  return edges.map(([a, b]) => [label[a], label[b]]);
}

function fromTriplets(n: number, rows: number[], cols: number[], vals: number[]): Csc {
  const maps: Map<number, number>[] = Array.from({ length: n }, () => new Map());
  for (let k = 0; k < rows.length; k++) maps[cols[k]].set(rows[k], (maps[cols[k]].get(rows[k]) ?? 0) + vals[k]);
  const colPtr = new Int32Array(n + 1);
  for (let j = 0; j < n; j++) colPtr[j + 1] = colPtr[j] + maps[j].size;
  const rowIdx = new Int32Array(colPtr[n]), values = new Float64Array(colPtr[n]);
  for (let j = 0; j < n; j++) {
    [...maps[j].entries()].sort((a, b) => a[0] - b[0]).forEach(([i, v], t) => { rowIdx[colPtr[j] + t] = i; values[colPtr[j] + t] = v; });
  }
  return { n, colPtr, rowIdx, values };
}

/** Laplacian-like matrix on the grid graph (B' of the fast-decoupled method). */
function gridMatrix(nb: number, seed: number): Csc {
  const r = rng(seed + 1);
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const diag = new Float64Array(nb).fill(0.1);
  for (const [a, b] of gridGraph(nb, seed)) {
    const y = 5 + 45 * r();
    rows.push(a, b); cols.push(b, a); vals.push(-y, -y);
    diag[a] += y; diag[b] += y;
  }
  for (let i = 0; i < nb; i++) { rows.push(i); cols.push(i); vals.push(diag[i]); }
  return fromTriplets(nb, rows, cols, vals);
}

/** Newton-Raphson Jacobian pattern [H N; M L] on the grid graph of nb buses. */
function jacobian(nb: number, seed: number): Csc {
  const r = rng(seed + 2);
  const edges = gridGraph(nb, seed);
  const isPV = Uint8Array.from({ length: nb }, () => (r() < 0.2 ? 1 : 0));
  const slack = 0;
  const th = new Int32Array(nb).fill(-1), vm = new Int32Array(nb).fill(-1);
  let n = 0;
  for (let i = 0; i < nb; i++) if (i !== slack) th[i] = n++;
  for (let i = 0; i < nb; i++) if (i !== slack && !isPV[i]) vm[i] = n++;
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const put = (i: number, j: number, v: number) => { if (i >= 0 && j >= 0) { rows.push(i); cols.push(j); vals.push(v); } };
  const dH = new Float64Array(nb), dL = new Float64Array(nb);
  for (const [a, b] of edges) {
    const y = 5 + 45 * r(), g = 0.1 * y * r();
    for (const [i, j] of [[a, b], [b, a]]) {
      put(th[i], th[j], -y * (0.95 + 0.1 * r()));
      put(vm[i], vm[j], -y * (0.95 + 0.1 * r()));
      put(th[i], vm[j], g * (r() - 0.5));
      put(vm[i], th[j], g * (r() - 0.5));
    }
    dH[a] += y; dH[b] += y; dL[a] += y; dL[b] += y;
  }
  for (let i = 0; i < nb; i++) {
    put(th[i], th[i], dH[i] * (1 + 0.05 * r()));
    put(vm[i], vm[i], dL[i] * (1 + 0.05 * r()) - 0.5);
    put(th[i], vm[i], 0.3 * r());
    put(vm[i], th[i], 0.3 * r());
  }
  return fromTriplets(n, rows, cols, vals);
}

function instance(): SparseExports {
  const mod = new WA.Module(readFileSync(join(ROOT, 'build', 'sparse.wasm')));
  return new WA.Instance(mod, { env: { abort: () => { throw new Error('wasm abort'); } } }).exports as SparseExports;
}

function median(xs: number[]): number { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

function bench(name: string, a: Csc, repeats: number): void {
  const w = instance();
  const nnz = a.colPtr[a.n];
  w.allocBuffers(a.n, nnz);
  new Int32Array(w.memory.buffer, w.colPtrPtr(), a.n + 1).set(a.colPtr);
  new Int32Array(w.memory.buffer, w.rowIdxPtr(), nnz).set(a.rowIdx);
  new Float64Array(w.memory.buffer, w.valuesPtr(), nnz).set(a.values);
  let t0 = performance.now();
  w.analyzeFromBuffers(a.n);
  const tAnalyze = performance.now() - t0;
  const b = new Float64Array(a.n).map((_, i) => Math.sin(i));
  const tf: number[] = [], ts: number[] = [];
  for (let k = 0; k < repeats; k++) {
    t0 = performance.now();
    if (w.factorFromBuffers() !== 1) throw new Error(`${name}: singular`);
    const t1 = performance.now();
    new Float64Array(w.memory.buffer, w.rhsPtr(), a.n).set(b);
    const t2 = performance.now();
    w.solveFromBuffers();
    const t3 = performance.now();
    tf.push(t1 - t0); ts.push(t3 - t2);
  }
  // residual check, so a fast wrong answer cannot hide here
  const x = Float64Array.from(new Float64Array(w.memory.buffer, w.rhsPtr(), a.n));
  const res = Float64Array.from(b);
  for (let j = 0; j < a.n; j++) for (let p = a.colPtr[j]; p < a.colPtr[j + 1]; p++) res[a.rowIdx[p]] -= a.values[p] * x[j];
  const resInf = res.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
  const fill = w.nnzL() + w.nnzU() - a.n;
  console.log(
    `| ${name.padEnd(26)} | ${String(a.n).padStart(6)} | ${String(nnz).padStart(7)} | ${String(fill).padStart(8)} | ` +
    `${tAnalyze.toFixed(1).padStart(8)} | ${median(tf).toFixed(2).padStart(7)} | ${median(ts).toFixed(3).padStart(7)} | ` +
    `${(median(tf) + median(ts)).toFixed(2).padStart(9)} | ${resInf.toExponential(1).padStart(8)} | ${w.fallbacks()} |`,
  );
}

const repeats = Number(process.argv[2] ?? 50);
console.log(`SparseLU, median of ${repeats} factor/solve runs (ms); nnz(L+U) counts the diagonal once`);
console.log('| matrix                     |      n |  nnz(A) | nnz(L+U) | analyze  | factor  | solve   | fact+solv | ‖Ax-b‖∞  | fb |');
console.log('|----------------------------|--------|---------|----------|----------|---------|---------|-----------|----------|----|');
bench('grid n=20000 (B\'-like)', gridMatrix(20000, 1), repeats);
bench('NR Jacobian, 10000 buses', jacobian(10000, 2), repeats);
bench('NR Jacobian, 9241 buses', jacobian(9241, 3), repeats);
bench('NR Jacobian, 13659 buses', jacobian(13659, 4), repeats);
