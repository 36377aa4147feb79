// The study ABI: layout of the f64 study buffer and of the result buffers
// (mirrored in src/studies/abi.ts, checked by test/abi.test.ts). The network itself is
// the ordinary power-flow input buffer (../abi.ts), written first.
//
// Study input (f64[]): header[SIN_HEADER]
//   rateA[nl]                       MVA per in-service branch (internal order), 0 = no rating
//   vmin[nb], vmax[nb]              per internal bus
//   vg[ng]                          voltage set point per in-service generator (internal order)
//   monBranch[nMonBr]               internal branch index, -1 = not in the solve
//   monBus[nMonBus]                 internal bus index, -1 = isolated
//   cases[CASE_FIELDS * nCases]     CASE_*: scenario slot (-1 none), outage start, branch count, generator count
//   outages[nOut]                   internal branch indexes, then internal generator indexes, per case
//   scen[SCEN_FIELDS * nScen]       SCEN_*: load scale, correction start, count, generator start, count
//   corr[CORR_FIELDS * nCorr]       bus, dP, dQ   (bus Pd = scale * Pd0 + dP, the same for Q)
//   sgen[SGEN_FIELDS * nSgen]       generator, Pg (MW)
//   trigger[nl]                     only when SIN_ESTIMATE_SHARPEN > 0: per branch (internal order), the estimated
//                                   loading % at which an outage would make it a new or worsened overload
// Records (f64[]): REC_FIELDS per case, the base case first (record 0), then the cases.
// Violations (f64[]): VIOL_FIELDS each, in record order; islands (f64[]): cut-off internal buses.
// Monitored (f64[]): per case monBr × MON_BR_FIELDS (pf, qf, pt, qt, loading %) then monBus × MON_BUS_FIELDS (vm, va).

export const SIN_NCASES: i32 = 0;
export const SIN_LIMIT: i32 = 1;     // loading limit, %
export const SIN_NMONBR: i32 = 2;
export const SIN_NMONBUS: i32 = 3;
export const SIN_NSCEN: i32 = 4;
export const SIN_NOUT: i32 = 5;
export const SIN_NCORR: i32 = 6;
export const SIN_NSGEN: i32 = 7;
export const SIN_QLIM: i32 = 8;      // 1: enforce generator Q limits (./qLimits.ts)
export const SIN_ISOLATE: i32 = 9;   // 1: solve a splitting outage on what stays energized (islanding isolate; Newton without Q limits)
export const SIN_WARM_PREVIOUS: i32 = 10; // 1: a scenario starts from the one before it in the chunk (warm_start "previous")
// > 0: an estimate (the ac_linear screen, src/studies/screening.ts): each outage case runs this many iterations
// from the base solution and reports its metrics converged or not (the base case itself is solved in full)
export const SIN_ESTIMATE_IT: i32 = 11;
// 1: an estimate's branch outage refactorises B' and B'' instead of updating the intact factors (./compensation.ts):
// the reference the update is tested against
export const SIN_ESTIMATE_REFACTOR: i32 = 12;
// > 1: an estimate whose first iteration comes within the screen's margin of some branch's trigger
// (loading + SIN_ESTIMATE_CHANGE × |loading − base loading| + SIN_ESTIMATE_POINTS ≥ trigger) iterates on, up to
// this many iterations in all, until its loading step contracts (REC_EST_STEP); the trigger section follows sgen
export const SIN_ESTIMATE_SHARPEN: i32 = 13;
export const SIN_ESTIMATE_CHANGE: i32 = 14;
export const SIN_ESTIMATE_POINTS: i32 = 15;
export const SIN_HEADER: i32 = 16;

