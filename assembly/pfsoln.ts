// pfsoln (MATPOWER 8, legacy core): results from the solved voltages.
//  - bus injections S = V conj(Ybus V) (MW / MVAr);
//  - branch flows Sf = Vf conj(Yff Vf + Yft Vt), St = Vt conj(Ytf Vf + Ytt Vt);
//  - generator outputs (./generatorOutputs.ts).
import { Topology } from './topology';
import { branchFlow } from './branchFlow';
import { generatorOutputs } from './generatorOutputs';
import { BUS_PD, BUS_QD, GEN_PG, GEN_QG, GEN_QMAX, GEN_QMIN, OUT_BR_PT, OUT_BR_QF, OUT_BR_QT, OUT_BUS_PINJ, OUT_BUS_QINJ, OUT_GEN_QG } from './abi';

const flow = new StaticArray<f64>(4);


export function pfsoln(topo: Topology, input: StaticArray<f64>, busOff: i32, genOff: i32, ng: i32,
  baseMVA: f64, out: StaticArray<f64>, oBus: i32, oBr: i32, oGen: i32): void {
  const nb = topo.nb, nl = topo.nl;
  const type = topo.type;
  const sr = topo.sr, si = topo.si;
  // topo.vr/vi and sr/si hold the solution and its injections (last mismatch evaluation)
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + OUT_BUS_PINJ * nb + i] = sr[i] * baseMVA);
    unchecked(out[oBus + OUT_BUS_QINJ * nb + i] = si[i] * baseMVA);
  }
  // ---- branch flows
  for (let l = 0; l < nl; l++) {
    branchFlow(topo, l, flow);
    unchecked(out[oBr + l] = flow[0] * baseMVA);
    unchecked(out[oBr + OUT_BR_QF * nl + l] = flow[1] * baseMVA);
    unchecked(out[oBr + OUT_BR_PT * nl + l] = flow[2] * baseMVA);
    unchecked(out[oBr + OUT_BR_QT * nl + l] = flow[3] * baseMVA);
  }

  // ---- generators
  const pdOff = busOff + BUS_PD * nb, qdOff = busOff + BUS_QD * nb;
  generatorOutputs(topo, topo.type, ng, baseMVA, input, genOff, genOff + GEN_QMIN * ng, genOff + GEN_QMAX * ng,
    input, genOff + GEN_PG * ng, input, genOff + GEN_QG * ng, input, pdOff, input, qdOff, null, out, oGen, out, oGen + OUT_GEN_QG * ng);
}

