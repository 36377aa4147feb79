// makeYbus: complex bus admittance matrix from the branch pi-models and the
// bus shunts, exactly as MATPOWER's makeYbus:
//   ys = 1/(r + jx), t = tap * e^{j shift} (tap 0 means 1)
//   Ytt = ys + j b/2,  Yff = Ytt / (t conj(t)),  Yft = -ys / conj(t),  Ytf = -ys / t
//   Ybus = Cf' Yf + Ct' Yt + diag((Gs + j Bs) / baseMVA)
// Only in-service branches reach the wasm (the JS side drops the others).
import { Topology } from './topology';
import { BR_B, BR_R, BR_RATIO, BR_SHIFT, BR_X, BUS_BS, BUS_GS } from './abi';
import { branchAdmittance } from './branchModel';

/** Fills topo.yRe / yIm (Ybus values) and topo.brY (per-branch Yff, Yft, Ytf, Ytt). */
export function makeYbus(topo: Topology, input: StaticArray<f64>, busOff: i32, brOff: i32, baseMVA: f64): void {
  const nb = topo.nb, nl = topo.nl;
  const yRe = topo.yRe, yIm = topo.yIm, brY = topo.brY;
  const nnz = topo.nnzY;
  for (let p = 0; p < nnz; p++) { unchecked(yRe[p] = 0.0); unchecked(yIm[p] = 0.0); }
  const gsOff = busOff + BUS_GS * nb, bsOff = busOff + BUS_BS * nb;
  const yDiag = topo.yDiag;
  for (let i = 0; i < nb; i++) {
    const d = unchecked(yDiag[i]);
    unchecked(yRe[d] += input[gsOff + i] / baseMVA);
    unchecked(yIm[d] += input[bsOff + i] / baseMVA);
  }
  const rOff = brOff + BR_R * nl, xOff = brOff + BR_X * nl, bOff = brOff + BR_B * nl;
  const tapOff = brOff + BR_RATIO * nl, shOff = brOff + BR_SHIFT * nl;
  const pFF = topo.pFF, pFT = topo.pFT, pTF = topo.pTF, pTT = topo.pTT;
  for (let l = 0; l < nl; l++) {
    const o = 8 * l;
    branchAdmittance(unchecked(input[rOff + l]), unchecked(input[xOff + l]), unchecked(input[bOff + l]),
      unchecked(input[tapOff + l]), unchecked(input[shOff + l]), brY, o);
    let p = unchecked(pFF[l]);
    unchecked(yRe[p] += brY[o]); unchecked(yIm[p] += brY[o + 1]);
    p = unchecked(pFT[l]);
    unchecked(yRe[p] += brY[o + 2]); unchecked(yIm[p] += brY[o + 3]);
    p = unchecked(pTF[l]);
    unchecked(yRe[p] += brY[o + 4]); unchecked(yIm[p] += brY[o + 5]);
    p = unchecked(pTT[l]);
    unchecked(yRe[p] += brY[o + 6]); unchecked(yIm[p] += brY[o + 7]);
  }
  // column-order copy for the Jacobian (Ybus is structurally symmetric)
  const yT = topo.yT, yTr = topo.yTr;
  for (let q = 0; q < nnz; q++) {
    const p = unchecked(yTr[q]);
    unchecked(yT[2 * q] = yRe[p]);
    unchecked(yT[2 * q + 1] = yIm[p]);
  }
}
