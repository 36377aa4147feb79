// Piscina worker: one WebAssembly power-flow core per thread, instantiated when
// the thread loads this module and kept warm (with its topology cache) for all
// later tasks.
//
// Task (from src/engine/pool.ts):
//   input        Float64Array, the ABI input buffer (transferred, not copied)
//   qlim         enforce generator Q limits (MATPOWER pf.enforce_q_lims = 1)
//   stop         optional Int32Array over a SharedArrayBuffer: [0] non-zero = stop
//                now, read by the progress hook between iterations (Atomics.load),
//                so cancel / timeout end a running solve at its next iteration;
//                [1] is set to 1 here when the task starts.
//   live         optional {channel, key}: once the solve has run LIVE_AFTER_MS, its
//                iterations so far and every later one are posted as they happen on
//                the BroadcastChannel named channel: {key, from, progress: [iteration,
//                mismatch, ...]} (from = index of the first pair in the solve).
// Named export `sensitivity` (pool.runSensitivity): PTDF rows or outage flow shifts of the DC model.
// Named export `scopf` (pool.runScopf): a security-constrained DC-OPF's constraint generation (src/opf/securityWorker.ts).
// Named export `stateEstimation` (pool.runStateEstimation): one state estimate (assembly/se/).
// Named export `layout` (pool.runLayout): a network drawing's bus positions (src/layout/stressLayout.ts).
// Named export `study` (pool.runStudy): one study chunk in the core's loop
// (assembly/study/loop.ts), input + study buffer in, compact Float64Arrays out.
// Named export `opf` (pool.runOpf): one OPF, run by src/opf/worker.ts on the same engine.
// Every kind shares the job protocol of src/engine/jobControl.ts (stop, started, progress slots).
// Result: the ABI output buffer (Float64Array, transferred), header slots
// SOLVE_MS (ms spent in the wasm solve(s), excluding transfer and packing),
// QLIM_RUNS and THREAD filled in here, followed by the progress trailer:
// every iteration's (iteration, mismatch) pair (numbered across Q-limit re-runs),
// then the number of pairs as the buffer's last value.
//
// Why a trailer and not a message per iteration: most solves take a millisecond or
// less, and a cross-thread message (a port per task, a wake-up per message) cost
// more than the solve; only a solve long enough for anyone to watch is reported live.
import { threadId, type BroadcastChannel } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { MAX_INSTANCE_BYTES, PowerFlowEngine } from '../src/engine/solverInstance.js';
import { solveWithQLimits } from '../src/powerflow/qlim.js';
import { OUT, STATUS } from '../src/powerflow/abi.js';
import { REC, VIOL_FIELDS, type StudyWorkerResult } from '../src/studies/abi.js';
import { runOpfTask, type OpfTask } from '../src/opf/worker.js';
import { runScopfTask, type ScopfTask } from '../src/opf/securityWorker.js';
import { LIVE_AFTER_MS, liveChannel } from '../src/engine/liveChannel.js';
import { stressLayout, type LayoutInput } from '../src/layout/stressLayout.js';
import { OUT as SE_OUT } from '../src/stateEstimation/abi.js';
import { JOB, jobStarting } from '../src/engine/jobControl.js';
import { lowerThisThread } from '../src/engine/threadPriority.js';


export interface SolverTask {
  input: Float64Array;
  qlim: boolean;
  stop?: Int32Array;
  live?: { channel: string; key: number };
}

// Below the main thread's priority, so that busy solver threads never starve the event loop
lowerThisThread();

const engine = new PowerFlowEngine();

/** After every task: an instance that grew past MAX_INSTANCE_BYTES (a large OPF or matrix) is replaced, and the
 *  old one collected at once where the process allows it (--expose-gc), so the thread's memory goes back. */
function afterTask(): void {
  if (engine.recycleAbove(MAX_INSTANCE_BYTES)) (globalThis as { gc?: () => void }).gc?.();
}

// Progress of the current solve: pairs (iteration, mismatch), reused across solves.
let progress = new Float64Array(512);
let pairs = 0;
let sentLive = 0;
let startedAt = 0;
let live: { channel: BroadcastChannel; key: number } | undefined;
let stop: Int32Array | undefined;
let offset = 0;

function postLive(): void {
  live!.channel.postMessage({ key: live!.key, from: sentLive, progress: progress.slice(2 * sentLive, 2 * pairs) });
  sentLive = pairs;
}

engine.onProgress = (iteration: number, mismatch: number): number => {
  if (2 * pairs + 2 > progress.length) {
    const grown = new Float64Array(progress.length * 2);
    grown.set(progress);
    progress = grown;
  }
  progress[2 * pairs] = offset + iteration;
  progress[2 * pairs + 1] = mismatch;
  pairs++;
  if (live && performance.now() - startedAt >= LIVE_AFTER_MS) postLive();
  return stop ? Atomics.load(stop, JOB.STOP) : 0;
};


