// Sparse LU for the power-flow methods, in the KLU / lightsim2grid style:
//   analyze  (once per sparsity pattern) — AMD ordering of A + Aᵀ, then the
//            exact structure of L and U for pivots on the permuted diagonal;
//   factor   (every Newton iteration) — left-looking numeric factorisation on
//            that static structure, every pivot checked; if one is too small,
//            a Gilbert–Peierls factorisation with threshold partial pivoting
//            takes over and its pivot sequence (and structure) becomes the
//            static one for the following calls — a one-time re-analysis
//            (or, with keepStaticOrder, serves that call only); an adopted
//            sequence is refactorised with refactorPivotTol, KLU's factor
//            once / refactor many;
//   analyzeOrdered — the same for a pivot sequence the caller chose (the
//            OPF's KKT systems: assembly/opf/kktOrder.ts);
//   solve    — permuted forward/back substitution.
// P·A·Q = L·U with Q the fill-reducing column order and P the pivot rows.
// All work arrays are fields sized in analyze: factor and solve allocate
// nothing (the pivoting fallback may grow the factors' storage if its pivots
// cause more fill than the room kept for it).
import { amdOrder } from './amd';
import { LUFactors } from './factors';
import { pivotingLU } from './pivoting';
import { getf, geti, ptr, scatterAxpy, setf } from './raw';
import { refactorLU } from './refactor';
import { PIVOT_TOL } from './tolerances';
import { sortFactorColumns } from './sort';
import { findSupernodes } from './supernodes';
import { symbolicLU } from './factorPattern';

export class SparseLU {
  n: i32 = 0;
  /** Set by factor() when a pivot is zero / tiny / not finite even with pivoting. */
  singular: bool = false;
  /** Times factor() had to fall back to the pivoting factorisation. */
  fallbacks: i32 = 0;
  /** Threshold for keeping the static pivots in factor() (PIVOT_TOL by default). An interior-point
   *  KKT system changes its values by orders of magnitude between iterations; a smaller threshold
   *  keeps the sequence the pivoting fallback chose instead of redoing it every time. */
  staticPivotTol: f64 = PIVOT_TOL;
  /** Keep the analysed pivot sequence: a pivoting fallback serves only the factorisation that needed
   *  it, and the next one returns to the static sequence (whose structure is far sparser for a
   *  saddle-point system than the one partial pivoting picks). Off: the fallback's sequence is adopted. */
  keepStaticOrder: bool = false;
  /** Threshold for keeping a pivot sequence the fallback chose and adopted (staticPivotTol until set). A matrix
   *  whose values move a lot between calls (a diverging Newton run's Jacobian) would otherwise be pivoted anew on
   *  every call; a pivot that fails even this threshold still pivots again. */
  refactorPivotTol: f64 = PIVOT_TOL;
  private restoreStatic: bool = false;
  /** The current pivot sequence is one the fallback chose (not the analysed one). */
  private adopted: bool = false;

  private Ap: StaticArray<i32> = new StaticArray<i32>(1);
  private Ai: StaticArray<i32> = new StaticArray<i32>(0);
  /** q[k]: original column eliminated at step k (fill-reducing order). */
  private q: StaticArray<i32> = new StaticArray<i32>(0);
  /** pinv[i]: step at which original row i is pivotal; prow is its inverse. */
  private pinv: StaticArray<i32> = new StaticArray<i32>(0);
  private prow: StaticArray<i32> = new StaticArray<i32>(0);
  /** A in pivot-column order for the refactorisation: column k (= original
   *  column q[k], whose values start at colAt[k]) is slots Apq[k] .. Apq[k+1]-1;
   *  entry p of A is slot slotOf[p], whose row step is stepOf[slot]. The values
   *  are read in place (refactor.ts). */
  private Apq: StaticArray<i32> = new StaticArray<i32>(1);
  private colAt: StaticArray<i32> = new StaticArray<i32>(0);
  private slotOf: StaticArray<i32> = new StaticArray<i32>(0);
  private stepOf: StaticArray<i32> = new StaticArray<i32>(0);
  /** snEnd[j]: last column of the supernode of L containing column j. */
  private snEnd: StaticArray<i32> = new StaticArray<i32>(0);
  private supernodesOn: bool = true;
  /** Current factors, and the spare storage the pivoting fallback writes into. */
  private f: LUFactors = new LUFactors(0, 0, 0);
  private g: LUFactors = new LUFactors(0, 0, 0);
  private pinvG: StaticArray<i32> = new StaticArray<i32>(0);
  private gRoom: i32 = 0;

  private ident: StaticArray<i32> = new StaticArray<i32>(0);
  private x: StaticArray<f64> = new StaticArray<f64>(0);
  private xi: StaticArray<i32> = new StaticArray<i32>(0);
  private stack: StaticArray<i32> = new StaticArray<i32>(0);
  private pstack: StaticArray<i32> = new StaticArray<i32>(0);
  private mark: StaticArray<i32> = new StaticArray<i32>(0);

