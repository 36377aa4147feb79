// The OPF ABI: the f64 input and output buffers exchanged with JavaScript
// (mirrored in src/opf/abi.ts; test/abi.test.ts fails on any difference).
//
// Input  (f64[]):  header[OPF_IN_HEADER]
//                  bus:    type, vm0, va0, pd, qd, gs, bs, vmin, vmax            (nb each)
//                  branch: f, t, r, x, b, ratio, shift, rate_a, angmin, angmax   (nl each)
//                  gen:    bus, pmin, pmax, qmin, qmax, model, ncost, offset, pg0, qg0,
//                          qmodel, qncost, qoffset (the reactive cost, AC only; qmodel COST_NONE: none) (ng each)
//                  cost values (gen g: offset .. offset + ncost (poly) or 2 ncost (pwl); the same from qoffset)
//                  DC only, at OPF_IN_XROWS_AT: OPF_IN_NXROWS extra linear rows on the angles (the
//                  security-constrained DC-OPF's post-contingency flows, src/opf/security.ts), each
//                  lo, hi (p.u.), n, then n pairs (internal bus, coefficient)
//                  DC and AC, at OPF_IN_PGROWS_AT: OPF_IN_NPGROWS linear rows on the generators' P
//                  (lo ≤ Σ coef·Pg ≤ hi, p.u.: the DC lines' terminal pairs, src/opf/dcLines.ts), each
//                  lo, hi, n, then n pairs (internal generator, coefficient)
// Output (f64[]):  header[OPF_OUT_HEADER]
//                  bus:    vm, va, lam_p, lam_q, mu_vmin, mu_vmax                (nb each)
//                  branch: pf, qf, pt, qt, mu_sf, mu_st, mu_angmin, mu_angmax    (nl each)
//                  gen:    pg, qg, mu_pmin, mu_pmax, mu_qmin, mu_qmax            (ng each)
//                  extra rows: mu (upper minus lower side), currency/MWh         (nxrows)
// Everything is internal and in service (JavaScript leaves out isolated buses,
// open branches and generators out of service, as MATPOWER's ext2int does).
// Units as MATPOWER's case and results: MW, MVAr, MVA, p.u. voltages, angles in
// radians (angmin / angmax in degrees as the case), shift in radians; ±Infinity
// for absent limits; multipliers in currency/MWh (/MVArh, /MVAh).

export const OPF_ABI_VERSION: i32 = 4;

export const OPF_IN_VERSION: i32 = 0;
export const OPF_IN_METHOD: i32 = 1;    // 0 dc, 1 ac
export const OPF_IN_NB: i32 = 2;
export const OPF_IN_NL: i32 = 3;
export const OPF_IN_NG: i32 = 4;
export const OPF_IN_BASEMVA: i32 = 5;
export const OPF_IN_FEASTOL: i32 = 6;
export const OPF_IN_GRADTOL: i32 = 7;
export const OPF_IN_COMPTOL: i32 = 8;
export const OPF_IN_COSTTOL: i32 = 9;
export const OPF_IN_MAXIT: i32 = 10;
export const OPF_IN_TIME_LIMIT_S: i32 = 11; // for the LP path in JavaScript (src/opf/lp.ts); not read here
export const OPF_IN_NXROWS: i32 = 12;       // extra rows (DC): count
export const OPF_IN_XROWS_AT: i32 = 13;     // extra rows (DC): where they start in the input
export const OPF_IN_START: i32 = 14;        // OPF_START_*: where MIPS starts
export const OPF_IN_NPGROWS: i32 = 15;      // rows on generator P (DC and AC): count
export const OPF_IN_PGROWS_AT: i32 = 16;    // rows on generator P: where they start in the input
export const OPF_IN_HEADER: i32 = 18;

/** MATPOWER's opf.start: 0 between the bounds (its default), 2 the case's own state (bus VM / VA, gen PG / QG;
 *  the piecewise-linear cost variables at 0). */
export const OPF_START_DEFAULT: i32 = 0;
export const OPF_START_CASE: i32 = 2;

export const OPF_BUS_FIELDS: i32 = 9;
export const OPF_BR_FIELDS: i32 = 10;
export const OPF_GEN_FIELDS: i32 = 13;

