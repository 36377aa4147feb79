// Left-looking numeric LU on a static pattern (KLU's "refactor"): with the
// pivot sequence and the structure of L and U fixed by the analysis, column k
// is computed as x = L \ (P·A·Q)(:,k) by sparse updates taken in the stored
// (ascending, hence topological) order of U(:,k); no graph search, no
// allocation. Every pivot is checked, and the first one that is too small
// relative to its column is reported so the caller can switch to a pivoting
// factorisation.
import { LUFactors } from './factors';
import { absBits, bitsToF64, getf, geti, maxBits, ptr, scatterAxpy, setf } from './raw';
import { PIVOT_TOL, SINGULAR_TOL } from './tolerances';

/**
 * Numeric factorisation into f, whose patterns are already set, of the matrix
 * A (its CSC values, as given): column k of P·A·Q is the block of values
 * starting at colAt[k] (= colPtr[q[k]]) with Apq[k+1] − Apq[k] entries, entry
 * t − Apq[k] of it in row step stepOf[t] (each column is read as a stream, in
 * place). snEnd[j] is the last column of j's supernode (supernodes.ts).
 * x is a zeroed work vector of length n and is left zeroed.
 * Returns -1 on success, else the step whose pivot failed the test
 * (|u_kk| < PIVOT_TOL·max|l_ik·u_kk|, tiny against the column, or not finite).
 */
export function refactorLU(
  n: i32, Apq: StaticArray<i32>, colAt: StaticArray<i32>, stepOf: StaticArray<i32>, values: StaticArray<f64>,
  f: LUFactors, snEnd: StaticArray<i32>, x: StaticArray<f64>, pivotTol: f64 = PIVOT_TOL,
): i32 {
  const ap = ptr(Apq), ca = ptr(colAt), so = ptr(stepOf), xp = ptr(x), se = ptr(snEnd);
  const lp = ptr(f.Lp), li = ptr(f.Li), lx = ptr(f.Lx), up = ptr(f.Up), ui = ptr(f.Ui), ux = ptr(f.Ux);
  for (let k = 0; k < n; k++) {
    // scale: largest |entry| met in this column (as bits, see raw.ts); guard:
    // a plain sum that turns NaN/Inf when any U entry is.
    let scale: i64 = 0, guard: f64 = 0.0;
    const a0 = geti(ap, k), aend = geti(ap, k + 1);
    const va = ptr(values) + ((<usize>(geti(ca, k) - a0)) << 3);
    for (let p = a0; p < aend; p++) {
      const v = getf(va, p);
      setf(xp, geti(so, p), v);
      scale = maxBits(scale, absBits(v));
    }
    // U(:,k): each x[j] is final when reached (topological order); apply L(:,j).
    // A run of columns j..m of one supernode is applied together (see
    // supernodes.ts): their rows inside the supernode one by one, their
    // common rows R at once.
    const udiag = geti(up, k + 1) - 1;
    let p = geti(up, k);
    while (p < udiag) {
      const j = geti(ui, p);
      const e = geti(se, j);
      const m = min(e, k - 1);
      if (m == j) {
        const xj = getf(xp, j);
        setf(xp, j, 0.0);
        setf(ux, p, xj);
        guard += xj;
        scatterAxpy(xp, li, lx, geti(lp, j) + 1, geti(lp, j + 1), xj);
        p++;
        continue;
      }
      if (m == j + 1 && e == m) {
        // the common pair (θ and |V| of a bus): head is the single L(j+1, j)
        const xj = getf(xp, j);
        const l = geti(lp, j);
        const xj1 = getf(xp, j + 1) - getf(lx, l + 1) * xj;
        setf(xp, j, 0.0);
        setf(xp, j + 1, 0.0);
        setf(ux, p, xj);
        setf(ux, p + 1, xj1);
        guard += xj + xj1;
        const t1 = geti(lp, j + 1) + 1;
        panelUpdate2(xp, li + (<usize>t1 << 2), geti(lp, j + 2) - t1, lx + (<usize>(l + 2) << 3), lx + (<usize>t1 << 3), xj, xj1);
        p += 2;
        continue;
      }
      for (let c = j; c <= m; c++) {
        const xc = getf(xp, c);
        setf(xp, c, 0.0);
        setf(ux, p + c - j, xc);
        guard += xc;
        const h = geti(lp, c) + 1;
        scatterAxpy(xp, li, lx, h, h + e - c, xc);
      }
      const rIdx = li + ((<usize>geti(lp, e) + 1) << 2);
      const rLen = geti(lp, e + 1) - geti(lp, e) - 1;
      let c = j;
      for (; c + 3 <= m; c += 4) {
        panelUpdate4(xp, rIdx, rLen,
          tail(lx, lp, c, e), tail(lx, lp, c + 1, e), tail(lx, lp, c + 2, e), tail(lx, lp, c + 3, e),
          getf(ux, p + c - j), getf(ux, p + c - j + 1), getf(ux, p + c - j + 2), getf(ux, p + c - j + 3));
      }
      if (c + 1 <= m) {
        panelUpdate2(xp, rIdx, rLen, tail(lx, lp, c, e), tail(lx, lp, c + 1, e),
          getf(ux, p + c - j), getf(ux, p + c - j + 1));
        c += 2;
      }
      if (c == m) panelUpdate1(xp, rIdx, rLen, tail(lx, lp, c, e), getf(ux, p + c - j));
      p += m - j + 1;
    }
    const d = getf(xp, k);
    setf(xp, k, 0.0);
    // L(:,k) before scaling, gathered while finding the largest candidate.
    const l0 = geti(lp, k) + 1, l1 = geti(lp, k + 1);
    let cbits: i64 = 0;
    for (let t = l0; t < l1; t++) {
      const a = xp + (<usize>geti(li, t) << 3);
      const v = load<f64>(a);
      store<f64>(a, 0.0);
      setf(lx, t, v);
      cbits = maxBits(cbits, absBits(v));
    }
    const ad = abs(d);
    const cmax = bitsToF64(cbits);
    const big = bitsToF64(maxBits(maxBits(scale, cbits), absBits(d)));
    if (!(ad >= pivotTol * cmax) || !(ad > SINGULAR_TOL * big) || !isFinite(guard + big)) return k;
    setf(ux, udiag, d);
    const inv = 1.0 / d;
    for (let t = l0; t < l1; t++) setf(lx, t, getf(lx, t) * inv);
  }
  return -1;
}

