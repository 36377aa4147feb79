// Generated from assembly/opf/abi.ts by scripts/gen-abi.js at build:wasm: do not edit (edit ../../assembly/opf/abi.ts).

export const OPF_ABI_VERSION = 4;
export const OPF_IN_VERSION = 0;
export const OPF_IN_METHOD = 1; // 0 dc, 1 ac
export const OPF_IN_NB = 2;
export const OPF_IN_NL = 3;
export const OPF_IN_NG = 4;
export const OPF_IN_BASEMVA = 5;
export const OPF_IN_FEASTOL = 6;
export const OPF_IN_GRADTOL = 7;
export const OPF_IN_COMPTOL = 8;
export const OPF_IN_COSTTOL = 9;
export const OPF_IN_MAXIT = 10;
export const OPF_IN_TIME_LIMIT_S = 11; // for the LP path in JavaScript (src/opf/lp.ts); not read here
export const OPF_IN_NXROWS = 12; // extra rows (DC): count
export const OPF_IN_XROWS_AT = 13; // extra rows (DC): where they start in the input
export const OPF_IN_START = 14; // OPF_START_*: where MIPS starts
export const OPF_IN_NPGROWS = 15; // rows on generator P (DC and AC): count
export const OPF_IN_PGROWS_AT = 16; // rows on generator P: where they start in the input
export const OPF_IN_HEADER = 18;
export const OPF_START_DEFAULT = 0;
export const OPF_START_CASE = 2;
export const OPF_BUS_FIELDS = 9;
export const OPF_BR_FIELDS = 10;
export const OPF_GEN_FIELDS = 13;
export const OPF_BUS_TYPE = 0;
export const OPF_BUS_VM0 = 1;
export const OPF_BUS_VA0 = 2;
export const OPF_BUS_PD = 3;
export const OPF_BUS_QD = 4;
export const OPF_BUS_GS = 5;
export const OPF_BUS_BS = 6;
export const OPF_BUS_VMIN = 7;
export const OPF_BUS_VMAX = 8;
export const OPF_BR_F = 0;
export const OPF_BR_T = 1;
export const OPF_BR_R = 2;
export const OPF_BR_X = 3;
export const OPF_BR_B = 4;
export const OPF_BR_RATIO = 5;
export const OPF_BR_SHIFT = 6;
export const OPF_BR_RATE_A = 7;
export const OPF_BR_ANGMIN = 8;
export const OPF_BR_ANGMAX = 9;
export const OPF_GEN_BUS = 0;
export const OPF_GEN_PMIN = 1;
export const OPF_GEN_PMAX = 2;
export const OPF_GEN_QMIN = 3;
export const OPF_GEN_QMAX = 4;
export const OPF_GEN_MODEL = 5;
export const OPF_GEN_NCOST = 6;
export const OPF_GEN_OFFSET = 7;
export const OPF_GEN_PG0 = 8; // the case's dispatch (MW, MVAr): the start point of OPF_START_CASE
export const OPF_GEN_QG0 = 9;
export const OPF_GEN_QMODEL = 10;
export const OPF_GEN_QNCOST = 11;
export const OPF_GEN_QOFFSET = 12;
export const OPF_OUT_STATUS = 0; // MIPS_* of ./mips.ts, or OPF_BAD_INPUT
export const OPF_OUT_ITER = 1;
export const OPF_OUT_F = 2; // objective, currency/h
export const OPF_OUT_FEAS = 3;
export const OPF_OUT_GRAD = 4;
export const OPF_OUT_COMP = 5;
export const OPF_OUT_COST = 6;
export const OPF_OUT_FALLBACKS = 7; // pivoting LU factorisations (diagnostics)
export const OPF_OUT_KKT_N = 8; // order of the KKT system
export const OPF_OUT_KKT_NNZL = 9; // nonzeros of its L factor
export const OPF_OUT_KKT_REANALYSES = 10; // pivot sequences found again after a failed static pivot
export const OPF_OUT_KKT_FLOPS = 11; // multiply-adds of one factorisation
export const OPF_OUT_HEADER = 16;
export const OPF_OUT_BUS_FIELDS = 6;
export const OPF_OUT_BR_FIELDS = 8;
export const OPF_OUT_GEN_FIELDS = 6;
export const OPF_OUT_BUS_VM = 0;
export const OPF_OUT_BUS_VA = 1;
export const OPF_OUT_BUS_LAM_P = 2;
export const OPF_OUT_BUS_LAM_Q = 3;
export const OPF_OUT_BUS_MU_VMIN = 4;
export const OPF_OUT_BUS_MU_VMAX = 5;
export const OPF_OUT_BR_PF = 0;
export const OPF_OUT_BR_QF = 1;
export const OPF_OUT_BR_PT = 2;
export const OPF_OUT_BR_QT = 3;
export const OPF_OUT_BR_MU_SF = 4;
export const OPF_OUT_BR_MU_ST = 5;
export const OPF_OUT_BR_MU_ANGMIN = 6;
export const OPF_OUT_BR_MU_ANGMAX = 7;
export const OPF_OUT_GEN_PG = 0;
export const OPF_OUT_GEN_QG = 1;
export const OPF_OUT_GEN_MU_PMIN = 2;
export const OPF_OUT_GEN_MU_PMAX = 3;
export const OPF_OUT_GEN_MU_QMIN = 4;
export const OPF_OUT_GEN_MU_QMAX = 5;
export const OPF_METHOD_DC = 0;
export const OPF_METHOD_AC = 1;
export const COST_NONE = 0;
export const COST_PWL = 1;
export const COST_POLY = 2;
export const OPF_BAD_INPUT = 5;
export const OPF_LP_NX = 0;
export const OPF_LP_NA = 1;
export const OPF_LP_NNZ = 2;
export const OPF_LP_CONSTANT = 3; // the cost's constant term
export const OPF_LP_HEADER = 8;

