// Generated from assembly/se/abi.ts by scripts/gen-abi.js at build:wasm: do not edit (edit ../../assembly/se/abi.ts).

export const SE_ABI_VERSION = 1;
export const SE_IN_VERSION = 0;
export const SE_IN_NB = 1;
export const SE_IN_NL = 2;
export const SE_IN_NG = 3;
export const SE_IN_NM = 4;
export const SE_IN_BASEMVA = 5;
export const SE_IN_REF = 6; // internal index of the reference bus
export const SE_IN_MAXIT = 7; // Gauss–Newton iterations per estimate (doSE: 100)
export const SE_IN_TOL = 8; // max-norm of Hᵀ W r that stops it (doSE: 1e-5)
export const SE_IN_THRESHOLD = 9; // largest normalized residual kept; 0: no bad-data removal
export const SE_IN_RESIDUALS = 10; // 1: compute the normalized residuals of the final estimate
export const SE_IN_OMEGA_BY_SOLVES = 11; // 1: Ω's diagonal by one solve per measurement, not G⁻¹'s sparse subset
export const SE_IN_HEADER = 16;
export const SE_BUS_FIELDS = 5;
export const SE_BUS_PD = 0;
export const SE_BUS_QD = 1;
export const SE_BUS_GS = 2;
export const SE_BUS_BS = 3;
export const SE_BUS_VM0 = 4;
export const SE_BR_FIELDS = 7;
export const SE_BR_F = 0;
export const SE_BR_T = 1;
export const SE_BR_R = 2;
export const SE_BR_X = 3;
export const SE_BR_B = 4;
export const SE_BR_RATIO = 5;
export const SE_BR_SHIFT = 6;
export const SE_GEN_FIELDS = 1;
export const SE_GEN_BUS = 0;
export const SE_MEAS_FIELDS = 4;
export const SE_MEAS_KIND = 0;
export const SE_MEAS_ELEMENT = 1;
export const SE_MEAS_VALUE = 2;
export const SE_MEAS_SIGMA = 3;
export const SE_KIND_P_FROM = 0;
export const SE_KIND_P_TO = 1;
export const SE_KIND_Q_FROM = 2;
export const SE_KIND_Q_TO = 3;
export const SE_KIND_P_GEN = 4;
export const SE_KIND_Q_GEN = 5;
export const SE_KIND_V_MAG = 6;
export const SE_KIND_V_ANGLE = 7;
export const SE_KIND_P_INJ = 8;
export const SE_KIND_Q_INJ = 9;
export const SE_OUT_STATUS = 0;
export const SE_OUT_ITER = 1; // Gauss–Newton iterations of the final estimate
export const SE_OUT_J = 2; // Σ r²/σ² at its last evaluation (doSE's error_sqrsum)
export const SE_OUT_NORM_F = 3; // last max-norm of Hᵀ W r
export const SE_OUT_PASSES = 4; // estimates made (1 + measurements removed)
export const SE_OUT_ACTIVE = 5; // measurements in the final estimate
export const SE_OUT_TOTAL_ITER = 6; // iterations over every pass
export const SE_OUT_RANK_DEFICIT = 7; // unobservable state variables found
export const SE_OUT_SOLVE_MS = 8; // filled by the worker
export const SE_OUT_HEADER = 16;
export const SE_OUT_BUS_FIELDS = 3;
export const SE_OUT_BUS_VM = 0;
export const SE_OUT_BUS_VA = 1;
export const SE_OUT_BUS_UNOBSERVABLE = 2;
export const SE_OUT_MEAS_FIELDS = 6;
export const SE_OUT_MEAS_ESTIMATE = 0;
export const SE_OUT_MEAS_RESIDUAL = 1;
export const SE_OUT_MEAS_NORMALIZED = 2;
export const SE_OUT_MEAS_OMEGA_RATIO = 3;
export const SE_OUT_MEAS_REMOVED_PASS = 4;
export const SE_OUT_MEAS_REMOVED_NR = 5;
export const SE_STATUS_CONVERGED = 0;
export const SE_STATUS_DIVERGED = 1;
export const SE_STATUS_UNOBSERVABLE = 2;
export const SE_STATUS_CANCELLED = 4;
export const SE_STATUS_BAD_INPUT = 5;