/** Address of the values of column c of supernode ..e on its common rows R. */
// @ts-ignore: decorator
@inline function tail(lx: usize, lp: usize, c: i32, e: i32): usize {
  return lx + ((<usize>(geti(lp, c) + 1 + e - c)) << 3);
}

// x[R[t]] -= Σ_c L_c[t]·x_c over 4, 2 or 1 columns of a supernode: one
// gather and one scatter of x per row for all of them. Two rows at a time in
// f64x2 (the columns' values of consecutive rows are adjacent); the sums are
// formed and subtracted in the scalar order, so the results are the same bits.
// @ts-ignore: decorator
@inline function panelUpdate4(x: usize, r: usize, len: i32, a: usize, b: usize, c: usize, d: usize,
                              xa: f64, xb: f64, xc: f64, xd: f64): void {
  const va = f64x2.splat(xa), vb = f64x2.splat(xb), vc = f64x2.splat(xc), vd = f64x2.splat(xd);
  let t = 0;
  for (; t + 1 < len; t += 2) {
    const o = <usize>t << 3;
    const s1 = f64x2.add(f64x2.mul(v128.load(a + o), va), f64x2.mul(v128.load(b + o), vb));
    const s2 = f64x2.add(f64x2.mul(v128.load(c + o), vc), f64x2.mul(v128.load(d + o), vd));
    const at0 = x + (<usize>geti(r, t) << 3), at1 = x + (<usize>geti(r, t + 1) << 3);
    store<f64>(at0, load<f64>(at0) - f64x2.extract_lane(s1, 0) - f64x2.extract_lane(s2, 0));
    store<f64>(at1, load<f64>(at1) - f64x2.extract_lane(s1, 1) - f64x2.extract_lane(s2, 1));
  }
  if (t < len) {
    const o = <usize>t << 3;
    const at = x + (<usize>geti(r, t) << 3);
    store<f64>(at, load<f64>(at) - (load<f64>(a + o) * xa + load<f64>(b + o) * xb)
                                 - (load<f64>(c + o) * xc + load<f64>(d + o) * xd));
  }
}

// @ts-ignore: decorator
@inline function panelUpdate2(x: usize, r: usize, len: i32, a: usize, b: usize, xa: f64, xb: f64): void {
  const va = f64x2.splat(xa), vb = f64x2.splat(xb);
  let t = 0;
  for (; t + 1 < len; t += 2) {
    const o = <usize>t << 3;
    const s1 = f64x2.add(f64x2.mul(v128.load(a + o), va), f64x2.mul(v128.load(b + o), vb));
    const at0 = x + (<usize>geti(r, t) << 3), at1 = x + (<usize>geti(r, t + 1) << 3);
    store<f64>(at0, load<f64>(at0) - f64x2.extract_lane(s1, 0));
    store<f64>(at1, load<f64>(at1) - f64x2.extract_lane(s1, 1));
  }
  if (t < len) {
    const o = <usize>t << 3;
    const at = x + (<usize>geti(r, t) << 3);
    store<f64>(at, load<f64>(at) - (load<f64>(a + o) * xa + load<f64>(b + o) * xb));
  }
}

// @ts-ignore: decorator
@inline function panelUpdate1(x: usize, r: usize, len: i32, a: usize, xa: f64): void {
  for (let t = 0; t < len; t++) {
    const at = x + (<usize>geti(r, t) << 3);
    store<f64>(at, load<f64>(at) - load<f64>(a + (<usize>t << 3)) * xa);
  }
}
