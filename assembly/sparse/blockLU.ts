// Sparse LU in 2×2 blocks, for a matrix whose unknowns come in pairs — the polar Newton Jacobian, whose
// θ and |V| unknowns of a bus (and its P and Q equations) share one sparsity pattern. An unpaired
// unknown (a PV bus's θ) gets an identity partner, so every block is 2×2; those padding rows and
// columns stay exactly identity / zero through the elimination and never touch the answer.
// Same contract as SparseLU (analyse once per pattern, factor per matrix, solve), on the bus graph:
//   analyze — AMD on the block pattern (half the order, a quarter of the entries), then the exact
//             block structure of L and U for pivots on the block diagonal (symbolicLU on blocks);
//   factor  — left-looking numeric factorisation on that static structure, one 2×2 block product per
//             update (one index read for eight multiply-adds, SIMD on the block columns), each 2×2
//             diagonal pivot inverted and checked; if a pivot block fails the test, the scalar SparseLU
//             with threshold partial pivoting factorises this matrix instead (analysed on first need);
//   solve   — block forward / back substitution (solveSteps: on a right-hand side already in block order).
// Blocks are stored column-major, four doubles: [a00, a10, a01, a11]; a block column is one v128.
import { amdOrder } from './amd';
import { LUFactors } from './factors';
import { symbolicLU } from './factorPattern';
import { SparseLU } from './lu';
import { geti, ptr } from './raw';
import { ADOPTED_PIVOT_TOL, PIVOT_TOL, SINGULAR_TOL } from './tolerances';

export class BlockLU {
  /** Scalar order (unknowns) and block order. */
  n: i32 = 0;
  nb: i32 = 0;
  singular: bool = false;
  /** Factorisations the block pivots could not take (the scalar pivoting LU did them). */
  fallbacks: i32 = 0;
  /** The last factor() went to the scalar LU: solve() uses it. */
  private scalarActive: bool = false;
  private scalar: SparseLU | null = null;
  /** Scalar pattern, kept for the fallback's analysis. */
  private Sp: StaticArray<i32> = new StaticArray<i32>(1);
  private Si: StaticArray<i32> = new StaticArray<i32>(0);
  /** varAt[v]: offset (in doubles) of scalar unknown v in a block-step vector (2 per step). */
  private varAt: StaticArray<i32> = new StaticArray<i32>(0);
  /** A in pivot-column order: block column k is slots Apq[k] .. Apq[k+1]-1, slot s has row step
   *  stepOf[s] and values Aq[4s .. 4s+3]; scalar entry p goes to Aq[slotOf[p]]. The entries no
   *  scalar entry maps to (padding) are set once, in analyze. */
  private Apq: StaticArray<i32> = new StaticArray<i32>(1);
  private stepOf: StaticArray<i32> = new StaticArray<i32>(0);
  private slotOf: StaticArray<i32> = new StaticArray<i32>(0);
  private Aq: StaticArray<f64> = new StaticArray<f64>(0);
  /** Block patterns of L (unit diagonal block first) and U (diagonal block last), in steps. */
  private f: LUFactors = new LUFactors(0, 0, 0);
  /** Values: four doubles per pattern entry (same index ×4). */
  private Lv: StaticArray<f64> = new StaticArray<f64>(0);
  private Uv: StaticArray<f64> = new StaticArray<f64>(0);
  /** Inverse of each diagonal block, by step. */
  private Dinv: StaticArray<f64> = new StaticArray<f64>(0);
  /** Work: a block column (4 per step), kept zeroed; a block vector (2 per step) for solve. */
  private x: StaticArray<f64> = new StaticArray<f64>(0);
  private y: StaticArray<f64> = new StaticArray<f64>(0);
  /** CSC values gathered from the blocks for the scalar fallback of factorFilled(). */
  private gathered: StaticArray<f64> = new StaticArray<f64>(0);
  /** A right-hand side in scalar order for the fallback of solveSteps(). */
  private scalarRhs: StaticArray<f64> = new StaticArray<f64>(0);

