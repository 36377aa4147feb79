// The study ABI seen from JavaScript: layouts of assembly/study/layout.ts (test/abi.test.ts checks the two).
export const SIN = {
  NCASES: 0, LIMIT: 1, NMONBR: 2, NMONBUS: 3, NSCEN: 4, NOUT: 5, NCORR: 6, NSGEN: 7, QLIM: 8, ISOLATE: 9, WARM_PREVIOUS: 10,
  ESTIMATE_IT: 11, ESTIMATE_REFACTOR: 12, ESTIMATE_SHARPEN: 13, ESTIMATE_CHANGE: 14, ESTIMATE_POINTS: 15, HEADER: 16,
} as const;
export const CASE_FIELDS = 4;
export const SCEN_FIELDS = 5;
export const REC = {
  CODE: 0, ITER: 1, MINV: 2, MINV_BUS: 3, MAXV: 4, MAXV_BUS: 5, MAXLOAD: 6, MAXLOAD_BR: 7,
  NVIOL: 8, NISL: 9, ISL_LOAD: 10, ISL_GEN: 11, EST_STEP: 12, FIELDS: 13,
} as const;
export const VIOL_FIELDS = 4;

/** What a worker returns for one study chunk (all transferred). */
export interface StudyWorkerResult {
  /** cases done (< asked when cancelled); -1 = the core rejected the input buffer */
  done: number;
  records: Float64Array;     // REC.FIELDS × (done + 1), the base case first
  violations: Float64Array;  // VIOL_FIELDS each
  islands: Float64Array;     // internal bus indexes
  monitor: Float64Array;     // per record (base first): monitored values
  solveMs: number;
}
