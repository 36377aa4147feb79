// The AC-OPF's nonlinear constraints in polar voltages, as MATPOWER's
// opf_power_balance_fcn / opf_branch_flow_fcn and their Hessians, for MIPS:
//   g = [Pmis (nb); Qmis (nb)],  mis_i = Σ_branches S_end + conj(ysh_i) Vm_i² + Sd_i − Σ_gen(i) Sg
//   h = [|Sf|² − Smax² ; |St|² − Smax²] for the rated branches (rate_a ≠ 0), in that order
// over x = [Va (nb); Vm (nb); Pg (ng); Qg (ng); …]. Every term comes from one
// evaluation of ./branchPower.ts per branch; the patterns (bus adjacency in
// 2×2 blocks) and the slot of every branch term are found once here.
import { NonlinearConstraints } from './nonlinear';
import { BranchPower } from './branchPower';
import { geti, getf, ptr, setf } from '../sparse/raw';

export class AcConstraints extends NonlinearConstraints {
  nb: i32; ng: i32; nl: i32; nrated: i32;
  from: StaticArray<i32>; to: StaticArray<i32>;
  /** a, b, c, d per branch (./branchPower.ts), 8 values each */
  coef: StaticArray<f64>;
  gs: StaticArray<f64>; bs: StaticArray<f64>;   // bus shunts, p.u.
  pd: StaticArray<f64>; qd: StaticArray<f64>;   // bus demand, p.u.
  genBus: StaticArray<i32>;
  /** rated index of a branch (row of h), or −1 */
  ratedOf: StaticArray<i32>;
  smax2: StaticArray<f64>;                        // (rate_a / baseMVA)² per rated branch
  /** sorted neighbours of each bus, itself included */
  nbrP: StaticArray<i32> = new StaticArray<i32>(0);
  nbrJ: StaticArray<i32> = new StaticArray<i32>(0);
  /** per branch: position of f and t in N(f), of t and f in N(t) */
  brPos: StaticArray<i32> = new StaticArray<i32>(0);
  selfPos: StaticArray<i32> = new StaticArray<i32>(0);
  /** per branch: the 16 Hessian slots of (θf, θt, Vf, Vt)² */
  hPos: StaticArray<i32> = new StaticArray<i32>(0);
  bp: BranchPower = new BranchPower();
  local: StaticArray<f64> = new StaticArray<f64>(16);

  constructor(nx: i32, nb: i32, ng: i32, nl: i32, from: StaticArray<i32>, to: StaticArray<i32>, coef: StaticArray<f64>,
    gs: StaticArray<f64>, bs: StaticArray<f64>, pd: StaticArray<f64>, qd: StaticArray<f64>, genBus: StaticArray<i32>,
    ratedOf: StaticArray<i32>, smax2: StaticArray<f64>) {
    super(nx);
    this.nb = nb; this.ng = ng; this.nl = nl;
    this.from = from; this.to = to; this.coef = coef;
    this.gs = gs; this.bs = bs; this.pd = pd; this.qd = qd; this.genBus = genBus;
    this.ratedOf = ratedOf; this.smax2 = smax2;
    const nrated = smax2.length;
    this.nrated = nrated;
    this.buildNeighbours();
    this.buildPatterns(nx);
  }