  /** Symbolic analysis, once per sparsity pattern (may allocate). CSC input,
   *  row indices ascending within a column, no duplicates; copied. */
  analyze(n: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>): void {
    // Symmetric fill-reducing order: column q[k] and row q[k] at step k.
    const q = new StaticArray<i32>(n);
    amdOrder(n, colPtr, rowIdx, q);
    this.analyzeOrdered(n, colPtr, rowIdx, q, q);
  }

  /** Symbolic analysis for the caller's pivot sequence: column q[k] is eliminated at step k on
   *  original row prow[k] (a saddle-point system's 2×2 pivots, see assembly/opf/kktOrder.ts). */
  analyzeOrdered(n: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>, q: StaticArray<i32>, prow: StaticArray<i32>): void {
    this.n = n;
    this.singular = false;
    this.fallbacks = 0;
    this.restoreStatic = false;
    this.adopted = false;
    const nnz = unchecked(colPtr[n]);
    const Ap = new StaticArray<i32>(n + 1);
    const Ai = new StaticArray<i32>(nnz);
    for (let j = 0; j <= n; j++) unchecked(Ap[j] = colPtr[j]);
    for (let p = 0; p < nnz; p++) unchecked(Ai[p] = rowIdx[p]);
    this.Ap = Ap;
    this.Ai = Ai;

    this.x = new StaticArray<f64>(n);
    this.xi = new StaticArray<i32>(n);
    this.stack = new StaticArray<i32>(n);
    this.pstack = new StaticArray<i32>(n);
    this.mark = new StaticArray<i32>(n);
    this.ident = new StaticArray<i32>(n);
    for (let i = 0; i < n; i++) unchecked(this.ident[i] = i);

    const qq = new StaticArray<i32>(n);
    for (let k = 0; k < n; k++) unchecked(qq[k] = q[k]);
    this.q = qq;
    this.pinv = new StaticArray<i32>(n);
    this.prow = new StaticArray<i32>(n);
    for (let k = 0; k < n; k++) {
      unchecked(this.pinv[prow[k]] = k);
      unchecked(this.prow[k] = prow[k]);
    }
    this.pinvG = new StaticArray<i32>(n);
    this.Apq = new StaticArray<i32>(n + 1);
    this.slotOf = new StaticArray<i32>(nnz);
    this.stepOf = new StaticArray<i32>(nnz);
    this.colAt = new StaticArray<i32>(n);
    for (let k = 0; k < n; k++) {
      const col = unchecked(qq[k]);
      const start = unchecked(this.Apq[k]);
      unchecked(this.colAt[k] = Ap[col]);
      for (let p = unchecked(Ap[col]); p < unchecked(Ap[col + 1]); p++) unchecked(this.slotOf[p] = start + p - Ap[col]);
      unchecked(this.Apq[k + 1] = start + Ap[col + 1] - Ap[col]);
    }

    this.f.prepare(n, 2 * nnz + n, 2 * nnz + n);
    symbolicLU(n, Ap, Ai, qq, this.pinv, this.f, this.pinvG, this.xi, this.stack, this.pstack, this.mark);
    this.updateStepOf();
    this.snEnd = new StaticArray<i32>(n);
    this.refreshSupernodes();
    // Room for the fallback's factors (its pivots usually fill a little more) is made when a fallback
    // first needs it: a KKT system re-analysed within a solve keeps its storage.
    this.gRoom = this.f.nnzL(n) + this.f.nnzU(n) + n;
  }

  /** Numeric factorisation of a matrix with the analysed pattern. Returns false
   *  (and sets `singular`) when the matrix is numerically singular. */
  factor(values: StaticArray<f64>): bool {
    const n = this.n;
    if (this.factorStatic(values)) return true;
    // Static pivot too small: pivot for real, preferring the current rows.
    this.fallbacks++;
    this.g.prepare(n, this.gRoom, this.gRoom);
    const ok = pivotingLU(n, this.Ap, this.Ai, values, this.q, this.prow, this.ident, this.g,
      this.pinvG, this.x, this.xi, this.stack, this.pstack, this.mark);
    if (!ok) {
      this.singular = true;
      return false;
    }
    // Use the new pivot sequence and its structure: from now on, or (keepStaticOrder) for this
    // factorisation only.
    this.swapFactors(true);
    this.restoreStatic = this.keepStaticOrder;
    this.adopted = !this.keepStaticOrder;
    this.singular = false;
    return true;
  }

