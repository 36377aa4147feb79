// Symbolic structure of one network topology: everything that depends only on
// the bus count, the in-service branch end points and the bus types
// (ref / pv / pq), computed once and cached between solves (see index.ts).
//
//  - Ybus pattern in CSR (diagonal always present, columns sorted), the
//    position of each branch's four stamps, the transpose map;
//  - the numbering of the Newton unknowns, interleaved per bus in bus order:
//    Va(k) for every non-reference bus, then Vm(k) if k is pq. Equations use
//    the same numbering (row a(i) = P mismatch of bus i, row m(i) = Q);
//  - the Ybus values and the work vectors every method shares, so that nothing
//    is allocated inside an iteration loop;
//  - each method's linear system, built lazily on its first use and kept:
//    newton() (Jacobian pattern and LU, ./newtonSystem.ts), reducedB() (B' / Bdc
//    and B'' patterns, ./reducedB.ts), decoupled() (B' and B'' factors,
//    ./decoupledSystem.ts), dc() (Bbus factor, ./dcSystem.ts). A new solver adds
//    its own system and accessor here, not fields to the topology.
import { NewtonSystem } from './newtonSystem';
import { ReducedB } from './reducedB';
import { DecoupledSystem } from './decoupledSystem';
import { DcSystem } from './dcSystem';

export const PQ: i32 = 1;
export const PV: i32 = 2;
export const REF: i32 = 3;