export const SE_IN = {
  VERSION: SE_IN_VERSION,
  NB: SE_IN_NB,
  NL: SE_IN_NL,
  NG: SE_IN_NG,
  NM: SE_IN_NM,
  BASEMVA: SE_IN_BASEMVA,
  REF: SE_IN_REF,
  MAXIT: SE_IN_MAXIT,
  TOL: SE_IN_TOL,
  THRESHOLD: SE_IN_THRESHOLD,
  RESIDUALS: SE_IN_RESIDUALS,
  OMEGA_BY_SOLVES: SE_IN_OMEGA_BY_SOLVES,
  HEADER: SE_IN_HEADER,
} as const;

export const SE_BUS = {
  FIELDS: SE_BUS_FIELDS,
  PD: SE_BUS_PD,
  QD: SE_BUS_QD,
  GS: SE_BUS_GS,
  BS: SE_BUS_BS,
  VM0: SE_BUS_VM0,
} as const;

export const SE_BR = {
  FIELDS: SE_BR_FIELDS,
  F: SE_BR_F,
  T: SE_BR_T,
  R: SE_BR_R,
  X: SE_BR_X,
  B: SE_BR_B,
  RATIO: SE_BR_RATIO,
  SHIFT: SE_BR_SHIFT,
} as const;

export const SE_GEN = {
  FIELDS: SE_GEN_FIELDS,
  BUS: SE_GEN_BUS,
} as const;

export const SE_MEAS = {
  FIELDS: SE_MEAS_FIELDS,
  KIND: SE_MEAS_KIND,
  ELEMENT: SE_MEAS_ELEMENT,
  VALUE: SE_MEAS_VALUE,
  SIGMA: SE_MEAS_SIGMA,
} as const;

export const SE_KIND = {
  P_FROM: SE_KIND_P_FROM,
  P_TO: SE_KIND_P_TO,
  Q_FROM: SE_KIND_Q_FROM,
  Q_TO: SE_KIND_Q_TO,
  P_GEN: SE_KIND_P_GEN,
  Q_GEN: SE_KIND_Q_GEN,
  V_MAG: SE_KIND_V_MAG,
  V_ANGLE: SE_KIND_V_ANGLE,
  P_INJ: SE_KIND_P_INJ,
  Q_INJ: SE_KIND_Q_INJ,
} as const;

export const SE_OUT_BUS = {
  FIELDS: SE_OUT_BUS_FIELDS,
  VM: SE_OUT_BUS_VM,
  VA: SE_OUT_BUS_VA,
  UNOBSERVABLE: SE_OUT_BUS_UNOBSERVABLE,
} as const;

export const SE_OUT_MEAS = {
  FIELDS: SE_OUT_MEAS_FIELDS,
  ESTIMATE: SE_OUT_MEAS_ESTIMATE,
  RESIDUAL: SE_OUT_MEAS_RESIDUAL,
  NORMALIZED: SE_OUT_MEAS_NORMALIZED,
  OMEGA_RATIO: SE_OUT_MEAS_OMEGA_RATIO,
  REMOVED_PASS: SE_OUT_MEAS_REMOVED_PASS,
  REMOVED_NR: SE_OUT_MEAS_REMOVED_NR,
} as const;

export const SE_OUT = {
  STATUS: SE_OUT_STATUS,
  ITER: SE_OUT_ITER,
  J: SE_OUT_J,
  NORM_F: SE_OUT_NORM_F,
  PASSES: SE_OUT_PASSES,
  ACTIVE: SE_OUT_ACTIVE,
  TOTAL_ITER: SE_OUT_TOTAL_ITER,
  RANK_DEFICIT: SE_OUT_RANK_DEFICIT,
  SOLVE_MS: SE_OUT_SOLVE_MS,
  HEADER: SE_OUT_HEADER,
} as const;

export const SE_STATUS = {
  CONVERGED: SE_STATUS_CONVERGED,
  DIVERGED: SE_STATUS_DIVERGED,
  UNOBSERVABLE: SE_STATUS_UNOBSERVABLE,
  CANCELLED: SE_STATUS_CANCELLED,
  BAD_INPUT: SE_STATUS_BAD_INPUT,
} as const;