  /**
   * Symbolic analysis (may allocate). The scalar matrix is n × n in CSC (rows ascending per column,
   * no duplicates); unknown v belongs to block blockOf[v] at position posOf[v] (0 or 1) — the same
   * numbering for rows (equations) and columns (unknowns). No two unknowns share a block position.
   */
  analyze(n: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>, nb: i32,
          blockOf: StaticArray<i32>, posOf: StaticArray<i32>): void {
    this.n = n;
    this.nb = nb;
    this.singular = false;
    this.fallbacks = 0;
    this.scalarActive = false;
    this.scalar = null;
    const nnz = unchecked(colPtr[n]);
    const Sp = new StaticArray<i32>(n + 1), Si = new StaticArray<i32>(nnz);
    for (let j = 0; j <= n; j++) unchecked(Sp[j] = colPtr[j]);
    for (let p = 0; p < nnz; p++) unchecked(Si[p] = rowIdx[p]);
    this.Sp = Sp;
    this.Si = Si;

    // --- block pattern (CSC, rows ascending, diagonal always present): mark rows per block column
    const firstOf = new StaticArray<i32>(nb);      // a scalar column of each block (either one)
    const secondOf = new StaticArray<i32>(nb);
    for (let b = 0; b < nb; b++) { unchecked(firstOf[b] = -1); unchecked(secondOf[b] = -1); }
    for (let v = 0; v < n; v++) {
      const b = unchecked(blockOf[v]);
      if (unchecked(firstOf[b]) < 0) unchecked(firstOf[b] = v); else unchecked(secondOf[b] = v);
    }
    const mark = new StaticArray<i32>(nb);
    for (let b = 0; b < nb; b++) unchecked(mark[b] = -1);
    const Bp = new StaticArray<i32>(nb + 1);
    let bnz = 0;
    for (let c = 0; c < nb; c++) {
      unchecked(Bp[c] = bnz);
      unchecked(mark[c] = c);
      bnz++;
      for (let h = 0; h < 2; h++) {
        const v = h == 0 ? unchecked(firstOf[c]) : unchecked(secondOf[c]);
        if (v < 0) continue;
        for (let p = unchecked(colPtr[v]); p < unchecked(colPtr[v + 1]); p++) {
          const r = unchecked(blockOf[rowIdx[p]]);
          if (unchecked(mark[r]) != c) { unchecked(mark[r] = c); bnz++; }
        }
      }
    }
    unchecked(Bp[nb] = bnz);
    const Bi = new StaticArray<i32>(bnz);
    for (let b = 0; b < nb; b++) unchecked(mark[b] = -1);
    for (let c = 0; c < nb; c++) {
      let s = unchecked(Bp[c]);
      // rows of column c, then an insertion sort (a column is a bus and its neighbours: short)
      unchecked(mark[c] = c);
      unchecked(Bi[s++] = c);
      for (let h = 0; h < 2; h++) {
        const v = h == 0 ? unchecked(firstOf[c]) : unchecked(secondOf[c]);
        if (v < 0) continue;
        for (let p = unchecked(colPtr[v]); p < unchecked(colPtr[v + 1]); p++) {
          const r = unchecked(blockOf[rowIdx[p]]);
          if (unchecked(mark[r]) != c) { unchecked(mark[r] = c); unchecked(Bi[s++] = r); }
        }
      }
      const lo = unchecked(Bp[c]);
      for (let a = lo + 1; a < s; a++) {
        const key = unchecked(Bi[a]);
        let t = a - 1;
        while (t >= lo && unchecked(Bi[t]) > key) { unchecked(Bi[t + 1] = Bi[t]); t--; }
        unchecked(Bi[t + 1] = key);
      }
    }

    // --- fill-reducing order and the static block structure
    const q = new StaticArray<i32>(nb);
    amdOrder(nb, Bp, Bi, q);
    const pinv = new StaticArray<i32>(nb);
    for (let k = 0; k < nb; k++) unchecked(pinv[q[k]] = k);
    const f = new LUFactors(nb, 2 * bnz + nb, 2 * bnz + nb);
    const colOf = new StaticArray<i32>(nb), xi = new StaticArray<i32>(nb), stack = new StaticArray<i32>(nb);
    const pstack = new StaticArray<i32>(nb), mk = new StaticArray<i32>(nb);
    symbolicLU(nb, Bp, Bi, q, pinv, f, colOf, xi, stack, pstack, mk);
    this.f = f;
    this.Lv = new StaticArray<f64>(4 * f.nnzL(nb));
    this.Uv = new StaticArray<f64>(4 * f.nnzU(nb));
    this.Dinv = new StaticArray<f64>(4 * nb);
    this.x = new StaticArray<f64>(4 * nb);
    this.y = new StaticArray<f64>(2 * nb);

    // --- A in pivot-column order; the slot of every scalar entry
    const Apq = new StaticArray<i32>(nb + 1);
    for (let k = 0; k < nb; k++) {
      const c = unchecked(q[k]);
      unchecked(Apq[k + 1] = Apq[k] + Bp[c + 1] - Bp[c]);
    }
    const stepOf = new StaticArray<i32>(bnz);
    const Aq = new StaticArray<f64>(4 * bnz);
    // slotAt[r]: slot of block row r in the current block column (valid while mark[r] == c)
    const slotAt = new StaticArray<i32>(nb);
    for (let k = 0; k < nb; k++) {
      const c = unchecked(q[k]);
      let s = unchecked(Apq[k]);
      for (let p = unchecked(Bp[c]); p < unchecked(Bp[c + 1]); p++) {
        const r = unchecked(Bi[p]);
        unchecked(stepOf[s] = pinv[r]);
        unchecked(slotAt[r] = s);
        s++;
      }
      // padding: the identity on the diagonal block's unused position
      const d = unchecked(slotAt[c]);
      if (unchecked(secondOf[c]) < 0) {
        const used = unchecked(posOf[firstOf[c]]);
        const free = 1 - used;
        unchecked(Aq[4 * d + 2 * free + free] = 1.0);
      }
    }
    // scalar entries: column v (block c, position pc), row r (block rb, position pr) -> Aq[4s + 2pc + pr]
    const slotOf = new StaticArray<i32>(nnz);
    for (let k = 0; k < nb; k++) {
      const c = unchecked(q[k]);
      for (let s = unchecked(Apq[k]); s < unchecked(Apq[k + 1]); s++) unchecked(slotAt[q[stepOf[s]]] = s);
      for (let h = 0; h < 2; h++) {
        const v = h == 0 ? unchecked(firstOf[c]) : unchecked(secondOf[c]);
        if (v < 0) continue;
        const pc = unchecked(posOf[v]);
        for (let p = unchecked(colPtr[v]); p < unchecked(colPtr[v + 1]); p++) {
          const rv = unchecked(rowIdx[p]);
          const s = unchecked(slotAt[blockOf[rv]]);
          unchecked(slotOf[p] = 4 * s + 2 * pc + posOf[rv]);
        }
      }
    }
    this.Apq = Apq;
    this.stepOf = stepOf;
    this.slotOf = slotOf;
    this.Aq = Aq;
    const varAt = new StaticArray<i32>(n);
    for (let v = 0; v < n; v++) unchecked(varAt[v] = 2 * pinv[blockOf[v]] + posOf[v]);
    this.varAt = varAt;
  }

