// The solver pool: Piscina worker threads (workers/solver.ts), each with one warm
// WebAssembly core. Used by the service and by the gridops CLI.
//
//   const pool = createSolverPool();             // WORKERS or availableParallelism() threads
//   const outcome = await pool.solve(network, { method: 'newton_raphson' },
//                                    { signal, onProgress });
//   await pool.close();
//
// - bad input rejects with PowerFlowInputError (before any worker is involved);
// - options.timeoutMs exceeded -> resolves with status 'timeout';
// - hooks.signal aborted -> resolves with status 'cancelled';
//   both stop the job as every kind is stopped (./jobControl.ts: a shared stop flag
//   the running solve reads between iterations; a job still queued is withdrawn,
//   a running one that does not stop within STOP_GRACE_MS has its thread ended);
// - hooks.onProgress gets one report per iteration, all of them before the
//   promise resolves; a timed-out / cancelled outcome then carries the last
//   reported iteration and mismatch (else 0 and NaN) and no bus / branch results.
//   A short solve's reports come together with its result (the output's progress
//   trailer); a solve running longer than LIVE_AFTER_MS (./liveChannel.ts) reports
//   each iteration as it happens, over the pool's BroadcastChannel.
// The network is packed into one Float64Array that is transferred (not copied)
// to the worker; the result comes back the same way.
import { availableParallelism } from 'node:os';
import { BroadcastChannel } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { NetworkModel } from '../domain/networkModel.js';
import { DEFAULT_SOLVE_OPTIONS, ISLANDING_RULES, PowerFlowInputError, type ProgressReport, type SolveOptions, type SolveOutcome } from '../powerflow/types.js';
import { checkOptions, packNetwork, type PackedNetwork } from '../powerflow/pack.js';
import { isDeeplyFrozen } from '../lib/immutable.js';
import { islandSplit, withIslands } from '../powerflow/islanding.js';
import { emptyOutcome, unpackOutcome } from '../powerflow/unpack.js';
import { OUT, STATUS } from '../powerflow/abi.js';
import { expandDcLines, foldDcLines } from '../powerflow/dcline.js';
import type { StudyWorkerResult } from '../studies/abi.js';
import type { LayoutInput } from '../layout/stressLayout.js';
import type { ScopfTask, ScopfWorkerResult } from '../opf/securityWorker.js';
import { asCoreFailure } from './coreFailure.js';
import { LONG_WORK_INPUT_FLOATS, ThreadLanes } from './threadLanes.js';
import { JobControl, runStoppable } from './jobControl.js';

export interface SolverPool {
  solve(network: NetworkModel, options?: Partial<SolveOptions>, hooks?: { signal?: AbortSignal; onProgress?: (p: ProgressReport) => void }): Promise<SolveOutcome>;
  /** One study chunk on a solver thread (src/studies/solve.ts builds the buffers). Cancelling through
   *  hooks.signal stops it at the next Newton iteration or case: it resolves with the cases done. */
  runStudy(input: Float64Array, study: Float64Array, monitorPerCase: number,
    hooks?: { signal?: AbortSignal; onCasesDone?: (done: number) => void }): Promise<StudyWorkerResult>;
  /** Runs one packed OPF input on a worker (src/opf/solve.ts builds on this): the output buffer
   *  with its progress trailer (src/opf/worker.ts). stop as for solve; signal withdraws / aborts it. */
  /** One OPF (src/opf/worker.ts). onLive receives the progress of a long solve as it happens: rows of
   *  PROGRESS_FIELDS values from row `from` on (the trailer of the result repeats them all). */
  runOpf(input: Float64Array, stop: Int32Array, signal: AbortSignal, onLive?: (from: number, rows: Float64Array) => void): Promise<Float64Array>;
  /** DC sensitivities on a worker (src/sensitivities/): kind 0 PTDF rows, kind 1 outage flow shifts of the
   *  internal branches in items, kind 2 PTDF columns of the internal buses in items; null when the reduced Bbus is
   *  singular. At most SENSITIVITY_CHUNK_VALUES values a call (src/sensitivities/compute.ts asks in chunks). */
  runSensitivity(input: Float64Array, kind: 0 | 1 | 2, items: Float64Array, signal?: AbortSignal): Promise<Float64Array | null>;
  /** One state estimate on a worker (src/stateEstimation/solve.ts): the output buffer. stop: [0] non-zero stops it
   *  at its next iteration, [2] holds the last iteration reported. */
  runStateEstimation(input: Float64Array, stop: Int32Array, signal?: AbortSignal): Promise<Float64Array>;
  /** A network drawing's bus positions on a worker (src/layout/stressLayout.ts): x, y per bus. */
  runLayout(task: LayoutInput): Promise<Float64Array>;
  /** The constraint generation of a security-constrained DC-OPF on a worker (src/opf/securityWorker.ts); the caller
   *  stops it through task.stop and withdraws or ends it through signal (src/opf/security.ts). */
  runScopf(task: ScopfTask, signal: AbortSignal, onLive?: (from: number, rows: Float64Array) => void): Promise<ScopfWorkerResult>;
  readonly threads: number;
  close(): Promise<void>;
}

