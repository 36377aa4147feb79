// Piscina worker: one WebAssembly core per thread, instantiated when the thread loads this module and kept warm
// (with its topology cache) for all later tasks. It runs the kinds of job of src/engine/kinds.ts: `kinds` below
// has one function per kind, exported again under the kind's name, which pool.run (src/engine/pool.ts) gives
// Piscina as the task's `name`. Each task is its kind's payload plus the job's slots (stop: the job's flags,
// src/engine/jobControl.ts; live: where a long solve posts its progress as it happens, src/engine/liveChannel.ts);
// every kind starts, reads its stop and writes its progress through one ThreadJob.
//
//   powerflow        the ABI input buffer in (transferred, not copied), qlim: enforce generator Q limits
//                    (MATPOWER pf.enforce_q_lims = 1). Result: the ABI output buffer (transferred), header slots
//                    SOLVE_MS (ms spent in the wasm solve(s), excluding transfer and packing), QLIM_RUNS and
//                    THREAD filled in here, followed by the progress trailer: every iteration's (iteration,
//                    mismatch) pair (numbered across Q-limit re-runs), then the number of pairs as the last value.
//                    Once the solve has run LIVE_AFTER_MS, its pairs so far and every later one are posted live.
//   study            one study chunk in the core's loop (assembly/study/loop.ts): compact Float64Arrays out; a
//                    screened chunk's estimate and then the cases it keeps (src/studies/screenRule.ts)
//   opf              one OPF, run by src/opf/worker.ts on the same engine
//   sensitivity      PTDF rows, outage flow shifts or PTDF columns of the DC model, one chunk
//   stateEstimation  one state estimate (assembly/se/)
//   layout           a network drawing's bus positions (src/layout/stressLayout.ts)
//   scopf            a security-constrained DC-OPF's constraint generation (src/opf/securityWorker.ts)
//
// Why a trailer and not a message per iteration: most solves take a millisecond or
// less, and a cross-thread message (a port per task, a wake-up per message) cost
// more than the solve; only a solve long enough for anyone to watch is reported live.
import { threadId } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { PowerFlowEngine } from '../src/engine/solverInstance.js';
import { InstanceRecycling } from '../src/engine/instanceRecycling.js';
import { solveWithQLimits } from '../src/powerflow/qlim.js';
import { OUT, STATUS } from '../src/powerflow/abi.js';
import { REC, VIOL_FIELDS, type StudyWorkerResult } from '../src/studies/abi.js';
import { keptCases, keptStudy, type StudyTaskResult } from '../src/studies/screenRule.js';
import { runOpfTask } from '../src/opf/worker.js';
import { runScopfTask } from '../src/opf/securityWorker.js';
import { LIVE_AFTER_MS, livePoster } from '../src/engine/liveChannel.js';
import { stressLayout } from '../src/layout/stressLayout.js';
import { OUT as SE_OUT } from '../src/stateEstimation/abi.js';
import { ThreadJob } from '../src/engine/jobControl.js';
import { lowerThisThread } from '../src/engine/threadPriority.js';
import type { Kind, Task } from '../src/engine/kinds.js';

// Below the main thread's priority, so that busy solver threads never starve the event loop
lowerThisThread();

const engine = new PowerFlowEngine();

/** After every task a grown instance is replaced; a large one when the pool is idle (src/engine/instanceRecycling.ts). */
const recycling = new InstanceRecycling(engine);
function afterTask(): void {
  recycling.taskEnded();
}

// Progress of the current power flow: pairs (iteration, mismatch), reused across solves.
let progress = new Float64Array(512);
let pairs = 0;
let sentLive = 0;
let startedAt = 0;
let live: ((from: number, rows: Float64Array) => void) | undefined;
let current: ThreadJob | undefined;
let offset = 0;

engine.onProgress = (iteration: number, mismatch: number): number => {
  if (2 * pairs + 2 > progress.length) {
    const grown = new Float64Array(progress.length * 2);
    grown.set(progress);
    progress = grown;
  }
  progress[2 * pairs] = offset + iteration;
  progress[2 * pairs + 1] = mismatch;
  pairs++;
  if (live && performance.now() - startedAt >= LIVE_AFTER_MS) {
    live(sentLive, progress.slice(2 * sentLive, 2 * pairs));
    sentLive = pairs;
  }
  return current ? current.stop : 0;
};

/** out followed by the progress trailer (see the header). */
function withProgress(out: Float64Array): Float64Array {
  const full = new Float64Array(out.length + 2 * pairs + 1);
  full.set(out);
  full.set(progress.subarray(0, 2 * pairs), out.length);
  full[full.length - 1] = pairs;
  return full;
}

