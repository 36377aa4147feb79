// Sparse LU factorisation P·A = L·U (first, simple version: natural column
// order, Gilbert–Peierls left-looking with threshold partial pivoting).
// The interface is final; the ordering and the static-pattern refactorisation
// come next.

/** Diagonal preferred while |a_kk| ≥ PIVOT_TOL · max|candidate| (KLU's default). */
const PIVOT_TOL: f64 = 1e-3;
/** A pivot ≤ SINGULAR_TOL · (largest entry seen in its column) is treated as zero. */
const SINGULAR_TOL: f64 = 1e-12;

export class SparseLU {
  n: i32 = 0;
  singular: bool = false;

  private colPtr: StaticArray<i32> = new StaticArray<i32>(1);
  private rowIdx: StaticArray<i32> = new StaticArray<i32>(0);

  // L (unit lower, diagonal stored first) and U (diagonal stored last), by column.
  private Lp: StaticArray<i32> = new StaticArray<i32>(1);
  private Li: StaticArray<i32> = new StaticArray<i32>(0);
  private Lx: StaticArray<f64> = new StaticArray<f64>(0);
  private Up: StaticArray<i32> = new StaticArray<i32>(1);
  private Ui: StaticArray<i32> = new StaticArray<i32>(0);
  private Ux: StaticArray<f64> = new StaticArray<f64>(0);

  private pinv: StaticArray<i32> = new StaticArray<i32>(0); // row -> pivot step
  private prow: StaticArray<i32> = new StaticArray<i32>(0); // pivot step -> row
  private x: StaticArray<f64> = new StaticArray<f64>(0);
  private xi: StaticArray<i32> = new StaticArray<i32>(0);   // reach output
  private stack: StaticArray<i32> = new StaticArray<i32>(0);
  private pstack: StaticArray<i32> = new StaticArray<i32>(0);
  private mark: StaticArray<i32> = new StaticArray<i32>(0);
  private stamp: i32 = 0;

  analyze(n: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>): void {
    this.n = n;
    this.singular = false;
    this.colPtr = colPtr;
    this.rowIdx = rowIdx;
    const nnz = unchecked(colPtr[n]);
    const cap = 4 * nnz + n;
    this.Lp = new StaticArray<i32>(n + 1);
    this.Up = new StaticArray<i32>(n + 1);
    this.Li = new StaticArray<i32>(cap);
    this.Lx = new StaticArray<f64>(cap);
    this.Ui = new StaticArray<i32>(cap);
    this.Ux = new StaticArray<f64>(cap);
    this.pinv = new StaticArray<i32>(n);
    this.prow = new StaticArray<i32>(n);
    this.x = new StaticArray<f64>(n);
    this.xi = new StaticArray<i32>(n);
    this.stack = new StaticArray<i32>(n);
    this.pstack = new StaticArray<i32>(n);
    this.mark = new StaticArray<i32>(n);
    this.stamp = 0;
  }

  factor(values: StaticArray<f64>): bool {
    const n = this.n;
    const Ap = this.colPtr, Ai = this.rowIdx;
    const pinv = this.pinv, x = this.x, xi = this.xi;
    for (let i = 0; i < n; i++) unchecked(pinv[i] = -1);
    let lnz = 0, unz = 0;
    for (let k = 0; k < n; k++) {
      // Storage grows only if fill exceeds the estimate (this version only).
      if (lnz + n > this.Li.length) this.growL(2 * this.Li.length + n);
      if (unz + n > this.Ui.length) this.growU(2 * this.Ui.length + n);
      const Lp = this.Lp, Li = this.Li, Lx = this.Lx, Ui = this.Ui, Ux = this.Ux, Up = this.Up;
      unchecked(Lp[k] = lnz);
      unchecked(Up[k] = unz);
      const top = this.reach(k);
      for (let p = top; p < n; p++) unchecked(x[xi[p]] = 0.0);
      let scale: f64 = 0.0;
      for (let p = unchecked(Ap[k]); p < unchecked(Ap[k + 1]); p++) {
        const v = unchecked(values[p]);
        unchecked(x[Ai[p]] = v);
        scale = max(scale, abs(v));
      }
      // x = L \ A(:,k) in topological order.
      for (let px = top; px < n; px++) {
        const j = unchecked(xi[px]);
        const J = unchecked(pinv[j]);
        if (J < 0) continue;
        const xj = unchecked(x[j]);
        const end = unchecked(Lp[J + 1]);
        for (let p = unchecked(Lp[J]) + 1; p < end; p++) {
          unchecked(x[Li[p]] -= Lx[p] * xj);
        }
      }
      let ipiv = -1;
      let a: f64 = -1.0;
      for (let p = top; p < n; p++) {
        const i = unchecked(xi[p]);
        const t = abs(unchecked(x[i]));
        if (unchecked(pinv[i]) < 0) {
          if (!(t <= a)) { a = t; ipiv = i; } // NaN wins, so it is caught below
        } else {
          unchecked(Ui[unz] = pinv[i]);
          unchecked(Ux[unz] = x[i]);
          unz++;
          scale = max(scale, t);
        }
      }
      if (ipiv < 0 || !(a > SINGULAR_TOL * scale) || !isFinite(a) || !isFinite(scale)) {
        this.singular = true;
        return false;
      }
      if (unchecked(pinv[k]) < 0 && abs(unchecked(x[k])) >= PIVOT_TOL * a) ipiv = k;
      const piv = unchecked(x[ipiv]);
      unchecked(Ui[unz] = k);
      unchecked(Ux[unz] = piv);
      unz++;
      unchecked(pinv[ipiv] = k);
      unchecked(Li[lnz] = ipiv);
      unchecked(Lx[lnz] = 1.0);
      lnz++;
      for (let p = top; p < n; p++) {
        const i = unchecked(xi[p]);
        if (unchecked(pinv[i]) < 0) {
          unchecked(Li[lnz] = i);
          unchecked(Lx[lnz] = x[i] / piv);
          lnz++;
        }
        unchecked(x[i] = 0.0);
      }
    }
    unchecked(this.Lp[n] = lnz);
    unchecked(this.Up[n] = unz);
    const Li = this.Li;
    for (let p = 0; p < lnz; p++) unchecked(Li[p] = pinv[Li[p]]);
    const prow = this.prow;
    for (let i = 0; i < n; i++) unchecked(prow[pinv[i]] = i);
    this.singular = false;
    return true;
  }

