// H = ∂h/∂x, the measurement Jacobian (doSE's H from dSbr_dV and dSbus_dV), by rows with a fixed pattern: a
// branch-flow row touches its two end buses, a generator or injection row its bus's Ybus row, a voltage row its
// bus; each bus gives its angle and magnitude columns (the reference bus none). The same pattern by columns
// (cp, ci, cs: row and slot of each entry) serves the gain matrix (./gain.ts).
import { SeNetwork } from './network';
import { SeMeasurements } from './measurements';
import { StateFunctions } from './measurementFunctions';
import {
  SE_KIND_P_FROM, SE_KIND_P_GEN, SE_KIND_P_INJ, SE_KIND_P_TO, SE_KIND_Q_FROM, SE_KIND_Q_TO, SE_KIND_V_ANGLE, SE_KIND_V_MAG,
} from './abi';

export class MeasurementJacobian {
  m: i32; n: i32;
  hp: StaticArray<i32> = new StaticArray<i32>(0);
  hj: StaticArray<i32> = new StaticArray<i32>(0);
  hx: StaticArray<f64> = new StaticArray<f64>(0);
  cp: StaticArray<i32> = new StaticArray<i32>(0);
  ci: StaticArray<i32> = new StaticArray<i32>(0);
  cs: StaticArray<i32> = new StaticArray<i32>(0);
  private at: i32 = 0;

  constructor(net: SeNetwork, ms: SeMeasurements) {
    const m = ms.m, n = net.n;
    this.m = m; this.n = n;
    this.hp = new StaticArray<i32>(m + 1);
    let len = 0;
    for (let i = 0; i < m; i++) {
      this.hp[i] = len;
      len += this.rowBuses(net, ms, i, null);
    }
    this.hp[m] = len;
    this.hj = new StaticArray<i32>(len); this.hx = new StaticArray<f64>(len);
    for (let i = 0; i < m; i++) { this.at = this.hp[i]; this.rowBuses(net, ms, i, this.hj); }
    // by columns
    this.cp = new StaticArray<i32>(n + 1); this.ci = new StaticArray<i32>(len); this.cs = new StaticArray<i32>(len);
    for (let p = 0; p < len; p++) this.cp[this.hj[p] + 1]++;
    for (let j = 0; j < n; j++) this.cp[j + 1] += this.cp[j];
    const next = new StaticArray<i32>(n);
    for (let j = 0; j < n; j++) next[j] = this.cp[j];
    for (let i = 0; i < m; i++) for (let p = this.hp[i]; p < this.hp[i + 1]; p++) {
      const q = next[this.hj[p]]++;
      this.ci[q] = i; this.cs[q] = p;
    }
  }

  /** Columns of row i in fill order: counts them, and writes them to cols when given. */
  private rowBuses(net: SeNetwork, ms: SeMeasurements, i: i32, cols: StaticArray<i32> | null): i32 {
    const kind = ms.kind[i], e = ms.el[i];
    let k = 0;
    if (kind <= SE_KIND_Q_TO) {
      const from = kind == SE_KIND_P_FROM || kind == SE_KIND_Q_FROM;
      k += this.busCols(net, from ? net.f[e] : net.t[e], true, true, cols);
      k += this.busCols(net, from ? net.t[e] : net.f[e], true, true, cols);
    } else if (kind == SE_KIND_V_MAG) k += this.busCols(net, e, false, true, cols);
    else if (kind == SE_KIND_V_ANGLE) k += this.busCols(net, e, true, false, cols);
    else {
      const b = kind <= SE_KIND_P_GEN + 1 ? net.genBus[e] : e;
      for (let p = net.yp[b]; p < net.yp[b + 1]; p++) k += this.busCols(net, net.yj[p], true, true, cols);
    }
    return k;
  }

