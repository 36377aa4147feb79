// Micro-benchmark of SparseLU (build/sparse.wasm): analyze once, then factor +
// solve many times on power-flow-like matrices, printing a table.
//   npx asc assembly/sparse/exports.ts --target sparse && npx tsc -p tsconfig.json
//   node dist/bench/sparse-lu.js [repeats] [--compare]
// --compare also times the factorisation with the supernode updates off.
// Each Newton Jacobian gets a second row, "2×2 blocks": the same matrix factorised by BlockLU
// (assembly/sparse/blockLU.ts), its θ/|V| unknowns paired by bus, as the Newton solver does.
// Matrices: "grid n=20000" is a grid-graph pattern (a meshed lattice with a
// random spanning tree, extra local lines and a few long ones; average degree
// ≈ 2.7 like real transmission grids) with Laplacian-like values (like B');
// "synthetic NR J" is the 2×2-block pattern of a Newton-Raphson Jacobian
// (θ for every non-slack bus, |V| for PQ buses) on such a grid; "caseX NR J"
// are the real Jacobians of the MATPOWER cases in shared/cases at the
// reference solution (skipped when shared/ is absent).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES_DIR, REFERENCE_DIR } from '../src/paths.js';
import { sparseLuInstance, type SparseLuExports } from '../src/engine/wasm.js';
import { rng } from '../src/lib/rng.js';

export interface Csc { n: number; colPtr: Int32Array; rowIdx: Int32Array; values: Float64Array; pairing?: Pairing }
/** The unknowns of a Newton Jacobian paired by bus (θ at position 0, |V| at 1): BlockLU's input. */
export interface Pairing { nb: number; blockOf: Int32Array; posOf: Int32Array }