export const OPF_IN = {
  VERSION: OPF_IN_VERSION,
  METHOD: OPF_IN_METHOD,
  NB: OPF_IN_NB,
  NL: OPF_IN_NL,
  NG: OPF_IN_NG,
  BASEMVA: OPF_IN_BASEMVA,
  FEASTOL: OPF_IN_FEASTOL,
  GRADTOL: OPF_IN_GRADTOL,
  COMPTOL: OPF_IN_COMPTOL,
  COSTTOL: OPF_IN_COSTTOL,
  MAXIT: OPF_IN_MAXIT,
  TIME_LIMIT_S: OPF_IN_TIME_LIMIT_S,
  NXROWS: OPF_IN_NXROWS,
  XROWS_AT: OPF_IN_XROWS_AT,
  START: OPF_IN_START,
  NPGROWS: OPF_IN_NPGROWS,
  PGROWS_AT: OPF_IN_PGROWS_AT,
  HEADER: OPF_IN_HEADER,
} as const;

export const OPF_OUT_BUS = {
  FIELDS: OPF_OUT_BUS_FIELDS,
  VM: OPF_OUT_BUS_VM,
  VA: OPF_OUT_BUS_VA,
  LAM_P: OPF_OUT_BUS_LAM_P,
  LAM_Q: OPF_OUT_BUS_LAM_Q,
  MU_VMIN: OPF_OUT_BUS_MU_VMIN,
  MU_VMAX: OPF_OUT_BUS_MU_VMAX,
} as const;

export const OPF_OUT_BR = {
  FIELDS: OPF_OUT_BR_FIELDS,
  PF: OPF_OUT_BR_PF,
  QF: OPF_OUT_BR_QF,
  PT: OPF_OUT_BR_PT,
  QT: OPF_OUT_BR_QT,
  MU_SF: OPF_OUT_BR_MU_SF,
  MU_ST: OPF_OUT_BR_MU_ST,
  MU_ANGMIN: OPF_OUT_BR_MU_ANGMIN,
  MU_ANGMAX: OPF_OUT_BR_MU_ANGMAX,
} as const;

