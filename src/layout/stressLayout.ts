// A drawing of a network that shows its structure (areas apart, corridors as lines, radial feeders as
// spokes), computed once per network version on a solver thread (workers/solver.ts `layout`) and stored
// with it (./networkLayout.ts).
//
// Graph distance becomes drawing distance, in two steps:
// 1. Pivot MDS (Brandes & Pich 2006): breadth-first hop distances from up to 64 pivot buses chosen max–min,
//    classical scaling of those distances: a global shape in O(k·(n + m)).
// 2. Sparse stress majorization (Ortmann, Klimenta & Brandes 2016): Gauss–Seidel sweeps drawing each bus
//    towards where its branches (length 1) and the pivots (their hop distance, weight 1/d²) want it.
// A force layout (Fruchterman–Reingold, as the console used before) was measured first: on case9241pegase
// it gives one disc of overlapping buses whatever the iteration count; this gives its regions and feeders
// in 0.3 s (docs/console.md). Buses with coordinates of their own (pinned) stay where they are, scaled into
// the layout's units, and pull the others into place. Deterministic: the same network always looks the same.

export interface LayoutInput {
  /** number of buses */
  n: number;
  /** branch ends as bus positions (0-based), two per branch */
  edges: Int32Array;
  /** pinned positions (x, y per bus; NaN = free) or null when none */
  pinned: Float64Array | null;
}

/** Most pivots; sweeps of the stress majorization. */
const PIVOTS = 64;
const SWEEPS = 40;

/** x, y per bus, interleaved (a branch about one unit long). */
export function stressLayout({ n, edges, pinned }: LayoutInput): Float64Array {
  const x = new Float64Array(n), y = new Float64Array(n);
  const out = new Float64Array(2 * n);
  if (n <= 2) { for (let i = 0; i < n; i++) out[2 * i] = i; return out; }
  const g = adjacency(n, edges);
  const { k, d, pivots } = pivotDistances(n, g);
  classicalScaling(n, k, d, x, y);
  const fixed = new Uint8Array(n);
  if (pinned) placePinned(n, pinned, x, y, fixed);
  sparseStress(n, g, k, d, pivots, fixed, x, y);
  for (let i = 0; i < n; i++) { out[2 * i] = Math.round(x[i]! * 1000) / 1000; out[2 * i + 1] = Math.round(y[i]! * 1000) / 1000; }
  return out;
}

interface Adjacency { start: Int32Array; next: Int32Array }

