// The study ABI seen from JavaScript: the buffers of assembly/study/abi.ts, generated into ./abi.generated.ts at
// build:wasm (scripts/gen-abi.js).
import * as core from './abi.generated.js';

export const SIN = core.SIN;
export const CASE_FIELDS = core.CASE_FIELDS;
export const SCEN_FIELDS = core.SCEN_FIELDS;
export const REC = core.REC;
export const VIOL_FIELDS = core.VIOL_FIELDS;
/** Columns of a case row, a scenario row, a load correction and a generator set point of the study buffer. */
export const CASE = core.CASE;
export const SCEN = core.SCEN;
export const CORR = core.CORR;
export const SGEN = core.SGEN;
/** Columns of a violation, and its types (VIOL.OVERLOAD, VIOL.LOW_V, VIOL.HIGH_V). */
export const VIOL = core.VIOL;
/** Monitored values of a record: MON_BR.FIELDS per monitored branch, then MON_BUS.FIELDS per monitored bus. */
export const MON_BR = core.MON_BR;
export const MON_BUS = core.MON_BUS;

/** Monitored values per record for a plan's monitored branches and buses. */
export function monitoredPerRecord(branches: number, buses: number): number {
  return MON_BR.FIELDS * branches + MON_BUS.FIELDS * buses;
}

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
