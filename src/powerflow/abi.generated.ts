// Generated from assembly/abi.ts by scripts/gen-abi.js at build:wasm: do not edit (edit ../../assembly/abi.ts).

export const ABI_VERSION = 1;
export const IN_VERSION = 0;
export const IN_METHOD = 1; // 0 newton, 1 fast decoupled XB, 2 dc
export const IN_TOL = 2;
export const IN_MAXIT = 3;
export const IN_NB = 4;
export const IN_NL = 5;
export const IN_NG = 6;
export const IN_BASEMVA = 7;
export const IN_HEADER = 16;
export const BUS_FIELDS = 8;
export const BR_FIELDS = 7;
export const GEN_FIELDS = 5;
export const BUS_TYPE = 0;
export const BUS_VM0 = 1;
export const BUS_VA0 = 2;
export const BUS_PD = 3;
export const BUS_QD = 4;
export const BUS_GS = 5;
export const BUS_BS = 6;
export const BUS_ISLAND = 7;
export const BR_F = 0;
export const BR_T = 1;
export const BR_R = 2;
export const BR_X = 3;
export const BR_B = 4;
export const BR_RATIO = 5;
export const BR_SHIFT = 6;
export const GEN_BUS = 0;
export const GEN_PG = 1;
export const GEN_QG = 2;
export const GEN_QMIN = 3;
export const GEN_QMAX = 4;
export const OUT_STATUS = 0; // see STATUS_*
export const OUT_ITER = 1;
export const OUT_MISMATCH = 2;
export const OUT_ANALYSES = 3;
export const OUT_LOSS_P = 4;
export const OUT_LOSS_Q = 5;
export const OUT_HEADER = 16; // slots 6.. are free for the JS side
export const OUT_BUS_VM = 0;
export const OUT_BUS_VA = 1;
export const OUT_BUS_PINJ = 2;
export const OUT_BUS_QINJ = 3;
export const OUT_BUS_FIELDS = 4;
export const OUT_BR_PF = 0;
export const OUT_BR_QF = 1;
export const OUT_BR_PT = 2;
export const OUT_BR_QT = 3;
export const OUT_BR_FIELDS = 4;
export const OUT_GEN_PG = 0;
export const OUT_GEN_QG = 1;
export const OUT_GEN_FIELDS = 2;
export const METHOD_NR = 0;
export const METHOD_FDXB = 1;
export const METHOD_DC = 2;
export const STATUS_CONVERGED = 0;
export const STATUS_MAXIT = 1; // not converged within max iterations
export const STATUS_NAN = 2; // mismatch became NaN / infinite
export const STATUS_SINGULAR = 3; // singular Jacobian / B matrix
export const STATUS_CANCELLED = 4; // the progress hook asked to stop
export const STATUS_BAD_INPUT = 5;

export const IN = {
  VERSION: IN_VERSION,
  METHOD: IN_METHOD,
  TOL: IN_TOL,
  MAXIT: IN_MAXIT,
  NB: IN_NB,
  NL: IN_NL,
  NG: IN_NG,
  BASEMVA: IN_BASEMVA,
  HEADER: IN_HEADER,
} as const;

export const OUT_BUS = {
  VM: OUT_BUS_VM,
  VA: OUT_BUS_VA,
  PINJ: OUT_BUS_PINJ,
  QINJ: OUT_BUS_QINJ,
  FIELDS: OUT_BUS_FIELDS,
} as const;

export const OUT_BR = {
  PF: OUT_BR_PF,
  QF: OUT_BR_QF,
  PT: OUT_BR_PT,
  QT: OUT_BR_QT,
  FIELDS: OUT_BR_FIELDS,
} as const;

export const OUT_GEN = {
  PG: OUT_GEN_PG,
  QG: OUT_GEN_QG,
  FIELDS: OUT_GEN_FIELDS,
} as const;

export const OUT = {
  STATUS: OUT_STATUS,
  ITER: OUT_ITER,
  MISMATCH: OUT_MISMATCH,
  ANALYSES: OUT_ANALYSES,
  LOSS_P: OUT_LOSS_P,
  LOSS_Q: OUT_LOSS_Q,
  HEADER: OUT_HEADER,
} as const;

export const STATUS = {
  CONVERGED: STATUS_CONVERGED,
  MAXIT: STATUS_MAXIT,
  NAN: STATUS_NAN,
  SINGULAR: STATUS_SINGULAR,
  CANCELLED: STATUS_CANCELLED,
  BAD_INPUT: STATUS_BAD_INPUT,
} as const;

export const BUS = {
  FIELDS: BUS_FIELDS,
  TYPE: BUS_TYPE,
  VM0: BUS_VM0,
  VA0: BUS_VA0,
  PD: BUS_PD,
  QD: BUS_QD,
  GS: BUS_GS,
  BS: BUS_BS,
  ISLAND: BUS_ISLAND,
} as const;

export const BR = {
  FIELDS: BR_FIELDS,
  F: BR_F,
  T: BR_T,
  R: BR_R,
  X: BR_X,
  B: BR_B,
  RATIO: BR_RATIO,
  SHIFT: BR_SHIFT,
} as const;

export const GEN = {
  FIELDS: GEN_FIELDS,
  BUS: GEN_BUS,
  PG: GEN_PG,
  QG: GEN_QG,
  QMIN: GEN_QMIN,
  QMAX: GEN_QMAX,
} as const;

export const METHOD = {
  NR: METHOD_NR,
  FDXB: METHOD_FDXB,
  DC: METHOD_DC,
} as const;
