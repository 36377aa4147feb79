// DC-OPF as MATPOWER's rundcopf poses it (opf_setup, makeBdc, makeAang,
// makeAy, dcopf_solver), solved by MIPS:
//   x = [Va (nb); Pg (ng, p.u.); y (one per piecewise-linear cost)]
//   min  Σ polynomial cost(Pg) + Σ y
//   Pmis (nb):   B Va − Cg Pg = −(Pd + Gs)/baseMVA − Pbusinj
//   Pf  (rated): −rate_a/baseMVA − Pfinj ≤ Bf Va ≤ rate_a/baseMVA − Pfinj
//   ang:         angmin ≤ Va_f − Va_t ≤ angmax  (where MATPOWER enforces them)
//   y rows:      m_k·baseMVA·Pg − y ≤ −(y_k − m_k x_k)  for each segment k
//   Pg rows:     lo ≤ Σ coef·Pg ≤ hi  (the DC lines' terminal pairs, toggle_dcline)
//   Va_ref fixed by its bounds; Pmin ≤ Pg ≤ Pmax.
// Start point as dcopf_solver with opf.start 0: mid-way between finite bounds,
// 1 inside a one-sided bound, angles at the first reference angle.
import { QP } from './qp';
import { Mips, MipsOptions } from './mips';
import {
  ACTIVE_COST, costSizes, countAngleRows, addAngleRows, addCostRows, addPgRows, pgRowEntries, interiorStart,
  fixReferenceAngles, writeSolveHeader, writeAngleMultipliers, bad,
} from './opfRows';
import {
  OPF_IN_NB, OPF_IN_NL, OPF_IN_NG, OPF_IN_BASEMVA, OPF_IN_HEADER, OPF_BUS_FIELDS, OPF_BR_FIELDS, OPF_OUT_HEADER, OPF_IN_NXROWS, OPF_IN_XROWS_AT,
  OPF_IN_NPGROWS, OPF_IN_START, OPF_START_CASE, OPF_BUS_VA0, OPF_GEN_PG0,
} from './abi';
import { isRated } from '../branchModel';
import { BdcBranches } from '../makeBdc';
import {
  OPF_BR_RATE_A, OPF_BR_RATIO, OPF_BR_SHIFT, OPF_BR_T, OPF_BR_X, OPF_BUS_GS, OPF_BUS_PD, OPF_GEN_PMAX, OPF_GEN_PMIN,
  OPF_OUT_BR_FIELDS, OPF_OUT_BR_MU_SF, OPF_OUT_BR_MU_ST, OPF_OUT_BR_PT, OPF_OUT_BUS_FIELDS, OPF_OUT_BUS_LAM_P,
  OPF_OUT_BUS_VA, OPF_OUT_GEN_FIELDS, OPF_OUT_GEN_MU_PMAX, OPF_OUT_GEN_MU_PMIN,
} from './abi';

/** The DC-OPF of a packed input as a QP, with what its results need; null for input the core cannot take. */
export class DcModel {
  qp: QP;
  constant: f64;
  bsus: StaticArray<f64>;
  pfinj: StaticArray<f64>;
  /** the extra rows (security-constrained DC-OPF): the first one's position among the rows, and their count */
  firstExtra: i32 = 0;
  nExtra: i32 = 0;
  constructor(qp: QP, constant: f64, bsus: StaticArray<f64>, pfinj: StaticArray<f64>) {
    this.qp = qp; this.constant = constant; this.bsus = bsus; this.pfinj = pfinj;
  }
}

