// The OPF side of the Piscina worker (workers/solver.ts): one packed input in, the
// output buffer out, followed by the progress trailer: every MIPS iteration's
// (iteration, feascond, gradcond, compcond, objective), then the number of
// iterations as the buffer's last value. The stop flag ([0] non-zero = stop,
// [1] set here on start) is read between iterations through the progress hook.
import { threadId } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { PowerFlowEngine } from '../powerflow/solverInstance.js';
import { OUT, STATUS } from './abi.js';

export interface OpfTask { kind: 'opf'; input: Float64Array; stop?: Int32Array }

export const PROGRESS_FIELDS = 5;

let progress = new Float64Array(PROGRESS_FIELDS * 64);

export function runOpfTask(engine: PowerFlowEngine, task: OpfTask): Float64Array {
  const stop = task.stop;
  let n = 0;
  const started = performance.now();
  if (stop && Atomics.load(stop, 0) !== 0) {
    const out = new Float64Array(OUT.HEADER + 1);
    out[OUT.STATUS] = STATUS.CANCELLED;
    return out;
  }
  if (stop) Atomics.store(stop, 1, 1);
  engine.onOpfProgress = (it, feas, grad, comp, obj) => {
    if (PROGRESS_FIELDS * (n + 1) > progress.length) {
      const grown = new Float64Array(progress.length * 2);
      grown.set(progress);
      progress = grown;
    }
    progress.set([it, feas, grad, comp, obj], PROGRESS_FIELDS * n);
    n++;
    return stop ? Atomics.load(stop, 0) : 0;
  };
  try {
    const out = engine.solveOpf(task.input);
    out[OUT.SOLVE_MS] = performance.now() - started;
    out[OUT.THREAD] = threadId;
    const full = new Float64Array(out.length + PROGRESS_FIELDS * n + 1);
    full.set(out);
    full.set(progress.subarray(0, PROGRESS_FIELDS * n), out.length);
    full[full.length - 1] = n;
    return full;
  } finally {
    engine.onOpfProgress = () => 0;
  }
}
