// Mirror of assembly/opf/layout.ts (test/abi.test.ts checks the two).
export const OPF_ABI_VERSION = 4;

export const IN = {
  VERSION: 0, METHOD: 1, NB: 2, NL: 3, NG: 4, BASEMVA: 5, FEASTOL: 6, GRADTOL: 7, COMPTOL: 8, COSTTOL: 9, MAXIT: 10,
  TIME_LIMIT_S: 11, // read by the LP path only (src/opf/lp.ts); the core ignores it
  NXROWS: 12, XROWS_AT: 13, // extra linear rows on the angles (DC; src/opf/security.ts)
  START: 14, // START_CODE: where MIPS starts
  NPGROWS: 15, PGROWS_AT: 16, // linear rows on generator P (DC and AC; the DC lines' terminal pairs, ./dcLines.ts)
  HEADER: 18,
} as const;
export const BUS_FIELDS = 9;    // type, vm0, va0, pd, qd, gs, bs, vmin, vmax
export const BR_FIELDS = 10;    // f, t, r, x, b, ratio, shift, rate_a, angmin, angmax
export const GEN_FIELDS = 13;   // bus, pmin, pmax, qmin, qmax, model, ncost, offset, pg0, qg0, qmodel, qncost, qoffset
/** Columns of the input and output sections (assembly/opf/layout.ts OPF_BUS_*, OPF_OUT_BR_*, ...). */
export const BUS = { TYPE: 0, VM0: 1, VA0: 2, PD: 3, QD: 4, GS: 5, BS: 6, VMIN: 7, VMAX: 8 } as const;
export const BR = { F: 0, T: 1, R: 2, X: 3, B: 4, RATIO: 5, SHIFT: 6, RATE_A: 7, ANGMIN: 8, ANGMAX: 9 } as const;
export const GEN = { BUS: 0, PMIN: 1, PMAX: 2, QMIN: 3, QMAX: 4, MODEL: 5, NCOST: 6, OFFSET: 7, PG0: 8, QG0: 9, QMODEL: 10, QNCOST: 11, QOFFSET: 12 } as const;
/** IN.START (assembly OPF_START_*): MATPOWER's opf.start 0 (between the bounds) or 2 (the case's state). */
export const START_CODE = { DEFAULT: 0, CASE: 2 } as const;
export const OUT_BUS = { VM: 0, VA: 1, LAM_P: 2, LAM_Q: 3, MU_VMIN: 4, MU_VMAX: 5 } as const;
export const OUT_BR = { PF: 0, QF: 1, PT: 2, QT: 3, MU_SF: 4, MU_ST: 5, MU_ANGMIN: 6, MU_ANGMAX: 7 } as const;
export const OUT_GEN = { PG: 0, QG: 1, MU_PMIN: 2, MU_PMAX: 3, MU_QMIN: 4, MU_QMAX: 5 } as const;

export const OUT = { STATUS: 0, ITER: 1, F: 2, FEAS: 3, GRAD: 4, COMP: 5, COST: 6, FALLBACKS: 7, KKT_N: 8, KKT_NNZL: 9, KKT_REANALYSES: 10, KKT_FLOPS: 11, SOLVE_MS: 12, THREAD: 13, LP_ITERATIONS: 14, SOLVER: 15, HEADER: 16 } as const;
/** OUT.SOLVER: which solver answered (a DC-OPF with linear costs that MIPS did not solve goes to HiGHS). */
export const SOLVER_CODE = { mips: 0, highs: 1 } as const;
export const OUT_BUS_FIELDS = 6;  // vm, va, lam_p, lam_q, mu_vmin, mu_vmax
export const OUT_BR_FIELDS = 8;   // pf, qf, pt, qt, mu_sf, mu_st, mu_angmin, mu_angmax
export const OUT_GEN_FIELDS = 6;  // pg, qg, mu_pmin, mu_pmax, mu_qmin, mu_qmax

export const METHOD_CODE = { dc: 0, ac: 1 } as const;
/** A generator's cost model; `none` only in the reactive-cost column (no reactive cost). */
export const COST_CODE = { none: 0, piecewise_linear: 1, polynomial: 2 } as const;

/** MIPS statuses (assembly/opf/mips.ts) and bad input. */
export const STATUS = { CONVERGED: 0, MAXIT: 1, FAILED: 2, CANCELLED: 4, BAD_INPUT: 5 } as const;
