// The wasm ABI seen from JavaScript: buffer layouts of assembly/layout.ts
// (keep the two files in step).

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
    type: bus, vm0: bus + nb, va0: bus + 2 * nb, pd: bus + 3 * nb, qd: bus + 4 * nb, gs: bus + 5 * nb, bs: bus + 6 * nb,
    island: bus + 7 * nb,
    f: br, t: br + nl, r: br + 2 * nl, x: br + 3 * nl, b: br + 4 * nl, ratio: br + 5 * nl, shift: br + 6 * nl,
    gen,
  };
}

export function genOffsets(nb: number, nl: number, ng: number) {
  const gen = inputOffsets(nb, nl).gen;
  return { bus: gen, pg: gen + ng, qg: gen + 2 * ng, qmin: gen + 3 * ng, qmax: gen + 4 * ng, end: gen + 5 * ng };
}

export function inputLength(nb: number, nl: number, ng: number): number {
  return IN.HEADER + BUS_FIELDS * nb + BR_FIELDS * nl + GEN_FIELDS * ng;
}

export function outputOffsets(nb: number, nl: number, ng: number) {
  const bus = OUT.HEADER;
  const br = bus + 4 * nb;
  const gen = br + 4 * nl;
  return {
    vm: bus, va: bus + nb, pinj: bus + 2 * nb, qinj: bus + 3 * nb,
    pf: br, qf: br + nl, pt: br + 2 * nl, qt: br + 3 * nl,
    pg: gen, qg: gen + ng, end: gen + 2 * ng,
  };
}
