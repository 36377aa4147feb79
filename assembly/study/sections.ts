// The sections of a study chunk buffer (./abi.ts): where each starts and how long it is, read once per run from
// the header and the network's sizes, so that no other code computes an offset into the buffer. The order is
// SEC_* (./abi.ts); src/studies/abi.ts studySections is the TypeScript twin (test/abi.test.ts compares them
// through the core's studySections export).
import {
  SIN_NCASES, SIN_LIMIT, SIN_NMONBR, SIN_NMONBUS, SIN_NSCEN, SIN_NOUT, SIN_NCORR, SIN_NSGEN, SIN_ESTIMATE_SHARPEN, SIN_HEADER,
  SEC_RATE, SEC_VMIN, SEC_VMAX, SEC_VG, SEC_MON_BR, SEC_MON_BUS, SEC_CASES, SEC_OUTAGES, SEC_SCEN, SEC_CORR, SEC_SGEN,
  SEC_TRIGGER, SEC_COUNT, CASE_FIELDS, SCEN_FIELDS, CORR_FIELDS, SGEN_FIELDS, MON_BR_FIELDS, MON_BUS_FIELDS,
} from './abi';

/** Length of section k (SEC_*) of study buffer s on a network of nb buses, nl branches and ng generators. */
export function sectionLength(k: i32, s: StaticArray<f64>, nb: i32, nl: i32, ng: i32): i32 {
  switch (k) {
    case SEC_RATE: return nl;
    case SEC_VMIN: return nb;
    case SEC_VMAX: return nb;
    case SEC_VG: return ng;
    case SEC_MON_BR: return <i32>s[SIN_NMONBR];
    case SEC_MON_BUS: return <i32>s[SIN_NMONBUS];
    case SEC_CASES: return CASE_FIELDS * <i32>s[SIN_NCASES];
    case SEC_OUTAGES: return <i32>s[SIN_NOUT];
    case SEC_SCEN: return SCEN_FIELDS * <i32>s[SIN_NSCEN];
    case SEC_CORR: return CORR_FIELDS * <i32>s[SIN_NCORR];
    case SEC_SGEN: return SGEN_FIELDS * <i32>s[SIN_NSGEN];
    case SEC_TRIGGER: return s[SIN_ESTIMATE_SHARPEN] > 0.0 ? nl : 0;
    default: return 0;
  }
}

/** Offsets (into the study buffer) and counts of one run's sections; one instance per workspace, filled by read(). */
export class StudySections {
  /** start[k]: offset of section k (SEC_*); start[SEC_COUNT]: the buffer's length */
  readonly start: StaticArray<i32> = new StaticArray<i32>(SEC_COUNT + 1);
  rate: i32 = 0;
  vmin: i32 = 0;
  vmax: i32 = 0;
  vg: i32 = 0;
  monBr: i32 = 0;
  monBus: i32 = 0;
  cases: i32 = 0;
  outages: i32 = 0;
  scen: i32 = 0;
  corr: i32 = 0;
  sgen: i32 = 0;
  trigger: i32 = 0;
  nCases: i32 = 0;
  nMonBr: i32 = 0;
  nMonBus: i32 = 0;
  /** loading limit, % (SIN_LIMIT) */
  limit: f64 = 0.0;
  /** monitored values per record: MON_BR_FIELDS per monitored branch, then MON_BUS_FIELDS per monitored bus */
  monSize: i32 = 0;

  read(s: StaticArray<f64>, nb: i32, nl: i32, ng: i32): void {
    const start = this.start;
    let o = SIN_HEADER;
    for (let k = 0; k < SEC_COUNT; k++) {
      unchecked(start[k] = o);
      o += sectionLength(k, s, nb, nl, ng);
    }
    unchecked(start[SEC_COUNT] = o);
    this.rate = start[SEC_RATE]; this.vmin = start[SEC_VMIN]; this.vmax = start[SEC_VMAX]; this.vg = start[SEC_VG];
    this.monBr = start[SEC_MON_BR]; this.monBus = start[SEC_MON_BUS]; this.cases = start[SEC_CASES];
    this.outages = start[SEC_OUTAGES]; this.scen = start[SEC_SCEN]; this.corr = start[SEC_CORR]; this.sgen = start[SEC_SGEN];
    this.trigger = start[SEC_TRIGGER];
    this.nCases = <i32>s[SIN_NCASES];
    this.nMonBr = <i32>s[SIN_NMONBR];
    this.nMonBus = <i32>s[SIN_NMONBUS];
    this.limit = s[SIN_LIMIT];
    this.monSize = MON_BR_FIELDS * this.nMonBr + MON_BUS_FIELDS * this.nMonBus;
  }
}
