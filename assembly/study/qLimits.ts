// MATPOWER's reactive-limit enforcement (runpf with pf.enforce_q_lims = 1,
// legacy core) for one study case, as src/powerflow/qlim.ts does it around
// single power flows, so a study case equals the power flow of its changed
// model: after a converged run, every generator with Qg beyond Qmax / Qmin
// (+/- 5e-6 MVAr) is fixed at that limit and its bus becomes pq; if every
// remaining pv / ref generator violates, all the same limit, the case is
// infeasible; generators keep pfsoln's Pg / Qg between runs; an island whose
// slack became pq takes its first pv bus as slack. study.ts re-solves warm
// from the last solution and sums the iterations.
import { Topology, PQ, PV, REF } from '../topology';
import { generatorOutputs } from '../generatorOutputs';
import { BUS_ISLAND, GEN_QMAX, GEN_QMIN } from '../abi';

/** MATPOWER mpopt.opf.violation, the Q limit tolerance in MVAr. */
const Q_VIOLATION: f64 = 5e-6;

export const QLIM_NONE: i32 = 0;        // no generator violates: the case is done
export const QLIM_CHANGED: i32 = 1;     // types and generator outputs changed: solve again
export const QLIM_INFEASIBLE: i32 = 2;

/** MATPOWER's Q-limit loop of one study case, a step at a time, with its scratch (sized for ng generators). */
export class QLimitLoop {
  /** set by a step that moved a slack (the caller then restores the original slack's angle); reset by begin() */
  slackMoved: bool = false;
  private violation: StaticArray<i8> = new StaticArray<i8>(0);
  private pgOut: StaticArray<f64> = new StaticArray<f64>(0);
  private qgOut: StaticArray<f64> = new StaticArray<f64>(0);

  begin(): void { this.slackMoved = false; }

  /** One step after a converged run on topo (solved with bus types topo.type). types, pg and qg (MW /
   *  MVAr, the case's generator set points, updated here) describe the next run. */
  step(topo: Topology, types: StaticArray<i32>, input: StaticArray<f64>, busOff: i32, genOff: i32, ng: i32,
    baseMVA: f64, genOut: StaticArray<u8>, pg: StaticArray<f64>, qg: StaticArray<f64>, pd: StaticArray<f64>, qd: StaticArray<f64>): i32 {
    const nb = topo.nb, solved = topo.type;
    if (this.violation.length < ng) { this.violation = new StaticArray<i8>(ng); this.pgOut = new StaticArray<f64>(ng); this.qgOut = new StaticArray<f64>(ng); }
    const violation = this.violation, pgOut = this.pgOut, qgOut = this.qgOut;
    generatorOutputs(topo, solved, ng, baseMVA, input, genOff, genOff + GEN_QMIN * ng, genOff + GEN_QMAX * ng,
      pg, 0, qg, 0, pd, 0, qd, 0, genOut, pgOut, 0, qgOut, 0);
    let above = 0, below = 0, remaining = 0, remainingViolating = 0;
    for (let g = 0; g < ng; g++) {
      unchecked(violation[g] = 0);
      if (unchecked(genOut[g]) != 0) continue;
      const q = unchecked(qgOut[g]);
      if (q > input[genOff + GEN_QMAX * ng + g] + Q_VIOLATION) { unchecked(violation[g] = 1); above++; }
      else if (q < input[genOff + GEN_QMIN * ng + g] - Q_VIOLATION) { unchecked(violation[g] = -1); below++; }
      const ty = unchecked(solved[<i32>input[genOff + g]]);
      if (ty == PV || ty == REF) {
        remaining++;
        if (unchecked(violation[g]) != 0) remainingViolating++;
      }
    }
    if (above + below == 0) return QLIM_NONE;
    // every remaining pv / ref generator violates (and only they), all the same limit: infeasible
    if (remainingViolating == remaining && above + below == remaining && (above == 0 || below == 0)) return QLIM_INFEASIBLE;
    for (let g = 0; g < ng; g++) {
      if (unchecked(genOut[g]) != 0) continue;
      unchecked(pg[g] = pgOut[g]);
      const v = unchecked(violation[g]);
      unchecked(qg[g] = v > 0 ? input[genOff + GEN_QMAX * ng + g] : v < 0 ? input[genOff + GEN_QMIN * ng + g] : qgOut[g]);
      if (v != 0) unchecked(types[<i32>input[genOff + g]] = PQ);
    }
    // an island that lost its slack takes its first pv bus
    const islandOff = busOff + BUS_ISLAND * nb;
    for (let i = 0; i < nb; i++) {
      if (unchecked(solved[i]) != REF || unchecked(types[i]) == REF) continue;
      const island = unchecked(input[islandOff + i]);
      let k = -1, has = false;
      for (let j = 0; j < nb; j++) {
        if (unchecked(input[islandOff + j]) != island) continue;
        if (unchecked(types[j]) == REF) { has = true; break; }
        if (k < 0 && unchecked(types[j]) == PV) k = j;
      }
      if (has) continue;
      if (k < 0) return QLIM_INFEASIBLE;
      unchecked(types[k] = REF);
      this.slackMoved = true;
    }
    return QLIM_CHANGED;
  }
}