  /** Numeric factorisation of a matrix with the analysed scalar pattern (values in its CSC order).
   *  False (and `singular`) when it is numerically singular even with pivoting. */
  factor(values: StaticArray<f64>): bool {
    const aq = ptr(this.Aq), slot = ptr(this.slotOf), va = ptr(values);
    const nnz = this.slotOf.length;
    for (let p = 0; p < nnz; p++) store<f64>(aq + (<usize>geti(slot, p) << 3), load<f64>(va + (<usize>p << 3)));
    if (this.factorBlocks()) return this.blocksDone();
    return this.factorScalar(values);
  }

  /** The block values a caller may fill directly (then factorFilled()): scalar entry p of the analysed
   *  pattern lives at index entrySlot(p); the padding entries set by analyze must stay as they are. */
  blockValues(): StaticArray<f64> { return this.Aq; }
  entrySlot(p: i32): i32 { return unchecked(this.slotOf[p]); }

  /** factor() of the matrix filled in blockValues(): the same factors, without the copy. */
  factorFilled(): bool {
    if (this.factorBlocks()) return this.blocksDone();
    // the scalar fallback wants CSC values: gathered from the blocks (allocated on first need)
    const nnz = this.slotOf.length;
    if (this.gathered.length != nnz) this.gathered = new StaticArray<f64>(nnz);
    const aq = ptr(this.Aq), slot = ptr(this.slotOf), g = ptr(this.gathered);
    for (let p = 0; p < nnz; p++) store<f64>(g + (<usize>p << 3), load<f64>(aq + (<usize>geti(slot, p) << 3)));
    return this.factorScalar(this.gathered);
  }