/** Position of column `col` in the sorted CSR row `row`, or -1. */
export function findInRow(ptr: StaticArray<i32>, idx: StaticArray<i32>, row: i32, col: i32): i32 {
  let lo = unchecked(ptr[row]);
  let hi = unchecked(ptr[row + 1]) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = unchecked(idx[mid]);
    if (c == col) return mid;
    if (c < col) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

export class Topology {
  nb: i32;
  nl: i32;
  f: StaticArray<i32>;
  t: StaticArray<i32>;
  type: StaticArray<i32>;
  lastUse: i64 = 0;

  // ---- Ybus pattern (CSR)
  yPtr: StaticArray<i32>;
  yIdx: StaticArray<i32>;
  nnzY: i32 = 0;
  yDiag: StaticArray<i32>;
  yTr: StaticArray<i32>;   // position of (k,i) for the entry (i,k)
  pFF: StaticArray<i32>;
  pFT: StaticArray<i32>;
  pTF: StaticArray<i32>;
  pTT: StaticArray<i32>;

  // ---- unknown numbering
  aIdx: StaticArray<i32>;  // Newton: Va unknown of bus, -1 at ref
  mIdx: StaticArray<i32>;  // Newton: Vm unknown of bus, -1 unless pq
  rIdx: StaticArray<i32>;  // reduced B' / Bdc index (non-ref), -1 at ref
  qIdx: StaticArray<i32>;  // reduced B'' index (pq), -1 otherwise
  nJ: i32 = 0;
  nR: i32 = 0;
  nQ: i32 = 0;
  nRef: i32 = 0;
  refBus: StaticArray<i32>;

  // ---- each method's linear system, built on first use (see the accessors below)
  private newtonSystem: NewtonSystem | null = null;
  private reducedPatterns: ReducedB | null = null;
  private decoupledSystem: DecoupledSystem | null = null;
  private dcSystem: DcSystem | null = null;
  yHash: u64 = 0;      // parameter hash the Ybus values were made for
  yOk: bool = false;

  // ---- values and work vectors
  yRe: StaticArray<f64>;
  yIm: StaticArray<f64>;
  yT: StaticArray<f64>;    // Ybus in column order, (re, im) interleaved: yT[2q..] = Y(yIdx[q], k) for q in row k
  brY: StaticArray<f64>;   // 8 per branch: Yff, Yft, Ytf, Ytt (re, im)
  vm: StaticArray<f64>;
  va: StaticArray<f64>;
  /** Buses of a study case held out of the Newton equations (de-energized by a splitting outage under
   *  islanding isolate): their Jacobian columns are identity and their mismatches 0, so they keep their
   *  voltage while the energized part is solved on the unchanged pattern (study.ts). */
  pinned: StaticArray<u8>;
  anyPinned: bool = false;
  vr: StaticArray<f64>;
  vi: StaticArray<f64>;
  ir: StaticArray<f64>;
  ii: StaticArray<f64>;
  sr: StaticArray<f64>;
  si: StaticArray<f64>;
  pSch: StaticArray<f64>;
  qSch: StaticArray<f64>;
  busA: StaticArray<f64>;  // per-bus scratch (pfsoln, dcpf)
  busB: StaticArray<f64>;
  busC: StaticArray<f64>;
  busD: StaticArray<f64>;
  busN: StaticArray<i32>;
  cosVa: StaticArray<f64>; // cos / sin of the angles of the last P half-iteration (fdpf)
  sinVa: StaticArray<f64>;

  constructor(nb: i32, nl: i32, f: StaticArray<i32>, t: StaticArray<i32>, type: StaticArray<i32>) {
    this.nb = nb;
    this.nl = nl;
    this.f = f;
    this.t = t;
    this.type = type;

    // --- Ybus pattern: diagonal + both ends of every branch, sorted, deduplicated
    const cnt = new StaticArray<i32>(nb + 1);
    for (let i = 0; i < nb; i++) unchecked(cnt[i] = 1);
    for (let l = 0; l < nl; l++) {
      const a = unchecked(f[l]), b = unchecked(t[l]);
      if (a != b) { unchecked(cnt[a]++); unchecked(cnt[b]++); }
    }
    const tptr = new StaticArray<i32>(nb + 1);
    for (let i = 0; i < nb; i++) unchecked(tptr[i + 1] = tptr[i] + cnt[i]);
    const tidx = new StaticArray<i32>(unchecked(tptr[nb]));
    const fill = new StaticArray<i32>(nb);
    for (let i = 0; i < nb; i++) { unchecked(tidx[tptr[i]] = i); unchecked(fill[i] = tptr[i] + 1); }
    for (let l = 0; l < nl; l++) {
      const a = unchecked(f[l]), b = unchecked(t[l]);
      if (a != b) {
        unchecked(tidx[fill[a]++] = b);
        unchecked(tidx[fill[b]++] = a);
      }
    }
    const yPtr = new StaticArray<i32>(nb + 1);
    let nnz = 0;
    for (let i = 0; i < nb; i++) {
      const s = unchecked(tptr[i]), e = unchecked(tptr[i + 1]);
      // insertion sort (rows are short)
      for (let p = s + 1; p < e; p++) {
        const v = unchecked(tidx[p]);
        let q = p - 1;
        while (q >= s && unchecked(tidx[q]) > v) { unchecked(tidx[q + 1] = tidx[q]); q--; }
        unchecked(tidx[q + 1] = v);
      }
      // dedupe in place into the compacted position
      let last = -1;
      for (let p = s; p < e; p++) {
        const v = unchecked(tidx[p]);
        if (v != last) { unchecked(tidx[nnz++] = v); last = v; }
      }
      unchecked(yPtr[i + 1] = nnz);
    }
    const yIdx = new StaticArray<i32>(nnz);
    for (let p = 0; p < nnz; p++) unchecked(yIdx[p] = tidx[p]);
    this.yPtr = yPtr;
    this.yIdx = yIdx;
    this.nnzY = nnz;

    const yDiag = new StaticArray<i32>(nb);
    for (let i = 0; i < nb; i++) unchecked(yDiag[i] = findInRow(yPtr, yIdx, i, i));
    this.yDiag = yDiag;
    const yTr = new StaticArray<i32>(nnz);
    for (let i = 0; i < nb; i++) {
      for (let p = unchecked(yPtr[i]); p < unchecked(yPtr[i + 1]); p++) {
        unchecked(yTr[p] = findInRow(yPtr, yIdx, yIdx[p], i));
      }
    }
    this.yTr = yTr;
    const pFF = new StaticArray<i32>(nl), pFT = new StaticArray<i32>(nl);
    const pTF = new StaticArray<i32>(nl), pTT = new StaticArray<i32>(nl);
    for (let l = 0; l < nl; l++) {
      const a = unchecked(f[l]), b = unchecked(t[l]);
      unchecked(pFF[l] = yDiag[a]);
      unchecked(pTT[l] = yDiag[b]);
      unchecked(pFT[l] = findInRow(yPtr, yIdx, a, b));
      unchecked(pTF[l] = findInRow(yPtr, yIdx, b, a));
    }
    this.pFF = pFF; this.pFT = pFT; this.pTF = pTF; this.pTT = pTT;

    // --- unknown numbering
    const aIdx = new StaticArray<i32>(nb), mIdx = new StaticArray<i32>(nb);
    const rIdx = new StaticArray<i32>(nb), qIdx = new StaticArray<i32>(nb);
    let n = 0, nr = 0, nq = 0, nref = 0;
    for (let i = 0; i < nb; i++) {
      const ty = unchecked(type[i]);
      if (ty == REF) {
        unchecked(aIdx[i] = -1); unchecked(mIdx[i] = -1);
        unchecked(rIdx[i] = -1); unchecked(qIdx[i] = -1);
        nref++;
      } else {
        unchecked(aIdx[i] = n++);
        unchecked(rIdx[i] = nr++);
        if (ty == PQ) { unchecked(mIdx[i] = n++); unchecked(qIdx[i] = nq++); } else { unchecked(mIdx[i] = -1); unchecked(qIdx[i] = -1); }
      }
    }
    this.aIdx = aIdx; this.mIdx = mIdx; this.rIdx = rIdx; this.qIdx = qIdx;
    this.nJ = n; this.nR = nr; this.nQ = nq; this.nRef = nref;
    const refBus = new StaticArray<i32>(nref);
    let k = 0;
    for (let i = 0; i < nb; i++) if (unchecked(type[i]) == REF) unchecked(refBus[k++] = i);
    this.refBus = refBus;

    this.yRe = new StaticArray<f64>(nnz);
    this.yIm = new StaticArray<f64>(nnz);
    this.yT = new StaticArray<f64>(2 * nnz);
    this.brY = new StaticArray<f64>(8 * nl);
    this.vm = new StaticArray<f64>(nb);
    this.va = new StaticArray<f64>(nb);
    this.pinned = new StaticArray<u8>(nb);
    this.vr = new StaticArray<f64>(nb);
    this.vi = new StaticArray<f64>(nb);
    this.ir = new StaticArray<f64>(nb);
    this.ii = new StaticArray<f64>(nb);
    this.sr = new StaticArray<f64>(nb);
    this.si = new StaticArray<f64>(nb);
    this.pSch = new StaticArray<f64>(nb);
    this.qSch = new StaticArray<f64>(nb);
    this.busA = new StaticArray<f64>(nb);
    this.busB = new StaticArray<f64>(nb);
    this.busC = new StaticArray<f64>(nb);
    this.busD = new StaticArray<f64>(nb);
    this.busN = new StaticArray<i32>(nb);
    this.cosVa = new StaticArray<f64>(nb);
    this.sinVa = new StaticArray<f64>(nb);
  }

  /** Same bus count, branch end points and bus types? */
  matches(nb: i32, nl: i32, input: StaticArray<f64>, typeOff: i32, fOff: i32, tOff: i32): bool {
    if (nb != this.nb || nl != this.nl) return false;
    const f = this.f, t = this.t, type = this.type;
    for (let i = 0; i < nb; i++) if (<i32>unchecked(input[typeOff + i]) != unchecked(type[i])) return false;
    for (let l = 0; l < nl; l++) {
      if (<i32>unchecked(input[fOff + l]) != unchecked(f[l])) return false;
      if (<i32>unchecked(input[tOff + l]) != unchecked(t[l])) return false;
    }
    return true;
  }

  /** Newton's Jacobian pattern, values and LU (analysed on first use). */
  newton(): NewtonSystem {
    if (this.newtonSystem === null) this.newtonSystem = new NewtonSystem(this);
    return this.newtonSystem!;
  }

  /** The B' / Bdc and B'' patterns with their Ybus maps. */
  reducedB(): ReducedB {
    if (this.reducedPatterns === null) this.reducedPatterns = new ReducedB(this);
    return this.reducedPatterns!;
  }

  /** Fast-decoupled's B' and B'' values and factors. */
  decoupled(): DecoupledSystem {
    if (this.decoupledSystem === null) this.decoupledSystem = new DecoupledSystem(this.reducedB(), this.nR, this.nQ);
    return this.decoupledSystem!;
  }

  /** The DC Bbus values and factor. */
  dc(): DcSystem {
    if (this.dcSystem === null) this.dcSystem = new DcSystem(this.reducedB(), this.nR, this.nb, this.nl);
    return this.dcSystem!;
  }
}
