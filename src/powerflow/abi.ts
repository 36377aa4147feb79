// The wasm ABI seen from JavaScript: buffer layouts of assembly/layout.ts, which is
// the one source of the columns; test/abi.test.ts fails on any difference.

export const ABI_VERSION = 1;

export const IN = {
  VERSION: 0,
  METHOD: 1,
  TOL: 2,
  MAXIT: 3,
  NB: 4,
  NL: 5,
  NG: 6,
  BASEMVA: 7,
  HEADER: 16,
} as const;

export const BUS_FIELDS = 8;   // type, vm0, va0, pd, qd, gs, bs, island
export const BR_FIELDS = 7;    // f, t, r, x, b, ratio, shift
export const GEN_FIELDS = 5;   // bus, pg, qg, qmin, qmax

/** Columns of the input sections (assembly/layout.ts BUS_*, BR_*, GEN_*). */
export const BUS = { TYPE: 0, VM0: 1, VA0: 2, PD: 3, QD: 4, GS: 5, BS: 6, ISLAND: 7 } as const;
export const BR = { F: 0, T: 1, R: 2, X: 3, B: 4, RATIO: 5, SHIFT: 6 } as const;
export const GEN = { BUS: 0, PG: 1, QG: 2, QMIN: 3, QMAX: 4 } as const;
/** Columns of the output sections (assembly/layout.ts OUT_BUS_*, OUT_BR_*, OUT_GEN_*). */
export const OUT_BUS = { VM: 0, VA: 1, PINJ: 2, QINJ: 3, FIELDS: 4 } as const;
export const OUT_BR = { PF: 0, QF: 1, PT: 2, QT: 3, FIELDS: 4 } as const;
export const OUT_GEN = { PG: 0, QG: 1, FIELDS: 2 } as const;

export const OUT = {
  STATUS: 0,
  ITER: 1,
  MISMATCH: 2,
  ANALYSES: 3,
  LOSS_P: 4,
  LOSS_Q: 5,
  // written by the worker, not the wasm:
  SOLVE_MS: 6,        // wall time of the wasm solve(s) in the worker
  QLIM_RUNS: 7,       // number of wasm solves (reactive-limit re-runs + 1)
  THREAD: 8,          // worker thread id
  HEADER: 16,
} as const;

export const METHOD_CODE = { newton_raphson: 0, fast_decoupled: 1, dc: 2 } as const;

export const STATUS = {
  CONVERGED: 0,
  MAXIT: 1,
  NAN: 2,
  SINGULAR: 3,
  CANCELLED: 4,
  BAD_INPUT: 5,
  QLIM_INFEASIBLE: 6,   // set by the reactive-limit loop (JS)
} as const;

export const TYPE_PQ = 1;
export const TYPE_PV = 2;
export const TYPE_REF = 3;

/** Offsets of the input sections for given sizes. */
export function inputOffsets(nb: number, nl: number) {
  const bus = IN.HEADER;
  const br = bus + BUS_FIELDS * nb;
  const gen = br + BR_FIELDS * nl;
  return {
    type: bus + BUS.TYPE * nb, vm0: bus + BUS.VM0 * nb, va0: bus + BUS.VA0 * nb, pd: bus + BUS.PD * nb, qd: bus + BUS.QD * nb,
    gs: bus + BUS.GS * nb, bs: bus + BUS.BS * nb, island: bus + BUS.ISLAND * nb,
    f: br + BR.F * nl, t: br + BR.T * nl, r: br + BR.R * nl, x: br + BR.X * nl, b: br + BR.B * nl,
    ratio: br + BR.RATIO * nl, shift: br + BR.SHIFT * nl,
    gen,
  };
}

export function genOffsets(nb: number, nl: number, ng: number) {
  const gen = inputOffsets(nb, nl).gen;
  return {
    bus: gen + GEN.BUS * ng, pg: gen + GEN.PG * ng, qg: gen + GEN.QG * ng, qmin: gen + GEN.QMIN * ng, qmax: gen + GEN.QMAX * ng,
    end: gen + GEN_FIELDS * ng,
  };
}

export function inputLength(nb: number, nl: number, ng: number): number {
  return IN.HEADER + BUS_FIELDS * nb + BR_FIELDS * nl + GEN_FIELDS * ng;
}

export function outputOffsets(nb: number, nl: number, ng: number) {
  const bus = OUT.HEADER;
  const br = bus + OUT_BUS.FIELDS * nb;
  const gen = br + OUT_BR.FIELDS * nl;
  return {
    vm: bus + OUT_BUS.VM * nb, va: bus + OUT_BUS.VA * nb, pinj: bus + OUT_BUS.PINJ * nb, qinj: bus + OUT_BUS.QINJ * nb,
    pf: br + OUT_BR.PF * nl, qf: br + OUT_BR.QF * nl, pt: br + OUT_BR.PT * nl, qt: br + OUT_BR.QT * nl,
    pg: gen + OUT_GEN.PG * ng, qg: gen + OUT_GEN.QG * ng, end: gen + OUT_GEN.FIELDS * ng,
  };
}