  private blocksDone(): bool {
    this.scalarActive = false;
    this.singular = false;
    return true;
  }

  /** A pivot block failed: the scalar LU with pivoting factorises these values instead. */
  private factorScalar(values: StaticArray<f64>): bool {
    // the work column must be zero again for the next block factorisation
    memory.fill(ptr(this.x), 0, <usize>this.x.length << 3);
    this.fallbacks++;
    if (this.scalar === null) {
      const s = new SparseLU();
      s.analyze(this.n, this.Sp, this.Si);
      s.refactorPivotTol = ADOPTED_PIVOT_TOL;
      this.scalar = s;
    }
    const s = this.scalar!;
    this.scalarActive = true;
    const ok = s.factor(values);
    this.singular = !ok;
    return ok;
  }

  /** Pivoting fallbacks of the scalar LU since its analysis; -1 before it was first needed. */
  scalarFallbacks(): i32 { const s = this.scalar; return s === null ? -1 : s.fallbacks; }

  /** Back to the analysed state: the scalar fallback (if any) forgets a pivot order it adopted.
   *  True when that took a new analysis. */
  reset(): bool {
    const s = this.scalar;
    if (s === null || s.fallbacks == 0) return false;
    s.analyze(this.n, this.Sp, this.Si);
    return true;
  }

  /** Left-looking block factorisation on the static structure; false when a pivot block fails. */
  private factorBlocks(): bool {
    const nb = this.nb;
    const f = this.f;
    const ap = ptr(this.Apq), so = ptr(this.stepOf), aq = ptr(this.Aq), x = ptr(this.x);
    const lp = ptr(f.Lp), li = ptr(f.Li), up = ptr(f.Up), ui = ptr(f.Ui);
    const lv = ptr(this.Lv), uv = ptr(this.Uv), dinv = ptr(this.Dinv);
    let guard = f64x2.splat(0.0);
    for (let k = 0; k < nb; k++) {
      // scatter A(:,k); big = largest |entry| met in this column (f64x2.max keeps a NaN)
      let big = i64x2.splat(0);
      const aend = geti(ap, k + 1);
      for (let s = geti(ap, k); s < aend; s++) {
        const src = aq + (<usize>s << 5), dst = x + (<usize>geti(so, s) << 5);
        const a0 = v128.load(src), a1 = v128.load(src, 16);
        v128.store(dst, a0);
        v128.store(dst, a1, 16);
        big = absMax(big, a0, a1);
      }
      // U(:,k), in topological (ascending) order; each X(j) is final when reached
      const udiag = geti(up, k + 1) - 1;
      for (let p = geti(up, k); p < udiag; p++) {
        const j = geti(ui, p);
        const xj = x + (<usize>j << 5);
        const c0 = v128.load(xj), c1 = v128.load(xj, 16);
        const dst = uv + (<usize>p << 5);
        v128.store(dst, c0);
        v128.store(dst, c1, 16);
        v128.store(xj, f64x2.splat(0.0));
        v128.store(xj, f64x2.splat(0.0), 16);
        guard = f64x2.add(guard, f64x2.add(c0, c1));
        const u00 = lane0(c0), u10 = lane1(c0);
        const u01 = lane0(c1), u11 = lane1(c1);
        // X(i) -= L(i,j) · U(j,k) for i below j
        const t1 = geti(lp, j + 1);
        for (let t = geti(lp, j) + 1; t < t1; t++) {
          const l = lv + (<usize>t << 5);
          const l0 = v128.load(l), l1 = v128.load(l, 16);
          const xa = x + (<usize>geti(li, t) << 5);
          v128.store(xa, f64x2.sub(v128.load(xa), f64x2.add(f64x2.mul(l0, u00), f64x2.mul(l1, u10))));
          v128.store(xa, f64x2.sub(v128.load(xa, 16), f64x2.add(f64x2.mul(l0, u01), f64x2.mul(l1, u11))), 16);
        }
      }
      // the pivot block D = X(k), and its inverse
      const xk = x + (<usize>k << 5);
      const d00 = load<f64>(xk), d10 = load<f64>(xk, 8), d01 = load<f64>(xk, 16), d11 = load<f64>(xk, 24);
      v128.store(xk, f64x2.splat(0.0));
      v128.store(xk, f64x2.splat(0.0), 16);
      const ud = uv + (<usize>udiag << 5);
      store<f64>(ud, d00); store<f64>(ud, d10, 8); store<f64>(ud, d01, 16); store<f64>(ud, d11, 24);
      const det = d00 * d11 - d01 * d10;
      const id = 1.0 / det;
      const i0 = f64x2(d11 * id, -d10 * id), i1 = f64x2(-d01 * id, d00 * id);
      const di = dinv + (<usize>k << 5);
      v128.store(di, i0);
      v128.store(di, i1, 16);
      big = absMax(big, v128.load(ud), v128.load(ud, 16));
      // L(:,k) = X(i) · D⁻¹; the multipliers bound the growth like threshold pivoting's |l| ≤ 1/tol
      const ia = f64x2.splat(d11 * id), ib = f64x2.splat(-d10 * id), ic = f64x2.splat(-d01 * id), idd = f64x2.splat(d00 * id);
      let mult = i64x2.splat(0);
      const l1 = geti(lp, k + 1);
      for (let t = geti(lp, k) + 1; t < l1; t++) {
        const xa = x + (<usize>geti(li, t) << 5);
        const c0 = v128.load(xa), c1 = v128.load(xa, 16);
        v128.store(xa, f64x2.splat(0.0));
        v128.store(xa, f64x2.splat(0.0), 16);
        // (X·D⁻¹) col0 = c0·inv00 + c1·inv10, col1 = c0·inv01 + c1·inv11
        const m0 = f64x2.add(f64x2.mul(c0, ia), f64x2.mul(c1, ib));
        const m1 = f64x2.add(f64x2.mul(c0, ic), f64x2.mul(c1, idd));
        const dst = lv + (<usize>t << 5);
        v128.store(dst, m0);
        v128.store(dst, m1, 16);
        mult = absMax(mult, m0, m1);
        big = absMax(big, c0, c1);
      }
      const bg = laneMax(big), ml = laneMax(mult);
      const ad = abs(det);
      // pivot tests: multipliers bounded, det not rounding noise against the column's scale², finite
      if (!(ml <= 1.0 / PIVOT_TOL) || !(ad > SINGULAR_TOL * bg * bg)
          || !isFinite(f64x2.extract_lane(guard, 0) + f64x2.extract_lane(guard, 1) + bg + id)) {
        return false;
      }
    }
    return true;
  }

