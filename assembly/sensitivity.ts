// DC sensitivities, as MATPOWER's makePTDF and makeLODF (numbers in, numbers out):
//   H = Bf · Bbus_r⁻¹ on the non-reference buses (the reference columns 0): a flow's response to an
//       injection at a bus withdrawn at its island's reference;
//   a row of H: H(l, :) = b_l · (Bbus_r⁻¹ (e_f − e_t))ᵀ (Bbus is symmetric), one solve per row;
//   a column of H: H(:, i) = Bf · Bbus_r⁻¹ e_i, one solve per bus: a PTDF asked for a few buses costs a solve per
//       bus, not one per row over every bus;
//   the flow shift of an outage k: H (e_fk − e_tk) = Bf · Bbus_r⁻¹ (e_fk − e_tk), one solve per column,
//       from which LODF(:, k) = shift / (1 − shift(k)) (src/sensitivities/).
// The reduced Bbus is the DC power flow's (dcpf.ts), factorised once per topology and parameter set
// and kept with the topology: never the dense inverse.
import { Topology } from './topology';
import { dcB } from './dcpf';
import { BR_X, BR_RATIO } from './abi';

/** The rows or columns asked (PTDF rows, outage flow shifts) and the solve's scratch; one per wasm instance. */
export class DcSensitivities {
  /** Results: count × nb (PTDF rows) or count × nl (flow shifts), row-major. */
  out: StaticArray<f64> = new StaticArray<f64>(0);
  private x: StaticArray<f64> = new StaticArray<f64>(0);

  /** x = Bbus_r⁻¹ (e_a − e_b) on the reduced indexes (a reference bus contributes nothing; b < 0: none). */
  private solveDifference(topo: Topology, a: i32, b: i32): void {
    const nR = topo.nR;
    if (this.x.length < nR) this.x = new StaticArray<f64>(nR);
    const x = this.x;
    for (let r = 0; r < nR; r++) unchecked(x[r] = 0.0);
    const ra = unchecked(topo.rIdx[a]), rb = b < 0 ? -1 : unchecked(topo.rIdx[b]);
    if (ra >= 0) unchecked(x[ra] += 1.0);
    if (rb >= 0) unchecked(x[rb] -= 1.0);
    if (nR > 0) topo.dc().lu.solve(x);
  }

  private reserve(n: i32): void {
    if (this.out.length < n) this.out = new StaticArray<f64>(n);
  }

  /** PTDF rows of the internal branches in rows[0 .. count): count × nb values into out. */
  ptdfRows(topo: Topology, input: StaticArray<f64>, brOff: i32, rows: StaticArray<f64>, count: i32): void {
    const nb = topo.nb, nl = topo.nl;
    const xOff = brOff + BR_X * nl, tapOff = brOff + BR_RATIO * nl;
    this.reserve(count * nb);
    const out = this.out;
    for (let k = 0; k < count; k++) {
      const l = <i32>unchecked(rows[k]);
      const bl = dcB(input, xOff, tapOff, l);
      this.solveDifference(topo, unchecked(topo.f[l]), unchecked(topo.t[l]));
      const x = this.x;
      const o = k * nb;
      for (let j = 0; j < nb; j++) unchecked(out[o + j] = bl * angle(topo, x, j));
    }
  }

  /** PTDF columns of the internal buses cols[0 .. count): count × nl values into out (column k, entry m: the flow
   *  on m for an injection at the bus withdrawn at its island's reference; a reference bus's column is 0). */
  ptdfColumns(topo: Topology, input: StaticArray<f64>, brOff: i32, cols: StaticArray<f64>, count: i32): void {
    const nl = topo.nl;
    const xOff = brOff + BR_X * nl, tapOff = brOff + BR_RATIO * nl;
    this.reserve(count * nl);
    const out = this.out;
    const f = topo.f, t = topo.t;
    for (let k = 0; k < count; k++) {
      this.solveDifference(topo, <i32>unchecked(cols[k]), -1);
      const x = this.x;
      const o = k * nl;
      for (let m = 0; m < nl; m++) {
        unchecked(out[o + m] = dcB(input, xOff, tapOff, m) * (angle(topo, x, unchecked(f[m])) - angle(topo, x, unchecked(t[m]))));
      }
    }
  }

  /** Flow shifts of the outages of internal branches cols[0 .. count): count × nl values into out
   *  (column k, entry m: the flow on m per unit of injection from the outaged branch's to-bus into its from-bus). */
  flowShifts(topo: Topology, input: StaticArray<f64>, brOff: i32, cols: StaticArray<f64>, count: i32): void {
    const nl = topo.nl;
    const xOff = brOff + BR_X * nl, tapOff = brOff + BR_RATIO * nl;
    this.reserve(count * nl);
    const out = this.out;
    const f = topo.f, t = topo.t;
    for (let k = 0; k < count; k++) {
      const c = <i32>unchecked(cols[k]);
      this.solveDifference(topo, unchecked(f[c]), unchecked(t[c]));
      const x = this.x;
      const o = k * nl;
      for (let m = 0; m < nl; m++) {
        unchecked(out[o + m] = dcB(input, xOff, tapOff, m) * (angle(topo, x, unchecked(f[m])) - angle(topo, x, unchecked(t[m]))));
      }
    }
  }
}

/** Bus i's angle in the solution x on the reduced indexes (0 at a reference bus). */
// @ts-ignore: decorator
@inline
function angle(topo: Topology, x: StaticArray<f64>, i: i32): f64 {
  const r = unchecked(topo.rIdx[i]);
  return r < 0 ? 0.0 : unchecked(x[r]);
}
