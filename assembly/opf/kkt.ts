// The MIPS Newton system in a fixed sparse pattern (CSC, rows ascending):
//     [ M   Aeᵀ ] [dx  ]   [-N]      M = Lxx + Aiᵀ diag(μ/z) Ai
//     [ Ae  0   ] [dλ  ] = [-g]
// The pattern (and the symbolic LU analysis) is made once per solve; every
// iteration only rewrites the values through precomputed slot maps and
// refactorises. The matrix is symmetric indefinite with a zero (2,2) block:
// its pivot sequence pairs every equality row with a variable (./kktOrder.ts),
// and the LU's pivoting fallback takes over only where that sequence fails
// even after being found again for the current values.
import { SparseLU } from '../sparse/lu';
import { kktOrder } from './kktOrder';
import { lastAnalysis } from './analysisCache';
import { absBits, geti, getf, maxBits, ptr, setf } from '../sparse/raw';

/** Static pivots are kept while |pivot| ≥ this · max|column| of the equilibrated system: near the
 *  optimum the barrier terms of active bounds grow by orders of magnitude, and a threshold like
 *  KLU's 1e-3 would reject the sequence at nearly every iteration; the digits a small pivot may
 *  cost are recovered by iterative refinement (solve), SINGULAR_TOL still guards true breakdown.
 *  Measured on case2383wp: 1e-8 without refinement re-analysed or pivoted 4 times in 35
 *  iterations; 1e-11 with refinement never, with MATPOWER's iteration counts on every case. */
const STATIC_PIVOT_TOL: f64 = 1e-11;
const MAX_REANALYSES: i32 = 20;
const REFINE_STEPS: i32 = 3;
/** δ of factorRegularised, against the equilibrated system's entries of at most 1. */
const REGULARISATION: f64 = 1e-10;

export class KKT {
  n: i32;
  nx: i32;
  colPtr: StaticArray<i32> = new StaticArray<i32>(0);
  rowIdx: StaticArray<i32> = new StaticArray<i32>(0);
  val: StaticArray<f64> = new StaticArray<f64>(0);
  /** slot of (j, j), every column (an equality row's is structurally zero: it takes the dual regularisation). */
  diagSlot: StaticArray<i32> = new StaticArray<i32>(0);
  /** for inequality row k with entries p0..p1-1 (length m): slot of (col(p_a), col(p_b)) at
   *  pairStart[k] + a*m + b. */
  pairStart: StaticArray<i32> = new StaticArray<i32>(0);
  pairSlot: StaticArray<i32> = new StaticArray<i32>(0);
  /** slot of each entry of the Hessian-of-the-Lagrangian pattern (row CSR, symmetric). */
  hessSlot: StaticArray<i32> = new StaticArray<i32>(0);
  /** slots of Ae(e, j) below and Aeᵀ above, per equality entry. */
  eqLow: StaticArray<i32> = new StaticArray<i32>(0);
  eqUp: StaticArray<i32> = new StaticArray<i32>(0);
  lu: SparseLU = newKktLU();
  /** lu is the analysis kept for later solves (./analysisCache.ts): not to be re-analysed in place */
  private shared: bool = false;
  /** equilibration factors of the current values */
  scale: StaticArray<f64> = new StaticArray<f64>(0);
  private b0: StaticArray<f64> = new StaticArray<f64>(0);
  private r: StaticArray<f64> = new StaticArray<f64>(0);

  private analysed: bool = false;
  /** preferred pivot partner of each equality row (a variable, or −1) */
  private partner: StaticArray<i32> = new StaticArray<i32>(0);
  /** Re-analyses made after a static pivot failed (bounded: each costs about a pivoting factorisation). */
  reanalyses: i32 = 0;

  /** The LU's factorisation of the current (equilibrated) values. The pivot sequence (./kktOrder.ts)
   *  depends on the values (the matching prefers large entries, weak diagonals wait for their rows),
   *  so it is found at the first call and found again when a static pivot fails, as bounds become
   *  active and the barrier terms grow; only if the fresh sequence fails too does the LU pivot. */
  factor(): bool { return this.factorValues(this.val); }

  private factorValues(values: StaticArray<f64>): bool {
    if (!this.analysed) { this.analyseFirst(); this.analysed = true; }
    else if (this.lu.factorStatic(values)) return true;
    else if (this.reanalyses < MAX_REANALYSES) { this.analyse(values); this.reanalyses++; }
    return this.lu.factor(values);
  }