/** How often a running study chunk's cases-done counter is read. */
export const STUDY_PROGRESS_MS = 100;

/** Measurements of one solve (for tests and benchmarks), see solveDiagnostics(). */
export interface SolveDiagnostics {
  /** ms inside the worker around the wasm solve(s): no packing, no transfer. */
  solveMs: number;
  /** ms from solve() call to resolution (packing, transfer, queueing, unpacking included). */
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


function defaultThreads(): number {
  const w = Number(process.env.WORKERS);
  if (Number.isInteger(w) && w > 0) return w;
  return availableParallelism();
}

function workerFile(): string {
  const here = import.meta.url;
  const ext = here.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`../../workers/solver${ext}`, here));
}

// Packing is a pure function of the model and of the options it reads; a deep-frozen
// model (the service's stored versions, src/queue/execute.ts) cannot change, so its
// packing is kept and only its input buffer, which each solve transfers away, is copied.
const packings = new WeakMap<NetworkModel, Map<string, PackedNetwork>>();
function packFor(network: NetworkModel, o: SolveOptions): PackedNetwork {
  if (!isDeeplyFrozen(network)) return packNetwork(network, o);
  checkOptions(o);
  const key = `${o.method}|${o.tolerance}|${o.maxIterations}|${o.flatStart}`;
  let byOptions = packings.get(network);
  if (!byOptions) packings.set(network, byOptions = new Map());
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

interface WorkerTask {
  input: Float64Array;
  qlim: boolean;
  stop: Int32Array;
  live?: { channel: string; key: number };
}

/** The progress trailer of a worker's output (workers/solver.ts): its pairs, and where the ABI output ends. */
function progressTrailer(out: Float64Array): { pairs: Float64Array; outputLength: number } {
  const n = out[out.length - 1]!;
  const outputLength = out.length - 1 - 2 * n;
  return { pairs: out.subarray(outputLength, out.length - 1), outputLength };
}

export function createSolverPool(opts: { threads?: number } = {}): SolverPool {
  const threads = opts.threads ?? defaultThreads();
  const piscina = new Piscina<WorkerTask | { kind: 'opf'; input: Float64Array; stop: Int32Array; live?: { channel: string; key: number } }, Float64Array>({
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60_000,
  });
  let closed = false;
  // Long solves leave one thread to short ones (./threadLanes.ts)
  const lanes = new ThreadLanes(threads);
  const isLong = (input: Float64Array) => input.length >= LONG_WORK_INPUT_FLOATS;
  // Live progress of long solves: one BroadcastChannel for the whole pool, messages routed by task key.
  const liveName = `gridops-progress-${randomUUID()}`;
  const liveChannel = new BroadcastChannel(liveName);
  liveChannel.unref();
  const liveHandlers = new Map<number, (from: number, pairs: Float64Array) => void>();
  let nextKey = 0;
  liveChannel.onmessage = (e: unknown) => {
    const m = (e as { data: { key: number; from: number; progress: Float64Array } }).data;
    liveHandlers.get(m.key)?.(m.from, m.progress);
  };

  async function solve(
    network: NetworkModel,
    options?: Partial<SolveOptions>,
    hooks: { signal?: AbortSignal; onProgress?: (p: ProgressReport) => void } = {},
  ): Promise<SolveOutcome> {
    const t0 = performance.now();
    if (closed) throw new Error('solver pool is closed');
    const o = withDefaults(options);
    if (o.islanding !== undefined && !ISLANDING_RULES.includes(o.islanding)) {
      throw new PowerFlowInputError(`unknown islanding rule '${String(o.islanding)}' (refuse, isolate, new_reference)`, 'VALIDATION_FAILED', { field: 'islanding' });
    }
    if (o.islanding === 'isolate' || o.islanding === 'new_reference') {
      // The islands without a reference are typed out before packing, as MATPOWER's answer is made (./islanding.ts).
      const split = islandSplit(network, o.islanding);
      return withIslands(await solve(split.model, { ...o, islanding: 'refuse' }, hooks), split);
    }
    // MATPOWER DC lines: solved as generator pairs, answered as lines (src/powerflow/dcline.ts)
    const dc = expandDcLines(network);
    if (dc) return foldDcLines(network, dc, await solve(dc.model, o, hooks));
    const packed = packFor(network, o); // throws PowerFlowInputError
    const { signal, onProgress } = hooks;
    if (signal?.aborted) return emptyOutcome('cancelled', o, { message: 'cancelled before it started' });

    const job = new JobControl();
    const key = onProgress ? nextKey++ : -1;
    let lastIteration = 0, lastMismatch = NaN; // known when progress is reported
    let reported = 0; // pairs of this solve passed to onProgress (live, then the rest from the trailer)
    // Pairs [from, from + n) of the solve's progress; those already reported are skipped, none after a stop.
    const report = (from: number, pairs: Float64Array) => {
      for (let i = Math.max(reported - from, 0); 2 * i < pairs.length && !job.stopped && !signal?.aborted; i++) {
        lastIteration = pairs[2 * i]!;
        lastMismatch = pairs[2 * i + 1]!;
        reported = from + i + 1;
        onProgress?.({ iteration: lastIteration, maxIterations: o.maxIterations, mismatch: lastMismatch });
      }
    };
    const stopped = (status: 'cancelled' | 'timeout') => emptyOutcome(status, o, {
      message: status === 'timeout' ? `exceeded timeout_ms (${o.timeoutMs} ms)` : 'cancelled',
      duration_ms: performance.now() - t0, iterations: lastIteration, mismatch: lastMismatch,
    });
    if (key >= 0) liveHandlers.set(key, report);
    const task: WorkerTask = { input: packed.input, qlim: o.enforceQLimits && o.method !== 'dc', stop: job.flags };
    if (key >= 0) task.live = { channel: liveName, key };
    let ran;
    try {
      ran = await runStoppable({ timeoutMs: o.timeoutMs, signal }, (j) =>
        lanes.run(isLong(packed.input), j.threadSignal, () =>
          piscina.run(task, { transferList: [packed.input.buffer as ArrayBuffer], signal: j.threadSignal })),
      job).catch(asCoreFailure('power flow'));
    } finally {
      if (key >= 0) liveHandlers.delete(key);
    }
    if (ran.stopped) return stopped(ran.stopped);
    const { pairs, outputLength } = progressTrailer(ran.value);
    report(0, pairs); // every iteration reaches onProgress before the result
    if (signal?.aborted) return stopped('cancelled'); // onProgress cancelled it
    const out = ran.value.subarray(0, outputLength);
    if (out[OUT.STATUS] === STATUS.BAD_INPUT) throw new PowerFlowInputError('the solver rejected the packed network', 'VALIDATION_FAILED');
    const outcome = unpackOutcome(network, packed, out, o);
    diagnostics.set(outcome, {
      solveMs: out[OUT.SOLVE_MS]!, endToEndMs: performance.now() - t0, analyses: out[OUT.ANALYSES]!,
      thread: out[OUT.THREAD]!, runs: out[OUT.QLIM_RUNS]!,
    });
    return outcome;
  }

  async function runStudy(
    input: Float64Array, study: Float64Array, monitorPerCase: number,
    hooks: { signal?: AbortSignal; onCasesDone?: (done: number) => void } = {},
  ): Promise<StudyWorkerResult> {
    if (closed) throw new Error('solver pool is closed');
    const empty = (): StudyWorkerResult => ({
      done: 0, records: new Float64Array(0), violations: new Float64Array(0), islands: new Float64Array(0), monitor: new Float64Array(0), solveMs: 0,
    });
    const { signal, onCasesDone } = hooks;
    if (signal?.aborted) return empty();
    // a stopped chunk answers with the cases it finished: the stop does not settle it (JobControl, no timeout here)
    const job = new JobControl();
    let reported = 0;
    const poll = onCasesDone ? setInterval(() => {
      const d = job.progress; // cases done
      if (d > reported) { reported = d; onCasesDone(d); }
    }, STUDY_PROGRESS_MS) : undefined;
    poll?.unref();
    const onAbort = () => job.stop('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await (piscina as unknown as Piscina<unknown, unknown>).run({ input, study, monitorPerCase, stop: job.flags }, {
        name: 'study', transferList: [input.buffer as ArrayBuffer, study.buffer as ArrayBuffer], signal: job.threadSignal,
      }) as unknown as StudyWorkerResult;
      if (onCasesDone && r.done > reported) onCasesDone(r.done);
      return r;
    } catch (e) {
      if (job.threadSignal.aborted) return empty(); // withdrawn or its thread ended: nothing finished is lost but this chunk
      return asCoreFailure('study chunk')(e);
    } finally {
      if (poll) clearInterval(poll);
      job.ended();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    solve,
    runStudy,
    runSensitivity(input: Float64Array, kind: 0 | 1 | 2, items: Float64Array, signal?: AbortSignal) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const transferList = [input.buffer as ArrayBuffer, items.buffer as ArrayBuffer];
      const options = { name: 'sensitivity', transferList, signal };
      return lanes
        .run(isLong(input), signal, () => (piscina as unknown as Piscina<unknown, Float64Array | null>).run({ input, kind, items }, options))
        .catch(asCoreFailure('sensitivity matrix'));
    },
    runStateEstimation(input: Float64Array, stop: Int32Array, signal?: AbortSignal) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const transferList = [input.buffer as ArrayBuffer];
      return lanes.run(isLong(input), signal, () =>
        (piscina as unknown as Piscina<unknown, Float64Array>).run({ input, stop }, { name: 'stateEstimation', transferList, signal }),
      );
    },
    runLayout(task: LayoutInput) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const transferList = [task.edges.buffer as ArrayBuffer, ...(task.pinned ? [task.pinned.buffer as ArrayBuffer] : [])];
      return lanes.run(task.edges.length >= LONG_WORK_INPUT_FLOATS, undefined, () =>
        (piscina as unknown as Piscina<LayoutInput, Float64Array>).run(task, { name: 'layout', transferList }),
      );
    },
    runScopf(task: ScopfTask, signal: AbortSignal, onLive?: (from: number, rows: Float64Array) => void) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const key = onLive ? nextKey++ : -1;
      if (onLive) liveHandlers.set(key, onLive);
      const transferList = [task.opf.buffer, task.dc.buffer] as ArrayBuffer[]; // the small arrays the caller reads again are copied
      const withLive = { ...task, ...(onLive ? { live: { channel: liveName, key } } : {}) };
      // always long: constraint generation solves many outages
      return lanes
        .run(true, signal, () => (piscina as unknown as Piscina<ScopfTask, ScopfWorkerResult>).run(withLive, { name: 'scopf', transferList, signal }))
        .catch(asCoreFailure('security-constrained OPF'))
        .finally(() => { if (key >= 0) liveHandlers.delete(key); });
    },
    runOpf(input: Float64Array, stop: Int32Array, signal: AbortSignal, onLive?: (from: number, rows: Float64Array) => void) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const key = onLive ? nextKey++ : -1;
      if (onLive) liveHandlers.set(key, onLive);
      const live = onLive ? { channel: liveName, key } : undefined;
      return lanes
        .run(isLong(input), signal, () => piscina.run({ kind: 'opf', input, stop, live }, { name: 'opf', transferList: [input.buffer as ArrayBuffer], signal }))
        .catch(asCoreFailure('OPF'))
        .finally(() => { if (key >= 0) liveHandlers.delete(key); });
    },
    get threads() { return threads; },
    async close() {
      if (closed) return;
      closed = true;
      await piscina.close();
      liveChannel.close();
    },
  };
}