  /** Solves A x = b in place (b becomes x). After a failed factor(), b is filled with NaN. */
  solve(b: StaticArray<f64>): void {
    const n = this.n;
    if (this.singular) {
      for (let i = 0; i < n; i++) unchecked(b[i] = NaN);
      return;
    }
    if (this.scalarActive) { this.scalar!.solve(b); return; }
    const y = ptr(this.y), bp = ptr(b), at = ptr(this.varAt);
    for (let v = 0; v < n; v++) store<f64>(y + (<usize>geti(at, v) << 3), load<f64>(bp + (<usize>v << 3)));
    this.substitute(y);
    for (let v = 0; v < n; v++) store<f64>(bp + (<usize>v << 3), load<f64>(y + (<usize>geti(at, v) << 3)));
    memory.fill(y, 0, <usize>this.nb << 4);
  }

  /** Where scalar unknown (and equation) v sits in a vector in block-step order: solveSteps() works on
   *  such vectors (stepLength() long, two entries per block, the padding entries 0). */
  stepPosition(v: i32): i32 { return unchecked(this.varAt[v]); }
  stepLength(): i32 { return 2 * this.nb; }

  /** solve() of a right-hand side already in block-step order (no permutation in and out: a Newton
   *  solver builds its mismatch there). Padding entries must be 0; they stay 0. NaN after a failed factor(). */
  solveSteps(y: StaticArray<f64>): void {
    const n = this.n;
    if (this.singular) {
      for (let i = 0, m = y.length; i < m; i++) unchecked(y[i] = NaN);
      return;
    }
    if (!this.scalarActive) { this.substitute(ptr(y)); return; }
    // the scalar LU solves in scalar order (its scratch allocated on first need)
    if (this.scalarRhs.length != n) this.scalarRhs = new StaticArray<f64>(n);
    const b = ptr(this.scalarRhs), yp = ptr(y), at = ptr(this.varAt);
    for (let v = 0; v < n; v++) store<f64>(b + (<usize>v << 3), load<f64>(yp + (<usize>geti(at, v) << 3)));
    this.scalar!.solve(this.scalarRhs);
    for (let v = 0; v < n; v++) store<f64>(yp + (<usize>geti(at, v) << 3), load<f64>(b + (<usize>v << 3)));
  }

