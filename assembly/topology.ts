// Symbolic structure of one network topology: everything that depends only on
// the bus count, the in-service branch end points and the bus types
// (ref / pv / pq), computed once and cached between solves (see index.ts).
//
//  - Ybus pattern in CSR (diagonal always present, columns sorted), the
//    position of each branch's four stamps, the transpose map;
//  - the numbering of the Newton unknowns, interleaved per bus in bus order:
//    Va(k) for every non-reference bus, then Vm(k) if k is pq. Equations use
//    the same numbering (row a(i) = P mismatch of bus i, row m(i) = Q);
//  - the Jacobian CSC pattern (column Va(k), then Vm(k), rows P_i / Q_i of the
//    buses i of Ybus column k in bus order), built on first use;
//  - the reduced patterns of B' / Bdc (non-reference buses) and B'' (pq buses);
//  - one SparseLU per matrix, analysed once, and all work vectors, so that
//    nothing is allocated inside an iteration loop.
import { SparseLU } from './sparse/lu';

export const PQ: i32 = 1;
export const PV: i32 = 2;
export const REF: i32 = 3;

let analyses: i32 = 0;
/** Number of symbolic LU analyses done by this instance (tests check reuse). */
export function analysisTotal(): i32 { return analyses; }

function analyze(lu: SparseLU, n: i32, colPtr: StaticArray<i32>, rowIdx: StaticArray<i32>): void {
  lu.analyze(n, colPtr, rowIdx);
  analyses++;
}

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

  // ---- Jacobian (built on first Newton solve)
  jReady: bool = false;
  jPtr: StaticArray<i32> = new StaticArray<i32>(1);
  jIdx: StaticArray<i32> = new StaticArray<i32>(0);
  jVal: StaticArray<f64> = new StaticArray<f64>(0);
  jRows: StaticArray<u8> = new StaticArray<u8>(0);   // per Ybus entry (i,k) of row k: 0 i is ref, 1 P row only, 2 P and Q rows
  jDiag: StaticArray<i32> = new StaticArray<i32>(0);  // per Jacobian column of bus k: slot of bus k's own P row
  nnzJ: i32 = 0;
  luJ: SparseLU = new SparseLU();

  // ---- reduced B patterns (built on first FD / DC solve)
  bReady: bool = false;
  bPtr: StaticArray<i32> = new StaticArray<i32>(1);   // non-ref x non-ref (B', Bdc)
  bIdx: StaticArray<i32> = new StaticArray<i32>(0);
  bMap: StaticArray<i32> = new StaticArray<i32>(0);   // Ybus entry -> slot (dump = nnzB)
  nnzB: i32 = 0;
  qPtr: StaticArray<i32> = new StaticArray<i32>(1);   // pq x pq (B'')
  qIdxB: StaticArray<i32> = new StaticArray<i32>(0);
  qMap: StaticArray<i32> = new StaticArray<i32>(0);
  nnzQ: i32 = 0;
  bpVal: StaticArray<f64> = new StaticArray<f64>(1);
  bppVal: StaticArray<f64> = new StaticArray<f64>(1);
  dcVal: StaticArray<f64> = new StaticArray<f64>(1);
  luBp: SparseLU = new SparseLU();
  luBpp: SparseLU = new SparseLU();
  luDc: SparseLU = new SparseLU();
  bpAnalyzed: bool = false;
  bppAnalyzed: bool = false;
  dcAnalyzed: bool = false;
  yHash: u64 = 0;      // parameter hash the Ybus values were made for
  yOk: bool = false;
  bpHash: u64 = 0;     // parameter hash the numeric factor was made for
  bppHash: u64 = 0;
  dcHash: u64 = 0;
  bpOk: bool = false;
  bppOk: bool = false;
  dcOk: bool = false;

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
  rhsJ: StaticArray<f64> = new StaticArray<f64>(0);
  rhsP: StaticArray<f64> = new StaticArray<f64>(0);
  rhsQ: StaticArray<f64> = new StaticArray<f64>(0);

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

  /** Jacobian CSC pattern and its symbolic LU analysis. */
  prepareJacobian(): void {
    if (this.jReady) return;
    const nb = this.nb;
    const yPtr = this.yPtr, yIdx = this.yIdx;
    const aIdx = this.aIdx, mIdx = this.mIdx, type = this.type;
    const nJ = this.nJ;
    // count
    let nnz = 0;
    for (let k = 0; k < nb; k++) {
      if (unchecked(type[k]) == REF) continue;
      let c = 0;
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        if (unchecked(aIdx[i]) >= 0) c++;
        if (unchecked(mIdx[i]) >= 0) c++;
      }
      nnz += unchecked(mIdx[k]) >= 0 ? 2 * c : c;
    }
    const jPtr = new StaticArray<i32>(nJ + 1);
    const jIdx = new StaticArray<i32>(nnz);
    const jDiag = new StaticArray<i32>(nJ);
    this.jDiag = jDiag;
    const jRows = new StaticArray<u8>(this.nnzY);
    for (let q = 0; q < this.nnzY; q++) {
      const i = unchecked(yIdx[q]);
      unchecked(jRows[q] = <u8>(unchecked(aIdx[i]) < 0 ? 0 : unchecked(mIdx[i]) < 0 ? 1 : 2));
    }
    this.jRows = jRows;
    let s = 0;
    for (let k = 0; k < nb; k++) {
      const ak = unchecked(aIdx[k]);
      if (ak < 0) continue;
      // column Va(k): rows P_i, Q_i for i in column k of Ybus (= row k's pattern)
      unchecked(jPtr[ak] = s);
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        const ai = unchecked(aIdx[i]), mi = unchecked(mIdx[i]);
        if (i == k) unchecked(jDiag[ak] = s);
        if (ai >= 0) unchecked(jIdx[s++] = ai);
        if (mi >= 0) unchecked(jIdx[s++] = mi);
      }
      const mk = unchecked(mIdx[k]);
      if (mk >= 0) {
        unchecked(jPtr[mk] = s);
        for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
          const i = unchecked(yIdx[q]);
          const ai = unchecked(aIdx[i]), mi = unchecked(mIdx[i]);
          if (i == k) unchecked(jDiag[mk] = s);
          if (ai >= 0) unchecked(jIdx[s++] = ai);
          if (mi >= 0) unchecked(jIdx[s++] = mi);
        }
      }
    }
    unchecked(jPtr[nJ] = s);
    this.jPtr = jPtr;
    this.jIdx = jIdx;
    this.nnzJ = nnz;
    this.jVal = new StaticArray<f64>(nnz);
    this.rhsJ = new StaticArray<f64>(nJ);
    this.luJ = new SparseLU();
    if (nJ > 0) analyze(this.luJ, nJ, jPtr, jIdx);
    this.jReady = true;
  }

  /** Back to the analysed pivot order if a factorisation fell back to pivoting since the analysis
   *  (the fallback's order stays for later solves: the last digits of a result would then depend on
   *  what this topology solved before). Studies call it before every case; a no-op otherwise. */
  resetJacobianPivoting(): void {
    this.prepareJacobian();
    if (this.nJ > 0 && this.luJ.fallbacks > 0) analyze(this.luJ, this.nJ, this.jPtr, this.jIdx);
  }

  /** The same for the DC matrix's LU (studies refactorise it per case). */
  resetDcPivoting(): void {
    if (this.dcAnalyzed && this.nR > 0 && this.luDc.fallbacks > 0) analyze(this.luDc, this.nR, this.bPtr, this.bIdx);
  }

  /** Reduced CSC patterns for B' / Bdc (non-ref) and B'' (pq), with Ybus maps. */
  prepareB(): void {
    if (this.bReady) return;
    const nb = this.nb;
    const yPtr = this.yPtr, yIdx = this.yIdx, yTr = this.yTr;
    const rIdx = this.rIdx, qIdx = this.qIdx;
    let nnzB = 0, nnzQ = 0;
    for (let k = 0; k < nb; k++) {
      const rk = unchecked(rIdx[k]), qk = unchecked(qIdx[k]);
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        if (rk >= 0 && unchecked(rIdx[i]) >= 0) nnzB++;
        if (qk >= 0 && unchecked(qIdx[i]) >= 0) nnzQ++;
      }
    }
    const bPtr = new StaticArray<i32>(this.nR + 1), bIdx = new StaticArray<i32>(nnzB);
    const qPtr = new StaticArray<i32>(this.nQ + 1), qI = new StaticArray<i32>(nnzQ);
    const bMap = new StaticArray<i32>(this.nnzY), qMap = new StaticArray<i32>(this.nnzY);
    for (let p = 0; p < this.nnzY; p++) { unchecked(bMap[p] = nnzB); unchecked(qMap[p] = nnzQ); }
    let sb = 0, sq = 0;
    for (let k = 0; k < nb; k++) {
      const rk = unchecked(rIdx[k]), qk = unchecked(qIdx[k]);
      if (rk >= 0) unchecked(bPtr[rk] = sb);
      if (qk >= 0) unchecked(qPtr[qk] = sq);
      for (let q = unchecked(yPtr[k]); q < unchecked(yPtr[k + 1]); q++) {
        const i = unchecked(yIdx[q]);
        const p = unchecked(yTr[q]);   // entry (i, k)
        const ri = unchecked(rIdx[i]), qi = unchecked(qIdx[i]);
        if (rk >= 0 && ri >= 0) { unchecked(bIdx[sb] = ri); unchecked(bMap[p] = sb); sb++; }
        if (qk >= 0 && qi >= 0) { unchecked(qI[sq] = qi); unchecked(qMap[p] = sq); sq++; }
      }
    }
    unchecked(bPtr[this.nR] = sb);
    unchecked(qPtr[this.nQ] = sq);
    this.bPtr = bPtr; this.bIdx = bIdx; this.bMap = bMap; this.nnzB = nnzB;
    this.qPtr = qPtr; this.qIdxB = qI; this.qMap = qMap; this.nnzQ = nnzQ;
    this.bpVal = new StaticArray<f64>(nnzB + 1);
    this.dcVal = new StaticArray<f64>(nnzB + 1);
    this.bppVal = new StaticArray<f64>(nnzQ + 1);
    this.rhsP = new StaticArray<f64>(this.nR);
    this.rhsQ = new StaticArray<f64>(this.nQ);
    this.bReady = true;
  }

  analyzeBp(): void { if (!this.bpAnalyzed) { analyze(this.luBp, this.nR, this.bPtr, this.bIdx); this.bpAnalyzed = true; } }
  analyzeBpp(): void { if (!this.bppAnalyzed) { analyze(this.luBpp, this.nQ, this.qPtr, this.qIdxB); this.bppAnalyzed = true; } }
  analyzeDc(): void { if (!this.dcAnalyzed) { analyze(this.luDc, this.nR, this.bPtr, this.bIdx); this.dcAnalyzed = true; } }
}
