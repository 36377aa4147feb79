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
  private work: StaticArray<f64> = new StaticArray<f64>(0);

  constructor(h: MeasurementJacobian) {
    const n = h.n;
    this.n = n;
    this.work = new StaticArray<f64>(n);
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
    this.lu.analyze(n, this.gp, this.gi);
  }

  /** G's values and F = Hᵀ W r for weights w and residuals r. */
  assemble(h: MeasurementJacobian, w: StaticArray<f64>, r: StaticArray<f64>, F: StaticArray<f64>): void {
    const x = ptr(this.work), hp = ptr(h.hp), hj = ptr(h.hj), hx = ptr(h.hx), cp = ptr(h.cp), ci = ptr(h.ci), cs = ptr(h.cs);
    const gp = ptr(this.gp), gi = ptr(this.gi), gx = ptr(this.gx), wp = ptr(w), rp = ptr(r);
    for (let j = 0; j < this.n; j++) {
      let fj = 0.0;
      for (let q = geti(cp, j); q < geti(cp, j + 1); q++) {
        const i = geti(ci, q);
        const wi = getf(wp, i);
        if (wi == 0.0) continue;
        const a = getf(hx, geti(cs, q)) * wi;
        fj += a * getf(rp, i);
        for (let p = geti(hp, i); p < geti(hp, i + 1); p++) {
          const k = geti(hj, p);
          setf(x, k, getf(x, k) + a * getf(hx, p));
        }
      }
      unchecked(F[j] = fj);
      for (let p = geti(gp, j); p < geti(gp, j + 1); p++) {
        const k = geti(gi, p);
        setf(gx, p, getf(x, k));
        setf(x, k, 0.0);
      }
    }
  }

  /** false when G is numerically singular (the set is not observable at this state). */
  factor(): bool { return this.lu.factor(this.gx) && !this.lu.singular; }
  solve(b: StaticArray<f64>): void { this.lu.solve(b); }
}

function sortRange(a: StaticArray<i32>, lo: i32, hi: i32): void {
  for (let p = lo + 1; p < hi; p++) {
    const v = a[p];
    let q = p - 1;
    while (q >= lo && a[q] > v) { a[q + 1] = a[q]; q--; }
    a[q + 1] = v;
  }
}