  /** Block forward and back substitution on a step-ordered vector at y. */
  private substitute(y: usize): void {
    const nb = this.nb, f = this.f;
    const lp = ptr(f.Lp), li = ptr(f.Li), up = ptr(f.Up), ui = ptr(f.Ui);
    const lv = ptr(this.Lv), uv = ptr(this.Uv), dinv = ptr(this.Dinv);
    // L z = b (unit block diagonal)
    for (let j = 0; j < nb; j++) {
      const yj = v128.load(y + (<usize>j << 4));
      const y0 = lane0(yj), y1 = lane1(yj);
      const t1 = geti(lp, j + 1);
      for (let t = geti(lp, j) + 1; t < t1; t++) {
        const l = lv + (<usize>t << 5);
        const ya = y + (<usize>geti(li, t) << 4);
        v128.store(ya, f64x2.sub(v128.load(ya), f64x2.add(f64x2.mul(v128.load(l), y0), f64x2.mul(v128.load(l, 16), y1))));
      }
    }
    // U x = z (diagonal block last in each column, applied through its inverse)
    for (let j = nb - 1; j >= 0; j--) {
      const yp = y + (<usize>j << 4);
      const yj = v128.load(yp);
      const di = dinv + (<usize>j << 5);
      const z = f64x2.add(f64x2.mul(v128.load(di), lane0(yj)),
                          f64x2.mul(v128.load(di, 16), lane1(yj)));
      v128.store(yp, z);
      const z0 = lane0(z), z1 = lane1(z);
      const d = geti(up, j + 1) - 1;
      for (let p = geti(up, j); p < d; p++) {
        const u = uv + (<usize>p << 5);
        const ya = y + (<usize>geti(ui, p) << 4);
        v128.store(ya, f64x2.sub(v128.load(ya), f64x2.add(f64x2.mul(v128.load(u), z0), f64x2.mul(v128.load(u, 16), z1))));
      }
    }
  }

  /** Nonzeros stored in L (unit diagonal included) and U, counted as scalars (four per block). */
  nnzL(): i32 { return this.scalarActive ? this.scalar!.nnzL() : 4 * this.f.nnzL(this.nb); }
  nnzU(): i32 { return this.scalarActive ? this.scalar!.nnzU() : 4 * this.f.nnzU(this.nb); }
}

/** Both lanes set to lane 0 (lane 1) of v: one shuffle (movddup / unpckhpd on x64). */
// @ts-ignore: decorator
@inline function lane0(v: v128): v128 { return v128.shuffle<f64>(v, v, 0, 0); }
// @ts-ignore: decorator
@inline function lane1(v: v128): v128 { return v128.shuffle<f64>(v, v, 1, 1); }

/** Lane-wise running maxima of |entries| kept as bit patterns (raw.ts: for non-negative doubles the
 *  bits order like the values, and a NaN sorts above +Inf so it survives to the pivot test). In i64x2:
 *  wasm's f64x2.max, exact about NaN and -0, costs several instructions on x64. */
// @ts-ignore: decorator
@inline function absBits2(v: v128): v128 { return v128.and(v, i64x2.splat(0x7FFF_FFFF_FFFF_FFFF)); }
// @ts-ignore: decorator
@inline function maxBits2(a: v128, b: v128): v128 { return v128.bitselect(a, b, i64x2.gt_s(a, b)); }
// @ts-ignore: decorator
@inline function absMax(acc: v128, c0: v128, c1: v128): v128 {
  return maxBits2(acc, maxBits2(absBits2(c0), absBits2(c1)));
}
/** The larger lane of a running maximum, as a double. */
// @ts-ignore: decorator
@inline function laneMax(acc: v128): f64 {
  const a = i64x2.extract_lane(acc, 0), b = i64x2.extract_lane(acc, 1);
  return reinterpret<f64>(a > b ? a : b);
}