/** Pairs the θ and |V| unknowns of each bus (th[i], mag[i]; -1 where the bus has none). */
export function busPairing(n: number, th: Int32Array, mag: Int32Array): Pairing {
  const blockOf = new Int32Array(n), posOf = new Int32Array(n);
  let nb = 0;
  for (let i = 0; i < th.length; i++) {
    if (th[i] < 0) continue;
    blockOf[th[i]] = nb;
    if (mag[i] >= 0) { blockOf[mag[i]] = nb; posOf[mag[i]] = 1; }
    nb++;
  }
  return { nb, blockOf, posOf };
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
function jacobian(nb: number, seed: number): Csc & { pairing: Pairing } {
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
  return { ...fromTriplets(n, rows, cols, vals), pairing: busPairing(n, th, vm) };
}

const instance = sparseLuInstance;

function median(xs: number[]): number { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function fmt(v: number, d: number, w: number): string { return v.toFixed(d).padStart(w); }

/** A SparseLU (or, given a pairing, BlockLU) instance loaded with matrix a and analysed; returns the
 *  analyze time. */
function load(a: Csc, supernodes: boolean, pairing?: Pairing): { w: SparseLuExports; tAnalyze: number } {
  const w = instance();
  const nnz = a.colPtr[a.n];
  w.allocBuffers(a.n, nnz);
  if (pairing) w.allocBlockBuffers(a.n);
  new Int32Array(w.memory.buffer, w.colPtrPtr(), a.n + 1).set(a.colPtr);
  new Int32Array(w.memory.buffer, w.rowIdxPtr(), nnz).set(a.rowIdx);
  new Float64Array(w.memory.buffer, w.valuesPtr(), nnz).set(a.values);
  if (pairing) {
    new Int32Array(w.memory.buffer, w.blockOfPtr(), a.n).set(pairing.blockOf);
    new Int32Array(w.memory.buffer, w.posOfPtr(), a.n).set(pairing.posOf);
  }
  const t0 = performance.now();
  if (pairing) w.analyzeBlocksFromBuffers(a.n, pairing.nb); else w.analyzeFromBuffers(a.n);
  const tAnalyze = performance.now() - t0;
  if (!supernodes) w.setSupernodes(0);
  return { w, tAnalyze };
}

/** Times factor and solve `repeats` times; returns [factor ms list, solve ms list, ‖Ax-b‖∞]. */
function run(w: SparseLuExports, a: Csc, b: Float64Array, repeats: number): [number[], number[], number] {
  const tf: number[] = [], ts: number[] = [];
  for (let k = 0; k < repeats; k++) {
    const t0 = performance.now();
    if (w.factorFromBuffers() !== 1) throw new Error('singular');
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
  return [tf, ts, res.reduce((m, v) => Math.max(m, Math.abs(v)), 0)];
}

function bench(name: string, a: Csc, repeats: number, compare: boolean, pairing?: Pairing): void {
  const { w, tAnalyze } = load(a, true, pairing);
  const b = new Float64Array(a.n).map((_, i) => Math.sin(i));
  let off: SparseLuExports | null = null;
  if (compare && !pairing) off = load(a, false).w;
  const tf: number[] = [], ts: number[] = [], tfOff: number[] = [];
  let res = 0;
  // interleaved in rounds, so machine noise hits both variants alike
  for (let r = 0; r < 5; r++) {
    const [f, s, e] = run(w, a, b, Math.ceil(repeats / 5));
    tf.push(...f); ts.push(...s); res = e;
    if (off) tfOff.push(...run(off, a, b, Math.ceil(repeats / 5))[0]);
  }
  const fill = w.nnzL() + w.nnzU() - a.n;
  console.log(
    `| ${name.padEnd(37)} | ${String(a.n).padStart(6)} | ${String(a.colPtr[a.n]).padStart(7)} | ${String(fill).padStart(8)} | ` +
    `${pairing ? '     —' : fmt(w.flops() / 1e6, 2, 6)} | ${fmt(tAnalyze, 1, 7)} | ${fmt(Math.min(...tf), 2, 6)} | ${fmt(median(tf), 2, 6)} | ` +
    `${fmt(Math.min(...ts), 2, 5)} | ${fmt(median(ts), 2, 5)} | ${fmt(Math.min(...tf) + Math.min(...ts), 2, 9)} | ` +
    `${res.toExponential(1).padStart(7)} | ${String(w.fallbacks()).padStart(2)} |` +
    (off ? ` ${fmt(Math.min(...tfOff), 2, 6)} | ${fmt(median(tfOff), 2, 6)} |` : compare ? '      — |      — |' : ''),
  );
}

/** The scalar row, and for a Newton Jacobian the 2×2 block row after it. */
function benchBoth(name: string, a: Csc, repeats: number, compare: boolean): void {
  bench(name, a, repeats, compare);
  if (a.pairing) bench(`${name}, 2×2 blocks`, a, repeats, compare, a.pairing);
}

/** Rows of the numeric matrix `mpc.<name> = [ ... ];` of a MATPOWER case file. */
function matpowerTable(text: string, name: string): number[][] {
  const start = text.indexOf(`mpc.${name} = [`);
  if (start < 0) throw new Error(`mpc.${name} not found`);
  const end = text.indexOf('];', start);
  const body = text.slice(text.indexOf('[', start) + 1, end);
  const rows: number[][] = [];
  for (const line of body.split('\n')) {
    for (const part of line.replace(/%.*$/, '').split(';')) {
      const nums = part.trim().split(/[\s,]+/).filter((t) => t.length > 0).map(Number);
      if (nums.length > 0) rows.push(nums);
    }
  }
  return rows;
}

/**
 * The Newton-Raphson Jacobian [dP/dθ dP/d|V|; dQ/dθ dQ/d|V|] (MATPOWER's polar
 * form, rows/columns: θ of PV+PQ buses, then |V| of PQ buses) of a MATPOWER
 * case at the reference solution's voltages (or the case's own if absent).
 */
export function matpowerJacobian(caseName: string): Csc & { pairing: Pairing } {
  const text = readFileSync(join(CASES_DIR, `${caseName}.m`), 'utf8');
  const baseMVA = Number(/mpc\.baseMVA\s*=\s*([0-9.eE+-]+)/.exec(text)![1]);
  const bus = matpowerTable(text, 'bus'), branch = matpowerTable(text, 'branch');
  const nb = bus.length;
  const index = new Map<number, number>();
  bus.forEach((b, i) => index.set(b[0], i));
  const vm = new Float64Array(nb), va = new Float64Array(nb);
  bus.forEach((b, i) => { vm[i] = b[7]; va[i] = (b[8] * Math.PI) / 180; });
  const sol = join(REFERENCE_DIR, `${caseName}.nr.json`);
  if (existsSync(sol)) {
    const ref = JSON.parse(readFileSync(sol, 'utf8')) as { bus: { id: number; vm: number; va: number }[] };
    for (const b of ref.bus) { const i = index.get(b.id)!; vm[i] = b.vm; va[i] = b.va; }
  }
  // Ybus as per-row maps of complex entries
  const yRe: Map<number, number>[] = Array.from({ length: nb }, () => new Map());
  const yIm: Map<number, number>[] = Array.from({ length: nb }, () => new Map());
  const addY = (i: number, j: number, re: number, im: number) => {
    yRe[i].set(j, (yRe[i].get(j) ?? 0) + re);
    yIm[i].set(j, (yIm[i].get(j) ?? 0) + im);
  };
  bus.forEach((b, i) => addY(i, i, b[4] / baseMVA, b[5] / baseMVA));
  for (const br of branch) {
    if (br[10] === 0) continue;
    const f = index.get(br[0])!, t = index.get(br[1])!;
    const r = br[2], x = br[3], bc = br[4];
    const den = r * r + x * x, gs = r / den, bs = -x / den;          // ys = 1/(r + jx)
    const tap = br[8] === 0 ? 1 : br[8], sh = (br[9] * Math.PI) / 180;
    const tr = tap * Math.cos(sh), ti = tap * Math.sin(sh);          // t = tap·e^{j·shift}
    addY(t, t, gs, bs + bc / 2);
    addY(f, f, gs / (tap * tap), (bs + bc / 2) / (tap * tap));
    // Yft = -ys / conj(t), Ytf = -ys / t
    const m2 = tr * tr + ti * ti;
    addY(f, t, -(gs * tr - bs * ti) / m2, -(bs * tr + gs * ti) / m2);
    addY(t, f, -(gs * tr + bs * ti) / m2, -(bs * tr - gs * ti) / m2);
  }
  const vr = new Float64Array(nb), vi = new Float64Array(nb);
  for (let i = 0; i < nb; i++) { vr[i] = vm[i] * Math.cos(va[i]); vi[i] = vm[i] * Math.sin(va[i]); }
  const ir = new Float64Array(nb), ii = new Float64Array(nb);           // I = Ybus·V
  for (let i = 0; i < nb; i++) {
    for (const [j, g] of yRe[i]) { const b = yIm[i].get(j)!; ir[i] += g * vr[j] - b * vi[j]; ii[i] += g * vi[j] + b * vr[j]; }
  }
  const th = new Int32Array(nb).fill(-1), mag = new Int32Array(nb).fill(-1);
  let n = 0;
  for (let i = 0; i < nb; i++) if (bus[i][1] !== 3 && bus[i][1] !== 4) th[i] = n++;
  for (let i = 0; i < nb; i++) if (bus[i][1] === 1) mag[i] = n++;
  const rows: number[] = [], cols: number[] = [], vals: number[] = [];
  const put = (r: number, c: number, v: number) => { if (r >= 0 && c >= 0) { rows.push(r); cols.push(c); vals.push(v); } };
  for (let i = 0; i < nb; i++) {
    for (const [j, g] of yRe[i]) {
      const b = yIm[i].get(j)!;
      // w = Y_ij·V_j
      const wr = g * vr[j] - b * vi[j], wi = g * vi[j] + b * vr[j];
      // dS_i/dθ_j = -j·V_i·conj(w) (+ j·V_i·conj(I_i) on the diagonal)
      const ar = vr[i] * wr + vi[i] * wi, ai = vi[i] * wr - vr[i] * wi;  // V_i·conj(w)
      let sr = ai, si = -ar;                                             // -j·(…)
      // dS_i/d|V_j| = V_i·conj(w)/|V_j| (+ conj(I_i)·V_i/|V_i| on the diagonal)
      let mr = ar / vm[j], mi = ai / vm[j];
      if (i === j) {
        const cr = vr[i] * ir[i] + vi[i] * ii[i], ci = vi[i] * ir[i] - vr[i] * ii[i]; // V_i·conj(I_i)
        sr += -ci; si += cr;
        mr += cr / vm[i]; mi += ci / vm[i];
      }
      put(th[i], th[j], sr); put(th[i], mag[j], mr);
      put(mag[i], th[j], si); put(mag[i], mag[j], mi);
    }
  }
  return { ...fromTriplets(n, rows, cols, vals), pairing: busPairing(n, th, mag) };
}

function main(): void {
  const repeats = Number(process.argv[2] ?? 50);
  const compare = process.argv.includes('--compare');
  console.log(`SparseLU (build/sparse.wasm): analyze once, then ${repeats} factor+solve; times in ms (min and median).`);
  console.log('nnz(L+U) counts the diagonal once; Mflop = multiply-adds of one factorisation; fb = pivoting fallbacks.');
  console.log('| matrix                                |      n |  nnz(A) | nnz(L+U) | Mflop  | analyze | factor min / med | solve min / med | fact+solve | ‖Ax-b‖∞ | fb |' +
    (compare ? ' no-supernode factor min / med |' : ''));
  console.log('|---------------------------------------|--------|---------|----------|--------|---------|--------|--------|-------|-------|-----------|---------|----|' +
    (compare ? '--------|--------|' : ''));
  bench('grid n=20000 (B\'-like)', gridMatrix(20000, 1), repeats, compare);
  benchBoth('synthetic NR J, 10000 bus', jacobian(10000, 2), repeats, compare);
  for (const c of ['case9241pegase', 'case13659pegase', 'case_ACTIVSg10k']) {
    if (existsSync(join(CASES_DIR, `${c}.m`))) benchBoth(`${c} NR J`, matpowerJacobian(c), repeats, compare);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