  private buildNeighbours(): void {
    const nb = this.nb, nl = this.nl;
    const cnt = new StaticArray<i32>(nb + 1);
    for (let i = 0; i < nb; i++) unchecked(cnt[i + 1] = 1);
    for (let l = 0; l < nl; l++) { unchecked(cnt[this.from[l] + 1]++); unchecked(cnt[this.to[l] + 1]++); }
    for (let i = 0; i < nb; i++) unchecked(cnt[i + 1] += cnt[i]);
    const raw = new StaticArray<i32>(unchecked(cnt[nb]));
    const fill = new StaticArray<i32>(nb);
    for (let i = 0; i < nb; i++) { unchecked(raw[cnt[i]] = i); unchecked(fill[i] = 1); }
    for (let l = 0; l < nl; l++) {
      const f = unchecked(this.from[l]), t = unchecked(this.to[l]);
      unchecked(raw[cnt[f] + fill[f]++] = t);
      unchecked(raw[cnt[t] + fill[t]++] = f);
    }
    // sort each list and drop repeats (parallel branches)
    const P = new StaticArray<i32>(nb + 1);
    let n = 0;
    for (let i = 0; i < nb; i++) {
      const lo = unchecked(cnt[i]), hi = unchecked(cnt[i + 1]);
      insertionSort(raw, lo, hi);
      let last = -1;
      for (let p = lo; p < hi; p++) {
        const k = unchecked(raw[p]);
        if (k != last) { unchecked(raw[n++] = k); last = k; }
      }
      unchecked(P[i + 1] = n);
    }
    const J = new StaticArray<i32>(n);
    for (let p = 0; p < n; p++) unchecked(J[p] = raw[p]);
    this.nbrP = P; this.nbrJ = J;
    this.selfPos = new StaticArray<i32>(nb);
    for (let i = 0; i < nb; i++) unchecked(this.selfPos[i] = this.find(i, i));
    this.brPos = new StaticArray<i32>(4 * nl);
    for (let l = 0; l < nl; l++) {
      const f = unchecked(this.from[l]), t = unchecked(this.to[l]);
      unchecked(this.brPos[4 * l] = this.find(f, f));
      unchecked(this.brPos[4 * l + 1] = this.find(f, t));
      unchecked(this.brPos[4 * l + 2] = this.find(t, t));
      unchecked(this.brPos[4 * l + 3] = this.find(t, f));
    }
  }

  /** position of bus k in N(i) */
  private find(i: i32, k: i32): i32 {
    let lo = unchecked(this.nbrP[i]), hi = unchecked(this.nbrP[i + 1]) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1, v = unchecked(this.nbrJ[mid]);
      if (v == k) return mid - unchecked(this.nbrP[i]);
      if (v < k) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
  }

