// A DC case of a study (dcpf.ts's equations, MATPOWER makeBdc + dcpf) with some branches out
// and the case's own injections:
//   Bbus from the in-service branches that are not out (b = 1 / (x tap)), refactorised per case
//   on the analysed B pattern; Pbus = (Pg - Pd - Gs) / baseMVA - Pbusinj (phase shifters not out);
//   Va(non-ref) = Bbus(nr, nr) \ (Pbus(nr) - Bbus(nr, ref) Va(ref)); Vm = 1.
// Flows for the metrics: branchFlow.ts dcBranchFlow.
import { Topology } from '../topology';
import { makeBdc, solveAngles } from '../dcpf';
import { STATUS_CONVERGED, STATUS_NAN, STATUS_SINGULAR } from '../abi';
import { BUS_GS } from '../abi';

/** Solves the DC case into topo.va (ref angles taken from topo.va) and topo.vm (= 1). */
export function dcCase(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, genOff: i32, ng: i32, baseMVA: f64,
  brOut: StaticArray<u8>, genOut: StaticArray<u8>, pd: StaticArray<f64>, pg: StaticArray<f64>): i32 {
  const nb = topo.nb;
  const sys = topo.dc();
  makeBdc(topo, input, brOff, brOut);
  sys.ok = false; // the single DC power flow makes its own factor again
  if (topo.nR > 0) {
    sys.analyze();
    sys.resetPivoting();
    if (!sys.lu.factor(sys.val)) return STATUS_SINGULAR;
  }
  const pbus = topo.busA;
  const gsOff = busOff + BUS_GS * nb;
  for (let i = 0; i < nb; i++) unchecked(pbus[i] = 0.0);
  for (let g = 0; g < ng; g++) {
    if (unchecked(genOut[g]) != 0) continue;
    unchecked(pbus[<i32>input[genOff + g]] += pg[g]);
  }
  for (let i = 0; i < nb; i++) unchecked(pbus[i] = (pbus[i] - pd[i] - input[gsOff + i]) / baseMVA);
  solveAngles(topo, input, brOff, pbus, brOut);
  for (let i = 0; i < nb; i++) if (!isFinite(unchecked(topo.va[i]))) return STATUS_NAN;
  return STATUS_CONVERGED;
}