export const OPF_OUT_GEN = {
  FIELDS: OPF_OUT_GEN_FIELDS,
  PG: OPF_OUT_GEN_PG,
  QG: OPF_OUT_GEN_QG,
  MU_PMIN: OPF_OUT_GEN_MU_PMIN,
  MU_PMAX: OPF_OUT_GEN_MU_PMAX,
  MU_QMIN: OPF_OUT_GEN_MU_QMIN,
  MU_QMAX: OPF_OUT_GEN_MU_QMAX,
} as const;

export const OPF_OUT = {
  STATUS: OPF_OUT_STATUS,
  ITER: OPF_OUT_ITER,
  F: OPF_OUT_F,
  FEAS: OPF_OUT_FEAS,
  GRAD: OPF_OUT_GRAD,
  COMP: OPF_OUT_COMP,
  COST: OPF_OUT_COST,
  FALLBACKS: OPF_OUT_FALLBACKS,
  KKT_N: OPF_OUT_KKT_N,
  KKT_NNZL: OPF_OUT_KKT_NNZL,
  KKT_REANALYSES: OPF_OUT_KKT_REANALYSES,
  KKT_FLOPS: OPF_OUT_KKT_FLOPS,
  HEADER: OPF_OUT_HEADER,
} as const;

export const OPF_BUS = {
  FIELDS: OPF_BUS_FIELDS,
  TYPE: OPF_BUS_TYPE,
  VM0: OPF_BUS_VM0,
  VA0: OPF_BUS_VA0,
  PD: OPF_BUS_PD,
  QD: OPF_BUS_QD,
  GS: OPF_BUS_GS,
  BS: OPF_BUS_BS,
  VMIN: OPF_BUS_VMIN,
  VMAX: OPF_BUS_VMAX,
} as const;

export const OPF_BR = {
  FIELDS: OPF_BR_FIELDS,
  F: OPF_BR_F,
  T: OPF_BR_T,
  R: OPF_BR_R,
  X: OPF_BR_X,
  B: OPF_BR_B,
  RATIO: OPF_BR_RATIO,
  SHIFT: OPF_BR_SHIFT,
  RATE_A: OPF_BR_RATE_A,
  ANGMIN: OPF_BR_ANGMIN,
  ANGMAX: OPF_BR_ANGMAX,
} as const;

export const OPF_GEN = {
  FIELDS: OPF_GEN_FIELDS,
  BUS: OPF_GEN_BUS,
  PMIN: OPF_GEN_PMIN,
  PMAX: OPF_GEN_PMAX,
  QMIN: OPF_GEN_QMIN,
  QMAX: OPF_GEN_QMAX,
  MODEL: OPF_GEN_MODEL,
  NCOST: OPF_GEN_NCOST,
  OFFSET: OPF_GEN_OFFSET,
  PG0: OPF_GEN_PG0,
  QG0: OPF_GEN_QG0,
  QMODEL: OPF_GEN_QMODEL,
  QNCOST: OPF_GEN_QNCOST,
  QOFFSET: OPF_GEN_QOFFSET,
} as const;

export const OPF_START = {
  DEFAULT: OPF_START_DEFAULT,
  CASE: OPF_START_CASE,
} as const;

export const OPF_METHOD = {
  DC: OPF_METHOD_DC,
  AC: OPF_METHOD_AC,
} as const;

export const OPF_LP = {
  NX: OPF_LP_NX,
  NA: OPF_LP_NA,
  NNZ: OPF_LP_NNZ,
  CONSTANT: OPF_LP_CONSTANT,
  HEADER: OPF_LP_HEADER,
} as const;

export const COST = {
  NONE: COST_NONE,
  PWL: COST_PWL,
  POLY: COST_POLY,
} as const;