function powerflowTask(task: Task<'powerflow'>, job: ThreadJob): unknown {
  current = job;
  live = livePoster(task.live);
  offset = 0;
  pairs = 0;
  sentLive = 0;
  startedAt = performance.now();
  try {
    if (job.stoppedBefore) {
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
    current = undefined;
    afterTask();
  }
}

function opfTask(task: Task<'opf'>, job: ThreadJob): unknown {
  return runOpfTask(engine, task.input, job, livePoster(task.live)).then((out) => move(out)).finally(afterTask);
}

/** One study chunk: the progress hook publishes cases done (iteration -1) and reads the stop flag. A screened chunk
 *  (`kept`) runs its estimate, then at once the cases the screen keeps (src/studies/screenRule.ts): one task, no
 *  round trip through the main thread between the two, the kept run taking the estimate's Newton base solve. */
function studyTask(task: Task<'study'>, job: ThreadJob): unknown {
  const t0 = performance.now();
  const hook = engine.onProgress;
  let reporting = task.kept === undefined; // a screened chunk's progress: its kept cases
  engine.onProgress = (iteration: number, value: number): number => {
    if (iteration === -1 && reporting) job.progress(value);
    return job.stop;
  };
  try {
    if (job.stoppedBefore) {
      const empty = new Float64Array(0);
      return { done: 0, records: empty, violations: empty, islands: empty, monitor: empty, solveMs: 0 } satisfies StudyWorkerResult;
    }
    const run = engine.runStudy(task.input, task.study, REC.FIELDS, VIOL_FIELDS, task.monitorPerCase);
    const result: StudyTaskResult = { ...run, solveMs: 0 };
    const buffers = [run.records.buffer, run.violations.buffer, run.islands.buffer, run.monitor.buffer];
    const k = task.kept;
    if (k && run.done === k.candidates.length) {
      const cases = keptCases(k, run);
      reporting = true;
      const kept = cases.length > 0
        ? engine.runStudy(k.input, keptStudy(k.study, cases, k.nb, k.nl, k.ng), REC.FIELDS, VIOL_FIELDS, k.monitorPerCase)
        : { done: 0, records: new Float64Array(0), violations: new Float64Array(0), islands: new Float64Array(0), monitor: new Float64Array(0) };
      result.kept = { ...kept, cases: Float64Array.from(cases), solveMs: 0 };
      buffers.push(kept.records.buffer, kept.violations.buffer, kept.islands.buffer, kept.monitor.buffer, result.kept.cases.buffer);
    }
    result.solveMs = performance.now() - t0;
    return move({ [transferableSymbol]: buffers, [valueSymbol]: result } as never); // the buffers are transferred
  } finally {
    engine.onProgress = hook;
    afterTask();
  }
}

/** DC sensitivities (assembly/sensitivity.ts): PTDF rows (kind 0), outage flow shifts (kind 1) or PTDF columns
 *  (kind 2), one chunk; null when Bbus is singular. */
function sensitivityTask(task: Task<'sensitivity'>): unknown {
  try {
    const out = engine.sensitivity(task.input, task.kind, task.items);
    return out === null ? null : move(out);
  } finally {
    afterTask();
  }
}

/** The constraint generation of a security-constrained DC-OPF (src/opf/securityWorker.ts): every round on this thread. */
function scopfTask(task: Task<'scopf'>, job: ThreadJob): unknown {
  return runScopfTask(engine, task, job, livePoster(task.live))
    .then((r) => move({ [transferableSymbol]: [r.output.buffer, r.coefs.buffer], [valueSymbol]: r } as never))
    .finally(afterTask);
}

/** Bus positions of a network drawing: plain JavaScript, on a solver thread so a 10,000-bus layout never
 *  holds the API's event loop. */
function layoutTask(task: Task<'layout'>): unknown {
  return move(stressLayout(task));
}

/** One state estimate (assembly/se/): the output buffer, SE_OUT_SOLVE_MS filled in (src/stateEstimation/solve.ts).
 *  Stopped before it started: the core's first progress call stops it. */
function stateEstimationTask(task: Task<'stateEstimation'>, job: ThreadJob): unknown {
  const t0 = performance.now();
  const hook = engine.onProgress;
  engine.onProgress = (iteration: number): number => {
    if (iteration >= 0) job.progress(iteration); // −1: the residual analysis looking at the stop flag
    return job.stop;
  };
  try {
    const out = engine.solveStateEstimation(task.input);
    out[SE_OUT.SOLVE_MS] = performance.now() - t0;
    return move(out);
  } finally {
    engine.onProgress = hook;
  }
}

/** The thread's side of every kind: its job started (when the kind stops between iterations) before it runs. */
function kind<K extends Kind>(run: (task: Task<K>, job: ThreadJob) => unknown, stoppable = true): (task: Task<K>) => unknown {
  return (task) => run(task, new ThreadJob(task.stop, stoppable));
}

/** The kinds of src/engine/kinds.ts; sensitivity and layout never read the stop flag (bounded chunks). */
export const kinds: { [K in Kind]: (task: Task<K>) => unknown } = {
  powerflow: kind(powerflowTask),
  study: kind(studyTask),
  opf: kind(opfTask),
  sensitivity: kind(sensitivityTask, false),
  stateEstimation: kind(stateEstimationTask),
  layout: kind(layoutTask, false),
  scopf: kind(scopfTask),
  release: kind(() => recycling.release(), false),
};

// Piscina finds a task's function by its name among the module's exports
export const { powerflow, study, opf, sensitivity, stateEstimation, layout, scopf, release } = kinds;
