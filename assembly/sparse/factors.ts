// Storage of the triangular factors L·U = P·A·Q, column by column (CSC),
// shared by the symbolic analysis, the static-pattern refactorisation and the
// pivoting factorisation. Row indices are pivot steps (0..n-1), except while
// the pivoting factorisation is running (it stores original rows in Li and
// renumbers them at the end).
//   L: unit lower triangular; column k starts with its diagonal (value 1).
//   U: upper triangular; column k holds its off-diagonal rows in a
//      topological order of the column's elimination dependencies (ascending
//      steps, once sorted), then the diagonal last. That order is what lets
//      the left-looking refactorisation apply the updates in a single pass.

export class LUFactors {
  Lp: StaticArray<i32> = new StaticArray<i32>(1);
  Li: StaticArray<i32> = new StaticArray<i32>(0);
  Lx: StaticArray<f64> = new StaticArray<f64>(0);
  Up: StaticArray<i32> = new StaticArray<i32>(1);
  Ui: StaticArray<i32> = new StaticArray<i32>(0);
  Ux: StaticArray<f64> = new StaticArray<f64>(0);

  constructor(n: i32, capL: i32, capU: i32) {
    this.Lp = new StaticArray<i32>(n + 1);
    this.Up = new StaticArray<i32>(n + 1);
    this.Li = new StaticArray<i32>(capL);
    this.Lx = new StaticArray<f64>(capL);
    this.Ui = new StaticArray<i32>(capU);
    this.Ux = new StaticArray<f64>(capU);
  }

  /** Ready for a new analysis of order n with room for capL / capU entries: the storage already held is
   *  kept when it is large enough (a re-analysis of the same system: no allocation, nothing to clear,
   *  since the analysis writes every index and the factorisation every value). */
  prepare(n: i32, capL: i32, capU: i32): void {
    if (this.Lp.length != n + 1) { this.Lp = new StaticArray<i32>(n + 1); this.Up = new StaticArray<i32>(n + 1); }
    if (this.Li.length < capL) { this.Li = new StaticArray<i32>(capL); this.Lx = new StaticArray<f64>(capL); }
    if (this.Ui.length < capU) { this.Ui = new StaticArray<i32>(capU); this.Ux = new StaticArray<f64>(capU); }
  }

  /** Makes room for at least `need` entries of L, keeping the first `used`. */
  reserveL(need: i32, used: i32): void {
    if (need <= this.Li.length) return;
    const cap = max(need, 2 * this.Li.length);
    const Li = new StaticArray<i32>(cap), Lx = new StaticArray<f64>(cap);
    memory.copy(changetype<usize>(Li), changetype<usize>(this.Li), <usize>used << 2);
    memory.copy(changetype<usize>(Lx), changetype<usize>(this.Lx), <usize>used << 3);
    this.Li = Li;
    this.Lx = Lx;
  }

  /** Makes room for at least `need` entries of U, keeping the first `used`. */
  reserveU(need: i32, used: i32): void {
    if (need <= this.Ui.length) return;
    const cap = max(need, 2 * this.Ui.length);
    const Ui = new StaticArray<i32>(cap), Ux = new StaticArray<f64>(cap);
    memory.copy(changetype<usize>(Ui), changetype<usize>(this.Ui), <usize>used << 2);
    memory.copy(changetype<usize>(Ux), changetype<usize>(this.Ux), <usize>used << 3);
    this.Ui = Ui;
    this.Ux = Ux;
  }

  nnzL(n: i32): i32 { return unchecked(this.Lp[n]); }
  nnzU(n: i32): i32 { return unchecked(this.Up[n]); }
}
