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
    const eqP = this.eqP, eqJ = this.eqJ, nbrP = this.nbrP;
    for (let r = 0; r < 2 * nb; r++) {
      for (let p = unchecked(eqP[r]); p < unchecked(eqP[r + 1]); p++) unchecked(eqV[p] = unchecked(eqJ[p]) >= 2 * nb ? -1.0 : 0.0);
    }
    for (let i = 0; i < nb; i++) {
      const vm = unchecked(x[nb + i]);
      const gs = unchecked(this.gs[i]), bs = unchecked(this.bs[i]);
      unchecked(g[i] = this.pd[i] + gs * vm * vm);
      unchecked(g[nb + i] = this.qd[i] - bs * vm * vm);
      const off = unchecked(nbrP[i + 1]) - unchecked(nbrP[i]) + unchecked(this.selfPos[i]);
      unchecked(eqV[eqP[i] + off] += 2.0 * gs * vm);
      unchecked(eqV[eqP[nb + i] + off] -= 2.0 * bs * vm);
    }
    for (let q = 0; q < ng; q++) {
      const i = unchecked(this.genBus[q]);
      unchecked(g[i] -= x[2 * nb + q]);
      unchecked(g[nb + i] -= x[2 * nb + ng + q]);
    }
    const bp = this.bp, dF = bp.dSf, dT = bp.dSt;
    for (let l = 0; l < this.nl; l++) {
      const f = unchecked(this.from[l]), t = unchecked(this.to[l]);
      bp.at(this.coef, 8 * l, unchecked(x[f]), unchecked(x[t]), unchecked(x[nb + f]), unchecked(x[nb + t]), false);
      unchecked(g[f] += bp.sfR); unchecked(g[nb + f] += bp.sfI);
      unchecked(g[t] += bp.stR); unchecked(g[nb + t] += bp.stI);
      const ff = unchecked(this.brPos[4 * l]), ft = unchecked(this.brPos[4 * l + 1]);
      const tt = unchecked(this.brPos[4 * l + 2]), tf = unchecked(this.brPos[4 * l + 3]);
      const degF = unchecked(nbrP[f + 1]) - unchecked(nbrP[f]), degT = unchecked(nbrP[t + 1]) - unchecked(nbrP[t]);
      const pF = unchecked(eqP[f]), qF = unchecked(eqP[nb + f]), pT = unchecked(eqP[t]), qT = unchecked(eqP[nb + t]);
      // row f: Sf over (Va_f, Va_t, Vm_f, Vm_t); row t: St likewise
      unchecked(eqV[pF + ff] += dF[0]); unchecked(eqV[pF + ft] += dF[1]); unchecked(eqV[pF + degF + ff] += dF[2]); unchecked(eqV[pF + degF + ft] += dF[3]);
      unchecked(eqV[qF + ff] += dF[4]); unchecked(eqV[qF + ft] += dF[5]); unchecked(eqV[qF + degF + ff] += dF[6]); unchecked(eqV[qF + degF + ft] += dF[7]);
      unchecked(eqV[pT + tf] += dT[0]); unchecked(eqV[pT + tt] += dT[1]); unchecked(eqV[pT + degT + tf] += dT[2]); unchecked(eqV[pT + degT + tt] += dT[3]);
      unchecked(eqV[qT + tf] += dT[4]); unchecked(eqV[qT + tt] += dT[5]); unchecked(eqV[qT + degT + tf] += dT[6]); unchecked(eqV[qT + degT + tt] += dT[7]);
      const k = unchecked(this.ratedOf[l]);
      if (k < 0) continue;
      const sfR = bp.sfR, sfI = bp.sfI, stR = bp.stR, stI = bp.stI;
      unchecked(h[k] = sfR * sfR + sfI * sfI - this.smax2[k]);
      unchecked(h[nr + k] = stR * stR + stI * stI - this.smax2[k]);
      for (let a = 0; a < 4; a++) {
        unchecked(iqV[4 * k + a] = 2.0 * (sfR * dF[a] + sfI * dF[4 + a]));
        unchecked(iqV[4 * (nr + k) + a] = 2.0 * (stR * dT[a] + stI * dT[4 + a]));
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

function insertionSort(a: StaticArray<i32>, lo: i32, hi: i32): void {
  for (let i = lo + 1; i < hi; i++) {
    const v = unchecked(a[i]);
    let k = i - 1;
    while (k >= lo && unchecked(a[k]) > v) { unchecked(a[k + 1] = a[k]); k--; }
    unchecked(a[k + 1] = v);
  }
}