  /** The first analysis of a solve, or the last solve's when this one's system is the same: pattern,
   *  pairing hints and values at the first factorisation (./analysisCache.ts). */
  private analyseFirst(): void {
    const hit = lastAnalysis.find(this.n, this.nx, this.colPtr, this.rowIdx, this.val, this.partner);
    if (hit !== null) { this.lu = hit; this.shared = true; return; }
    this.analyse();
    lastAnalysis.keep(this.n, this.nx, this.colPtr, this.rowIdx, this.val, this.partner, this.lu);
    this.shared = true;
  }

  /** Solves the (equilibrated) system in place, then refines: r = b − K x, x += K⁻¹ r while the
   *  residual falls (at most REFINE_STEPS times). Static pivots accepted down to STATIC_PIVOT_TOL may
   *  lose digits that partial pivoting would keep; refinement recovers them (as UMFPACK does). */
  solve(b: StaticArray<f64>): void {
    const n = this.n, b0 = this.b0, r = this.r, colPtr = this.colPtr, rowIdx = this.rowIdx, val = this.val;
    let bmax = 0.0;
    for (let i = 0; i < n; i++) { const v = unchecked(b[i]); unchecked(b0[i] = v); bmax = Math.max(bmax, Math.abs(v)); }
    this.lu.solve(b);
    let prev = Infinity;
    const rp = ptr(r), bp = ptr(b), cp = ptr(colPtr), ri = ptr(rowIdx), vp = ptr(val);
    for (let step = 0; step < REFINE_STEPS; step++) {
      memory.copy(rp, ptr(b0), <usize>n << 3);
      let xmax = 0.0;
      for (let j = 0; j < n; j++) {
        const xj = getf(bp, j);
        xmax = Math.max(xmax, Math.abs(xj));
        if (xj == 0.0) continue;
        for (let p = geti(cp, j), e = geti(cp, j + 1); p < e; p++) {
          const a = rp + (<usize>geti(ri, p) << 3);
          store<f64>(a, load<f64>(a) - getf(vp, p) * xj);
        }
      }
      let rmax = 0.0;
      for (let i = 0; i < n; i++) rmax = Math.max(rmax, Math.abs(unchecked(r[i])));
      // entries of the equilibrated K are at most 1: ‖K‖∞ ≤ the largest row count, 1e-15 is rounding
      if (!(rmax > 1e-15 * (bmax + xmax)) || !(rmax < 0.5 * prev)) break;
      prev = rmax;
      this.lu.solve(r);
      for (let i = 0; i < n; i++) unchecked(b[i] += r[i]);
    }
  }

  private analyse(values: StaticArray<f64> = this.val): void {
    const n = this.n;
    if (this.shared) {
      // the kept analysis stays as it was found: a re-analysis within this solve gets an LU of its own
      this.lu = newKktLU();
      this.shared = false;
    }
    const q = new StaticArray<i32>(n), prow = new StaticArray<i32>(n);
    kktOrder(n, this.nx, this.colPtr, this.rowIdx, values, this.partner, q, prow);
    this.lu.analyzeOrdered(n, this.colPtr, this.rowIdx, q, prow);
  }

  /** Scales val to D K D and rhs to D rhs, D = diag(1/sqrt(max_j |K_ij|)) (K is symmetric). */
  equilibrate(rhs: StaticArray<f64>): void {
    const n = this.n, s = ptr(this.scale), val = ptr(this.val), colPtr = ptr(this.colPtr), rowIdx = ptr(this.rowIdx);
    memory.fill(s, 0, <usize>n << 3);
    // row maxima of |K| as bit patterns (raw.ts: no branch to mispredict; a NaN stays above +Inf)
    for (let p = 0, e = geti(colPtr, n); p < e; p++) {
      const a = s + (<usize>geti(rowIdx, p) << 3);
      store<i64>(a, maxBits(load<i64>(a), absBits(getf(val, p))));
    }
    for (let i = 0; i < n; i++) { const m = getf(s, i); setf(s, i, m > 0.0 ? 1.0 / Math.sqrt(m) : 1.0); }
    const r = ptr(rhs);
    for (let j = 0; j < n; j++) {
      const sj = getf(s, j);
      for (let p = geti(colPtr, j), e = geti(colPtr, j + 1); p < e; p++) setf(val, p, getf(val, p) * (sj * getf(s, geti(rowIdx, p))));
      setf(r, j, getf(r, j) * sj);
    }
  }

