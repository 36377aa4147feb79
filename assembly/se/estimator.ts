// What one estimate holds between its iterations: the network, the measurements, h(x), H, G and the state.
// Allocated once when the estimate starts; the iterations (./gaussNewton.ts) and the residual analysis
// (./normalizedResiduals.ts) only write into it.
import { SeNetwork } from './network';
import { SeMeasurements } from './measurements';
import { StateFunctions } from './measurementFunctions';
import { MeasurementJacobian } from './jacobian';
import { GainMatrix } from './gain';
import { SparseInverseSubset } from './sparseInverse';

export class Estimator {
  net: SeNetwork; ms: SeMeasurements; sf: StateFunctions; h: MeasurementJacobian; g: GainMatrix;
  vm: StaticArray<f64> = new StaticArray<f64>(0); va: StaticArray<f64> = new StaticArray<f64>(0);
  /** h(x), residual z − h(x) (0 for removed measurements), F = Hᵀ W r, the step */
  hz: StaticArray<f64> = new StaticArray<f64>(0);
  r: StaticArray<f64> = new StaticArray<f64>(0);
  F: StaticArray<f64> = new StaticArray<f64>(0);
  dx: StaticArray<f64> = new StaticArray<f64>(0);
  /** per measurement: normalized residual and Ω_ii/σ² (./normalizedResiduals.ts); a state-sized work vector */
  nr: StaticArray<f64> = new StaticArray<f64>(0); ratio: StaticArray<f64> = new StaticArray<f64>(0);
  y: StaticArray<f64> = new StaticArray<f64>(0);
  /** G⁻¹ on its factor's pattern, for Ω's diagonal; omegaBySolves: one solve per measurement instead */
  inverse: SparseInverseSubset; omegaBySolves: bool = false;
  /** how the last Ω diagonal was found: OMEGA_NONE, OMEGA_BY_SUBSET or OMEGA_BY_SOLVES (./normalizedResiduals.ts) */
  omegaUsed: i32 = 0;
  /** per state: unobservable flag; per bus: the same by bus */
  stateFlags: StaticArray<u8> = new StaticArray<u8>(0); busFlags: StaticArray<u8> = new StaticArray<u8>(0);
  iterations: i32 = 0; J: f64 = 0.0; normF: f64 = 0.0; deficit: i32 = 0;

  constructor(net: SeNetwork, ms: SeMeasurements) {
    const sf = new StateFunctions(net), h = new MeasurementJacobian(net, ms), g = new GainMatrix(h);
    this.net = net; this.ms = ms; this.sf = sf; this.h = h; this.g = g;
    this.inverse = new SparseInverseSubset(net.n);
    this.vm = new StaticArray<f64>(net.nb); this.va = new StaticArray<f64>(net.nb);
    this.hz = new StaticArray<f64>(ms.m); this.r = new StaticArray<f64>(ms.m);
    this.F = new StaticArray<f64>(net.n); this.dx = new StaticArray<f64>(net.n);
    this.nr = new StaticArray<f64>(ms.m); this.ratio = new StaticArray<f64>(ms.m); this.y = new StaticArray<f64>(net.n);
    this.stateFlags = new StaticArray<u8>(net.n); this.busFlags = new StaticArray<u8>(net.nb);
  }

  /** h(x), r and J = Σ w r² at the current state; H and G (with F) when `linearise`. */
  evaluate(linearise: bool): void {
    const net = this.net, ms = this.ms;
    this.sf.injections(net, this.vm, this.va);
    this.sf.evaluate(net, ms, this.vm, this.va, this.hz);
    let J = 0.0;
    for (let i = 0; i < ms.m; i++) {
      const w = unchecked(ms.w[i]);
      const r = w == 0.0 ? 0.0 : unchecked(ms.z[i]) - unchecked(this.hz[i]);
      unchecked(this.r[i] = r);
      J += w * r * r;
    }
    this.J = J;
    if (!linearise) return;
    this.h.fill(net, ms, this.sf, this.vm, this.va);
    this.g.assemble(this.h, ms.w, this.r, this.F);
  }
}
