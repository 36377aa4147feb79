// AC-OPF as MATPOWER's runopf poses it with MIPS (legacy core: opf_setup +
// nlpopf_solver, polar voltages, opf.flow_lim 'S'):
//   x = [Va (nb); Vm (nb); Pg (ng); Qg (ng); y (one per piecewise-linear cost)], powers in p.u.
//   min  Σ polynomial cost(Pg) + Σ polynomial cost(Qg) + Σ y   (reactive costs: gencost rows ng+1..2ng)
//   g:   Pmis, Qmis = 0                       (./acConstraints.ts)
//   h:   |Sf|², |St|² ≤ (rate_a/baseMVA)²     for branches with 0 < rate_a < 1e10
//   ang: angmin ≤ Va_f − Va_t ≤ angmax; y rows and Pg rows as the DC-OPF (./opfRows.ts)
//   Va_ref fixed; vmin ≤ Vm ≤ vmax; Pmin ≤ Pg ≤ Pmax; Qmin ≤ Qg ≤ Qmax.
// MIPS with cost_mult 1e-4 (as MATPOWER), start point as nlpopf_solver with
// opf.start 0: mid-way between bounds, angles at the first reference angle,
// Vm at the middle of [max(vmin, 0.5), min(vmax, 1.5)].
import { QP } from './qp';
import { Mips, MipsOptions } from './mips';
import { AcConstraints } from './acConstraints';
import { BranchPower, branchCoefficients } from './branchPower';
import {
  ACTIVE_COST, REACTIVE_COST, costSizes, countAngleRows, addAngleRows, addCostRows, addPgRows, pgRowEntries, interiorStart,
  fixReferenceAngles, writeSolveHeader, writeAngleMultipliers, bad,
} from './opfRows';
import { OPF_IN_NB, OPF_IN_NL, OPF_IN_NG, OPF_IN_NPGROWS, OPF_IN_BASEMVA, OPF_IN_HEADER, OPF_BUS_FIELDS, OPF_BR_FIELDS, OPF_OUT_HEADER } from './abi';
import { isRated } from '../branchModel';
import {
  OPF_IN_START, OPF_START_CASE, OPF_BUS_VM0, OPF_BUS_VA0, OPF_GEN_PG0, OPF_GEN_QG0, OPF_BR_B, OPF_BR_R,
  OPF_BR_RATE_A, OPF_BR_RATIO, OPF_BR_SHIFT, OPF_BR_T, OPF_BR_X, OPF_BUS_BS, OPF_BUS_GS, OPF_BUS_PD, OPF_BUS_QD,
  OPF_BUS_VMAX, OPF_BUS_VMIN, OPF_GEN_PMAX, OPF_GEN_PMIN, OPF_GEN_QMAX, OPF_GEN_QMIN, OPF_OUT_BR_FIELDS,
  OPF_OUT_BR_MU_SF, OPF_OUT_BR_MU_ST, OPF_OUT_BR_PT, OPF_OUT_BR_QF, OPF_OUT_BR_QT, OPF_OUT_BUS_FIELDS,
  OPF_OUT_BUS_LAM_P, OPF_OUT_BUS_LAM_Q, OPF_OUT_BUS_MU_VMAX, OPF_OUT_BUS_MU_VMIN, OPF_OUT_BUS_VA, OPF_OUT_GEN_FIELDS,
  OPF_OUT_GEN_MU_PMAX, OPF_OUT_GEN_MU_PMIN, OPF_OUT_GEN_MU_QMAX, OPF_OUT_GEN_MU_QMIN, OPF_OUT_GEN_QG,
} from './abi';

/** MATPOWER's mips cost_mult for OPF: the cost is scaled down inside the iterations. */
const COST_MULT: f64 = 1e-4;
/** As src/opf/costs.ts MAX_COST_TERMS. */
const MAX_POLY_TERMS: i32 = 64;

