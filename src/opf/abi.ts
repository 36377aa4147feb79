// The OPF ABI seen from JavaScript: the buffers of assembly/opf/abi.ts (names there carry the prefix OPF_), as
// generated into ./abi.generated.ts at build:wasm (scripts/gen-abi.js), plus the slots only JavaScript writes.
import * as core from './abi.generated.js';

export const OPF_ABI_VERSION = core.OPF_ABI_VERSION;

/** The input header; IN.TIME_LIMIT_S is read by the LP path only (src/opf/lp.ts), the core ignores it;
 *  NXROWS / XROWS_AT: extra linear rows on the angles (DC; src/opf/security.ts); START: START_CODE, where MIPS
 *  starts; NPGROWS / PGROWS_AT: linear rows on generator P (DC and AC; the DC lines' terminal pairs, ./dcLines.ts). */
export const IN = core.OPF_IN;
export const BUS_FIELDS = core.OPF_BUS_FIELDS; // type, vm0, va0, pd, qd, gs, bs, vmin, vmax
export const BR_FIELDS = core.OPF_BR_FIELDS; // f, t, r, x, b, ratio, shift, rate_a, angmin, angmax
export const GEN_FIELDS = core.OPF_GEN_FIELDS; // bus, pmin, pmax, qmin, qmax, model, ncost, offset, pg0, qg0, qmodel, qncost, qoffset
/** Columns of the input and output sections (assembly/opf/abi.ts OPF_BUS_*, OPF_OUT_BR_*, ...). */
export const BUS = core.OPF_BUS;
export const BR = core.OPF_BR;
export const GEN = core.OPF_GEN;
/** IN.START (assembly OPF_START_*): MATPOWER's opf.start 0 (between the bounds) or 2 (the case's state). */
export const START_CODE = core.OPF_START;
export const OUT_BUS = core.OPF_OUT_BUS;
export const OUT_BR = core.OPF_OUT_BR;
export const OUT_GEN = core.OPF_OUT_GEN;

export const OUT = {
  ...core.OPF_OUT,
  // written by JavaScript (the worker and the LP path), not the core:
  SOLVE_MS: 12,
  THREAD: 13,
  LP_ITERATIONS: 14,
  SOLVER: 15,
} as const;
/** The LP export of a DC-OPF with linear costs (src/opf/lp.ts reads it for HiGHS). */
export const LP = core.OPF_LP;
/** OUT.SOLVER: which solver answered (a DC-OPF with linear costs that MIPS did not solve goes to HiGHS). */
export const SOLVER_CODE = { mips: 0, highs: 1 } as const;
export const OUT_BUS_FIELDS = core.OPF_OUT_BUS_FIELDS; // vm, va, lam_p, lam_q, mu_vmin, mu_vmax
export const OUT_BR_FIELDS = core.OPF_OUT_BR_FIELDS; // pf, qf, pt, qt, mu_sf, mu_st, mu_angmin, mu_angmax
export const OUT_GEN_FIELDS = core.OPF_OUT_GEN_FIELDS; // pg, qg, mu_pmin, mu_pmax, mu_qmin, mu_qmax

export const METHOD_CODE = { dc: core.OPF_METHOD_DC, ac: core.OPF_METHOD_AC } as const;
/** A generator's cost model; `none` only in the reactive-cost column (no reactive cost). */
export const COST_CODE = { none: core.COST_NONE, piecewise_linear: core.COST_PWL, polynomial: core.COST_POLY } as const;

/** MIPS statuses (assembly/opf/mips.ts) and bad input. */
export const STATUS = { CONVERGED: 0, MAXIT: 1, FAILED: 2, CANCELLED: 4, BAD_INPUT: core.OPF_BAD_INPUT } as const;