export function buildDcModel(inp: StaticArray<f64>): DcModel | null {
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  const base = inp[OPF_IN_BASEMVA];
  const bus = OPF_IN_HEADER, br = bus + OPF_BUS_FIELDS * nb, gen = br + OPF_BR_FIELDS * nl;
  // columns of the packed tables
  const bPd = bus + OPF_BUS_PD * nb, bGs = bus + OPF_BUS_GS * nb;
  const lF = br, lT = br + OPF_BR_T * nl, lX = br + OPF_BR_X * nl, lTap = br + OPF_BR_RATIO * nl;
  const lShift = br + OPF_BR_SHIFT * nl, lRate = br + OPF_BR_RATE_A * nl;
  const gBus = gen, gPmin = gen + OPF_GEN_PMIN * ng, gPmax = gen + OPF_GEN_PMAX * ng;

  const sizes = costSizes(inp, gen, ng, 3, ACTIVE_COST); // reactive costs are dropped, as MATPOWER's DC-OPF does
  if (sizes.bad) return null;
  const ny = sizes.ny, nseg = sizes.nseg, nang = countAngleRows(inp, br, nl);
  let nrated = 0;
  for (let l = 0; l < nl; l++) {
    const rate = inp[lRate + l];
    if (isRated(rate)) nrated++;
  }
  const nx = nb + ng + ny;
  // extra rows (security-constrained DC-OPF): count their entries
  const nxr = <i32>inp[OPF_IN_NXROWS];
  let xnnz = 0;
  for (let r = 0, p = <i32>inp[OPF_IN_XROWS_AT]; r < nxr; r++) { const n = <i32>inp[p + 2]; xnnz += n; p += 3 + 2 * n; }
  const npg = <i32>inp[OPF_IN_NPGROWS];
  const qp = new QP(nx, nb + nrated + nang + nseg + npg + nxr, 4 * nl + ng + 2 * nrated + 2 * nang + 2 * nseg + pgRowEntries(inp) + xnnz);

  // branch susceptances b = 1/(x·tap) and phase-shift injections (../makeBdc.ts)
  const bdc = new BdcBranches(nb, nl);
  bdc.fill(inp, lF, lT, lX, lTap, lShift, null);
  const bsus = bdc.b, pfinj = bdc.pfinj, pbusinj = bdc.pbusinj;
  // branches and generators by bus, for the Pmis rows
  const brStart = new StaticArray<i32>(nb + 1), brList = new StaticArray<i32>(2 * nl);
  for (let l = 0; l < nl; l++) { unchecked(brStart[<i32>inp[lF + l] + 1]++); unchecked(brStart[<i32>inp[lT + l] + 1]++); }
  for (let i = 0; i < nb; i++) unchecked(brStart[i + 1] += brStart[i]);
  const fillB = new StaticArray<i32>(nb);
  for (let l = 0; l < nl; l++) {
    const f = <i32>inp[lF + l], t = <i32>inp[lT + l];
    unchecked(brList[brStart[f] + fillB[f]++] = l);
    unchecked(brList[brStart[t] + fillB[t]++] = l);
  }
  const gStart = new StaticArray<i32>(nb + 1), gList = new StaticArray<i32>(ng);
  for (let g = 0; g < ng; g++) unchecked(gStart[<i32>inp[gBus + g] + 1]++);
  for (let i = 0; i < nb; i++) unchecked(gStart[i + 1] += gStart[i]);
  const fillG = new StaticArray<i32>(nb);
  for (let g = 0; g < ng; g++) { const i = <i32>inp[gBus + g]; unchecked(gList[gStart[i] + fillG[i]++] = g); }

  for (let i = 0; i < nb; i++) {
    const rhs = -(inp[bPd + i] + inp[bGs + i]) / base - unchecked(pbusinj[i]);
    unchecked(qp.partner[qp.addRow(rhs, rhs)] = i); // the bus's angle
    for (let q = unchecked(brStart[i]); q < unchecked(brStart[i + 1]); q++) {
      const l = unchecked(brList[q]);
      const f = <i32>inp[lF + l], t = <i32>inp[lT + l], b = unchecked(bsus[l]);
      // Bbus = Cftᵀ Bf: row f gets +b at f, −b at t; row t gets −b at f, +b at t
      const sgn = f == i ? 1.0 : -1.0;
      qp.addEntry(f, sgn * b);
      qp.addEntry(t, -sgn * b);
    }
    for (let q = unchecked(gStart[i]); q < unchecked(gStart[i + 1]); q++) qp.addEntry(nb + unchecked(gList[q]), -1.0);
  }
  for (let l = 0; l < nl; l++) {
    const rate = inp[lRate + l];
    if (!isRated(rate)) continue;
    qp.addRow(-(rate / base + unchecked(pfinj[l])), rate / base - unchecked(pfinj[l]));
    qp.addEntry(<i32>inp[lF + l], bsus[l]);
    qp.addEntry(<i32>inp[lT + l], -bsus[l]);
  }
  addAngleRows(qp, inp, br, nl);
  const costs = addCostRows(qp, inp, gen, ng, base, nb, nb + ng, ACTIVE_COST);
  addPgRows(qp, inp, nb);
  const firstExtra = qp.nA;
  for (let r = 0, p = <i32>inp[OPF_IN_XROWS_AT]; r < nxr; r++) {
    const n = <i32>inp[p + 2];
    qp.addRow(inp[p], inp[p + 1]);
    for (let q = 0; q < n; q++) qp.addEntry(<i32>inp[p + 3 + 2 * q], inp[p + 4 + 2 * q]);
    p += 3 + 2 * n;
  }
  const constant = costs.constant;
  const varef = fixReferenceAngles(qp, inp, bus, nb);
  if (varef != varef) return null;
  for (let g = 0; g < ng; g++) {
    unchecked(qp.xmin[nb + g] = inp[gPmin + g] / base);
    unchecked(qp.xmax[nb + g] = inp[gPmax + g] / base);
  }
  if (<i32>inp[OPF_IN_START] == OPF_START_CASE) {
    // MATPOWER's opf.start 2: the case's angles and dispatch, the cost variables at 0
    const bVa0 = bus + OPF_BUS_VA0 * nb, gPg0 = gen + OPF_GEN_PG0 * ng;
    for (let i = 0; i < nb; i++) unchecked(qp.x0[i] = inp[bVa0 + i]);
    for (let g = 0; g < ng; g++) unchecked(qp.x0[nb + g] = inp[gPg0 + g] / base);
    for (let j = nb + ng; j < nx; j++) unchecked(qp.x0[j] = 0.0);
  } else {
    interiorStart(qp, nb + ng, costs.ymax);
    for (let i = 0; i < nb; i++) unchecked(qp.x0[i] = varef);
  }

  const m = new DcModel(qp, constant, bsus, pfinj);
  m.firstExtra = firstExtra;
  m.nExtra = nxr;
  return m;
}

