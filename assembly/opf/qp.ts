// A quadratic programme in MATPOWER's qps_mips form, with a diagonal Hessian
// (OPF costs are separable per generator):
//     min  ½ xᵀ diag(h) x + cᵀ x + k
//     s.t. l ≤ A x ≤ u,   xmin ≤ x ≤ xmax
// A is held row by row (CSR); a row may list a column more than once (parallel
// branches): the entries add up. Built once per solve, outside any loop that
// must not allocate.

export class QP {
  nx: i32;
  nA: i32 = 0;
  h: StaticArray<f64> = new StaticArray<f64>(0);
  c: StaticArray<f64> = new StaticArray<f64>(0);
  /** constant cost term: part of f inside MIPS (AC-OPF, as MATPOWER's quadratic cost k); the DC-OPF
   *  adds its constant after the solve, as dcopf_solver does, and leaves this 0 */
  k: f64 = 0.0;
  xmin: StaticArray<f64> = new StaticArray<f64>(0);
  xmax: StaticArray<f64> = new StaticArray<f64>(0);
  x0: StaticArray<f64> = new StaticArray<f64>(0);
  /** CSR of A: row r is entries Ap[r] .. Ap[r+1]-1. */
  Ap: StaticArray<i32> = new StaticArray<i32>(0);
  Aj: StaticArray<i32> = new StaticArray<i32>(0);
  Ax: StaticArray<f64> = new StaticArray<f64>(0);
  l: StaticArray<f64> = new StaticArray<f64>(0);
  u: StaticArray<f64> = new StaticArray<f64>(0);
  /** Separable polynomial costs of degree ≥ 3 (AC-OPF only): variable polyVar[t] costs
   *  Σ_k polyCoef[polyStart[t] + k] · x^k (ascending powers), added to ½hx² + cx. */
  polyVar: Array<i32> = new Array<i32>();
  polyStart: Array<i32> = [0];
  polyCoef: Array<f64> = new Array<f64>();
  /** per row of A: the variable an equality row naturally pivots with (DC power balance of bus i:
   *  its angle), or −1; a hint for the KKT ordering (./kktOrder.ts) */
  partner: StaticArray<i32> = new StaticArray<i32>(0);
  private nnz: i32 = 0;

  /** Room for nA rows and nnz entries of A; fill with addRow / addEntry. */
  constructor(nx: i32, nARows: i32, nnz: i32) {
    this.nx = nx;
    this.h = new StaticArray<f64>(nx);
    this.c = new StaticArray<f64>(nx);
    this.xmin = new StaticArray<f64>(nx);
    this.xmax = new StaticArray<f64>(nx);
    this.x0 = new StaticArray<f64>(nx);
    for (let j = 0; j < nx; j++) { unchecked(this.xmin[j] = -Infinity); unchecked(this.xmax[j] = Infinity); }
    this.Ap = new StaticArray<i32>(nARows + 1);
    this.Aj = new StaticArray<i32>(nnz);
    this.Ax = new StaticArray<f64>(nnz);
    this.l = new StaticArray<f64>(nARows);
    this.u = new StaticArray<f64>(nARows);
    this.partner = new StaticArray<i32>(nARows);
    for (let r = 0; r < nARows; r++) unchecked(this.partner[r] = -1);
  }

  /** Adds a polynomial cost on x_j: coefficients of x^0, x^1, … (setup only: it allocates). */
  addPolynomial(j: i32, ascending: StaticArray<f64>): void {
    this.polyVar.push(j);
    for (let k = 0; k < ascending.length; k++) this.polyCoef.push(unchecked(ascending[k]));
    this.polyStart.push(this.polyCoef.length);
  }

  /** No quadratic or higher cost term: a linear programme. */
  isLinear(): bool {
    if (this.polyVar.length > 0) return false;
    for (let j = 0; j < this.nx; j++) if (unchecked(this.h[j]) != 0.0) return false;
    return true;
  }

  /** Starts row nA with bounds lo..hi; returns its index. */
  addRow(lo: f64, hi: f64): i32 {
    const r = this.nA;
    unchecked(this.l[r] = lo);
    unchecked(this.u[r] = hi);
    this.nA = r + 1;
    unchecked(this.Ap[r + 1] = this.nnz);
    return r;
  }

  /** Adds A(current row, j) += v. */
  addEntry(j: i32, v: f64): void {
    unchecked(this.Aj[this.nnz] = j);
    unchecked(this.Ax[this.nnz] = v);
    this.nnz++;
    unchecked(this.Ap[this.nA] = this.nnz);
  }
}
