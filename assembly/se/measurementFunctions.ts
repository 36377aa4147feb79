// h(x): what each measurement reads at a state (doSE's z_est), in p.u. and radians. Branch flows from the π model
// at their end, p_gen/q_gen as the generator bus's injection plus its load, p_inj/q_inj as the injection,
// v_mag/v_angle the bus's own. The bus injections and the cos/sin of every Ybus entry's angle difference are
// kept for the Jacobian (./jacobian.ts), which needs the same numbers.
import { SeNetwork } from './network';
import { SeMeasurements } from './measurements';
import {
  SE_KIND_P_FROM, SE_KIND_P_GEN, SE_KIND_P_INJ, SE_KIND_P_TO, SE_KIND_Q_FROM, SE_KIND_Q_GEN, SE_KIND_Q_INJ, SE_KIND_Q_TO,
  SE_KIND_V_ANGLE, SE_KIND_V_MAG,
} from './abi';

export class StateFunctions {
  pinj: StaticArray<f64> = new StaticArray<f64>(0); qinj: StaticArray<f64> = new StaticArray<f64>(0);
  /** cos / sin (θi − θj) of Ybus entry p */
  cy: StaticArray<f64> = new StaticArray<f64>(0); sy: StaticArray<f64> = new StaticArray<f64>(0);
  constructor(net: SeNetwork) {
    this.pinj = new StaticArray<f64>(net.nb); this.qinj = new StaticArray<f64>(net.nb);
    const nnz = net.yp[net.nb];
    this.cy = new StaticArray<f64>(nnz); this.sy = new StaticArray<f64>(nnz);
  }

  /** Bus injections P + jQ = V conj(Ybus V) at (vm, va). */
  injections(net: SeNetwork, vm: StaticArray<f64>, va: StaticArray<f64>): void {
    const yp = net.yp, yj = net.yj, yg = net.yg, yb = net.yb, cy = this.cy, sy = this.sy;
    for (let i = 0; i < net.nb; i++) {
      let p = 0.0, q = 0.0;
      const vi = unchecked(vm[i]), ai = unchecked(va[i]);
      for (let e = unchecked(yp[i]); e < unchecked(yp[i + 1]); e++) {
        const j = unchecked(yj[e]);
        const d = ai - unchecked(va[j]);
        const c = Math.cos(d), s = Math.sin(d);
        unchecked(cy[e] = c); unchecked(sy[e] = s);
        const g = unchecked(yg[e]), b = unchecked(yb[e]), vj = unchecked(vm[j]);
        p += vj * (g * c + b * s);
        q += vj * (g * s - b * c);
      }
      unchecked(this.pinj[i] = vi * p); unchecked(this.qinj[i] = vi * q);
    }
  }

  /** h(x) of every measurement into h (call injections() first). */
  evaluate(net: SeNetwork, ms: SeMeasurements, vm: StaticArray<f64>, va: StaticArray<f64>, h: StaticArray<f64>): void {
    for (let i = 0; i < ms.m; i++) {
      const kind = unchecked(ms.kind[i]), e = unchecked(ms.el[i]);
      let v = 0.0;
      if (kind <= SE_KIND_Q_TO) v = branchFlow(net, kind, e, vm, va);
      else if (kind == SE_KIND_P_GEN) { const b = unchecked(net.genBus[e]); v = unchecked(this.pinj[b]) + unchecked(net.pd[b]); }
      else if (kind == SE_KIND_Q_GEN) { const b = unchecked(net.genBus[e]); v = unchecked(this.qinj[b]) + unchecked(net.qd[b]); }
      else if (kind == SE_KIND_V_MAG) v = unchecked(vm[e]);
      else if (kind == SE_KIND_V_ANGLE) v = unchecked(va[e]);
      else if (kind == SE_KIND_P_INJ) v = unchecked(this.pinj[e]);
      else if (kind == SE_KIND_Q_INJ) v = unchecked(this.qinj[e]);
      unchecked(h[i] = v);
    }
  }
}

/** P or Q at one end of branch l: S = V_a conj(Y_aa V_a + Y_ab V_b). */
export function branchFlow(net: SeNetwork, kind: i32, l: i32, vm: StaticArray<f64>, va: StaticArray<f64>): f64 {
  const from = kind == SE_KIND_P_FROM || kind == SE_KIND_Q_FROM;
  const a = from ? unchecked(net.f[l]) : unchecked(net.t[l]), b = from ? unchecked(net.t[l]) : unchecked(net.f[l]);
  const o = 8 * l + (from ? 0 : 4);
  const y = net.brY;
  // from end: Yff at o, Yft at o+2; to end: Ytf at o (=8l+4), Ytt at o+2 — the self term is the other slot
  const gs = from ? unchecked(y[o]) : unchecked(y[o + 2]), bs = from ? unchecked(y[o + 1]) : unchecked(y[o + 3]);
  const gm = from ? unchecked(y[o + 2]) : unchecked(y[o]), bm = from ? unchecked(y[o + 3]) : unchecked(y[o + 1]);
  const va_ = unchecked(vm[a]), vb = unchecked(vm[b]);
  const d = unchecked(va[a]) - unchecked(va[b]);
  const c = Math.cos(d), s = Math.sin(d);
  if (kind == SE_KIND_P_FROM || kind == SE_KIND_P_TO) return va_ * va_ * gs + va_ * vb * (gm * c + bm * s);
  return -va_ * va_ * bs + va_ * vb * (gm * s - bm * c);
}
