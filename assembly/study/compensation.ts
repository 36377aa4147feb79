// The compensation method for a branch outage in a fast-decoupled study: B' and B'' of the network without branch l
// differ from the intact ones only in the four entries the branch stamps (../makeB.ts) at its end buses, a change
// of rank ≤ 2 (rank 1 in B' without a phase shift). So the outage's solves are the intact network's solves, on its
// factors (made once per study), corrected by ../sparse/woodbury.ts: two extra solves per matrix per outage to set
// up, O(n) per iteration after that, and B' / B'' of the outage are never built or factorised. The answer equals
// refactorising to round-off (test/study-screening.test.ts compares both on real cases).
import { Topology } from '../topology';
import { RankTwoUpdate } from '../sparse/woodbury';
import { InverseColumns } from '../sparse/inverseColumns';
import { branchAdmittance } from '../branchModel';
import { BR_B, BR_R, BR_RATIO, BR_SHIFT, BR_X } from '../abi';

/** Columns of B''⁻¹ kept for the next outages (about 33 % of case2383wp's asked again within 32, 48 % of
 *  case_ACTIVSg2000's). */
const INVERSE_COLUMNS_KEPT: i32 = 32;

export class BranchOutageCompensation {
  /** B' (non-reference buses) and B'' (pq buses) of the outage from the intact factors */
  readonly bp: RankTwoUpdate = new RankTwoUpdate();
  readonly bpp: RankTwoUpdate = new RankTwoUpdate();
  private stamp: StaticArray<f64> = new StaticArray<f64>(8); // Yff, Yft, Ytf, Ytt (re, im) of the branch's model
  // B''⁻¹ e_i of recent end buses (the rank-2 update's two columns): a bus's next branch often follows soon
  private bppColumns: InverseColumns = new InverseColumns(INVERSE_COLUMNS_KEPT);

  /** Sets both updates for the outage of branch l; topo.decoupled() must hold the intact network's factors.
   *  False when B' or B'' without the branch is singular to working precision (the caller refactorises). */
  prepare(topo: Topology, input: StaticArray<f64>, brOff: i32, l: i32): bool {
    const sys = topo.decoupled(), nl = topo.nl, st = this.stamp;
    const f = unchecked(topo.f[l]), t = unchecked(topo.t[l]);
    // makeB subtracts each stamp's imaginary part: the outage adds it back, S = imag [[Yff, Yft], [Ytf, Ytt]]
    if (topo.nR > 0) {
      branchAdmittance(0.0, unchecked(input[brOff + BR_X * nl + l]), 0.0, 1.0, unchecked(input[brOff + BR_SHIFT * nl + l]), st, 0);
      const rIdx = topo.rIdx;
      if (!this.bp.prepare(sys.luBp, topo.nR, unchecked(rIdx[f]), unchecked(rIdx[t]), st[1], st[3], st[5], st[7])) return false;
    }
    if (topo.nQ > 0) {
      branchAdmittance(unchecked(input[brOff + BR_R * nl + l]), unchecked(input[brOff + BR_X * nl + l]),
        unchecked(input[brOff + BR_B * nl + l]), unchecked(input[brOff + BR_RATIO * nl + l]), 0.0, st, 0);
      const qIdx = topo.qIdx;
      if (!this.bpp.prepare(sys.luBpp, topo.nQ, unchecked(qIdx[f]), unchecked(qIdx[t]), st[1], st[3], st[5], st[7],
        this.bppColumns, sys.generation)) return false;
    }
    return true;
  }
}
