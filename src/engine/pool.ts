// The solver pool: Piscina worker threads (workers/solver.ts), each with one warm WebAssembly core, and one
// method per kind of job the threads run. Numbers in, numbers out: each calculation packs its own buffers and
// reads its own answers beside its domain (src/powerflow/solve.ts, src/studies/solve.ts, src/opf/solve.ts, ...).
// Used by the service and by the gridops CLI.
//
//   const pool = createSolverPool();             // WORKERS or availableParallelism() threads
//   const outcome = await solvePowerFlow(pool, network, { method: 'newton_raphson' }, { signal, onProgress });
//   await pool.close();
//
// Every job is stopped the same way (./jobControl.ts); short jobs take the next free thread and long ones leave one to them
// (./threadLanes.ts); the
// live progress of a long solve comes over the pool's BroadcastChannel (./liveChannel.ts), routed by key to the
// onLive callback of its call. Buffers are transferred to the worker and back, not copied.
import { availableParallelism } from 'node:os';
import { BroadcastChannel } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { StudyWorkerResult } from '../studies/abi.js';
import type { LayoutInput } from '../layout/stressLayout.js';
import type { ScopfTask, ScopfWorkerResult } from '../opf/securityWorker.js';
import { asCoreFailure } from './coreFailure.js';
import { LONG_WORK_INPUT_FLOATS, ThreadLanes, type Lane } from './threadLanes.js';
import { JobControl } from './jobControl.js';

export interface SolverPool {
  /** One packed power flow (src/powerflow/solve.ts): the ABI output buffer with its progress trailer (workers/solver.ts).
   *  job stops it; onLive receives the (iteration, mismatch) pairs of a long solve as they happen, from pair `from` on. */
  runPowerFlow(input: Float64Array, qlim: boolean, job: JobControl, onLive?: (from: number, pairs: Float64Array) => void): Promise<Float64Array>;
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

interface WorkerTask {
  input: Float64Array;
  qlim: boolean;
  stop: Int32Array;
  live?: { channel: string; key: number };
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
  // Short work first, long work on all threads but one, study chunks in between (./threadLanes.ts)
  const lanes = new ThreadLanes(threads);
  const laneOf = (input: Float64Array): Lane => (input.length >= LONG_WORK_INPUT_FLOATS ? 'long' : 'short');
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
      const signal = job.threadSignal;
      const transferList = [input.buffer as ArrayBuffer, study.buffer as ArrayBuffer];
      const chunk = { input, study, monitorPerCase, stop: job.flags };
      const r = await lanes.run('bulk', signal, () =>
        (piscina as unknown as Piscina<unknown, StudyWorkerResult>).run(chunk, { name: 'study', transferList, signal }));
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
    runPowerFlow(input: Float64Array, qlim: boolean, job: JobControl, onLive?: (from: number, pairs: Float64Array) => void) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const key = onLive ? nextKey++ : -1;
      const task: WorkerTask = { input, qlim, stop: job.flags };
      if (onLive) {
        liveHandlers.set(key, onLive);
        task.live = { channel: liveName, key };
      }
      const signal = job.threadSignal;
      return lanes
        .run(laneOf(input), signal, () => piscina.run(task, { transferList: [input.buffer as ArrayBuffer], signal }))
        .catch(asCoreFailure('power flow'))
        .finally(() => { if (key >= 0) liveHandlers.delete(key); });
    },
    runStudy,
    runSensitivity(input: Float64Array, kind: 0 | 1 | 2, items: Float64Array, signal?: AbortSignal) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const transferList = [input.buffer as ArrayBuffer, items.buffer as ArrayBuffer];
      const options = { name: 'sensitivity', transferList, signal };
      return lanes
        .run(laneOf(input), signal, () => (piscina as unknown as Piscina<unknown, Float64Array | null>).run({ input, kind, items }, options))
        .catch(asCoreFailure('sensitivity matrix'));
    },
    runStateEstimation(input: Float64Array, stop: Int32Array, signal?: AbortSignal) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const transferList = [input.buffer as ArrayBuffer];
      return lanes.run(laneOf(input), signal, () =>
        (piscina as unknown as Piscina<unknown, Float64Array>).run({ input, stop }, { name: 'stateEstimation', transferList, signal }),
      );
    },
    runLayout(task: LayoutInput) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const transferList = [task.edges.buffer as ArrayBuffer, ...(task.pinned ? [task.pinned.buffer as ArrayBuffer] : [])];
      return lanes.run(task.edges.length >= LONG_WORK_INPUT_FLOATS ? 'long' : 'short', undefined, () =>
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
        .run('long', signal, () => (piscina as unknown as Piscina<ScopfTask, ScopfWorkerResult>).run(withLive, { name: 'scopf', transferList, signal }))
        .catch(asCoreFailure('security-constrained OPF'))
        .finally(() => { if (key >= 0) liveHandlers.delete(key); });
    },
    runOpf(input: Float64Array, stop: Int32Array, signal: AbortSignal, onLive?: (from: number, rows: Float64Array) => void) {
      if (closed) return Promise.reject(new Error('solver pool is closed'));
      const key = onLive ? nextKey++ : -1;
      if (onLive) liveHandlers.set(key, onLive);
      const live = onLive ? { channel: liveName, key } : undefined;
      return lanes
        .run(laneOf(input), signal, () => piscina.run({ kind: 'opf', input, stop, live }, { name: 'opf', transferList: [input.buffer as ArrayBuffer], signal }))
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
