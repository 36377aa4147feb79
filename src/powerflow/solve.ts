// A power flow on the solver pool, from a network model to its outcome: the islanding rule and MATPOWER's DC lines
// applied to the model, the model packed (once per frozen version and options), one job on a solver thread
// (pool.run('powerflow', ...)), the answer unpacked. As src/opf/solve.ts and src/studies/solve.ts are for theirs.
//
//   const outcome = await solvePowerFlow(pool, network, { method: 'newton_raphson' }, { signal, onProgress });
//
// - bad input rejects with PowerFlowInputError (before any thread is involved);
// - options.timeoutMs exceeded -> resolves with status 'timeout'; hooks.signal aborted -> 'cancelled'; the job is
//   stopped as every job is (src/engine/jobControl.ts);
// - hooks.onProgress gets one report per iteration, all of them before the promise resolves; a timed-out /
//   cancelled outcome then carries the last reported iteration and mismatch (else 0 and NaN) and no bus / branch
//   results. A short solve's reports come together with its result (the output's progress trailer); a solve running
//   longer than LIVE_AFTER_MS (src/engine/liveChannel.ts) reports each iteration as it happens.
import { performance } from 'node:perf_hooks';
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import { isDeeplyFrozen } from '../lib/immutable.js';
import {
  DEFAULT_SOLVE_OPTIONS, ISLANDING_RULES, PowerFlowInputError, type ProgressReport, type SolveOptions, type SolveOutcome,
} from './types.js';
import { checkOptions, packNetwork, type PackedNetwork } from './pack.js';
import { islandSplit, withIslands } from './islanding.js';
import { emptyOutcome, unpackOutcome, unpackOutcomeValues } from './unpack.js';
import { OUT, STATUS } from './abi.js';
import { expandDcLines, foldDcLines } from './dcline.js';

/** Measurements of one solve (for tests and benchmarks), see solveDiagnostics(). */
export interface SolveDiagnostics {
  /** ms inside the worker around the wasm solve(s): no packing, no transfer. */
  solveMs: number;
  /** ms from the solvePowerFlow call to resolution (packing, transfer, queueing, unpacking included). */
  endToEndMs: number;
  /** symbolic LU analyses done so far by the worker's wasm instance. */
  analyses: number;
  /** worker thread id. */
  thread: number;
  /** wasm solves (1 + reactive-limit re-runs). */
  runs: number;
}

const diagnostics = new WeakMap<SolveOutcome, SolveDiagnostics>();
export function solveDiagnostics(outcome: SolveOutcome): SolveDiagnostics | undefined {
  return diagnostics.get(outcome);
}

// Packing is a pure function of the model and of the options it reads; a deep-frozen
// model (the service's stored versions, src/cache/modelStore.ts) cannot change, so its
// packing is kept and only its input buffer, which each solve transfers away, is copied.
const packings = new WeakMap<NetworkModel, Map<string, PackedNetwork>>();
function packFor(network: NetworkModel, o: SolveOptions): PackedNetwork {
  if (!isDeeplyFrozen(network)) return packNetwork(network, o);
  checkOptions(o);
  const key = `${o.method}|${o.tolerance}|${o.maxIterations}|${o.flatStart}`;
  let byOptions = packings.get(network);
  if (!byOptions) packings.set(network, (byOptions = new Map()));
  let p = byOptions.get(key);
  if (!p) {
    p = packNetwork(network, o);
    if (byOptions.size >= 8) byOptions.delete(byOptions.keys().next().value!);
    byOptions.set(key, p);
  }
  return { ...p, input: p.input.slice() };
}

function withDefaults(options: Partial<SolveOptions> | undefined): SolveOptions {
  const o: SolveOptions = { ...DEFAULT_SOLVE_OPTIONS };
  for (const [k, v] of Object.entries(options ?? {})) if (v !== undefined) (o as unknown as Record<string, unknown>)[k] = v;
  return o;
}

/** The progress trailer of a worker's output (workers/solver.ts): its pairs, and where the ABI output ends. */
function progressTrailer(out: Float64Array): { pairs: Float64Array; outputLength: number } {
  const n = out[out.length - 1]!;
  const outputLength = out.length - 1 - 2 * n;
  return { pairs: out.subarray(outputLength, out.length - 1), outputLength };
}

