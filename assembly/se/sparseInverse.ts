// The sparse inverse subset of the gain matrix (Takahashi, Fagan and Chen 1973; Erisman and Tinney 1975): the
// entries of Z = G⁻¹ on the pattern of G's factor, from the factor alone, in one backward pass. With the symmetric
// order of the analysis, A = Qᵀ G Q = L D Lᵀ (the LU's U is D Lᵀ), and Lᵀ Z = D⁻¹ L⁻¹ gives, column i from the last:
//   Z_ij = −Σ_{k ∈ L(:,i), k > i} L_ki Z_kj   (j ∈ L(:,i), j > i),     Z_ii = 1/D_i − Σ_{k > i} L_ki Z_ki,
// where every Z_kj needed lies in the pattern already computed (the rows of a column of L form a clique of the
// filled graph). A measurement's h_i touches a clique of G, hence of L: H_i G⁻¹ H_iᵀ needs only these entries.
import { getf, geti, ptr, setf, seti } from '../sparse/raw';
import { SparseLU } from '../sparse/lu';
import { findRow } from './gain';
import { MeasurementJacobian } from './jacobian';

export class SparseInverseSubset {
  n: i32;
  /** Z on L's storage: the value for step-row Li[p] of step-column c at slot p (the diagonal first in each column). */
  zx: StaticArray<f64> = new StaticArray<f64>(0);
  /** For each row of H, the slots of Z(step(hj[p]), step(hj[q])) for its pairs p, q (as GainMatrix.pairSlot). */
  pairSlot: StaticArray<i32> = new StaticArray<i32>(0);
  /** The pattern these slots belong to: the LU's pivoting fallbacks when they were found (a fallback re-analyses). */
  private fallbacksAt: i32 = -1;
  private acc: StaticArray<f64> = new StaticArray<f64>(0);
  /** mark[r] == i: step r is in L(:,i), at slot at[r] */
  private mark: StaticArray<i32> = new StaticArray<i32>(0);
  private at: StaticArray<i32> = new StaticArray<i32>(0);

  constructor(n: i32) {
    this.n = n;
    this.acc = new StaticArray<f64>(n);
    this.mark = new StaticArray<i32>(n);
    this.at = new StaticArray<i32>(n);
  }

  /** Z on the factor's pattern of the LU just factorised; false when its pivots are not symmetric (a pivoting
   *  fallback chose other rows): the caller then solves per measurement. */
  compute(lu: SparseLU, h: MeasurementJacobian): bool {
    if (!lu.symmetricPivots()) return false;
    const f = lu.factors(), n = this.n;
    if (this.fallbacksAt != lu.fallbacks) {
      if (this.zx.length < f.nnzL(n)) this.zx = new StaticArray<f64>(f.nnzL(n));
      this.pairSlot = zPairSlots(h, lu);
      this.fallbacksAt = lu.fallbacks;
    }
    const lp = ptr(f.Lp), li = ptr(f.Li), lx = ptr(f.Lx), up = ptr(f.Up), ux = ptr(f.Ux);
    const zx = ptr(this.zx), acc = ptr(this.acc), mark = ptr(this.mark), at = ptr(this.at);
    for (let k = 0; k < n; k++) seti(mark, k, -1);
    for (let i = n - 1; i >= 0; i--) {
      const c0 = geti(lp, i) + 1, c1 = geti(lp, i + 1); // L(:,i) below the diagonal
      for (let p = c0; p < c1; p++) {
        const r = geti(li, p);
        seti(mark, r, i);
        seti(at, r, p);
        setf(acc, r, 0.0);
      }
      for (let p = c0; p < c1; p++) {
        const k = geti(li, p), lki = getf(lx, p);
        // column k of Z: its diagonal, then rows r > k, of which those in L(:,i) pair with k
        setf(acc, k, getf(acc, k) + lki * getf(zx, geti(lp, k)));
        for (let t = geti(lp, k) + 1; t < geti(lp, k + 1); t++) {
          const r = geti(li, t);
          if (geti(mark, r) != i) continue;
          const zrk = getf(zx, t);
          setf(acc, r, getf(acc, r) + lki * zrk); // Z_ir gets L_ki Z_kr
          setf(acc, k, getf(acc, k) + getf(lx, geti(at, r)) * zrk); // Z_ik gets L_ri Z_rk
        }
      }
      let zii = 1.0 / getf(ux, geti(up, i + 1) - 1);
      for (let p = c0; p < c1; p++) {
        const zik = -getf(acc, geti(li, p));
        setf(zx, p, zik);
        zii -= getf(lx, p) * zik;
      }
      setf(zx, geti(lp, i), zii);
    }
    return true;
  }

  /** H_i G⁻¹ H_iᵀ of measurement row i, its pairs' slots starting at s. */
  quadratic(h: MeasurementJacobian, i: i32, s: i32): f64 {
    const hx = ptr(h.hx), zx = ptr(this.zx), slot = ptr(this.pairSlot);
    const p0 = unchecked(h.hp[i]), p1 = unchecked(h.hp[i + 1]);
    let q = 0.0;
    for (let p = p0; p < p1; p++) {
      let row = 0.0;
      for (let t = p0; t < p1; t++) row += getf(hx, t) * getf(zx, geti(slot, s++));
      q += getf(hx, p) * row;
    }
    return q;
  }
}

/** The Z slot of every pair of entries of every row of H (rows one after another, k² per row of k entries). */
function zPairSlots(h: MeasurementJacobian, lu: SparseLU): StaticArray<i32> {
  const f = lu.factors(), q = lu.columnOrder(), n = h.n;
  const step = new StaticArray<i32>(n);
  for (let k = 0; k < n; k++) step[q[k]] = k;
  let len = 0;
  for (let i = 0; i < h.m; i++) { const k = h.hp[i + 1] - h.hp[i]; len += k * k; }
  const slot = new StaticArray<i32>(len);
  let s = 0;
  for (let i = 0; i < h.m; i++) {
    for (let p = h.hp[i]; p < h.hp[i + 1]; p++) {
      for (let t = h.hp[i]; t < h.hp[i + 1]; t++) {
        const a = step[h.hj[p]], b = step[h.hj[t]];
        const c = min(a, b), r = max(a, b);
        slot[s++] = findRow(f.Li, f.Lp[c], f.Lp[c + 1], r);
      }
    }
  }
  return slot;
}