// The sections after the header, in buffer order (./sections.ts StudySections; src/studies/abi.ts studySections is the
// twin, test/abi.test.ts checks it against the core's). Lengths: rate nl, vmin / vmax nb, vg ng, monBr SIN_NMONBR,
// monBus SIN_NMONBUS, cases CASE_FIELDS × SIN_NCASES, outages SIN_NOUT, scen SCEN_FIELDS × SIN_NSCEN, corr
// CORR_FIELDS × SIN_NCORR, sgen SGEN_FIELDS × SIN_NSGEN, trigger nl when SIN_ESTIMATE_SHARPEN > 0 (else empty).
export const SEC_RATE: i32 = 0;
export const SEC_VMIN: i32 = 1;
export const SEC_VMAX: i32 = 2;
export const SEC_VG: i32 = 3;
export const SEC_MON_BR: i32 = 4;
export const SEC_MON_BUS: i32 = 5;
export const SEC_CASES: i32 = 6;
export const SEC_OUTAGES: i32 = 7;
export const SEC_SCEN: i32 = 8;
export const SEC_CORR: i32 = 9;
export const SEC_SGEN: i32 = 10;
export const SEC_TRIGGER: i32 = 11;
export const SEC_COUNT: i32 = 12;

// A case row: scenario slot (-1 none), first outage in outages[], branch count, generator count.
export const CASE_SCEN: i32 = 0;
export const CASE_OUT_START: i32 = 1;
export const CASE_NBR: i32 = 2;
export const CASE_NGEN: i32 = 3;
export const CASE_FIELDS: i32 = 4;
// A scenario row: load scale, its corrections (first, count) in corr[], its generator set points (first, count) in sgen[].
export const SCEN_SCALE: i32 = 0;
export const SCEN_CORR_START: i32 = 1;
export const SCEN_NCORR: i32 = 2;
export const SCEN_SGEN_START: i32 = 3;
export const SCEN_NSGEN: i32 = 4;
export const SCEN_FIELDS: i32 = 5;
// A load correction: bus, dP, dQ (MW, MVAr); a generator set point: generator, Pg (MW).
export const CORR_BUS: i32 = 0;
export const CORR_DP: i32 = 1;
export const CORR_DQ: i32 = 2;
export const CORR_FIELDS: i32 = 3;
export const SGEN_GEN: i32 = 0;
export const SGEN_PG: i32 = 1;
export const SGEN_FIELDS: i32 = 2;

export const REC_CODE: i32 = 0;
export const REC_ITER: i32 = 1;
export const REC_MINV: i32 = 2;
export const REC_MINV_BUS: i32 = 3;
export const REC_MAXV: i32 = 4;
export const REC_MAXV_BUS: i32 = 5;
export const REC_MAXLOAD: i32 = 6;
export const REC_MAXLOAD_BR: i32 = 7;
export const REC_NVIOL: i32 = 8;
export const REC_NISL: i32 = 9;
export const REC_ISL_LOAD: i32 = 10;
export const REC_ISL_GEN: i32 = 11;
// an estimate that iterated on (SIN_ESTIMATE_SHARPEN): the largest change of a rated branch's loading (points) in
// its last iteration, which was at most half the one before; Infinity: it did not contract; -1: not iterated on
export const REC_EST_STEP: i32 = 12;
export const REC_FIELDS: i32 = 13;

// A violation: type (VIOL_OVERLOAD, ...), element (internal index), value, limit.
export const VIOL_TYPE: i32 = 0;
export const VIOL_ELEMENT: i32 = 1;
export const VIOL_VALUE: i32 = 2;
export const VIOL_LIMIT: i32 = 3;
export const VIOL_FIELDS: i32 = 4;
export const VIOL_OVERLOAD: i32 = 0;
export const VIOL_LOW_V: i32 = 1;
export const VIOL_HIGH_V: i32 = 2;

// Monitored values of a record: MON_BR_FIELDS per monitored branch (MW, MVAr, % of rate A), then MON_BUS_FIELDS
// per monitored bus (p.u., radians).
export const MON_BR_PF: i32 = 0;
export const MON_BR_QF: i32 = 1;
export const MON_BR_PT: i32 = 2;
export const MON_BR_QT: i32 = 3;
export const MON_BR_LOADING: i32 = 4;
export const MON_BR_FIELDS: i32 = 5;
export const MON_BUS_VM: i32 = 0;
export const MON_BUS_VA: i32 = 1;
export const MON_BUS_FIELDS: i32 = 2;

// case codes (beyond the solver's STATUS_*: 0 converged, 1 max it, 2 NaN, 3 singular, 4 cancelled)
export const CODE_ISLANDED: i32 = 10;
export const CODE_SLACK_LOST: i32 = 11;
export const CODE_QLIM_INFEASIBLE: i32 = 12; // every remaining generator beyond the same Q limit
