// MATPOWER's makeBdc, the branch part every DC calculation takes from here (DC power flow and its study
// cases, the DC-OPF; PTDF/LODF factor the Bbus this fills):
//   b = 1 ./ (x .* tap)         Bf = diag(b) Cft,  Bbus = Cftᵀ Bf
//   Pfinj = −b .* shift         Pbusinj = Cftᵀ Pfinj
// from the packed branch columns; the callers stamp Bbus / Bf into their own sparse form (a CSC factor, QP
// rows). A study's outage mask leaves branches out (b = 0, no injection), as removing them from the case.
import { dcShiftInjection, dcSusceptance } from './branchModel';

export class BdcBranches {
  /** per branch: DC susceptance b (p.u.), 0 for a branch left out */
  b: StaticArray<f64>;
  /** per branch: Pfinj (p.u.) */
  pfinj: StaticArray<f64>;
  /** per bus: Pbusinj = Cftᵀ Pfinj (p.u.) */
  pbusinj: StaticArray<f64>;

  constructor(nb: i32, nl: i32) {
    this.b = new StaticArray<f64>(nl);
    this.pfinj = new StaticArray<f64>(nl);
    this.pbusinj = new StaticArray<f64>(nb);
  }

  /** From the branch columns of `input`: ends (internal bus indices) at fOff / tOff, x at xOff, ratio at
   *  tapOff, shift (radians) at shOff; out[l] != 0 leaves branch l out (null: none). */
  fill(input: StaticArray<f64>, fOff: i32, tOff: i32, xOff: i32, tapOff: i32, shOff: i32, out: StaticArray<u8> | null): void {
    const b = this.b, pfinj = this.pfinj, pbusinj = this.pbusinj;
    const nl = b.length;
    for (let i = 0; i < pbusinj.length; i++) unchecked(pbusinj[i] = 0.0);
    for (let l = 0; l < nl; l++) {
      if (out !== null && unchecked(out[l]) != 0) { unchecked(b[l] = 0.0); unchecked(pfinj[l] = 0.0); continue; }
      const bl = dcSusceptance(unchecked(input[xOff + l]), unchecked(input[tapOff + l]));
      const inj = dcShiftInjection(bl, unchecked(input[shOff + l]));
      unchecked(b[l] = bl);
      unchecked(pfinj[l] = inj);
      if (inj != 0.0) {
        unchecked(pbusinj[<i32>input[fOff + l]] += inj);
        unchecked(pbusinj[<i32>input[tOff + l]] -= inj);
      }
    }
  }
}
