// The parts of MATPOWER's opf_setup the DC and AC formulations share: branch
// angle-difference limits (makeAang), generator costs (polynomial terms into
// the separable quadratic, piecewise-linear ones as constrained cost variables:
// makeAy), linear rows on generator P (user constraints such as toggle_dcline's),
// and the interior start point of opf.start 0.
import { QP } from './qp';
import { Mips } from './mips';
import {
  OPF_GEN_FIELDS, COST_NONE, COST_PWL, COST_POLY, OPF_OUT_STATUS, OPF_OUT_ITER, OPF_OUT_F, OPF_OUT_FEAS, OPF_OUT_GRAD, OPF_OUT_COMP,
  OPF_OUT_COST, OPF_OUT_HEADER, OPF_OUT_FALLBACKS, OPF_OUT_KKT_N, OPF_OUT_KKT_NNZL, OPF_OUT_KKT_REANALYSES, OPF_OUT_KKT_FLOPS, OPF_BAD_INPUT,
} from './abi';
import {
  OPF_BR_ANGMAX, OPF_BR_ANGMIN, OPF_BR_T, OPF_BUS_VA0, OPF_GEN_MODEL, OPF_GEN_NCOST, OPF_GEN_OFFSET,
  OPF_OUT_BR_MU_ANGMAX, OPF_OUT_BR_MU_ANGMIN,
} from './abi';
import { OPF_GEN_QMODEL, OPF_GEN_QNCOST, OPF_GEN_QOFFSET, OPF_IN_NPGROWS, OPF_IN_PGROWS_AT } from './abi';

const DEG: f64 = Math.PI / 180.0;

/** MATPOWER's makeAang test: an angle limit row exists when either side is a real limit. */
// @ts-ignore: decorator
@inline export function hasAngleLimit(angmin: f64, angmax: f64): bool {
  return (angmin != 0.0 && angmin > -360.0) || (angmax != 0.0 && angmax < 360.0);
}

/** The gen columns that hold one cost: the active-power one (every generator has it) or the reactive-power
 *  one (MATPOWER's gencost rows ng+1..2ng; COST_NONE where a generator has none). */
export class CostColumns {
  constructor(public model: i32, public ncost: i32, public offset: i32, public optional: bool) {}
}
export const ACTIVE_COST = new CostColumns(OPF_GEN_MODEL, OPF_GEN_NCOST, OPF_GEN_OFFSET, false);
export const REACTIVE_COST = new CostColumns(OPF_GEN_QMODEL, OPF_GEN_QNCOST, OPF_GEN_QOFFSET, true);

/** Sizes of the cost model: ny cost variables, nseg piecewise-linear segments; bad = a polynomial
 *  above `maxTerms` terms or an unknown model. */
export class CostSizes {
  ny: i32 = 0;
  nseg: i32 = 0;
  bad: bool = false;
}

export function costSizes(inp: StaticArray<f64>, gen: i32, ng: i32, maxTerms: i32, cols: CostColumns): CostSizes {
  const s = new CostSizes();
  const gModel = gen + cols.model * ng, gN = gen + cols.ncost * ng;
  for (let g = 0; g < ng; g++) {
    const model = <i32>inp[gModel + g], n = <i32>inp[gN + g];
    if (model == COST_PWL) { s.ny++; s.nseg += n - 1; }
    else if (model == COST_NONE && cols.optional) continue;
    else if (model != COST_POLY || n > maxTerms) s.bad = true;
  }
  return s;
}

export function countAngleRows(inp: StaticArray<f64>, br: i32, nl: i32): i32 {
  let n = 0;
  for (let l = 0; l < nl; l++) if (hasAngleLimit(inp[br + OPF_BR_ANGMIN * nl + l], inp[br + OPF_BR_ANGMAX * nl + l])) n++;
  return n;
}

/** angmin ≤ Va_f − Va_t ≤ angmax rows, in branch order (Va of bus i is column i). */
export function addAngleRows(qp: QP, inp: StaticArray<f64>, br: i32, nl: i32): void {
  const lF = br, lT = br + OPF_BR_T * nl, lAmin = br + OPF_BR_ANGMIN * nl, lAmax = br + OPF_BR_ANGMAX * nl;
  for (let l = 0; l < nl; l++) {
    const amin = inp[lAmin + l], amax = inp[lAmax + l];
    if (!hasAngleLimit(amin, amax)) continue;
    qp.addRow(amin != 0.0 ? amin * DEG : -Infinity, amax != 0.0 ? amax * DEG : Infinity);
    qp.addEntry(<i32>inp[lF + l], 1.0);
    qp.addEntry(<i32>inp[lT + l], -1.0);
  }
}