export function acopf(inp: StaticArray<f64>, out: StaticArray<f64>, o: MipsOptions): i32 {
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  const base = inp[OPF_IN_BASEMVA];
  const bus = OPF_IN_HEADER, br = bus + OPF_BUS_FIELDS * nb, gen = br + OPF_BR_FIELDS * nl;
  const bPd = bus + OPF_BUS_PD * nb, bQd = bus + OPF_BUS_QD * nb, bGs = bus + OPF_BUS_GS * nb, bBs = bus + OPF_BUS_BS * nb;
  const bVmin = bus + OPF_BUS_VMIN * nb, bVmax = bus + OPF_BUS_VMAX * nb;
  const lF = br, lT = br + OPF_BR_T * nl, lR = br + OPF_BR_R * nl, lX = br + OPF_BR_X * nl, lB = br + OPF_BR_B * nl;
  const lTap = br + OPF_BR_RATIO * nl, lShift = br + OPF_BR_SHIFT * nl,
    lRate = br + OPF_BR_RATE_A * nl;
  const gBus = gen, gPmin = gen + OPF_GEN_PMIN * ng, gPmax = gen + OPF_GEN_PMAX * ng, gQmin = gen + OPF_GEN_QMIN * ng, gQmax = gen + OPF_GEN_QMAX * ng;

  // MATPOWER's AC-OPF takes any polynomial degree; y: the P costs' cost variables, then the Q costs'
  const sizes = costSizes(inp, gen, ng, MAX_POLY_TERMS, ACTIVE_COST), qsizes = costSizes(inp, gen, ng, MAX_POLY_TERMS, REACTIVE_COST);
  if (sizes.bad || qsizes.bad) return bad(out);
  const ny = sizes.ny + qsizes.ny, nseg = sizes.nseg + qsizes.nseg, nang = countAngleRows(inp, br, nl);
  const va0 = 0, vm0 = nb, pg0 = 2 * nb, qg0 = 2 * nb + ng, y0 = 2 * nb + 2 * ng;
  const nx = y0 + ny;

  // network data for the nonlinear constraints
  const from = new StaticArray<i32>(nl), to = new StaticArray<i32>(nl), coef = new StaticArray<f64>(8 * nl);
  const ratedOf = new StaticArray<i32>(nl);
  let nrated = 0;
  for (let l = 0; l < nl; l++) {
    unchecked(from[l] = <i32>inp[lF + l]); unchecked(to[l] = <i32>inp[lT + l]);
    if (inp[lR + l] == 0.0 && inp[lX + l] == 0.0) return bad(out);
    branchCoefficients(coef, 8 * l, inp[lR + l], inp[lX + l], inp[lB + l], inp[lTap + l], inp[lShift + l]);
    const rate = inp[lRate + l];
    unchecked(ratedOf[l] = isRated(rate) ? nrated++ : -1);
  }
  const smax2 = new StaticArray<f64>(nrated);
  for (let l = 0; l < nl; l++) {
    const k = unchecked(ratedOf[l]);
    if (k >= 0) { const s = inp[lRate + l] / base; unchecked(smax2[k] = s * s); }
  }
  const gs = new StaticArray<f64>(nb), bs = new StaticArray<f64>(nb), pd = new StaticArray<f64>(nb), qd = new StaticArray<f64>(nb);
  for (let i = 0; i < nb; i++) {
    unchecked(gs[i] = inp[bGs + i] / base); unchecked(bs[i] = inp[bBs + i] / base);
    unchecked(pd[i] = inp[bPd + i] / base); unchecked(qd[i] = inp[bQd + i] / base);
  }
  const genBus = new StaticArray<i32>(ng);
  for (let g = 0; g < ng; g++) unchecked(genBus[g] = <i32>inp[gBus + g]);
  const cons = new AcConstraints(nx, nb, ng, nl, from, to, coef, gs, bs, pd, qd, genBus, ratedOf, smax2);

  // linear part: angle limits, cost rows; bounds; start point
  const npg = <i32>inp[OPF_IN_NPGROWS];
  const qp = new QP(nx, nang + nseg + npg, 2 * nang + 2 * nseg + pgRowEntries(inp));
  addAngleRows(qp, inp, br, nl);
  const costs = addCostRows(qp, inp, gen, ng, base, pg0, y0, ACTIVE_COST);
  const qcosts = addCostRows(qp, inp, gen, ng, base, qg0, y0 + sizes.ny, REACTIVE_COST);
  addPgRows(qp, inp, pg0);
  qp.k = costs.constant + qcosts.constant;
  const varef = fixReferenceAngles(qp, inp, bus, nb);
  if (varef != varef) return bad(out);
  for (let i = 0; i < nb; i++) { unchecked(qp.xmin[vm0 + i] = inp[bVmin + i]); unchecked(qp.xmax[vm0 + i] = inp[bVmax + i]); }
  for (let g = 0; g < ng; g++) {
    unchecked(qp.xmin[pg0 + g] = inp[gPmin + g] / base); unchecked(qp.xmax[pg0 + g] = inp[gPmax + g] / base);
    unchecked(qp.xmin[qg0 + g] = inp[gQmin + g] / base); unchecked(qp.xmax[qg0 + g] = inp[gQmax + g] / base);
  }
  if (<i32>inp[OPF_IN_START] == OPF_START_CASE) {
    // MATPOWER's opf.start 2: the case's voltages and dispatch, the cost variables at 0
    const bVm0 = bus + OPF_BUS_VM0 * nb, bVa0 = bus + OPF_BUS_VA0 * nb, gPg0 = gen + OPF_GEN_PG0 * ng, gQg0 = gen + OPF_GEN_QG0 * ng;
    for (let i = 0; i < nb; i++) { unchecked(qp.x0[va0 + i] = inp[bVa0 + i]); unchecked(qp.x0[vm0 + i] = inp[bVm0 + i]); }
    for (let g = 0; g < ng; g++) { unchecked(qp.x0[pg0 + g] = inp[gPg0 + g] / base); unchecked(qp.x0[qg0 + g] = inp[gQg0 + g] / base); }
    for (let j = y0; j < nx; j++) unchecked(qp.x0[j] = 0.0);
  } else {
    interiorStart(qp, y0, Math.max(costs.ymax, qcosts.ymax));
    for (let i = 0; i < nb; i++) {
      unchecked(qp.x0[va0 + i] = varef);
      unchecked(qp.x0[vm0 + i] = (Math.min(inp[bVmax + i], 1.5) + Math.max(inp[bVmin + i], 0.5)) / 2.0);
    }
  }

  const mips = new Mips(qp, cons, COST_MULT);
  const status = mips.solve(o, 0.0);

  // results (MATPOWER's units: MW, MVAr, currency/MWh, /MVArh, /MVAh)
  const x = mips.x, muL = mips.muL, muU = mips.muU, lam = mips.lam, mu = mips.mu;
  writeSolveHeader(out, mips, status, mips.f);
  const oBus = OPF_OUT_HEADER, oBr = oBus + OPF_OUT_BUS_FIELDS * nb, oGen = oBr + OPF_OUT_BR_FIELDS * nl;
  for (let p = oBus; p < oGen + OPF_OUT_GEN_FIELDS * ng; p++) unchecked(out[p] = 0.0);
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + i] = x[vm0 + i]);
    unchecked(out[oBus + OPF_OUT_BUS_VA * nb + i] = x[va0 + i]);
    unchecked(out[oBus + OPF_OUT_BUS_LAM_P * nb + i] = lam[i] / base);
    unchecked(out[oBus + OPF_OUT_BUS_LAM_Q * nb + i] = lam[nb + i] / base);
    unchecked(out[oBus + OPF_OUT_BUS_MU_VMIN * nb + i] = muL[vm0 + i]);
    unchecked(out[oBus + OPF_OUT_BUS_MU_VMAX * nb + i] = muU[vm0 + i]);
  }
  const bp = new BranchPower();
  for (let l = 0; l < nl; l++) {
    const f = unchecked(from[l]), t = unchecked(to[l]);
    bp.at(coef, 8 * l, x[va0 + f], x[va0 + t], x[vm0 + f], x[vm0 + t], false);
    unchecked(out[oBr + l] = bp.sfR * base); unchecked(out[oBr + OPF_OUT_BR_QF * nl + l] = bp.sfI * base);
    unchecked(out[oBr + OPF_OUT_BR_PT * nl + l] = bp.stR * base); unchecked(out[oBr + OPF_OUT_BR_QT * nl + l] = bp.stI * base);
    const k = unchecked(ratedOf[l]);
    if (k >= 0) {
      // multipliers of |S| ≤ rate_a from those of |S|² ≤ rate_a²: 2 μ rate_a / baseMVA, per baseMVA
      const rate = inp[lRate + l];
      unchecked(out[oBr + OPF_OUT_BR_MU_SF * nl + l] = 2.0 * mu[k] * rate / base / base);
      unchecked(out[oBr + OPF_OUT_BR_MU_ST * nl + l] = 2.0 * mu[nrated + k] * rate / base / base);
    }
  }
  writeAngleMultipliers(out, oBr, inp, br, nl, muL, muU, nx);
  for (let g = 0; g < ng; g++) {
    unchecked(out[oGen + g] = x[pg0 + g] * base);
    unchecked(out[oGen + OPF_OUT_GEN_QG * ng + g] = x[qg0 + g] * base);
    unchecked(out[oGen + OPF_OUT_GEN_MU_PMIN * ng + g] = muL[pg0 + g] / base);
    unchecked(out[oGen + OPF_OUT_GEN_MU_PMAX * ng + g] = muU[pg0 + g] / base);
    unchecked(out[oGen + OPF_OUT_GEN_MU_QMIN * ng + g] = muL[qg0 + g] / base);
    unchecked(out[oGen + OPF_OUT_GEN_MU_QMAX * ng + g] = muU[qg0 + g] / base);
  }
  return status;
}