  solve(b: StaticArray<f64>): void {
    const n = this.n;
    const x = this.x, prow = this.prow;
    const Lp = this.Lp, Li = this.Li, Lx = this.Lx, Up = this.Up, Ui = this.Ui, Ux = this.Ux;
    for (let k = 0; k < n; k++) unchecked(x[k] = b[prow[k]]);
    for (let j = 0; j < n; j++) {
      const xj = unchecked(x[j]);
      const end = unchecked(Lp[j + 1]);
      for (let p = unchecked(Lp[j]) + 1; p < end; p++) unchecked(x[Li[p]] -= Lx[p] * xj);
    }
    for (let j = n - 1; j >= 0; j--) {
      const start = unchecked(Up[j]);
      const d = unchecked(Up[j + 1]) - 1;
      const xj = unchecked(x[j]) / unchecked(Ux[d]);
      unchecked(x[j] = xj);
      for (let p = start; p < d; p++) unchecked(x[Ui[p]] -= Ux[p] * xj);
    }
    for (let k = 0; k < n; k++) {
      unchecked(b[k] = x[k]);
      unchecked(x[k] = 0.0);
    }
  }

  /** Rows reachable from the pattern of A(:,k) in the graph of L, in
   *  topological order, into xi[top..n-1]. Iterative depth-first search. */
  private reach(k: i32): i32 {
    const n = this.n;
    const Ap = this.colPtr, Ai = this.rowIdx;
    const Lp = this.Lp, Li = this.Li, pinv = this.pinv;
    const xi = this.xi, stack = this.stack, pstack = this.pstack, mark = this.mark;
    const s = ++this.stamp;
    let top = n;
    for (let p = unchecked(Ap[k]); p < unchecked(Ap[k + 1]); p++) {
      const r = unchecked(Ai[p]);
      if (unchecked(mark[r]) == s) continue;
      let head = 0;
      unchecked(stack[0] = r);
      while (head >= 0) {
        const j = unchecked(stack[head]);
        const J = unchecked(pinv[j]);
        if (unchecked(mark[j]) != s) {
          unchecked(mark[j] = s);
          unchecked(pstack[head] = J < 0 ? 0 : unchecked(Lp[J]) + 1);
        }
        let done = true;
        const end = J < 0 ? 0 : unchecked(Lp[J + 1]);
        let p2 = unchecked(pstack[head]);
        for (; p2 < end; p2++) {
          const i = unchecked(Li[p2]);
          if (unchecked(mark[i]) == s) continue;
          unchecked(pstack[head] = p2 + 1);
          unchecked(stack[++head] = i);
          done = false;
          break;
        }
        if (done) {
          head--;
          unchecked(xi[--top] = j);
        }
      }
    }
    return top;
  }

  private growL(cap: i32): void {
    const Li = new StaticArray<i32>(cap), Lx = new StaticArray<f64>(cap);
    for (let p = 0; p < this.Li.length; p++) { unchecked(Li[p] = this.Li[p]); unchecked(Lx[p] = this.Lx[p]); }
    this.Li = Li; this.Lx = Lx;
  }

  private growU(cap: i32): void {
    const Ui = new StaticArray<i32>(cap), Ux = new StaticArray<f64>(cap);
    for (let p = 0; p < this.Ui.length; p++) { unchecked(Ui[p] = this.Ui[p]); unchecked(Ux[p] = this.Ux[p]); }
    this.Ui = Ui; this.Ux = Ux;
  }
}
