// DC-OPF as MATPOWER's rundcopf poses it (opf_setup, makeBdc, makeAang,
// makeAy, dcopf_solver), solved by MIPS:
//   x = [Va (nb); Pg (ng, p.u.); y (one per piecewise-linear cost)]
//   min  Σ polynomial cost(Pg) + Σ y
//   Pmis (nb):   B Va − Cg Pg = −(Pd + Gs)/baseMVA − Pbusinj
//   Pf  (rated): −rate_a/baseMVA − Pfinj ≤ Bf Va ≤ rate_a/baseMVA − Pfinj
//   ang:         angmin ≤ Va_f − Va_t ≤ angmax  (where MATPOWER enforces them)
//   y rows:      m_k·baseMVA·Pg − y ≤ −(y_k − m_k x_k)  for each segment k
//   Va_ref fixed by its bounds; Pmin ≤ Pg ≤ Pmax.
// Start point as dcopf_solver with opf.start 0: mid-way between finite bounds,
// 1 inside a one-sided bound, angles at the first reference angle.
import { QP } from './qp';
import { Mips, MipsOptions } from './mips';
import {
  OPF_IN_NB, OPF_IN_NL, OPF_IN_NG, OPF_IN_BASEMVA, OPF_IN_HEADER, OPF_BUS_FIELDS, OPF_BR_FIELDS,
  OPF_OUT_STATUS, OPF_OUT_ITER, OPF_OUT_F, OPF_OUT_FEAS, OPF_OUT_GRAD, OPF_OUT_COMP, OPF_OUT_COST, OPF_OUT_HEADER,
  OPF_OUT_FALLBACKS, OPF_OUT_KKT_N, OPF_OUT_KKT_NNZL,
  OPF_BAD_INPUT, COST_PWL, COST_POLY,
} from './layout';

const DEG: f64 = Math.PI / 180.0;

/** MATPOWER's makeAang test: an angle limit row exists when either side is a real limit. */
// @ts-ignore: decorator
@inline export function hasAngleLimit(angmin: f64, angmax: f64): bool {
  return (angmin != 0.0 && angmin > -360.0) || (angmax != 0.0 && angmax < 360.0);
}