// Columns of the input sections (column c of a section of n rows starts at off + c * n).
export const OPF_BUS_TYPE: i32 = 0;
export const OPF_BUS_VM0: i32 = 1;
export const OPF_BUS_VA0: i32 = 2;
export const OPF_BUS_PD: i32 = 3;
export const OPF_BUS_QD: i32 = 4;
export const OPF_BUS_GS: i32 = 5;
export const OPF_BUS_BS: i32 = 6;
export const OPF_BUS_VMIN: i32 = 7;
export const OPF_BUS_VMAX: i32 = 8;
export const OPF_BR_F: i32 = 0;
export const OPF_BR_T: i32 = 1;
export const OPF_BR_R: i32 = 2;
export const OPF_BR_X: i32 = 3;
export const OPF_BR_B: i32 = 4;
export const OPF_BR_RATIO: i32 = 5;
export const OPF_BR_SHIFT: i32 = 6;
export const OPF_BR_RATE_A: i32 = 7;
export const OPF_BR_ANGMIN: i32 = 8;
export const OPF_BR_ANGMAX: i32 = 9;
export const OPF_GEN_BUS: i32 = 0;
export const OPF_GEN_PMIN: i32 = 1;
export const OPF_GEN_PMAX: i32 = 2;
export const OPF_GEN_QMIN: i32 = 3;
export const OPF_GEN_QMAX: i32 = 4;
export const OPF_GEN_MODEL: i32 = 5;
export const OPF_GEN_NCOST: i32 = 6;
export const OPF_GEN_OFFSET: i32 = 7;
export const OPF_GEN_PG0: i32 = 8;          // the case's dispatch (MW, MVAr): the start point of OPF_START_CASE
export const OPF_GEN_QG0: i32 = 9;
// the reactive-power cost (MATPOWER gencost rows ng+1..2ng; the AC-OPF only, as MATPOWER's DC-OPF drops them)
export const OPF_GEN_QMODEL: i32 = 10;
export const OPF_GEN_QNCOST: i32 = 11;
export const OPF_GEN_QOFFSET: i32 = 12;

export const OPF_OUT_STATUS: i32 = 0;     // MIPS_* of ./mips.ts, or OPF_BAD_INPUT
export const OPF_OUT_ITER: i32 = 1;
export const OPF_OUT_F: i32 = 2;          // objective, currency/h
export const OPF_OUT_FEAS: i32 = 3;
export const OPF_OUT_GRAD: i32 = 4;
export const OPF_OUT_COMP: i32 = 5;
export const OPF_OUT_COST: i32 = 6;
export const OPF_OUT_FALLBACKS: i32 = 7;  // pivoting LU factorisations (diagnostics)
export const OPF_OUT_KKT_N: i32 = 8;      // order of the KKT system
export const OPF_OUT_KKT_NNZL: i32 = 9;   // nonzeros of its L factor
export const OPF_OUT_KKT_REANALYSES: i32 = 10; // pivot sequences found again after a failed static pivot
export const OPF_OUT_KKT_FLOPS: i32 = 11;  // multiply-adds of one factorisation
export const OPF_OUT_HEADER: i32 = 16;

export const OPF_OUT_BUS_FIELDS: i32 = 6;
export const OPF_OUT_BR_FIELDS: i32 = 8;
export const OPF_OUT_GEN_FIELDS: i32 = 6;

// Columns of the output sections.
export const OPF_OUT_BUS_VM: i32 = 0;
export const OPF_OUT_BUS_VA: i32 = 1;
export const OPF_OUT_BUS_LAM_P: i32 = 2;
export const OPF_OUT_BUS_LAM_Q: i32 = 3;
export const OPF_OUT_BUS_MU_VMIN: i32 = 4;
export const OPF_OUT_BUS_MU_VMAX: i32 = 5;
export const OPF_OUT_BR_PF: i32 = 0;
export const OPF_OUT_BR_QF: i32 = 1;
export const OPF_OUT_BR_PT: i32 = 2;
export const OPF_OUT_BR_QT: i32 = 3;
export const OPF_OUT_BR_MU_SF: i32 = 4;
export const OPF_OUT_BR_MU_ST: i32 = 5;
export const OPF_OUT_BR_MU_ANGMIN: i32 = 6;
export const OPF_OUT_BR_MU_ANGMAX: i32 = 7;
export const OPF_OUT_GEN_PG: i32 = 0;
export const OPF_OUT_GEN_QG: i32 = 1;
export const OPF_OUT_GEN_MU_PMIN: i32 = 2;
export const OPF_OUT_GEN_MU_PMAX: i32 = 3;
export const OPF_OUT_GEN_MU_QMIN: i32 = 4;
export const OPF_OUT_GEN_MU_QMAX: i32 = 5;

export const OPF_METHOD_DC: i32 = 0;
export const OPF_METHOD_AC: i32 = 1;

export const COST_NONE: i32 = 0;
export const COST_PWL: i32 = 1;
export const COST_POLY: i32 = 2;

export const OPF_BAD_INPUT: i32 = 5;

// The LP of a DC-OPF with linear costs (opfLpBuild in ./entry.ts, read by src/opf/lp.ts for HiGHS): the header, then
// c, xmin, xmax (nx each), the rows' l, u (nA each), A in compressed rows (nA + 1 row starts, nnz columns, nnz values).
export const OPF_LP_NX: i32 = 0;
export const OPF_LP_NA: i32 = 1;
export const OPF_LP_NNZ: i32 = 2;
export const OPF_LP_CONSTANT: i32 = 3;  // the cost's constant term
export const OPF_LP_HEADER: i32 = 8;
