// Mirror of assembly/se/layout.ts (test/state-estimation-reference.test.ts checks the two).
export const SE_ABI_VERSION = 1;

export const IN = {
  VERSION: 0,
  NB: 1,
  NL: 2,
  NG: 3,
  NM: 4,
  BASEMVA: 5,
  REF: 6,
  MAXIT: 7,
  TOL: 8,
  THRESHOLD: 9,
  RESIDUALS: 10,
  /** 1: Ω's diagonal by one solve per measurement (the comparison the sparse inverse subset is tested against) */
  OMEGA_BY_SOLVES: 11,
  HEADER: 16,
} as const;
export const BUS = { PD: 0, QD: 1, GS: 2, BS: 3, VM0: 4, FIELDS: 5 } as const;
export const BR = { F: 0, T: 1, R: 2, X: 3, B: 4, RATIO: 5, SHIFT: 6, FIELDS: 7 } as const;
export const GEN = { BUS: 0, FIELDS: 1 } as const;
export const MEAS = { KIND: 0, ELEMENT: 1, VALUE: 2, SIGMA: 3, FIELDS: 4 } as const;
/** SE_KIND_*: the measurement kinds in the core's numbering. */
export const KIND = { p_from: 0, p_to: 1, q_from: 2, q_to: 3, p_gen: 4, q_gen: 5, v_mag: 6, v_angle: 7, p_inj: 8, q_inj: 9 } as const;

export const OUT = {
  STATUS: 0,
  ITER: 1,
  J: 2,
  NORM_F: 3,
  PASSES: 4,
  ACTIVE: 5,
  TOTAL_ITER: 6,
  RANK_DEFICIT: 7,
  SOLVE_MS: 8,
  HEADER: 16,
} as const;
export const OUT_BUS = { VM: 0, VA: 1, UNOBSERVABLE: 2, FIELDS: 3 } as const;
export const OUT_MEAS = { ESTIMATE: 0, RESIDUAL: 1, NORMALIZED: 2, OMEGA_RATIO: 3, REMOVED_PASS: 4, REMOVED_NR: 5, FIELDS: 6 } as const;
export const STATUS = { CONVERGED: 0, DIVERGED: 1, UNOBSERVABLE: 2, CANCELLED: 4, BAD_INPUT: 5 } as const;