/** out followed by the progress trailer (see the header). */
function withProgress(out: Float64Array): Float64Array {
  const full = new Float64Array(out.length + 2 * pairs + 1);
  full.set(out);
  full.set(progress.subarray(0, 2 * pairs), out.length);
  full[full.length - 1] = pairs;
  return full;
}

/** One power flow (Piscina's default export: pool.runPowerFlow). */
export default function solveTask(task: SolverTask): unknown {
  stop = task.stop;
  live = task.live ? { channel: liveChannel(task.live.channel), key: task.live.key } : undefined;
  offset = 0;
  pairs = 0;
  sentLive = 0;
  startedAt = performance.now();
  try {
    if (stop && jobStarting(stop)) {
      const out = new Float64Array(OUT.HEADER);
      out[OUT.STATUS] = STATUS.CANCELLED;
      return move(withProgress(out));
    }
    const out = task.qlim
      ? solveWithQLimits(task.input, (inp) => engine.solve(inp), (its) => { offset = its; })
      : engine.solve(task.input);
    out[OUT.SOLVE_MS] = performance.now() - startedAt;
    if (!task.qlim) out[OUT.QLIM_RUNS] = 1;
    out[OUT.THREAD] = threadId;
    return move(withProgress(out));
  } finally {
    live = undefined;
    stop = undefined;
    afterTask();
  }
}

/** One OPF (pool.runOpf; src/opf/worker.ts). */
export function opf(task: OpfTask): unknown {
  return runOpfTask(engine, task).then((out) => move(out)).finally(afterTask);
}

export interface StudyTask {
  input: Float64Array;
  study: Float64Array;
  monitorPerCase: number;
  /** the job's flags (src/engine/jobControl.ts); JOB.PROGRESS: cases done so far */
  stop: Int32Array;
}

/** One study chunk: the progress hook publishes cases done (iteration -1) and reads the stop flag. */
export function study(task: StudyTask): unknown {
  const t0 = performance.now();
  const flags = task.stop;
  const stoppedBefore = jobStarting(flags);
  const hook = engine.onProgress;
  engine.onProgress = (iteration: number, value: number): number => {
    if (iteration === -1) Atomics.store(flags, JOB.PROGRESS, value);
    return Atomics.load(flags, JOB.STOP);
  };
  try {
    if (stoppedBefore) {
      const empty = new Float64Array(0);
      return { done: 0, records: empty, violations: empty, islands: empty, monitor: empty, solveMs: 0 } satisfies StudyWorkerResult;
    }
    const run = engine.runStudy(task.input, task.study, REC.FIELDS, VIOL_FIELDS, task.monitorPerCase);
    const result: StudyWorkerResult = { ...run, solveMs: performance.now() - t0 };
    const buffers = [run.records.buffer, run.violations.buffer, run.islands.buffer, run.monitor.buffer];
    return move({ [transferableSymbol]: buffers, [valueSymbol]: result } as never); // the four buffers are transferred
  } finally {
    engine.onProgress = hook;
    afterTask();
  }
}

export interface SensitivityTask {
  input: Float64Array;
  kind: 0 | 1 | 2;
  items: Float64Array;
}

/** DC sensitivities (assembly/sensitivity.ts): PTDF rows (kind 0), outage flow shifts (kind 1) or PTDF columns
 *  (kind 2), one chunk; null when Bbus is singular. */
export function sensitivity(task: SensitivityTask): unknown {
  try {
    const out = engine.sensitivity(task.input, task.kind, task.items);
    return out === null ? null : move(out);
  } finally {
    afterTask();
  }
}

/** The constraint generation of a security-constrained DC-OPF (src/opf/securityWorker.ts): every round on this thread. */
export function scopf(task: ScopfTask): unknown {
  return runScopfTask(engine, task)
    .then((r) => move({ [transferableSymbol]: [r.output.buffer, r.coefs.buffer], [valueSymbol]: r } as never))
    .finally(afterTask);
}

/** Bus positions of a network drawing: plain JavaScript, on a solver thread so a 10,000-bus layout never
 *  holds the API's event loop. */
export function layout(task: LayoutInput): unknown {
  return move(stressLayout(task));
}

export interface StateEstimationTask {
  input: Float64Array;
  /** the job's flags (src/engine/jobControl.ts); JOB.PROGRESS: the last Gauss–Newton iteration reported */
  stop: Int32Array;
}

/** One state estimate (assembly/se/): the output buffer, SE_OUT_SOLVE_MS filled in (src/stateEstimation/solve.ts). */
export function stateEstimation(task: StateEstimationTask): unknown {
  const t0 = performance.now();
  const flags = task.stop;
  jobStarting(flags); // stopped before: the core's first progress call stops it
  const hook = engine.onProgress;
  engine.onProgress = (iteration: number): number => {
    if (iteration >= 0) Atomics.store(flags, JOB.PROGRESS, iteration); // −1: the residual analysis looking at the stop flag
    return Atomics.load(flags, JOB.STOP);
  };
  try {
    const out = engine.solveStateEstimation(task.input);
    out[SE_OUT.SOLVE_MS] = performance.now() - t0;
    return move(out);
  } finally {
    engine.onProgress = hook;
  }
}
