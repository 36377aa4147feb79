// The gain matrix G = Hᵀ W H (W = diag 1/σ², 0 for a removed measurement) and the weighted gradient
// F = Hᵀ W r, with G factorised through the project's sparse LU (assembly/sparse/lu.ts: AMD order analysed once
// per pattern, numeric factorisation every iteration). doSE forms G dense; its pattern here is the symbolic
// product of H's pattern with itself, fixed for an estimate.
import { SparseLU } from '../sparse/lu';
import { getf, geti, ptr, setf } from '../sparse/raw';
import { MeasurementJacobian } from './jacobian';

export class GainMatrix {
  n: i32;
  gp: StaticArray<i32> = new StaticArray<i32>(0);
  gi: StaticArray<i32> = new StaticArray<i32>(0);
  gx: StaticArray<f64> = new StaticArray<f64>(0);
  lu: SparseLU = new SparseLU();
  /** For row i of H and its entries p, q (in row order): the slot of G(hj[q], hj[p]) in gx, rows one after another. */
  pairSlot: StaticArray<i32> = new StaticArray<i32>(0);

  constructor(h: MeasurementJacobian) {
    const n = h.n;
    this.n = n;
    const mark = new StaticArray<i32>(n);
    for (let j = 0; j < n; j++) mark[j] = -1;
    // two sweeps: count, then fill
    this.gp = new StaticArray<i32>(n + 1);
    for (let sweep = 0; sweep < 2; sweep++) {
      let len = 0;
      for (let j = 0; j < n; j++) mark[j] = -1;
      for (let j = 0; j < n; j++) {
        const start = len;
        if (sweep == 0) this.gp[j] = len;
        for (let q = h.cp[j]; q < h.cp[j + 1]; q++) {
          const i = h.ci[q];
          for (let p = h.hp[i]; p < h.hp[i + 1]; p++) {
            const k = h.hj[p];
            if (mark[k] == j) continue;
            mark[k] = j;
            if (sweep == 1) this.gi[len] = k;
            len++;
          }
        }
        if (sweep == 1) sortRange(this.gi, start, len);
      }
      if (sweep == 0) { this.gp[n] = len; this.gi = new StaticArray<i32>(len); this.gx = new StaticArray<f64>(len); }
    }
    this.pairSlot = pairSlots(h, this.gp, this.gi);
    this.lu.analyze(n, this.gp, this.gi);
  }

  /** G's values and F = Hᵀ W r for weights w and residuals r: each measurement row adds w h_iᵀ h_i into the
   *  slots found for its pairs of entries when the pattern was built (no search, no scatter-gather). */
  assemble(h: MeasurementJacobian, w: StaticArray<f64>, r: StaticArray<f64>, F: StaticArray<f64>): void {
    const hp = ptr(h.hp), hj = ptr(h.hj), hx = ptr(h.hx), gx = ptr(this.gx), wp = ptr(w), rp = ptr(r), fp = ptr(F);
    const slot = ptr(this.pairSlot);
    const nnz = this.gp[this.n];
    for (let p = 0; p < nnz; p++) setf(gx, p, 0.0);
    for (let j = 0; j < this.n; j++) setf(fp, j, 0.0);
    let s = 0;
    for (let i = 0; i < h.m; i++) {
      const p0 = geti(hp, i), p1 = geti(hp, i + 1);
      const wi = getf(wp, i);
      if (wi == 0.0) { s += (p1 - p0) * (p1 - p0); continue; }
      const ri = getf(rp, i);
      for (let p = p0; p < p1; p++) {
        const hv = getf(hx, p), a = wi * hv;
        const j = geti(hj, p);
        setf(fp, j, getf(fp, j) + a * ri); // (w h) r, as F was summed before: the same rounding, the same iterations
        for (let q = p0; q < p1; q++) {
          const t = geti(slot, s++);
          setf(gx, t, getf(gx, t) + a * getf(hx, q));
        }
      }
    }
  }

  /** false when G is numerically singular (the set is not observable at this state). */
  factor(): bool { return this.lu.factor(this.gx) && !this.lu.singular; }
  solve(b: StaticArray<f64>): void { this.lu.solve(b); }
}

/** Every row's entries form a clique of G's pattern: the slot of each pair, by binary search in G's sorted columns. */
function pairSlots(h: MeasurementJacobian, gp: StaticArray<i32>, gi: StaticArray<i32>): StaticArray<i32> {
  let len = 0;
  for (let i = 0; i < h.m; i++) { const k = h.hp[i + 1] - h.hp[i]; len += k * k; }
  const slot = new StaticArray<i32>(len);
  let s = 0;
  for (let i = 0; i < h.m; i++) {
    for (let p = h.hp[i]; p < h.hp[i + 1]; p++) {
      const col = h.hj[p];
      for (let q = h.hp[i]; q < h.hp[i + 1]; q++) slot[s++] = findRow(gi, gp[col], gp[col + 1], h.hj[q]);
    }
  }
  return slot;
}

/** Position of row `row` in the ascending run gi[lo..hi) (it is there: G's pattern holds every pair). */
export function findRow(gi: StaticArray<i32>, lo: i32, hi: i32, row: i32): i32 {
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (unchecked(gi[mid]) <= row) lo = mid; else hi = mid;
  }
  return lo;
}

function sortRange(a: StaticArray<i32>, lo: i32, hi: i32): void {
  for (let p = lo + 1; p < hi; p++) {
    const v = a[p];
    let q = p - 1;
    while (q >= lo && a[q] > v) { a[q + 1] = a[q]; q--; }
    a[q + 1] = v;
  }
}