  /** Factors of K + diag(δ I, −δ I) (primal and dual regularisation, as interior-point LP codes use
   *  near a degenerate optimum, where factor() finds K singular); solve() still refines against K. */
  factorRegularised(): bool {
    if (this.regularised.length != this.val.length) this.regularised = new StaticArray<f64>(this.val.length);
    const reg = ptr(this.regularised), d = ptr(this.diagSlot), nx = this.nx;
    memory.copy(reg, ptr(this.val), <usize>this.val.length << 3);
    for (let j = 0; j < this.n; j++) {
      const a = reg + (<usize>geti(d, j) << 3);
      store<f64>(a, load<f64>(a) + (j < nx ? REGULARISATION : -REGULARISATION));
    }
    return this.factorValues(this.regularised);
  }
  /** K + diag(δ, −δ) for factorRegularised (K itself stays in val, for refinement). */
  private regularised: StaticArray<f64> = new StaticArray<f64>(0);

  /** b to D b: a further right-hand side for the system equilibrate scaled. */
  scaleRhs(b: StaticArray<f64>): void {
    const s = this.scale;
    for (let i = 0; i < this.n; i++) unchecked(b[i] *= s[i]);
  }

  /** x = D y after solving the scaled system. */
  unscale(y: StaticArray<f64>): void {
    const s = this.scale;
    for (let i = 0; i < this.n; i++) unchecked(y[i] *= s[i]);
  }