  private buildPatterns(nx: i32): void {
    const nb = this.nb, ng = this.ng, nl = this.nl, nr = this.nrated;
    const gCnt = new StaticArray<i32>(nb);
    for (let g = 0; g < ng; g++) unchecked(gCnt[this.genBus[g]]++);
    // g rows: Pmis_i then Qmis_i, each [Va_k, Vm_k for k ∈ N(i); Pg / Qg of the bus's generators]
    this.neq = 2 * nb;
    const eqP = new StaticArray<i32>(2 * nb + 1);
    for (let r = 0; r < 2 * nb; r++) {
      const i = r < nb ? r : r - nb;
      const deg = unchecked(this.nbrP[i + 1]) - unchecked(this.nbrP[i]);
      unchecked(eqP[r + 1] = eqP[r] + 2 * deg + gCnt[i]);
    }
    const eqJ = new StaticArray<i32>(unchecked(eqP[2 * nb]));
    const gFill = new StaticArray<i32>(2 * nb);
    for (let r = 0; r < 2 * nb; r++) {
      const i = r < nb ? r : r - nb;
      const p0 = unchecked(this.nbrP[i]), deg = unchecked(this.nbrP[i + 1]) - p0, q = unchecked(eqP[r]);
      for (let a = 0; a < deg; a++) {
        const k = unchecked(this.nbrJ[p0 + a]);
        unchecked(eqJ[q + a] = k); unchecked(eqJ[q + deg + a] = nb + k);
      }
      unchecked(gFill[r] = q + 2 * deg);
    }
    for (let g = 0; g < ng; g++) {
      const i = unchecked(this.genBus[g]);
      unchecked(eqJ[gFill[i]++] = 2 * nb + g);
      unchecked(eqJ[gFill[nb + i]++] = 2 * nb + ng + g);
    }
    this.eqP = eqP; this.eqJ = eqJ;
    // h rows: |Sf|² of the rated branches, then |St|²; each over (Va_f, Va_t, Vm_f, Vm_t)
    this.niq = 2 * nr;
    const iqP = new StaticArray<i32>(2 * nr + 1);
    for (let k = 0; k < 2 * nr; k++) unchecked(iqP[k + 1] = 4 * (k + 1));
    const iqJ = new StaticArray<i32>(8 * nr);
    for (let l = 0; l < nl; l++) {
      const k = unchecked(this.ratedOf[l]);
      if (k < 0) continue;
      const f = unchecked(this.from[l]), t = unchecked(this.to[l]);
      for (let s = 0; s < 2; s++) {
        const q = 4 * (k + s * nr);
        unchecked(iqJ[q] = f); unchecked(iqJ[q + 1] = t); unchecked(iqJ[q + 2] = nb + f); unchecked(iqJ[q + 3] = nb + t);
      }
    }
    this.iqP = iqP; this.iqJ = iqJ;
    // Hessian: rows Va_i and Vm_i over [Va_k, Vm_k for k ∈ N(i)]
    const hP = new StaticArray<i32>(nx + 1);
    for (let r = 0; r < nx; r++) {
      let len = 0;
      if (r < 2 * nb) { const i = r < nb ? r : r - nb; len = 2 * (unchecked(this.nbrP[i + 1]) - unchecked(this.nbrP[i])); }
      unchecked(hP[r + 1] = hP[r] + len);
    }
    const hJ = new StaticArray<i32>(unchecked(hP[nx]));
    for (let r = 0; r < 2 * nb; r++) {
      const i = r < nb ? r : r - nb;
      const p0 = unchecked(this.nbrP[i]), deg = unchecked(this.nbrP[i + 1]) - p0, q = unchecked(hP[r]);
      for (let a = 0; a < deg; a++) {
        const k = unchecked(this.nbrJ[p0 + a]);
        unchecked(hJ[q + a] = k); unchecked(hJ[q + deg + a] = nb + k);
      }
    }
    this.hessP = hP; this.hessJ = hJ;
    // the 16 Hessian slots of each branch's (θf, θt, Vf, Vt)
    this.hPos = new StaticArray<i32>(16 * nl);
    for (let l = 0; l < nl; l++) {
      const f = unchecked(this.from[l]), t = unchecked(this.to[l]);
      for (let a = 0; a < 4; a++) {
        const busA = (a & 1) == 0 ? f : t;
        const row = a < 2 ? busA : nb + busA;
        const degA = unchecked(this.nbrP[busA + 1]) - unchecked(this.nbrP[busA]);
        for (let b = 0; b < 4; b++) {
          const busB = (b & 1) == 0 ? f : t;
          const at = busA == f ? (busB == f ? unchecked(this.brPos[4 * l]) : unchecked(this.brPos[4 * l + 1]))
            : (busB == t ? unchecked(this.brPos[4 * l + 2]) : unchecked(this.brPos[4 * l + 3]));
          unchecked(this.hPos[16 * l + 4 * a + b] = hP[row] + (b < 2 ? 0 : degA) + at);
        }
      }
    }
  }

  /** Pmis_i with Va_i, Qmis_i with Vm_i: both are variable e. */
  partner(e: i32): i32 { return e; }

