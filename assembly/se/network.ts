// The network as the estimator sees it: Ybus by rows (MATPOWER's makeYbus, parallel branches summed), each
// branch's π-model admittances, and the numbering of the states (doSE: every bus's angle, then every bus's
// magnitude, the reference bus left out). Built once per estimate, before any iteration.
import { branchAdmittance } from '../branchModel';
import {
  SE_BR_B, SE_BR_F, SE_BR_FIELDS, SE_BR_R, SE_BR_RATIO, SE_BR_SHIFT, SE_BR_T, SE_BR_X, SE_BUS_BS, SE_BUS_FIELDS, SE_BUS_GS,
  SE_BUS_PD, SE_BUS_QD, SE_BUS_VM0, SE_GEN_BUS, SE_GEN_FIELDS, SE_IN_BASEMVA, SE_IN_HEADER, SE_IN_NB, SE_IN_NG, SE_IN_NL, SE_IN_REF,
} from './abi';

export class SeNetwork {
  nb: i32; nl: i32; ng: i32; ref: i32; baseMVA: f64;
  /** states: 2 (nb − 1) */
  n: i32;
  /** state column of a bus's angle / magnitude, −1 for the reference bus */
  aCol: StaticArray<i32> = new StaticArray<i32>(0); vCol: StaticArray<i32> = new StaticArray<i32>(0);
  f: StaticArray<i32> = new StaticArray<i32>(0); t: StaticArray<i32> = new StaticArray<i32>(0);
  /** Yff, Yft, Ytf, Ytt (re, im) of branch l at 8 l */
  brY: StaticArray<f64> = new StaticArray<f64>(0);
  genBus: StaticArray<i32> = new StaticArray<i32>(0);
  pd: StaticArray<f64> = new StaticArray<f64>(0);
  qd: StaticArray<f64> = new StaticArray<f64>(0);
  vm0: StaticArray<f64> = new StaticArray<f64>(0);
  /** Ybus by rows: row i is yp[i] .. yp[i+1]-1, columns ascending, diagonal at yd[i] */
  yp: StaticArray<i32> = new StaticArray<i32>(0);
  yj: StaticArray<i32> = new StaticArray<i32>(0);
  yg: StaticArray<f64> = new StaticArray<f64>(0);
  yb: StaticArray<f64> = new StaticArray<f64>(0);
  yd: StaticArray<i32> = new StaticArray<i32>(0);

