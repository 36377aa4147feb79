// The solver pool: Piscina worker threads (workers/solver.ts), each with one warm WebAssembly core, and one method,
// run(kind, payload, hooks), for every kind of job the threads run (./kinds.ts). Numbers in, numbers out: each
// calculation packs its own buffers and reads its own answers beside its domain (src/powerflow/solve.ts,
// src/studies/solve.ts, src/opf/solve.ts, ...). Used by the service and by the gridops CLI.
//
//   const pool = createSolverPool();             // WORKERS or availableParallelism() threads
//   const ran = await pool.run('powerflow', { input, qlim }, { signal, timeoutMs, onLive });
//   if (!ran.stopped) use(ran.value);            // else ran.stopped: 'cancelled' | 'timeout'
//   await pool.close();
//
// Written once here for every kind: the lane a job waits in (short work takes the next free thread, long work
// leaves one to it, study chunks in between: ./threadLanes.ts), its stop (withdrawn while queued, stopped at its
// next iteration once running, its thread ended when it does not stop within the grace: ./jobControl.ts), the
// buffers transferred to the thread (not copied), the live progress of a long solve (over the pool's
// BroadcastChannel, ./liveChannel.ts, routed by key to the call's onLive), and a core failure as SolverCoreError.
import { availableParallelism } from 'node:os';
import { BroadcastChannel } from 'node:worker_threads';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { asCoreFailure } from './coreFailure.js';
import { LONG_WORK_INPUT_FLOATS, ThreadLanes, type Lane } from './threadLanes.js';
import { JobControl, jobFlags, runStoppable, type Stoppable } from './jobControl.js';
import type { Kind, Payload, Result, Task } from './kinds.js';
import { IDLE_RELEASE_MS } from './instanceRecycling.js';

export interface RunHooks {
  /** aborted: the job is stopped ('cancelled') */
  signal?: AbortSignal;
  /** the job is stopped ('timeout') after this long */
  timeoutMs?: number;
  /** a long solve's progress rows from row `from` on, as they happen (the kind's result repeats them all) */
  onLive?: (from: number, rows: Float64Array) => void;
  /** the job's JOB.PROGRESS value (a study's cases done, an estimate's iteration), each time it rose, read every
   *  PROGRESS_POLL_MS while the job runs and once when it ends; none after a stop */
  onProgress?: (value: number) => void;
  /** the kind's lane unless given (short / long by the size of the input; study chunks: bulk) */
  lane?: Lane;
  /** a stop does not settle the run: the job answers with what it finished before it stopped (a study chunk's
   *  cases); `stopped` only when it was withdrawn or its thread ended */
  answerWhenStopped?: boolean;
}

export interface SolverPool {
  /** One job of that kind on a solver thread. Resolves with its result, or with {stopped} at once when the signal or
   *  the timeout stops it first (see RunHooks.answerWhenStopped); rejects with SolverCoreError when the core failed. */
  run<K extends Kind>(kind: K, payload: Payload<K>, hooks?: RunHooks): Promise<Stoppable<Result<K>>>;
  /** Kept for src/studies/screening.ts: run('sensitivity', ...), rejecting with an AbortError when signal stops it. */
  runSensitivity(input: Float64Array, kind: 0 | 1 | 2, items: Float64Array, signal?: AbortSignal): Promise<Float64Array | null>;
  /** Each thread replaces a large instance (./instanceRecycling.ts): run by itself once the pool has had no job for
   *  IDLE_RELEASE_MS. The threads' memory in bytes afterwards (best effort: a thread may take two of the jobs). */
  release(): Promise<number[]>;
  /** Idle releases so far (for tests and the drills). */
  readonly idleReleases: number;
  readonly threads: number;
  close(): Promise<void>;
}

/** How often a running job's progress slot is read for RunHooks.onProgress. */
export const PROGRESS_POLL_MS = 100;

const bySize = (floats: number): Lane => (floats >= LONG_WORK_INPUT_FLOATS ? 'long' : 'short');

/** What the pool knows of a kind: what its failure is called, its lane, the buffers it hands to the thread. */
interface KindSpec<K extends Kind> {
  work: string;
  lane: (p: Payload<K>) => Lane;
  transfer: (p: Payload<K>) => ArrayBufferLike[];
}

const KINDS: { [K in Kind]: KindSpec<K> } = {
  powerflow: { work: 'power flow', lane: (p) => bySize(p.input.length), transfer: (p) => [p.input.buffer] },
  study: { work: 'study chunk', lane: () => 'bulk', transfer: (p) => [p.input.buffer, p.study.buffer] },
  opf: { work: 'OPF', lane: (p) => bySize(p.input.length), transfer: (p) => [p.input.buffer] },
  sensitivity: { work: 'sensitivity matrix', lane: (p) => bySize(p.input.length), transfer: (p) => [p.input.buffer, p.items.buffer] },
  stateEstimation: { work: 'state estimate', lane: (p) => bySize(p.input.length), transfer: (p) => [p.input.buffer] },
  layout: {
    work: 'network layout',
    lane: (p) => bySize(p.edges.length),
    transfer: (p) => [p.edges.buffer, ...(p.pinned ? [p.pinned.buffer] : [])],
  },
  // always long: constraint generation solves many outages; the small arrays the caller reads again are copied
  scopf: { work: 'security-constrained OPF', lane: () => 'long', transfer: (p) => [p.opf.buffer, p.dc.buffer] },
  release: { work: 'instance release', lane: () => 'short', transfer: () => [] },
};

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