  evaluate(x: StaticArray<f64>, g: StaticArray<f64>, eqV: StaticArray<f64>, h: StaticArray<f64>, iqV: StaticArray<f64>): void {
    const nb = this.nb, ng = this.ng, nr = this.nrated;
    // raw element access (sparse/raw.ts): nothing allocates in here
    const eqP = ptr(this.eqP), eqJ = ptr(this.eqJ), nbrP = ptr(this.nbrP);
    const xp = ptr(x), gp = ptr(g), ev = ptr(eqV), hp = ptr(h), iv = ptr(iqV);
    for (let r = 0; r < 2 * nb; r++) {
      for (let p = geti(eqP, r), e = geti(eqP, r + 1); p < e; p++) setf(ev, p, geti(eqJ, p) >= 2 * nb ? -1.0 : 0.0);
    }
    const gs = ptr(this.gs), bs = ptr(this.bs), pd = ptr(this.pd), qd = ptr(this.qd), selfPos = ptr(this.selfPos);
    for (let i = 0; i < nb; i++) {
      const vm = getf(xp, nb + i);
      const gsi = getf(gs, i), bsi = getf(bs, i);
      setf(gp, i, getf(pd, i) + gsi * vm * vm);
      setf(gp, nb + i, getf(qd, i) - bsi * vm * vm);
      const off = geti(nbrP, i + 1) - geti(nbrP, i) + geti(selfPos, i);
      const pa = geti(eqP, i) + off, qa = geti(eqP, nb + i) + off;
      setf(ev, pa, getf(ev, pa) + 2.0 * gsi * vm);
      setf(ev, qa, getf(ev, qa) - 2.0 * bsi * vm);
    }
    const genBus = ptr(this.genBus);
    for (let q = 0; q < ng; q++) {
      const i = geti(genBus, q);
      setf(gp, i, getf(gp, i) - getf(xp, 2 * nb + q));
      setf(gp, nb + i, getf(gp, nb + i) - getf(xp, 2 * nb + ng + q));
    }
    const bp = this.bp, dF = ptr(bp.dSf), dT = ptr(bp.dSt), coef = this.coef;
    const from = ptr(this.from), to = ptr(this.to), brPos = ptr(this.brPos), ratedOf = ptr(this.ratedOf), smax2 = ptr(this.smax2);
    for (let l = 0, nl = this.nl; l < nl; l++) {
      const f = geti(from, l), t = geti(to, l);
      bp.at(coef, 8 * l, getf(xp, f), getf(xp, t), getf(xp, nb + f), getf(xp, nb + t), false);
      setf(gp, f, getf(gp, f) + bp.sfR); setf(gp, nb + f, getf(gp, nb + f) + bp.sfI);
      setf(gp, t, getf(gp, t) + bp.stR); setf(gp, nb + t, getf(gp, nb + t) + bp.stI);
      const ff = geti(brPos, 4 * l), ft = geti(brPos, 4 * l + 1);
      const tt = geti(brPos, 4 * l + 2), tf = geti(brPos, 4 * l + 3);
      const degF = geti(nbrP, f + 1) - geti(nbrP, f), degT = geti(nbrP, t + 1) - geti(nbrP, t);
      const pF = geti(eqP, f), qF = geti(eqP, nb + f), pT = geti(eqP, t), qT = geti(eqP, nb + t);
      // row f: Sf over (Va_f, Va_t, Vm_f, Vm_t); row t: St likewise
      addf(ev, pF + ff, getf(dF, 0)); addf(ev, pF + ft, getf(dF, 1)); addf(ev, pF + degF + ff, getf(dF, 2)); addf(ev, pF + degF + ft, getf(dF, 3));
      addf(ev, qF + ff, getf(dF, 4)); addf(ev, qF + ft, getf(dF, 5)); addf(ev, qF + degF + ff, getf(dF, 6)); addf(ev, qF + degF + ft, getf(dF, 7));
      addf(ev, pT + tf, getf(dT, 0)); addf(ev, pT + tt, getf(dT, 1)); addf(ev, pT + degT + tf, getf(dT, 2)); addf(ev, pT + degT + tt, getf(dT, 3));
      addf(ev, qT + tf, getf(dT, 4)); addf(ev, qT + tt, getf(dT, 5)); addf(ev, qT + degT + tf, getf(dT, 6)); addf(ev, qT + degT + tt, getf(dT, 7));
      const k = geti(ratedOf, l);
      if (k < 0) continue;
      const sfR = bp.sfR, sfI = bp.sfI, stR = bp.stR, stI = bp.stI;
      setf(hp, k, sfR * sfR + sfI * sfI - getf(smax2, k));
      setf(hp, nr + k, stR * stR + stI * stI - getf(smax2, k));
      for (let a = 0; a < 4; a++) {
        setf(iv, 4 * k + a, 2.0 * (sfR * getf(dF, a) + sfI * getf(dF, 4 + a)));
        setf(iv, 4 * (nr + k) + a, 2.0 * (stR * getf(dT, a) + stI * getf(dT, 4 + a)));
      }
    }
  }