/** Entries of the rows on generator P (OPF_IN_NPGROWS rows from OPF_IN_PGROWS_AT: lo, hi, n, n pairs). */
export function pgRowEntries(inp: StaticArray<f64>): i32 {
  let nnz = 0;
  for (let r = 0, p = <i32>inp[OPF_IN_PGROWS_AT]; r < <i32>inp[OPF_IN_NPGROWS]; r++) { const n = <i32>inp[p + 2]; nnz += n; p += 3 + 2 * n; }
  return nnz;
}

/** lo ≤ Σ coef·Pg ≤ hi rows (p.u.; Pg of generator g is column pg0 + g): MATPOWER's add_lin_constraint on
 *  'Pg', as toggle_dcline links a DC line's two terminal generators. */
export function addPgRows(qp: QP, inp: StaticArray<f64>, pg0: i32): void {
  for (let r = 0, p = <i32>inp[OPF_IN_PGROWS_AT]; r < <i32>inp[OPF_IN_NPGROWS]; r++) {
    const n = <i32>inp[p + 2];
    qp.addRow(inp[p], inp[p + 1]);
    for (let q = 0; q < n; q++) qp.addEntry(pg0 + <i32>inp[p + 3 + 2 * q], inp[p + 4 + 2 * q]);
    p += 3 + 2 * n;
  }
}

/** Generator costs over Pg or Qg (columns pg0 + g, p.u.: the columns `cols` name) and cost variables (from
 *  column y0): polynomial terms up to quadratic into qp.h / qp.c, higher degrees (AC) as qp's polynomial terms,
 *  piecewise-linear ones as y ≥ m_k·baseMVA·Pg + c_k rows and cost 1 on y (makeAy's rows, P costs' first).
 *  Returns the constant terms' sum; sets `ymax` (largest y of any curve) for the start point. */
export class CostRows {
  constant: f64 = 0.0;
  ymax: f64 = -Infinity;
}

export function addCostRows(qp: QP, inp: StaticArray<f64>, gen: i32, ng: i32, base: f64, pg0: i32, y0: i32, cols: CostColumns): CostRows {
  const out = new CostRows();
  const gModel = gen + cols.model * ng, gN = gen + cols.ncost * ng, gOff = gen + cols.offset * ng, gen1 = gen + OPF_GEN_FIELDS * ng;
  let iy = y0;
  for (let g = 0; g < ng; g++) {
    const n = <i32>inp[gN + g], off = gen1 + <i32>inp[gOff + g];
    const pg = pg0 + g;
    if (<i32>inp[gModel + g] == COST_NONE) continue;
    if (<i32>inp[gModel + g] == COST_POLY) {
      if (n == 3) {
        unchecked(qp.h[pg] = 2.0 * inp[off] * base * base);
        unchecked(qp.c[pg] = inp[off + 1] * base);
        out.constant += inp[off + 2];
      } else if (n == 2) {
        unchecked(qp.c[pg] = inp[off] * base);
        out.constant += inp[off + 1];
      } else if (n == 1) {
        out.constant += inp[off];
      } else if (n > 3) {
        // degree ≥ 3 (AC only): c_k (baseMVA·Pg)^k, ascending powers of Pg in p.u.
        const asc = new StaticArray<f64>(n);
        let scale = 1.0;
        for (let k = 0; k < n; k++) { unchecked(asc[k] = inp[off + n - 1 - k] * scale); scale *= base; }
        qp.addPolynomial(pg, asc);
      }
      continue;
    }
    unchecked(qp.c[iy] = 1.0);
    for (let k = 0; k < n - 1; k++) {
      const x0 = inp[off + 2 * k], yA = inp[off + 2 * k + 1], x1 = inp[off + 2 * k + 2], yB = inp[off + 2 * k + 3];
      const m = (yB - yA) / (x1 - x0);
      qp.addRow(-Infinity, -(yA - m * x0));
      qp.addEntry(pg, m * base);
      qp.addEntry(iy, -1.0);
    }
    out.ymax = Math.max(out.ymax, inp[off + 2 * n - 1]);
    iy++;
  }
  return out;
}

