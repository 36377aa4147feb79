// The observability check (doSE's isobservable: a rank test on H at the flat start), naming what it finds: a
// state no measurement touches (a zero column of H, as isobservable reports) and, when G = HᵀWH is still
// singular, the states in H's null space, from a dense Gauss–Jordan elimination with complete pivoting of G
// (bounded to DENSE_LIMIT states; beyond it only the zero columns are named).
import { SeNetwork } from './network';
import { SeMeasurements } from './measurements';
import { MeasurementJacobian } from './jacobian';
import { GainMatrix } from './gain';

/** A column of H with max-norm under this is not related to any measurement (isobservable's tol). */
const ZERO_COLUMN: f64 = 1e-5;
/** Pivots under this times G's largest entry are rank deficiency. */
const RANK_TOL: f64 = 1e-9;
const DENSE_LIMIT: i32 = 600;

/** Marks unobservable[j] for state columns; returns how many were marked. */
export function unobservableStates(h: MeasurementJacobian, ms: SeMeasurements, g: GainMatrix, singular: bool,
  unobservable: StaticArray<u8>): i32 {
  const n = h.n;
  let count = 0;
  for (let j = 0; j < n; j++) {
    let norm = 0.0;
    for (let q = h.cp[j]; q < h.cp[j + 1]; q++) if (ms.w[h.ci[q]] != 0.0) norm = Math.max(norm, Math.abs(h.hx[h.cs[q]]));
    unobservable[j] = norm < ZERO_COLUMN ? 1 : 0;
    if (norm < ZERO_COLUMN) count++;
  }
  if (count > 0 || !singular || n > DENSE_LIMIT) return count;
  // dense G, Gauss–Jordan with complete pivoting: free columns span the null space
  const a = new StaticArray<f64>(n * n);
  let big = 0.0;
  for (let j = 0; j < n; j++) for (let p = g.gp[j]; p < g.gp[j + 1]; p++) {
    a[g.gi[p] * n + j] = g.gx[p];
    big = Math.max(big, Math.abs(g.gx[p]));
  }
  const colAt = new StaticArray<i32>(n), rowAt = new StaticArray<i32>(n);
  for (let k = 0; k < n; k++) { colAt[k] = k; rowAt[k] = k; }
  let r = 0;
  for (; r < n; r++) {
    let pr = -1, pc = -1, best = RANK_TOL * big;
    for (let i = r; i < n; i++) for (let j = r; j < n; j++) {
      const v = Math.abs(a[rowAt[i] * n + colAt[j]]);
      if (v > best) { best = v; pr = i; pc = j; }
    }
    if (pr < 0) break;
    let s = rowAt[r]; rowAt[r] = rowAt[pr]; rowAt[pr] = s;
    s = colAt[r]; colAt[r] = colAt[pc]; colAt[pc] = s;
    const prow = rowAt[r] * n, piv = a[prow + colAt[r]];
    for (let j = 0; j < n; j++) a[prow + j] /= piv;
    for (let i = 0; i < n; i++) {
      if (i == r) continue;
      const row = rowAt[i] * n, fct = a[row + colAt[r]];
      if (fct == 0.0) continue;
      for (let j = 0; j < n; j++) a[row + j] -= fct * a[prow + j];
    }
  }
  // each free column f: x_f = 1, x_pivot(k) = −a[k, f]
  for (let fcol = r; fcol < n; fcol++) {
    const f = colAt[fcol];
    if (unobservable[f] == 0) { unobservable[f] = 1; count++; }
    for (let k = 0; k < r; k++) {
      const c = colAt[k];
      if (Math.abs(a[rowAt[k] * n + f]) > 1e-8 && unobservable[c] == 0) { unobservable[c] = 1; count++; }
    }
  }
  return count;
}

/** Buses whose angle or magnitude state is unobservable. */
export function markBuses(net: SeNetwork, states: StaticArray<u8>, buses: StaticArray<u8>): void {
  for (let i = 0; i < net.nb; i++) {
    const a = net.aCol[i], v = net.vCol[i];
    buses[i] = a >= 0 && (states[a] != 0 || states[v] != 0) ? 1 : 0;
  }
}
