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

/** The sections after the header, in buffer order (SEC.RATE .. SEC.TRIGGER; SEC.COUNT of them). */
export const SEC = core.SEC;

/** Where each section of a study chunk buffer starts: the twin of assembly/study/sections.ts StudySections (the
 *  core computes it once per run; test/abi.test.ts compares the two through the core's studySections export). */
export interface StudySections {
  /** start[k]: offset of section k (SEC.*); start[SEC.COUNT]: the buffer's length */
  start: number[];
  rate: number; vmin: number; vmax: number; vg: number; monBr: number; monBus: number; cases: number; outages: number;
  scen: number; corr: number; sgen: number; trigger: number;
  /** the buffer's length */
  end: number;
}

/** Length of section k (SEC.*) for a study header (SIN.*) on a network of nb buses, nl branches, ng generators. */
export function sectionLength(k: number, header: ArrayLike<number>, nb: number, nl: number, ng: number): number {
  switch (k) {
    case SEC.RATE: return nl;
    case SEC.VMIN: case SEC.VMAX: return nb;
    case SEC.VG: return ng;
    case SEC.MON_BR: return header[SIN.NMONBR]!;
    case SEC.MON_BUS: return header[SIN.NMONBUS]!;
    case SEC.CASES: return CASE_FIELDS * header[SIN.NCASES]!;
    case SEC.OUTAGES: return header[SIN.NOUT]!;
    case SEC.SCEN: return SCEN_FIELDS * header[SIN.NSCEN]!;
    case SEC.CORR: return CORR.FIELDS * header[SIN.NCORR]!;
    case SEC.SGEN: return SGEN.FIELDS * header[SIN.NSGEN]!;
    case SEC.TRIGGER: return header[SIN.ESTIMATE_SHARPEN]! > 0 ? nl : 0;
    default: throw new RangeError(`no study section ${k}`);
  }
}

/** The sections of a study buffer with this header (its first SIN.HEADER values). */
export function studySections(header: ArrayLike<number>, nb: number, nl: number, ng: number): StudySections {
  const start: number[] = [];
  let o = SIN.HEADER;
  for (let k = 0; k < SEC.COUNT; k++) {
    start.push(o);
    o += sectionLength(k, header, nb, nl, ng);
  }
  start.push(o);
  return {
    start, rate: start[SEC.RATE]!, vmin: start[SEC.VMIN]!, vmax: start[SEC.VMAX]!, vg: start[SEC.VG]!, monBr: start[SEC.MON_BR]!,
    monBus: start[SEC.MON_BUS]!, cases: start[SEC.CASES]!, outages: start[SEC.OUTAGES]!, scen: start[SEC.SCEN]!,
    corr: start[SEC.CORR]!, sgen: start[SEC.SGEN]!, trigger: start[SEC.TRIGGER]!, end: o,
  };
}

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