  hessian(x: StaticArray<f64>, lam: StaticArray<f64>, mu: StaticArray<f64>, hv: StaticArray<f64>): void {
    const nb = this.nb, nr = this.nrated, nbrP = this.nbrP;
    const hp = ptr(hv), lp = ptr(lam), mp = ptr(mu);
    memory.fill(hp, 0, <usize>hv.length << 3);
    for (let i = 0; i < nb; i++) {
      // Σ λP Re + λQ Im of conj(ysh) Vm²: 2 (λP gs − λQ bs) on (Vm_i, Vm_i)
      const deg = unchecked(nbrP[i + 1]) - unchecked(nbrP[i]);
      const at = unchecked(this.hessP[nb + i]) + deg + unchecked(this.selfPos[i]);
      setf(hp, at, getf(hp, at) + 2.0 * (getf(lp, i) * unchecked(this.gs[i]) - getf(lp, nb + i) * unchecked(this.bs[i])));
    }
    // raw element access in the branch loop (sparse/raw.ts): bp.at writes into these same arrays
    const bp = this.bp, dF = ptr(bp.dSf), dT = ptr(bp.dSt), F = ptr(bp.d2Sf), T = ptr(bp.d2St), H = ptr(this.local);
    const from = ptr(this.from), to = ptr(this.to), ratedOf = ptr(this.ratedOf), hPos = ptr(this.hPos), xp = ptr(x);
    const coef = this.coef;
    for (let l = 0, nl = this.nl; l < nl; l++) {
      const f = geti(from, l), t = geti(to, l);
      bp.at(coef, 8 * l, getf(xp, f), getf(xp, t), getf(xp, nb + f), getf(xp, nb + t), true);
      const lpF = getf(lp, f), lqF = getf(lp, nb + f), lpT = getf(lp, t), lqT = getf(lp, nb + t);
      for (let e = 0; e < 16; e++) setf(H, e, lpF * getf(F, e) + lqF * getf(F, 16 + e) + lpT * getf(T, e) + lqT * getf(T, 16 + e));
      const k = geti(ratedOf, l);
      if (k >= 0) {
        // ∇²|S|² = 2 Re(∇²S conj(S) + ∇S ∇Sᴴ)
        const mf = 2.0 * getf(mp, k), mt = 2.0 * getf(mp, nr + k);
        const sfR = bp.sfR, sfI = bp.sfI, stR = bp.stR, stI = bp.stI;
        for (let a = 0; a < 4; a++) {
          for (let b = 0; b < 4; b++) {
            const e = 4 * a + b;
            setf(H, e, getf(H, e) + (mf * (getf(F, e) * sfR + getf(F, 16 + e) * sfI + getf(dF, a) * getf(dF, b) + getf(dF, 4 + a) * getf(dF, 4 + b))
              + mt * (getf(T, e) * stR + getf(T, 16 + e) * stI + getf(dT, a) * getf(dT, b) + getf(dT, 4 + a) * getf(dT, 4 + b))));
          }
        }
      }
      const o = 16 * l;
      for (let e = 0; e < 16; e++) { const at = geti(hPos, o + e); setf(hp, at, getf(hp, at) + getf(H, e)); }
    }
  }
}

/** m[i] += v (raw element access). */
// @ts-ignore: decorator
@inline function addf(m: usize, i: i32, v: f64): void { setf(m, i, getf(m, i) + v); }

function insertionSort(a: StaticArray<i32>, lo: i32, hi: i32): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = unchecked(a[i]);
    let k = i - 1;
    while (k >= lo && unchecked(a[k]) > v) { unchecked(a[k + 1] = a[k]); k--; }
    unchecked(a[k + 1] = v);
  }
}