  constructor(nx: i32, neq: i32,
    eqP: StaticArray<i32>, eqJ: StaticArray<i32>,
    iqP: StaticArray<i32>, iqJ: StaticArray<i32>, niq: i32,
    hessP: StaticArray<i32>, hessJ: StaticArray<i32>, partner: StaticArray<i32>) {
    this.partner = partner;
    const n = nx + neq;
    this.n = n;
    this.nx = nx;
    // column j (< nx) -> inequality entries in it, equality entries in it
    const iqCnt = new StaticArray<i32>(nx + 1);
    const iqNnz = unchecked(iqP[niq]);
    for (let p = 0; p < iqNnz; p++) unchecked(iqCnt[iqJ[p] + 1]++);
    for (let j = 0; j < nx; j++) unchecked(iqCnt[j + 1] += iqCnt[j]);
    const iqRowOf = new StaticArray<i32>(iqNnz);   // entry positions by column
    const fill = new StaticArray<i32>(nx);
    for (let k = 0; k < niq; k++) {
      for (let p = unchecked(iqP[k]); p < unchecked(iqP[k + 1]); p++) {
        const j = unchecked(iqJ[p]);
        unchecked(iqRowOf[iqCnt[j] + fill[j]] = p);
        unchecked(fill[j]++);
      }
    }
    const rowOfEntry = new StaticArray<i32>(iqNnz);
    for (let k = 0; k < niq; k++) for (let p = unchecked(iqP[k]); p < unchecked(iqP[k + 1]); p++) unchecked(rowOfEntry[p] = k);
    const eqNnz = unchecked(eqP[neq]);
    const eqCnt = new StaticArray<i32>(nx + 1);
    for (let p = 0; p < eqNnz; p++) unchecked(eqCnt[eqJ[p] + 1]++);
    for (let j = 0; j < nx; j++) unchecked(eqCnt[j + 1] += eqCnt[j]);
    const eqByCol = new StaticArray<i32>(eqNnz);
    const eqRowOf = new StaticArray<i32>(eqNnz);
    for (let j = 0; j < nx; j++) unchecked(fill[j] = 0);
    for (let e = 0; e < neq; e++) {
      for (let p = unchecked(eqP[e]); p < unchecked(eqP[e + 1]); p++) {
        const j = unchecked(eqJ[p]);
        unchecked(eqByCol[eqCnt[j] + fill[j]] = p);
        unchecked(eqRowOf[p] = e);
        unchecked(fill[j]++);
      }
    }

    // pass 1: the rows of every column
    const mark = new StaticArray<i32>(n);
    for (let i = 0; i < n; i++) unchecked(mark[i] = -1);
    const rows = new Array<i32>();
    const colPtr = new StaticArray<i32>(n + 1);
    for (let j = 0; j < nx; j++) {
      const start = rows.length;
      unchecked(mark[j] = j); rows.push(j);
      for (let p = unchecked(hessP[j]); p < unchecked(hessP[j + 1]); p++) {
        const i = unchecked(hessJ[p]);
        if (unchecked(mark[i]) != j) { unchecked(mark[i] = j); rows.push(i); }
      }
      for (let q = unchecked(iqCnt[j]); q < unchecked(iqCnt[j + 1]); q++) {
        const k = unchecked(rowOfEntry[iqRowOf[q]]);
        for (let p = unchecked(iqP[k]); p < unchecked(iqP[k + 1]); p++) {
          const i = unchecked(iqJ[p]);
          if (unchecked(mark[i]) != j) { unchecked(mark[i] = j); rows.push(i); }
        }
      }
      for (let q = unchecked(eqCnt[j]); q < unchecked(eqCnt[j + 1]); q++) {
        const i = nx + unchecked(eqRowOf[eqByCol[q]]);
        if (unchecked(mark[i]) != j) { unchecked(mark[i] = j); rows.push(i); }
      }
      sortSlice(rows, start, rows.length);
      unchecked(colPtr[j + 1] = rows.length);
    }
    for (let e = 0; e < neq; e++) {
      const col = nx + e;
      const start = rows.length;
      for (let p = unchecked(eqP[e]); p < unchecked(eqP[e + 1]); p++) {
        const i = unchecked(eqJ[p]);
        if (unchecked(mark[i]) != col) { unchecked(mark[i] = col); rows.push(i); }
      }
      unchecked(mark[col] = col); rows.push(col);
      sortSlice(rows, start, rows.length);
      unchecked(colPtr[col + 1] = rows.length);
    }
    const nnz = rows.length;
    const rowIdx = new StaticArray<i32>(nnz);
    for (let p = 0; p < nnz; p++) unchecked(rowIdx[p] = rows[p]);
    this.colPtr = colPtr;
    this.rowIdx = rowIdx;
    this.val = new StaticArray<f64>(nnz);

    // pass 2: slot maps
    const pos = new StaticArray<i32>(n);
    this.diagSlot = new StaticArray<i32>(n);
    const pairStart = new StaticArray<i32>(niq + 1);
    for (let k = 0; k < niq; k++) {
      const m = unchecked(iqP[k + 1]) - unchecked(iqP[k]);
      unchecked(pairStart[k + 1] = pairStart[k] + m * m);
    }
    this.pairStart = pairStart;
    this.pairSlot = new StaticArray<i32>(unchecked(pairStart[niq]));
    this.eqLow = new StaticArray<i32>(eqNnz);
    this.eqUp = new StaticArray<i32>(eqNnz);
    this.hessSlot = new StaticArray<i32>(unchecked(hessP[nx]));
    for (let j = 0; j < n; j++) {
      for (let p = unchecked(colPtr[j]); p < unchecked(colPtr[j + 1]); p++) unchecked(pos[rowIdx[p]] = p);
      unchecked(this.diagSlot[j] = pos[j]);
      if (j < nx) {
        // H(j, i) = H(i, j): row j of the symmetric pattern is column j
        for (let p = unchecked(hessP[j]); p < unchecked(hessP[j + 1]); p++) unchecked(this.hessSlot[p] = pos[hessJ[p]]);
        for (let q = unchecked(iqCnt[j]); q < unchecked(iqCnt[j + 1]); q++) {
          const pb = unchecked(iqRowOf[q]);
          const k = unchecked(rowOfEntry[pb]);
          const p0 = unchecked(iqP[k]), m = unchecked(iqP[k + 1]) - p0;
          const b = pb - p0;
          for (let a = 0; a < m; a++) unchecked(this.pairSlot[pairStart[k] + a * m + b] = pos[iqJ[p0 + a]]);
        }
        for (let q = unchecked(eqCnt[j]); q < unchecked(eqCnt[j + 1]); q++) {
          const p = unchecked(eqByCol[q]);
          unchecked(this.eqLow[p] = pos[nx + eqRowOf[p]]);
        }
      } else {
        const e = j - nx;
        for (let p = unchecked(eqP[e]); p < unchecked(eqP[e + 1]); p++) unchecked(this.eqUp[p] = pos[eqJ[p]]);
      }
    }
    this.scale = new StaticArray<f64>(n);
    this.b0 = new StaticArray<f64>(n);
    this.r = new StaticArray<f64>(n);
  }
}

function newKktLU(): SparseLU {
  const lu = new SparseLU();
  lu.staticPivotTol = STATIC_PIVOT_TOL;
  lu.keepStaticOrder = true;
  return lu;
}

function sortSlice(a: Array<i32>, lo: i32, hi: i32): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = unchecked(a[i]);
    let k = i - 1;
    while (k >= lo && unchecked(a[k]) > v) { unchecked(a[k + 1] = a[k]); k--; }
    unchecked(a[k + 1] = v);
  }
}
