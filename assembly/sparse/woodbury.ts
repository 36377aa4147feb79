// Sherman–Morrison–Woodbury for a change of a factorised matrix A confined to two indices a, b (rows and columns):
//   (A + E S Eᵀ)⁻¹ r = y − W (I + S Z)⁻¹ S Eᵀ y,   y = A⁻¹ r,  W = A⁻¹ E,  Z = Eᵀ W,
// E the unit columns e_a, e_b and S the 2 × 2 change (1 × 1 when only one index is in the system). prepare() takes
// one solve with A's factors per index (the columns of W; one in all when S is s (e_a − e_b)(e_a − e_b)ᵀ); apply()
// turns a solve with A's factors into a solve with the changed matrix in O(n), so the changed matrix is never
// factorised. det(I + S Z) = det(A + E S Eᵀ) / det(A): when it vanishes the changed matrix is singular and prepare()
// says so instead.
import { SparseLU } from './lu';
import { InverseColumns } from './inverseColumns';
import { getf, ptr, setf } from './raw';

/** |det(I + S Z)| below this: the changed matrix is singular to working precision (the caller refactorises it). */
const SINGULAR_RATIO: f64 = 1e-9;

export class RankTwoUpdate {
  /** indices in the system the change touches: 0, 1 (a) or 2 (a, b); 3: a and b with S of rank 1 (saa (e_a − e_b)(e_a − e_b)ᵀ) */
  k: i32 = 0;
  private a: i32 = -1;
  private b: i32 = -1;
  // W's columns: A⁻¹ e_a, A⁻¹ e_b
  private wa: StaticArray<f64> = new StaticArray<f64>(0);
  private wb: StaticArray<f64> = new StaticArray<f64>(0);
  // this update's own storage for W (wa / wb may be a cache's columns instead)
  private ownA: StaticArray<f64> = new StaticArray<f64>(0);
  private ownB: StaticArray<f64> = new StaticArray<f64>(0);
  // G = (I + S Z)⁻¹ S, row-major
  private g00: f64 = 0.0;
  private g01: f64 = 0.0;
  private g10: f64 = 0.0;
  private g11: f64 = 0.0;

  /** The change S = [[saa, sab], [sba, sbb]] (row a / column b first) at system indices a, b (−1: not in the
   *  system, its row and column of S dropped). False when the changed matrix is singular. columns (optional): the
   *  columns A⁻¹ e_a, A⁻¹ e_b from a cache of lu's factors of `generation` instead of solved here. */
  prepare(lu: SparseLU, n: i32, a: i32, b: i32, saa: f64, sab: f64, sba: f64, sbb: f64,
    columns: InverseColumns | null = null, generation: i32 = 0): bool {
    if (this.ownA.length != n) { this.ownA = new StaticArray<f64>(n); this.ownB = new StaticArray<f64>(n); }
    this.wa = this.ownA; this.wb = this.ownB;
    if (a < 0) { a = b; saa = sbb; b = -1; }
    else if (a == b) { saa = saa + sab + sba + sbb; b = -1; }
    this.a = a; this.b = b;
    this.k = a < 0 ? 0 : b < 0 ? 1 : 2;
    if (this.k == 0) return true;
    if (b >= 0 && nearly(sbb, saa) && nearly(sab, -saa) && nearly(sba, -saa)) {
      // S = saa (e_a − e_b)(e_a − e_b)ᵀ (B' of a branch without phase shift): Sherman–Morrison, one solve instead of two,
      // w = A⁻¹ (e_a − e_b) and det ratio 1 + saa (w_a − w_b)
      memory.fill(ptr(this.wa), 0, <usize>n << 3);
      unchecked(this.wa[a] = 1.0); unchecked(this.wa[b] = -1.0);
      lu.solve(this.wa);
      const m = 1.0 + saa * (unchecked(this.wa[a]) - unchecked(this.wa[b]));
      if (!(Math.abs(m) > SINGULAR_RATIO)) return false;
      this.g00 = saa / m;
      this.k = 3;
      return true;
    }
    if (columns !== null) this.wa = columns.column(lu, n, a, generation);
    else unitSolve(lu, this.wa, n, a);
    if (this.k == 1) {
      const m = 1.0 + saa * unchecked(this.wa[a]);
      if (!(Math.abs(m) > SINGULAR_RATIO)) return false;
      this.g00 = saa / m;
      return true;
    }
    if (columns !== null) this.wb = columns.column(lu, n, b, generation);
    else unitSolve(lu, this.wb, n, b);
    const zaa = unchecked(this.wa[a]), zab = unchecked(this.wb[a]), zba = unchecked(this.wa[b]), zbb = unchecked(this.wb[b]);
    // M = I + S Z
    const m00 = 1.0 + saa * zaa + sab * zba, m01 = saa * zab + sab * zbb;
    const m10 = sba * zaa + sbb * zba, m11 = 1.0 + sba * zab + sbb * zbb;
    const det = m00 * m11 - m01 * m10;
    if (!(Math.abs(det) > SINGULAR_RATIO)) return false;
    // G = M⁻¹ S
    const i00 = m11 / det, i01 = -m01 / det, i10 = -m10 / det, i11 = m00 / det;
    this.g00 = i00 * saa + i01 * sba; this.g01 = i00 * sab + i01 * sbb;
    this.g10 = i10 * saa + i11 * sba; this.g11 = i10 * sab + i11 * sbb;
    return true;
  }

  /** x = A⁻¹ r (a solve with A's factors) becomes (A + E S Eᵀ)⁻¹ r. */
  apply(x: StaticArray<f64>): void {
    const k = this.k;
    if (k == 0) return;
    // raw element access (./raw.ts): O(n) per half-step of every outage
    const n = x.length, xp = ptr(x), wa = ptr(this.wa);
    if (k == 1 || k == 3) {
      const u = this.g00 * (k == 1 ? unchecked(x[this.a]) : unchecked(x[this.a]) - unchecked(x[this.b]));
      for (let i = 0; i < n; i++) setf(xp, i, getf(xp, i) - u * getf(wa, i));
      return;
    }
    const wb = ptr(this.wb);
    const za = unchecked(x[this.a]), zb = unchecked(x[this.b]);
    const ua = this.g00 * za + this.g01 * zb, ub = this.g10 * za + this.g11 * zb;
    for (let i = 0; i < n; i++) setf(xp, i, getf(xp, i) - (ua * getf(wa, i) + ub * getf(wb, i)));
  }
}

/** w = A⁻¹ e_j. */
function unitSolve(lu: SparseLU, w: StaticArray<f64>, n: i32, j: i32): void {
  memory.fill(ptr(w), 0, <usize>n << 3);
  unchecked(w[j] = 1.0);
  lu.solve(w);
}

/** x and y equal to round-off (a branch's stamps, computed apart). */
// @ts-ignore: decorator
@inline
function nearly(x: f64, y: f64): bool {
  return Math.abs(x - y) <= 1e-14 * Math.abs(y);
}
