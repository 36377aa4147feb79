// makeB, XB version: the fast-decoupled matrices, as MATPOWER builds them
//   B'  = -imag(Ybus) of the network with bus Bs = 0, line charging b = 0,
//         tap ratios = 1 and r = 0 (phase shifts kept);
//   B'' = -imag(Ybus) of the network with phase shifts = 0 (everything else kept);
// reduced to the non-reference buses (B') and the pq buses (B'') through the
// Ybus -> reduced slot maps of the topology.
import { Topology } from './topology';
import { branchAdmittance } from './branchModel';
import { BR_B, BR_R, BR_RATIO, BR_SHIFT, BR_X, BUS_BS } from './abi';

const tmp = new StaticArray<f64>(8);

// @ts-ignore: decorator
@inline
function stamp(val: StaticArray<f64>, map: StaticArray<i32>, topo: Topology, l: i32): void {
  unchecked(val[map[topo.pFF[l]]] -= tmp[1]);
  unchecked(val[map[topo.pFT[l]]] -= tmp[3]);
  unchecked(val[map[topo.pTF[l]]] -= tmp[5]);
  unchecked(val[map[topo.pTT[l]]] -= tmp[7]);
}

/** `out` (optional, a study's outage mask): branches whose entry is non-zero are left out; the
 *  pattern stays the base topology's, so the symbolic analysis is reused. */
export function makeBp(topo: Topology, input: StaticArray<f64>, brOff: i32, out: StaticArray<u8> | null = null): void {
  const nl = topo.nl;
  const val = topo.decoupled().bpVal, map = topo.reducedB().bMap;
  for (let p = 0; p < val.length; p++) unchecked(val[p] = 0.0);
  const xOff = brOff + BR_X * nl, shOff = brOff + BR_SHIFT * nl;
  for (let l = 0; l < nl; l++) {
    if (out !== null && unchecked(out[l]) != 0) continue;
    branchAdmittance(0.0, unchecked(input[xOff + l]), 0.0, 1.0, unchecked(input[shOff + l]), tmp, 0);
    stamp(val, map, topo, l);
  }
}

export function makeBpp(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, baseMVA: f64,
  out: StaticArray<u8> | null = null): void {
  const nb = topo.nb, nl = topo.nl;
  const val = topo.decoupled().bppVal, map = topo.reducedB().qMap;
  for (let p = 0; p < val.length; p++) unchecked(val[p] = 0.0);
  const bsOff = busOff + BUS_BS * nb;
  const yDiag = topo.yDiag;
  for (let i = 0; i < nb; i++) {
    unchecked(val[map[yDiag[i]]] -= input[bsOff + i] / baseMVA);
  }
  const rOff = brOff + BR_R * nl, xOff = brOff + BR_X * nl, bOff = brOff + BR_B * nl, tapOff = brOff + BR_RATIO * nl;
  for (let l = 0; l < nl; l++) {
    if (out !== null && unchecked(out[l]) != 0) continue;
    branchAdmittance(unchecked(input[rOff + l]), unchecked(input[xOff + l]), unchecked(input[bOff + l]),
      unchecked(input[tapOff + l]), 0.0, tmp, 0);
    stamp(val, map, topo, l);
  }
}