export function dcopf(inp: StaticArray<f64>, out: StaticArray<f64>, o: MipsOptions): i32 {
  const nb = <i32>inp[OPF_IN_NB], nl = <i32>inp[OPF_IN_NL], ng = <i32>inp[OPF_IN_NG];
  const base = inp[OPF_IN_BASEMVA];
  const bus = OPF_IN_HEADER, br = bus + OPF_BUS_FIELDS * nb, gen = br + OPF_BR_FIELDS * nl;
  const gen1 = gen + 8 * ng;
  // columns of the packed tables
  const bType = bus, bVa = bus + 2 * nb, bPd = bus + 3 * nb, bGs = bus + 5 * nb;
  const lF = br, lT = br + nl, lX = br + 3 * nl, lTap = br + 5 * nl, lShift = br + 6 * nl, lRate = br + 7 * nl,
    lAmin = br + 8 * nl, lAmax = br + 9 * nl;
  const gBus = gen, gPmin = gen + ng, gPmax = gen + 2 * ng, gModel = gen + 5 * ng, gN = gen + 6 * ng, gOff = gen + 7 * ng;

  let ny = 0, nseg = 0, nrated = 0, nang = 0;
  for (let g = 0; g < ng; g++) {
    const model = <i32>inp[gModel + g], n = <i32>inp[gN + g];
    if (model == COST_PWL) { ny++; nseg += n - 1; }
    else if (model != COST_POLY || n > 3) return bad(out);
  }
  for (let l = 0; l < nl; l++) {
    const rate = inp[lRate + l];
    if (rate != 0.0 && rate < 1e10) nrated++;
    if (hasAngleLimit(inp[lAmin + l], inp[lAmax + l])) nang++;
  }
  const nx = nb + ng + ny;
  const qp = new QP(nx, nb + nrated + nang + nseg, 4 * nl + ng + 2 * nrated + 2 * nang + 2 * nseg);

  // branch susceptances b = 1/(x·tap) and phase-shift injections (makeBdc)
  const bsus = new StaticArray<f64>(nl), pfinj = new StaticArray<f64>(nl), pbusinj = new StaticArray<f64>(nb);
  for (let l = 0; l < nl; l++) {
    const tap0 = inp[lTap + l];
    const b = 1.0 / inp[lX + l] / (tap0 != 0.0 ? tap0 : 1.0);
    unchecked(bsus[l] = b);
    unchecked(pfinj[l] = b * -inp[lShift + l]);
    unchecked(pbusinj[<i32>inp[lF + l]] += pfinj[l]);
    unchecked(pbusinj[<i32>inp[lT + l]] -= pfinj[l]);
  }
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
    qp.addRow(rhs, rhs);
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
    if (!(rate != 0.0 && rate < 1e10)) continue;
    qp.addRow(-(rate / base + unchecked(pfinj[l])), rate / base - unchecked(pfinj[l]));
    qp.addEntry(<i32>inp[lF + l], bsus[l]);
    qp.addEntry(<i32>inp[lT + l], -bsus[l]);
  }
  for (let l = 0; l < nl; l++) {
    const amin = inp[lAmin + l], amax = inp[lAmax + l];
    if (!hasAngleLimit(amin, amax)) continue;
    qp.addRow(amin != 0.0 ? amin * DEG : -Infinity, amax != 0.0 ? amax * DEG : Infinity);
    qp.addEntry(<i32>inp[lF + l], 1.0);
    qp.addEntry(<i32>inp[lT + l], -1.0);
  }

  // costs
  let constant = 0.0;
  let iy = nb + ng;
  let ymax = -Infinity;
  for (let g = 0; g < ng; g++) {
    const n = <i32>inp[gN + g], off = gen1 + <i32>inp[gOff + g];
    const pg = nb + g;
    if (<i32>inp[gModel + g] == COST_POLY) {
      if (n == 3) {
        unchecked(qp.h[pg] = 2.0 * inp[off] * base * base);
        unchecked(qp.c[pg] = inp[off + 1] * base);
        constant += inp[off + 2];
      } else if (n == 2) {
        unchecked(qp.c[pg] = inp[off] * base);
        constant += inp[off + 1];
      } else if (n == 1) {
        constant += inp[off];
      }
      continue;
    }
    unchecked(qp.c[iy] = 1.0);
    for (let k = 0; k < n - 1; k++) {
      const x0 = inp[off + 2 * k], y0 = inp[off + 2 * k + 1], x1 = inp[off + 2 * k + 2], y1 = inp[off + 2 * k + 3];
      const m = (y1 - y0) / (x1 - x0);
      qp.addRow(-Infinity, -(y0 - m * x0));
      qp.addEntry(pg, m * base);
      qp.addEntry(iy, -1.0);
    }
    ymax = Math.max(ymax, inp[off + 2 * n - 1]);
    iy++;
  }

  // bounds and start point
  let varef = NaN;
  for (let i = 0; i < nb; i++) {
    if (<i32>inp[bType + i] == 3) {
      const va = inp[bVa + i];
      unchecked(qp.xmin[i] = va); unchecked(qp.xmax[i] = va);
      if (varef != varef) varef = va;
    }
  }
  if (varef != varef) return bad(out);
  for (let g = 0; g < ng; g++) {
    unchecked(qp.xmin[nb + g] = inp[gPmin + g] / base);
    unchecked(qp.xmax[nb + g] = inp[gPmax + g] / base);
  }
  for (let j = 0; j < nx; j++) {
    const lo = unchecked(qp.xmin[j]), hi = unchecked(qp.xmax[j]);
    let x0 = ((lo == -Infinity ? -1e10 : lo) + (hi == Infinity ? 1e10 : hi)) / 2.0;
    if (lo == -Infinity && hi < Infinity) x0 = hi - 1.0;
    else if (lo > -Infinity && hi == Infinity) x0 = lo + 1.0;
    unchecked(qp.x0[j] = x0);
  }
  for (let i = 0; i < nb; i++) unchecked(qp.x0[i] = varef);
  for (let j = nb + ng; j < nx; j++) unchecked(qp.x0[j] = ymax + 0.1 * Math.abs(ymax));

  const mips = new Mips(qp);
  const status = mips.solve(o, constant);

  // results
  const x = mips.x, muL = mips.muL, muU = mips.muU;
  for (let p = 0; p < OPF_OUT_HEADER; p++) unchecked(out[p] = 0.0);
  unchecked(out[OPF_OUT_STATUS] = <f64>status);
  unchecked(out[OPF_OUT_ITER] = <f64>mips.iterations);
  unchecked(out[OPF_OUT_F] = mips.f + constant);
  unchecked(out[OPF_OUT_FEAS] = mips.feascond);
  unchecked(out[OPF_OUT_GRAD] = mips.gradcond);
  unchecked(out[OPF_OUT_COMP] = mips.compcond);
  unchecked(out[OPF_OUT_COST] = mips.costcond);
  unchecked(out[OPF_OUT_FALLBACKS] = <f64>mips.kkt!.lu.fallbacks);
  unchecked(out[OPF_OUT_KKT_N] = <f64>mips.kkt!.n);
  unchecked(out[OPF_OUT_KKT_NNZL] = <f64>mips.kkt!.lu.nnzL());
  const oBus = OPF_OUT_HEADER, oBr = oBus + 6 * nb, oGen = oBr + 8 * nl;
  for (let p = oBus; p < oGen + 6 * ng; p++) unchecked(out[p] = 0.0);
  for (let i = 0; i < nb; i++) {
    unchecked(out[oBus + i] = 1.0);
    unchecked(out[oBus + nb + i] = x[i]);
    unchecked(out[oBus + 2 * nb + i] = (muU[nx + i] - muL[nx + i]) / base);
  }
  let row = nx + nb;
  for (let l = 0; l < nl; l++) {
    const f = <i32>inp[lF + l], t = <i32>inp[lT + l];
    const pf = (unchecked(bsus[l]) * (unchecked(x[f]) - unchecked(x[t])) + unchecked(pfinj[l])) * base;
    unchecked(out[oBr + l] = pf);
    unchecked(out[oBr + 2 * nl + l] = -pf);
    const rate = inp[lRate + l];
    if (rate != 0.0 && rate < 1e10) {
      unchecked(out[oBr + 4 * nl + l] = muU[row] / base);
      unchecked(out[oBr + 5 * nl + l] = muL[row] / base);
      row++;
    }
  }
  for (let l = 0; l < nl; l++) {
    if (!hasAngleLimit(inp[lAmin + l], inp[lAmax + l])) continue;
    unchecked(out[oBr + 6 * nl + l] = muL[row] * DEG);
    unchecked(out[oBr + 7 * nl + l] = muU[row] * DEG);
    row++;
  }
  for (let g = 0; g < ng; g++) {
    unchecked(out[oGen + g] = x[nb + g] * base);
    unchecked(out[oGen + 2 * ng + g] = muL[nb + g] / base);
    unchecked(out[oGen + 3 * ng + g] = muU[nb + g] / base);
  }
  return status;
}

function bad(out: StaticArray<f64>): i32 {
  for (let p = 0; p < OPF_OUT_HEADER; p++) unchecked(out[p] = 0.0);
  unchecked(out[OPF_OUT_STATUS] = <f64>OPF_BAD_INPUT);
  return OPF_BAD_INPUT;
}
