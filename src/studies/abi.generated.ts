// Generated from assembly/study/abi.ts by scripts/gen-abi.js at build:wasm: do not edit (edit ../../assembly/study/abi.ts).

export const SIN_NCASES = 0;
export const SIN_LIMIT = 1; // loading limit, %
export const SIN_NMONBR = 2;
export const SIN_NMONBUS = 3;
export const SIN_NSCEN = 4;
export const SIN_NOUT = 5;
export const SIN_NCORR = 6;
export const SIN_NSGEN = 7;
export const SIN_QLIM = 8; // 1: enforce generator Q limits (./qLimits.ts)
export const SIN_ISOLATE = 9; // 1: solve a splitting outage on what stays energized (islanding isolate; Newton without Q limits)
export const SIN_WARM_PREVIOUS = 10; // 1: a scenario starts from the one before it in the chunk (warm_start "previous")
export const SIN_ESTIMATE_IT = 11;
export const SIN_ESTIMATE_REFACTOR = 12;
export const SIN_ESTIMATE_SHARPEN = 13;
export const SIN_ESTIMATE_CHANGE = 14;
export const SIN_ESTIMATE_POINTS = 15;
export const SIN_HEADER = 16;
export const SEC_RATE = 0;
export const SEC_VMIN = 1;
export const SEC_VMAX = 2;
export const SEC_VG = 3;
export const SEC_MON_BR = 4;
export const SEC_MON_BUS = 5;
export const SEC_CASES = 6;
export const SEC_OUTAGES = 7;
export const SEC_SCEN = 8;
export const SEC_CORR = 9;
export const SEC_SGEN = 10;
export const SEC_TRIGGER = 11;
export const SEC_COUNT = 12;
export const CASE_SCEN = 0;
export const CASE_OUT_START = 1;
export const CASE_NBR = 2;
export const CASE_NGEN = 3;
export const CASE_FIELDS = 4;
export const SCEN_SCALE = 0;
export const SCEN_CORR_START = 1;
export const SCEN_NCORR = 2;
export const SCEN_SGEN_START = 3;
export const SCEN_NSGEN = 4;
export const SCEN_FIELDS = 5;
export const CORR_BUS = 0;
export const CORR_DP = 1;
export const CORR_DQ = 2;
export const CORR_FIELDS = 3;
export const SGEN_GEN = 0;
export const SGEN_PG = 1;
export const SGEN_FIELDS = 2;
export const REC_CODE = 0;
export const REC_ITER = 1;
export const REC_MINV = 2;
export const REC_MINV_BUS = 3;
export const REC_MAXV = 4;
export const REC_MAXV_BUS = 5;
export const REC_MAXLOAD = 6;
export const REC_MAXLOAD_BR = 7;
export const REC_NVIOL = 8;
export const REC_NISL = 9;
export const REC_ISL_LOAD = 10;
export const REC_ISL_GEN = 11;
export const REC_EST_STEP = 12;
export const REC_FIELDS = 13;
export const VIOL_TYPE = 0;
export const VIOL_ELEMENT = 1;
export const VIOL_VALUE = 2;
export const VIOL_LIMIT = 3;
export const VIOL_FIELDS = 4;
export const VIOL_OVERLOAD = 0;
export const VIOL_LOW_V = 1;
export const VIOL_HIGH_V = 2;
export const MON_BR_PF = 0;
export const MON_BR_QF = 1;
export const MON_BR_PT = 2;
export const MON_BR_QT = 3;
export const MON_BR_LOADING = 4;
export const MON_BR_FIELDS = 5;
export const MON_BUS_VM = 0;
export const MON_BUS_VA = 1;
export const MON_BUS_FIELDS = 2;
export const CODE_ISLANDED = 10;
export const CODE_SLACK_LOST = 11;
export const CODE_QLIM_INFEASIBLE = 12; // every remaining generator beyond the same Q limit