function adjacency(n: number, edges: Int32Array): Adjacency {
  const start = new Int32Array(n + 1);
  for (let e = 0; e < edges.length; e++) start[edges[e]! + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const next = new Int32Array(edges.length), at = start.slice(0, n);
  for (let e = 0; e < edges.length; e += 2) { const a = edges[e]!, b = edges[e + 1]!; next[at[a]!++] = b; next[at[b]!++] = a; }
  return { start, next };
}

/** Hop distances from k pivots (row p of d: pivot p to every bus); a bus another component holds is put
 *  just beyond the farthest bus reached. */
function pivotDistances(n: number, g: Adjacency): { k: number; d: Float64Array; pivots: Int32Array } {
  const k = Math.min(PIVOTS, n);
  const d = new Float64Array(k * n), minD = new Float64Array(n).fill(Infinity), queue = new Int32Array(n), pivots = new Int32Array(k);
  let pivot = 0;
  for (let p = 0; p < k; p++) {
    pivots[p] = pivot;
    const row = d.subarray(p * n, (p + 1) * n);
    row.fill(-1);
    row[pivot] = 0; queue[0] = pivot;
    let head = 0, tail = 1, far = 0;
    while (head < tail) {
      const u = queue[head++]!;
      for (let q = g.start[u]!; q < g.start[u + 1]!; q++) {
        const v = g.next[q]!;
        if (row[v]! < 0) { row[v] = row[u]! + 1; far = row[v]!; queue[tail++] = v; }
      }
    }
    for (let i = 0; i < n; i++) if (row[i]! < 0) row[i] = far + 1;
    // next: the bus farthest from every pivot so far
    let best = 0;
    for (let i = 0; i < n; i++) { minD[i] = Math.min(minD[i]!, row[i]!); if (minD[i]! > minD[best]!) best = i; }
    pivot = best;
  }
  return { k, d, pivots };
}

/** Classical scaling of the pivot distances (double-centred squares, the two leading eigenvectors of CᵀC),
 *  brought to hop units: its widest extent spans the largest pivot distance. */
function classicalScaling(n: number, k: number, d: Float64Array, x: Float64Array, y: Float64Array): void {
  const c = new Float64Array(k * n), colMean = new Float64Array(k), rowMean = new Float64Array(n);
  let all = 0, far = 0;
  for (let p = 0; p < k; p++) for (let i = 0; i < n; i++) {
    const v = d[p * n + i]! ** 2;
    c[p * n + i] = v; colMean[p]! += v / n; rowMean[i]! += v / k; all += v; far = Math.max(far, d[p * n + i]!);
  }
  all /= n * k;
  for (let p = 0; p < k; p++) for (let i = 0; i < n; i++) c[p * n + i] = -0.5 * (c[p * n + i]! - colMean[p]! - rowMean[i]! + all);
  const ctc = new Float64Array(k * k);
  for (let p = 0; p < k; p++) for (let q = p; q < k; q++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += c[p * n + i]! * c[q * n + i]!;
    ctc[p * k + q] = s; ctc[q * k + p] = s;
  }
  const v1 = leadingEigenvector(ctc, k, null), v2 = leadingEigenvector(ctc, k, v1);
  let span = 0;
  for (let i = 0; i < n; i++) {
    let a = 0, b = 0;
    for (let p = 0; p < k; p++) { a += c[p * n + i]! * v1[p]!; b += c[p * n + i]! * v2[p]!; }
    x[i] = a; y[i] = b;
    span = Math.max(span, Math.abs(a), Math.abs(b));
  }
  const s = span > 0 ? far / (2 * span) : 1;
  for (let i = 0; i < n; i++) { x[i]! *= s; y[i]! *= s; }
}

/** Power iteration on a symmetric k × k matrix, kept orthogonal to `other` when given. */
function leadingEigenvector(m: Float64Array, k: number, other: Float64Array | null): Float64Array {
  let v = new Float64Array(k), w = new Float64Array(k);
  for (let p = 0; p < k; p++) v[p] = 1 + ((p * 7919) % 13) / 13;
  for (let it = 0; it < 200; it++) {
    if (other) { let dot = 0; for (let p = 0; p < k; p++) dot += v[p]! * other[p]!; for (let p = 0; p < k; p++) v[p]! -= dot * other[p]!; }
    let norm = 0;
    for (let p = 0; p < k; p++) { let s = 0; for (let q = 0; q < k; q++) s += m[p * k + q]! * v[q]!; w[p] = s; norm += s * s; }
    norm = Math.sqrt(norm) || 1;
    for (let p = 0; p < k; p++) w[p]! /= norm;
    [v, w] = [w, v];
  }
  return v;
}

function sparseStress(n: number, g: Adjacency, k: number, d: Float64Array, pivots: Int32Array, fixed: Uint8Array,
  x: Float64Array, y: Float64Array): void {
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    for (let i = 0; i < n; i++) {
      if (fixed[i]) continue;
      let sx = 0, sy = 0, sw = 0;
      const xi = x[i]!, yi = y[i]!;
      for (let q = g.start[i]!; q < g.start[i + 1]!; q++) {
        const j = g.next[q]!;
        const dx = xi - x[j]!, dy = yi - y[j]!, dist = Math.sqrt(dx * dx + dy * dy) || 1e-6;
        sx += x[j]! + dx / dist; sy += y[j]! + dy / dist; sw += 1;
      }
      for (let p = 0; p < k; p++) {
        const j = pivots[p]!;
        if (j === i) continue;
        const dij = d[p * n + i]!, w = 1 / (dij * dij);
        const dx = xi - x[j]!, dy = yi - y[j]!, dist = Math.sqrt(dx * dx + dy * dy) || 1e-6;
        sx += w * (x[j]! + (dij * dx) / dist); sy += w * (y[j]! + (dij * dy) / dist); sw += w;
      }
      if (sw > 0) { x[i] = sx / sw; y[i] = sy / sw; }
    }
  }
}

/** Pinned buses at their coordinates, scaled and centred onto the scaling's extent. */
function placePinned(n: number, pinned: Float64Array, x: Float64Array, y: Float64Array, fixed: Uint8Array): void {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity, count = 0;
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < n; i++) { lo = Math.min(lo, x[i]!, y[i]!); hi = Math.max(hi, x[i]!, y[i]!); }
  for (let i = 0; i < n; i++) {
    const px = pinned[2 * i]!, py = pinned[2 * i + 1]!;
    if (Number.isNaN(px) || Number.isNaN(py)) continue;
    count++;
    minX = Math.min(minX, px); maxX = Math.max(maxX, px); minY = Math.min(minY, py); maxY = Math.max(maxY, py);
  }
  if (count === 0) return;
  const scale = (hi - lo || 1) / (Math.max(maxX - minX, maxY - minY) || 1);
  const midX = (minX + maxX) / 2, midY = (minY + maxY) / 2;
  for (let i = 0; i < n; i++) {
    const px = pinned[2 * i]!, py = pinned[2 * i + 1]!;
    if (Number.isNaN(px) || Number.isNaN(py)) continue;
    x[i] = (px - midX) * scale; y[i] = (py - midY) * scale; fixed[i] = 1;
  }
}
