// The measurement set of one estimate: kind, element, value and sigma as packed (p.u., radians), the weight
// 1/σ² (0 once bad-data removal has taken a measurement out) and what the removal recorded.
import { SE_MEAS_ELEMENT, SE_MEAS_FIELDS, SE_MEAS_KIND, SE_MEAS_SIGMA, SE_MEAS_VALUE } from './abi';

export class SeMeasurements {
  m: i32;
  kind: StaticArray<i32> = new StaticArray<i32>(0); el: StaticArray<i32> = new StaticArray<i32>(0);
  z: StaticArray<f64> = new StaticArray<f64>(0);
  sigma: StaticArray<f64> = new StaticArray<f64>(0);
  w: StaticArray<f64> = new StaticArray<f64>(0);
  /** pass that removed it (0: in the estimate) and its normalized residual then */
  removedPass: StaticArray<i32> = new StaticArray<i32>(0); removedNr: StaticArray<f64> = new StaticArray<f64>(0);

  constructor(inp: StaticArray<f64>, off: i32, m: i32) {
    this.m = m;
    this.kind = new StaticArray<i32>(m); this.el = new StaticArray<i32>(m);
    this.z = new StaticArray<f64>(m); this.sigma = new StaticArray<f64>(m); this.w = new StaticArray<f64>(m);
    this.removedPass = new StaticArray<i32>(m); this.removedNr = new StaticArray<f64>(m);
    for (let i = 0; i < m; i++) {
      this.kind[i] = <i32>inp[off + SE_MEAS_KIND * m + i];
      this.el[i] = <i32>inp[off + SE_MEAS_ELEMENT * m + i];
    }
    this.readings(inp, off);
    void SE_MEAS_FIELDS;
  }

  /** Values and sigmas: what changes between two estimates of the same measurement set. */
  readings(inp: StaticArray<f64>, off: i32): void {
    const m = this.m;
    for (let i = 0; i < m; i++) {
      this.z[i] = inp[off + SE_MEAS_VALUE * m + i];
      const s = inp[off + SE_MEAS_SIGMA * m + i];
      this.sigma[i] = s;
      this.w[i] = 1.0 / (s * s);
      this.removedPass[i] = 0;
      this.removedNr[i] = 0.0;
    }
  }

  active(): i32 {
    let k = 0;
    for (let i = 0; i < this.m; i++) if (unchecked(this.removedPass[i]) == 0) k++;
    return k;
  }
}