  private busCols(net: SeNetwork, bus: i32, angle: bool, mag: bool, cols: StaticArray<i32> | null): i32 {
    if (bus == net.ref) return 0;
    let k = 0;
    if (angle) { if (cols !== null) cols[this.at++] = net.aCol[bus]; k++; }
    if (mag) { if (cols !== null) cols[this.at++] = net.vCol[bus]; k++; }
    return k;
  }

  /** H's values at (vm, va), in the pattern's order (sf.injections must hold this state). */
  fill(net: SeNetwork, ms: SeMeasurements, sf: StateFunctions, vm: StaticArray<f64>, va: StaticArray<f64>): void {
    const hx = this.hx, ref = net.ref;
    for (let i = 0; i < ms.m; i++) {
      let p = unchecked(this.hp[i]);
      const kind = unchecked(ms.kind[i]), e = unchecked(ms.el[i]);
      if (kind <= SE_KIND_Q_TO) {
        const from = kind == SE_KIND_P_FROM || kind == SE_KIND_Q_FROM;
        const a = from ? unchecked(net.f[e]) : unchecked(net.t[e]), b = from ? unchecked(net.t[e]) : unchecked(net.f[e]);
        const o = 8 * e + (from ? 0 : 4), y = net.brY;
        const gs = from ? unchecked(y[o]) : unchecked(y[o + 2]), bs = from ? unchecked(y[o + 1]) : unchecked(y[o + 3]);
        const gm = from ? unchecked(y[o + 2]) : unchecked(y[o]), bm = from ? unchecked(y[o + 3]) : unchecked(y[o + 1]);
        const Va = unchecked(vm[a]), Vb = unchecked(vm[b]);
        const d = unchecked(va[a]) - unchecked(va[b]);
        const c = Math.cos(d), s = Math.sin(d);
        let dta: f64, dva: f64, dvb: f64;
        if (kind == SE_KIND_P_FROM || kind == SE_KIND_P_TO) {
          dta = Va * Vb * (bm * c - gm * s); dva = 2.0 * Va * gs + Vb * (gm * c + bm * s); dvb = Va * (gm * c + bm * s);
        } else {
          dta = Va * Vb * (gm * c + bm * s); dva = -2.0 * Va * bs + Vb * (gm * s - bm * c); dvb = Va * (gm * s - bm * c);
        }
        if (a != ref) { unchecked(hx[p++] = dta); unchecked(hx[p++] = dva); }
        if (b != ref) { unchecked(hx[p++] = -dta); unchecked(hx[p++] = dvb); }
      } else if (kind == SE_KIND_V_MAG || kind == SE_KIND_V_ANGLE) {
        if (e != ref) unchecked(hx[p] = 1.0);
      } else {
        const active = kind == SE_KIND_P_GEN || kind == SE_KIND_P_INJ;
        const bus = kind <= SE_KIND_P_GEN + 1 ? unchecked(net.genBus[e]) : e;
        const Vi = unchecked(vm[bus]), Pi = unchecked(sf.pinj[bus]), Qi = unchecked(sf.qinj[bus]);
        for (let q = unchecked(net.yp[bus]); q < unchecked(net.yp[bus + 1]); q++) {
          const j = unchecked(net.yj[q]);
          if (j == ref) continue;
          const G = unchecked(net.yg[q]), B = unchecked(net.yb[q]);
          let dt: f64, dv: f64;
          if (j == bus) {
            if (active) { dt = -Qi - B * Vi * Vi; dv = Pi / Vi + G * Vi; } else { dt = Pi - G * Vi * Vi; dv = Qi / Vi - B * Vi; }
          } else {
            const c = unchecked(sf.cy[q]), s = unchecked(sf.sy[q]), Vj = unchecked(vm[j]);
            if (active) { dt = Vi * Vj * (G * s - B * c); dv = Vi * (G * c + B * s); }
            else { dt = -Vi * Vj * (G * c + B * s); dv = Vi * (G * s - B * c); }
          }
          unchecked(hx[p++] = dt); unchecked(hx[p++] = dv);
        }
      }
    }
  }
}