export function dcopf(inp: StaticArray<f64>, out: StaticArray<f64>, o: MipsOptions): i32 {
  const model = buildDcModel(inp);
  if (model === null) return bad(out);
  const mips = new Mips(model.qp);
  o.predictorCorrector = model.qp.isLinear();
  const status = mips.solve(o, model.constant);
  writeSolveHeader(out, mips, status, mips.f + model.constant);
  writeDcResults(inp, out, model, mips.x, mips.muL, mips.muU);
  return status;
}

/** Results of a DC-OPF solution x with the multipliers of AA = [I; A]'s lower and upper sides (MATPOWER's
 *  mu_l / mu_u, un-scaled) into out, after its header. */
export function writeDcResults(inp: StaticArray<f64>, out: StaticArray<f64>, model: DcModel, x: StaticArray<f64>,
  muL: StaticArray<f64>, muU: StaticArray<f64>): void {
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  const base = inp[OPF_IN_BASEMVA];
  const br = OPF_IN_HEADER + OPF_BUS_FIELDS * nb;
  const lF = br, lT = br + OPF_BR_T * nl, lRate = br + OPF_BR_RATE_A * nl;
  const nx = model.qp.nx, bsus = model.bsus, pfinj = model.pfinj;
  const oBus = OPF_OUT_HEADER, oBr = oBus + OPF_OUT_BUS_FIELDS * nb, oGen = oBr + OPF_OUT_BR_FIELDS * nl;
  for (let p = oBus; p < oGen + OPF_OUT_GEN_FIELDS * ng; p++) unchecked(out[p] = 0.0);
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + i] = 1.0);
    unchecked(out[oBus + OPF_OUT_BUS_VA * nb + i] = x[i]);
    unchecked(out[oBus + OPF_OUT_BUS_LAM_P * nb + i] = (muU[nx + i] - muL[nx + i]) / base);
  }
  let row = nx + nb;
  for (let l = 0; l < nl; l++) {
    const f = <i32>inp[lF + l], t = <i32>inp[lT + l];
    const pf = (unchecked(bsus[l]) * (unchecked(x[f]) - unchecked(x[t])) + unchecked(pfinj[l])) * base;
    unchecked(out[oBr + l] = pf);
    unchecked(out[oBr + OPF_OUT_BR_PT * nl + l] = -pf);
    const rate = inp[lRate + l];
    if (isRated(rate)) {
      unchecked(out[oBr + OPF_OUT_BR_MU_SF * nl + l] = muU[row] / base);
      unchecked(out[oBr + OPF_OUT_BR_MU_ST * nl + l] = muL[row] / base);
      row++;
    }
  }
  writeAngleMultipliers(out, oBr, inp, br, nl, muL, muU, row);
  for (let g = 0; g < ng; g++) {
    unchecked(out[oGen + g] = x[nb + g] * base);
    unchecked(out[oGen + OPF_OUT_GEN_MU_PMIN * ng + g] = muL[nb + g] / base);
    unchecked(out[oGen + OPF_OUT_GEN_MU_PMAX * ng + g] = muU[nb + g] / base);
  }
  const oX = oGen + OPF_OUT_GEN_FIELDS * ng;
  for (let r = 0; r < model.nExtra; r++) {
    const q = nx + model.firstExtra + r;
    unchecked(out[oX + r] = (muU[q] - muL[q]) / base);
  }
}