  /** Numeric factorisation on the analysed pivot sequence only: false (factors unusable, nothing
   *  else changed) when a pivot fails its test, so the caller may re-analyse before pivoting. */
  factorStatic(values: StaticArray<f64>): bool {
    if (this.restoreStatic) this.swapFactors(false);
    const tol = this.adopted ? this.refactorPivotTol : this.staticPivotTol;
    const failed = refactorLU(this.n, this.Apq, this.colAt, this.stepOf, values, this.f, this.snEnd, this.x, tol);
    if (failed >= 0) {
      // the work vector must be zero for whatever factorisation comes next
      for (let i = 0; i < this.n; i++) unchecked(this.x[i] = 0.0);
      return false;
    }
    this.singular = false;
    return true;
  }

  /** Exchanges the current factors and pivot sequence with the spare ones (fresh from the pivoting
   *  factorisation: their columns still to be sorted). */
  private swapFactors(fresh: bool): void {
    const f = this.f;
    this.f = this.g;
    this.g = f;
    const pinv = this.pinv;
    this.pinv = this.pinvG;
    this.pinvG = pinv;
    for (let i = 0; i < this.n; i++) unchecked(this.prow[this.pinv[i]] = i);
    this.updateStepOf();
    if (fresh) {
      const h = this.f;
      sortFactorColumns(this.n, h.Lp, h.Li, h.Lx, h.Up, h.Ui, h.Ux);
    }
    this.refreshSupernodes();
    this.restoreStatic = false;
  }

  /** Solves A x = b in place (b becomes x). After a failed factor(), b is
   *  filled with NaN rather than left looking like an answer. */
  solve(b: StaticArray<f64>): void {
    const n = this.n;
    if (this.singular) {
      for (let i = 0; i < n; i++) unchecked(b[i] = NaN);
      return;
    }
    const x = ptr(this.x), prow = ptr(this.prow), q = ptr(this.q), bp = ptr(b);
    const f = this.f;
    const lp = ptr(f.Lp), li = ptr(f.Li), lx = ptr(f.Lx), up = ptr(f.Up), ui = ptr(f.Ui), ux = ptr(f.Ux);
    for (let k = 0; k < n; k++) setf(x, k, getf(bp, geti(prow, k)));
    // L y = P b (unit diagonal stored first in each column)
    for (let j = 0; j < n; j++) {
      const xj = getf(x, j);
      if (xj != 0.0) scatterAxpy(x, li, lx, geti(lp, j) + 1, geti(lp, j + 1), xj);
    }
    // U z = y (diagonal stored last in each column)
    for (let j = n - 1; j >= 0; j--) {
      const d = geti(up, j + 1) - 1;
      const xj = getf(x, j) / getf(ux, d);
      setf(x, j, xj);
      if (xj != 0.0) scatterAxpy(x, ui, ux, geti(up, j), d, xj);
    }
    // x = Q z
    for (let k = 0; k < n; k++) {
      setf(bp, geti(q, k), getf(x, k));
      setf(x, k, 0.0);
    }
  }

  /** The current factors and column order, for reading only (a sparse inverse subset: assembly/se/sparseInverse.ts). */
  factors(): LUFactors { return this.f; }
  columnOrder(): StaticArray<i32> { return this.q; }
  /** Every step pivots on the row of its own column (P = Qᵀ): a symmetric matrix then has U = D Lᵀ. */
  symmetricPivots(): bool {
    if (this.singular) return false;
    for (let k = 0; k < this.n; k++) if (unchecked(this.prow[k]) != unchecked(this.q[k])) return false;
    return true;
  }

  /** Supernodal panel updates on (default) or off — off only to measure them. */
  setSupernodes(on: bool): void {
    this.supernodesOn = on;
    this.refreshSupernodes();
  }

  /** Nonzeros stored in L (unit diagonal included) and U. */
  nnzL(): i32 { return this.f.nnzL(this.n); }
  nnzU(): i32 { return this.f.nnzU(this.n); }

  /** Multiply-adds of one numeric factorisation with the current structure. */
  flops(): f64 {
    const f = this.f;
    let s: f64 = 0;
    for (let k = 0; k < this.n; k++) {
      const d = unchecked(f.Up[k + 1]) - 1;
      for (let p = unchecked(f.Up[k]); p < d; p++) {
        const j = unchecked(f.Ui[p]);
        s += <f64>(unchecked(f.Lp[j + 1]) - unchecked(f.Lp[j]) - 1);
      }
      s += <f64>(unchecked(f.Lp[k + 1]) - unchecked(f.Lp[k]) - 1);
    }
    return s;
  }

  private refreshSupernodes(): void {
    if (this.supernodesOn) findSupernodes(this.n, this.f.Lp, this.f.Li, this.snEnd);
    else for (let j = 0; j < this.n; j++) unchecked(this.snEnd[j] = j);
  }

  private updateStepOf(): void {
    const Ai = this.Ai, pinv = this.pinv, stepOf = this.stepOf, slotOf = this.slotOf;
    for (let p = 0; p < Ai.length; p++) unchecked(stepOf[slotOf[p]] = pinv[Ai[p]]);
  }
}