/** opf.start 0: mid-way between finite bounds, 1 inside a one-sided bound, the cost variables at
 *  ymax + 10 % (angles and magnitudes are then set by the caller). */
export function interiorStart(qp: QP, y0: i32, ymax: f64): void {
  const nx = qp.nx;
  for (let j = 0; j < nx; j++) {
    const lo = unchecked(qp.xmin[j]), hi = unchecked(qp.xmax[j]);
    let x0 = ((lo == -Infinity ? -1e10 : lo) + (hi == Infinity ? 1e10 : hi)) / 2.0;
    if (lo == -Infinity && hi < Infinity) x0 = hi - 1.0;
    else if (lo > -Infinity && hi == Infinity) x0 = lo + 1.0;
    unchecked(qp.x0[j] = x0);
  }
  for (let j = y0; j < nx; j++) unchecked(qp.x0[j] = ymax + 0.1 * Math.abs(ymax));
}

/** The first reference bus's angle (radians), NaN when there is none; fixes every reference angle. */
export function fixReferenceAngles(qp: QP, inp: StaticArray<f64>, bus: i32, nb: i32): f64 {
  let varef = NaN;
  for (let i = 0; i < nb; i++) {
    if (<i32>inp[bus + i] == 3) {
      const va = inp[bus + OPF_BUS_VA0 * nb + i];
      unchecked(qp.xmin[i] = va); unchecked(qp.xmax[i] = va);
      if (varef != varef) varef = va;
    }
  }
  return varef;
}


/** The output header: status, iterations, objective (currency/h), MIPS's conditions, KKT diagnostics. */
export function writeSolveHeader(out: StaticArray<f64>, mips: Mips, status: i32, objective: f64): void {
  for (let p = 0; p < OPF_OUT_HEADER; p++) unchecked(out[p] = 0.0);
  unchecked(out[OPF_OUT_STATUS] = <f64>status);
  unchecked(out[OPF_OUT_ITER] = <f64>mips.iterations);
  unchecked(out[OPF_OUT_F] = objective);
  unchecked(out[OPF_OUT_FEAS] = mips.feascond);
  unchecked(out[OPF_OUT_GRAD] = mips.gradcond);
  unchecked(out[OPF_OUT_COMP] = mips.compcond);
  unchecked(out[OPF_OUT_COST] = mips.costcond);
  unchecked(out[OPF_OUT_FALLBACKS] = <f64>mips.kkt!.lu.fallbacks);
  unchecked(out[OPF_OUT_KKT_N] = <f64>mips.kkt!.n);
  unchecked(out[OPF_OUT_KKT_NNZL] = <f64>mips.kkt!.lu.nnzL());
  unchecked(out[OPF_OUT_KKT_REANALYSES] = <f64>mips.kkt!.reanalyses);
  unchecked(out[OPF_OUT_KKT_FLOPS] = mips.kkt!.lu.flops());
}

/** MU_ANGMIN / MU_ANGMAX (currency per degree-hour, as MATPOWER) of the angle rows, which start at AA row `row`. */
export function writeAngleMultipliers(out: StaticArray<f64>, oBr: i32, inp: StaticArray<f64>, br: i32, nl: i32,
  muL: StaticArray<f64>, muU: StaticArray<f64>, row: i32): void {
  for (let l = 0; l < nl; l++) {
    if (!hasAngleLimit(inp[br + OPF_BR_ANGMIN * nl + l], inp[br + OPF_BR_ANGMAX * nl + l])) continue;
    unchecked(out[oBr + OPF_OUT_BR_MU_ANGMIN * nl + l] = muL[row] * DEG);
    unchecked(out[oBr + OPF_OUT_BR_MU_ANGMAX * nl + l] = muU[row] * DEG);
    row++;
  }
}

export function bad(out: StaticArray<f64>): i32 {
  for (let p = 0; p < OPF_OUT_HEADER; p++) unchecked(out[p] = 0.0);
  unchecked(out[OPF_OUT_STATUS] = <f64>OPF_BAD_INPUT);
  return OPF_BAD_INPUT;
}