export function createSolverPool(opts: { threads?: number } = {}): SolverPool {
  const threads = opts.threads ?? defaultThreads();
  const piscina = new Piscina<Task<Kind>, Result<Kind>>({
    filename: workerFile(),
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60_000,
  });
  let closed = false;
  const lanes = new ThreadLanes(threads);
  // Jobs in flight; when none has run for IDLE_RELEASE_MS, large instances are replaced (./instanceRecycling.ts).
  let busy = 0;
  let idleReleases = 0;
  let idle: NodeJS.Timeout | undefined;
  const release = () => Promise.all(Array.from({ length: threads }, () =>
    piscina.run({ stop: jobFlags() } as Task<'release'>, { name: 'release' }) as Promise<number>));
  const jobStarts = () => {
    busy++;
    clearTimeout(idle);
    idle = undefined;
  };
  const jobEnds = () => {
    if (--busy > 0 || closed) return;
    idle = setTimeout(() => {
      idle = undefined;
      idleReleases++;
      release().catch(() => {}); // best effort: a thread ended meanwhile starts afresh anyway
    }, IDLE_RELEASE_MS);
    idle.unref();
  };
  // Live progress of long solves: one BroadcastChannel for the whole pool, messages routed by task key.
  const liveName = `gridops-progress-${randomUUID()}`;
  const liveChannel = new BroadcastChannel(liveName);
  liveChannel.unref();
  const liveHandlers = new Map<number, (from: number, rows: Float64Array) => void>();
  let nextKey = 0;
  liveChannel.onmessage = (e: unknown) => {
    const m = (e as { data: { key: number; from: number; progress: Float64Array } }).data;
    liveHandlers.get(m.key)?.(m.from, m.progress);
  };

  async function onThread<K extends Kind>(kind: K, payload: Payload<K>, hooks: RunHooks, job: JobControl): Promise<Result<K>> {
    const spec = KINDS[kind] as unknown as KindSpec<K>; // TypeScript does not narrow a mapped type by a generic key
    const { onLive, onProgress } = hooks;
    const key = onLive ? nextKey++ : -1;
    const task = { ...payload, stop: job.flags } as Task<K>;
    if (onLive) {
      liveHandlers.set(key, (from, rows) => { if (!job.stopped) onLive(from, rows); });
      task.live = { channel: liveName, key };
    }
    let reported = 0;
    const report = () => {
      const v = job.progress;
      if (v > reported && !job.stopped) {
        reported = v;
        onProgress!(v);
      }
    };
    const poll = onProgress ? setInterval(report, PROGRESS_POLL_MS) : undefined;
    poll?.unref();
    const signal = job.threadSignal;
    const transferList = spec.transfer(payload) as ArrayBuffer[];
    jobStarts();
    try {
      const result = await lanes.run(hooks.lane ?? spec.lane(payload), signal, () =>
        (piscina.run(task, { name: kind, transferList, signal }) as Promise<Result<K>>));
      if (onProgress) report();
      return result;
    } catch (e) {
      return asCoreFailure(spec.work)(e);
    } finally {
      jobEnds();
      if (poll) clearInterval(poll);
      if (key >= 0) liveHandlers.delete(key);
    }
  }

  async function run<K extends Kind>(kind: K, payload: Payload<K>, hooks: RunHooks = {}): Promise<Stoppable<Result<K>>> {
    if (closed) throw new Error('solver pool is closed');
    if (!hooks.answerWhenStopped) return runStoppable(hooks, (job) => onThread(kind, payload, hooks, job));
    // the stop does not settle the run: the job answers with what it finished
    const { signal, timeoutMs } = hooks;
    if (signal?.aborted) return { stopped: 'cancelled' };
    const job = new JobControl();
    const onAbort = () => job.stop('cancelled');
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = timeoutMs !== undefined ? setTimeout(() => job.stop('timeout'), timeoutMs) : undefined;
    try {
      return { stopped: false, value: await onThread(kind, payload, hooks, job) };
    } catch (e) {
      // withdrawn, or its thread ended after the grace: nothing of this job is answered
      if (job.threadSignal.aborted) return { stopped: signal?.aborted ? 'cancelled' : 'timeout' };
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
      job.ended();
      signal?.removeEventListener('abort', onAbort);
    }
  }

  return {
    run,
    async runSensitivity(input, kind, items, signal) {
      const ran = await run('sensitivity', { input, kind, items }, { signal });
      if (ran.stopped) throw Object.assign(new Error('The task has been aborted'), { name: 'AbortError' });
      return ran.value;
    },
    release,
    get idleReleases() { return idleReleases; },
    get threads() { return threads; },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(idle);
      await piscina.close();
      liveChannel.close();
    },
  };
}