/** solvePowerFlow's hooks. binaryValues: a converged outcome may come with its per-element values as `values`, in
 *  their stored binary form (src/powerflow/resultValues.ts), and empty buses / branches / generators (a solve with
 *  islands or DC lines still comes with the arrays and no `values`). */
export interface SolveHooks {
  signal?: AbortSignal;
  onProgress?: (p: ProgressReport) => void;
  binaryValues?: boolean;
}

export async function solvePowerFlow(
  pool: SolverPool,
  network: NetworkModel,
  options?: Partial<SolveOptions>,
  hooksArg: SolveHooks = {},
): Promise<SolveOutcome & { values?: Buffer }> {
  const { binaryValues, ...hooks } = hooksArg;
  const t0 = performance.now();
  const o = withDefaults(options);
  if (o.islanding !== undefined && !ISLANDING_RULES.includes(o.islanding)) {
    throw new PowerFlowInputError(`unknown islanding rule '${String(o.islanding)}' (refuse, isolate, new_reference)`, 'VALIDATION_FAILED', {
      field: 'islanding',
    });
  }
  if (o.islanding === 'isolate' || o.islanding === 'new_reference') {
    // The islands without a reference are typed out before packing, as MATPOWER's answer is made (./islanding.ts).
    const split = islandSplit(network, o.islanding);
    return withIslands(await solvePowerFlow(pool, split.model, { ...o, islanding: 'refuse' }, hooks), split);
  }
  // MATPOWER DC lines: solved as generator pairs, answered as lines (./dcline.ts)
  const dc = expandDcLines(network);
  if (dc) return foldDcLines(network, dc, await solvePowerFlow(pool, dc.model, o, hooks));
  const packed = packFor(network, o); // throws PowerFlowInputError
  const { signal, onProgress } = hooks;
  if (signal?.aborted) return emptyOutcome('cancelled', o, { message: 'cancelled before it started' });

  let lastIteration = 0,
    lastMismatch = NaN; // known when progress is reported
  let reported = 0; // pairs of this solve passed to onProgress (live, then the rest from the trailer)
  // Pairs [from, from + n) of the solve's progress; those already reported are skipped, none after a stop (the pool
  // passes no live pairs of a stopped job).
  const report = (from: number, pairs: Float64Array) => {
    for (let i = Math.max(reported - from, 0); 2 * i < pairs.length && !signal?.aborted; i++) {
      lastIteration = pairs[2 * i]!;
      lastMismatch = pairs[2 * i + 1]!;
      reported = from + i + 1;
      onProgress?.({ iteration: lastIteration, maxIterations: o.maxIterations, mismatch: lastMismatch });
    }
  };
  const stopped = (status: 'cancelled' | 'timeout') =>
    emptyOutcome(status, o, {
      message: status === 'timeout' ? `exceeded timeout_ms (${o.timeoutMs} ms)` : 'cancelled',
      duration_ms: performance.now() - t0,
      iterations: lastIteration,
      mismatch: lastMismatch,
    });
  const qlim = o.enforceQLimits && o.method !== 'dc';
  const ran = await pool.run('powerflow', { input: packed.input, qlim }, { timeoutMs: o.timeoutMs, signal, onLive: onProgress ? report : undefined });
  if (ran.stopped) return stopped(ran.stopped);
  const { pairs, outputLength } = progressTrailer(ran.value);
  report(0, pairs); // every iteration reaches onProgress before the result
  if (signal?.aborted) return stopped('cancelled'); // onProgress cancelled it
  const out = ran.value.subarray(0, outputLength);
  if (out[OUT.STATUS] === STATUS.BAD_INPUT) throw new PowerFlowInputError('the solver rejected the packed network', 'VALIDATION_FAILED');
  let outcome: SolveOutcome & { values?: Buffer };
  if (binaryValues) {
    const unpacked = unpackOutcomeValues(network, packed, out, o);
    outcome = unpacked.values ? Object.assign(unpacked.outcome, { values: unpacked.values }) : unpacked.outcome;
  } else outcome = unpackOutcome(network, packed, out, o);
  diagnostics.set(outcome, {
    solveMs: out[OUT.SOLVE_MS]!,
    endToEndMs: performance.now() - t0,
    analyses: out[OUT.ANALYSES]!,
    thread: out[OUT.THREAD]!,
    runs: out[OUT.QLIM_RUNS]!,
  });
  return outcome;
}