export const SIN = {
  NCASES: SIN_NCASES,
  LIMIT: SIN_LIMIT,
  NMONBR: SIN_NMONBR,
  NMONBUS: SIN_NMONBUS,
  NSCEN: SIN_NSCEN,
  NOUT: SIN_NOUT,
  NCORR: SIN_NCORR,
  NSGEN: SIN_NSGEN,
  QLIM: SIN_QLIM,
  ISOLATE: SIN_ISOLATE,
  WARM_PREVIOUS: SIN_WARM_PREVIOUS,
  ESTIMATE_IT: SIN_ESTIMATE_IT,
  ESTIMATE_REFACTOR: SIN_ESTIMATE_REFACTOR,
  ESTIMATE_SHARPEN: SIN_ESTIMATE_SHARPEN,
  ESTIMATE_CHANGE: SIN_ESTIMATE_CHANGE,
  ESTIMATE_POINTS: SIN_ESTIMATE_POINTS,
  HEADER: SIN_HEADER,
} as const;

export const SEC = {
  RATE: SEC_RATE,
  VMIN: SEC_VMIN,
  VMAX: SEC_VMAX,
  VG: SEC_VG,
  MON_BR: SEC_MON_BR,
  MON_BUS: SEC_MON_BUS,
  CASES: SEC_CASES,
  OUTAGES: SEC_OUTAGES,
  SCEN: SEC_SCEN,
  CORR: SEC_CORR,
  SGEN: SEC_SGEN,
  TRIGGER: SEC_TRIGGER,
  COUNT: SEC_COUNT,
} as const;

export const REC = {
  CODE: REC_CODE,
  ITER: REC_ITER,
  MINV: REC_MINV,
  MINV_BUS: REC_MINV_BUS,
  MAXV: REC_MAXV,
  MAXV_BUS: REC_MAXV_BUS,
  MAXLOAD: REC_MAXLOAD,
  MAXLOAD_BR: REC_MAXLOAD_BR,
  NVIOL: REC_NVIOL,
  NISL: REC_NISL,
  ISL_LOAD: REC_ISL_LOAD,
  ISL_GEN: REC_ISL_GEN,
  EST_STEP: REC_EST_STEP,
  FIELDS: REC_FIELDS,
} as const;

export const CASE = {
  SCEN: CASE_SCEN,
  OUT_START: CASE_OUT_START,
  NBR: CASE_NBR,
  NGEN: CASE_NGEN,
  FIELDS: CASE_FIELDS,
} as const;

export const SCEN = {
  SCALE: SCEN_SCALE,
  CORR_START: SCEN_CORR_START,
  NCORR: SCEN_NCORR,
  SGEN_START: SCEN_SGEN_START,
  NSGEN: SCEN_NSGEN,
  FIELDS: SCEN_FIELDS,
} as const;

export const CORR = {
  BUS: CORR_BUS,
  DP: CORR_DP,
  DQ: CORR_DQ,
  FIELDS: CORR_FIELDS,
} as const;

export const SGEN = {
  GEN: SGEN_GEN,
  PG: SGEN_PG,
  FIELDS: SGEN_FIELDS,
} as const;

export const VIOL = {
  TYPE: VIOL_TYPE,
  ELEMENT: VIOL_ELEMENT,
  VALUE: VIOL_VALUE,
  LIMIT: VIOL_LIMIT,
  FIELDS: VIOL_FIELDS,
  OVERLOAD: VIOL_OVERLOAD,
  LOW_V: VIOL_LOW_V,
  HIGH_V: VIOL_HIGH_V,
} as const;

export const MON_BR = {
  PF: MON_BR_PF,
  QF: MON_BR_QF,
  PT: MON_BR_PT,
  QT: MON_BR_QT,
  LOADING: MON_BR_LOADING,
  FIELDS: MON_BR_FIELDS,
} as const;

export const MON_BUS = {
  VM: MON_BUS_VM,
  VA: MON_BUS_VA,
  FIELDS: MON_BUS_FIELDS,
} as const;

export const CODE = {
  ISLANDED: CODE_ISLANDED,
  SLACK_LOST: CODE_SLACK_LOST,
  QLIM_INFEASIBLE: CODE_QLIM_INFEASIBLE,
} as const;
