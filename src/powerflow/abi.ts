// The wasm ABI seen from JavaScript: the buffer layouts of assembly/abi.ts, the one source of the columns, as
// generated into ./abi.generated.ts at build:wasm (scripts/gen-abi.js), plus the slots only JavaScript writes.

import * as core from './abi.generated.js';

export const ABI_VERSION = core.ABI_VERSION;
export const IN = core.IN;

export const BUS_FIELDS = core.BUS_FIELDS; // type, vm0, va0, pd, qd, gs, bs, island
export const BR_FIELDS = core.BR_FIELDS; // f, t, r, x, b, ratio, shift
export const GEN_FIELDS = core.GEN_FIELDS; // bus, pg, qg, qmin, qmax

/** Columns of the input sections (assembly/abi.ts BUS_*, BR_*, GEN_*). */
export const BUS = core.BUS;
export const BR = core.BR;
export const GEN = core.GEN;
/** Columns of the output sections (assembly/abi.ts OUT_BUS_*, OUT_BR_*, OUT_GEN_*). */
export const OUT_BUS = core.OUT_BUS;
export const OUT_BR = core.OUT_BR;
export const OUT_GEN = core.OUT_GEN;

export const OUT = {
  ...core.OUT,
  // written by the worker, not the wasm (slots OUT_LOSS_Q + 1 .. OUT_HEADER - 1 are free for JavaScript):
  SOLVE_MS: 6, // wall time of the wasm solve(s) in the worker
  QLIM_RUNS: 7, // number of wasm solves (reactive-limit re-runs + 1)
  THREAD: 8, // worker thread id
} as const;

export const METHOD_CODE = { newton_raphson: core.METHOD_NR, fast_decoupled: core.METHOD_FDXB, dc: core.METHOD_DC } as const;

export const STATUS = {
  ...core.STATUS,
  QLIM_INFEASIBLE: 6, // set by the reactive-limit loop (JS)
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