  constructor(inp: StaticArray<f64>) {
    const nb = <i32>inp[SE_IN_NB], nl = <i32>inp[SE_IN_NL], ng = <i32>inp[SE_IN_NG];
    this.nb = nb; this.nl = nl; this.ng = ng;
    this.ref = <i32>inp[SE_IN_REF];
    this.baseMVA = inp[SE_IN_BASEMVA];
    const busOff = SE_IN_HEADER, brOff = busOff + SE_BUS_FIELDS * nb, genOff = brOff + SE_BR_FIELDS * nl;
    this.n = 2 * (nb - 1);
    this.aCol = new StaticArray<i32>(nb); this.vCol = new StaticArray<i32>(nb);
    let k = 0;
    for (let i = 0; i < nb; i++) {
      if (i == this.ref) { this.aCol[i] = -1; this.vCol[i] = -1; continue; }
      this.aCol[i] = k; this.vCol[i] = nb - 1 + k; k++;
    }
    this.pd = new StaticArray<f64>(nb); this.qd = new StaticArray<f64>(nb); this.vm0 = new StaticArray<f64>(nb);
    const gs = new StaticArray<f64>(nb), bs = new StaticArray<f64>(nb);
    for (let i = 0; i < nb; i++) {
      this.pd[i] = inp[busOff + SE_BUS_PD * nb + i] / this.baseMVA;
      this.qd[i] = inp[busOff + SE_BUS_QD * nb + i] / this.baseMVA;
      gs[i] = inp[busOff + SE_BUS_GS * nb + i] / this.baseMVA;
      bs[i] = inp[busOff + SE_BUS_BS * nb + i] / this.baseMVA;
      this.vm0[i] = inp[busOff + SE_BUS_VM0 * nb + i];
    }
    this.f = new StaticArray<i32>(nl); this.t = new StaticArray<i32>(nl); this.brY = new StaticArray<f64>(8 * nl);
    for (let l = 0; l < nl; l++) {
      this.f[l] = <i32>inp[brOff + SE_BR_F * nl + l];
      this.t[l] = <i32>inp[brOff + SE_BR_T * nl + l];
      branchAdmittance(inp[brOff + SE_BR_R * nl + l], inp[brOff + SE_BR_X * nl + l], inp[brOff + SE_BR_B * nl + l],
        inp[brOff + SE_BR_RATIO * nl + l], inp[brOff + SE_BR_SHIFT * nl + l], this.brY, 8 * l);
    }
    this.genBus = new StaticArray<i32>(ng);
    for (let g = 0; g < ng; g++) this.genBus[g] = <i32>inp[genOff + SE_GEN_BUS * ng + g];

    // Ybus: count, fill (diagonal first), then sort each row by column and sum duplicates
    const cnt = new StaticArray<i32>(nb + 1);
    for (let i = 0; i < nb; i++) cnt[i + 1] = 1;
    for (let l = 0; l < nl; l++) { cnt[this.f[l] + 1] += 2; cnt[this.t[l] + 1] += 2; }
    for (let i = 0; i < nb; i++) cnt[i + 1] += cnt[i];
    const len = cnt[nb];
    const cj = new StaticArray<i32>(len), cg = new StaticArray<f64>(len), cb = new StaticArray<f64>(len);
    const at = new StaticArray<i32>(nb);
    for (let i = 0; i < nb; i++) { at[i] = cnt[i] + 1; cj[cnt[i]] = i; cg[cnt[i]] = gs[i]; cb[cnt[i]] = bs[i]; }
    for (let l = 0; l < nl; l++) {
      const f = this.f[l], t = this.t[l], y = this.brY, o = 8 * l;
      let p = at[f]++; cj[p] = f; cg[p] = y[o]; cb[p] = y[o + 1];
      p = at[f]++; cj[p] = t; cg[p] = y[o + 2]; cb[p] = y[o + 3];
      p = at[t]++; cj[p] = f; cg[p] = y[o + 4]; cb[p] = y[o + 5];
      p = at[t]++; cj[p] = t; cg[p] = y[o + 6]; cb[p] = y[o + 7];
    }
    this.yp = new StaticArray<i32>(nb + 1); this.yd = new StaticArray<i32>(nb);
    this.yj = new StaticArray<i32>(len); this.yg = new StaticArray<f64>(len); this.yb = new StaticArray<f64>(len);
    let w = 0;
    for (let i = 0; i < nb; i++) {
      const a = cnt[i], e = cnt[i + 1];
      for (let p = a + 1; p < e; p++) { // insertion sort: rows hold a handful of entries
        const j = cj[p], g = cg[p], b = cb[p];
        let q = p - 1;
        while (q >= a && cj[q] > j) { cj[q + 1] = cj[q]; cg[q + 1] = cg[q]; cb[q + 1] = cb[q]; q--; }
        cj[q + 1] = j; cg[q + 1] = g; cb[q + 1] = b;
      }
      this.yp[i] = w;
      for (let p = a; p < e; p++) {
        if (w > this.yp[i] && this.yj[w - 1] == cj[p]) { this.yg[w - 1] += cg[p]; this.yb[w - 1] += cb[p]; continue; }
        this.yj[w] = cj[p]; this.yg[w] = cg[p]; this.yb[w] = cb[p];
        if (cj[p] == i) this.yd[i] = w;
        w++;
      }
    }
    this.yp[nb] = w;
  }
}
