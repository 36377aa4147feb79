// Piscina worker: one WebAssembly power-flow core per thread, instantiated when
// the thread loads this module and kept warm (with its topology cache) for all
// later tasks.
//
// Task (from src/powerflow/pool.ts):
//   input        Float64Array, the ABI input buffer (transferred, not copied)
//   qlim         enforce generator Q limits (MATPOWER pf.enforce_q_lims = 1)
//   stop         optional Int32Array over a SharedArrayBuffer: [0] non-zero = stop
//                now, read by the progress hook between iterations (Atomics.load),
//                so cancel / timeout end a running solve at its next iteration;
//                [1] is set to 1 here when the task starts.
//   port         optional MessagePort: receives {type:'progress', iteration,
//                mismatch} after every iteration (numbered across Q-limit
//                re-runs), then {type:'done'}.
// Result: the ABI output buffer (Float64Array, transferred), header slots
// SOLVE_MS (ms spent in the wasm solve(s), excluding transfer and packing),
// QLIM_RUNS and THREAD filled in here.
import { threadId, type MessagePort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { move } from 'piscina';
import { PowerFlowEngine } from '../src/powerflow/engine.js';
import { solveWithQLimits } from '../src/powerflow/qlim.js';
import { OUT, STATUS } from '../src/powerflow/abi.js';

export interface SolverTask {
  input: Float64Array;
  qlim: boolean;
  stop?: Int32Array;
  port?: MessagePort;
}

const engine = new PowerFlowEngine();

let port: MessagePort | undefined;
let stop: Int32Array | undefined;
let offset = 0;

engine.onProgress = (iteration: number, mismatch: number): number => {
  port?.postMessage({ type: 'progress', iteration: offset + iteration, mismatch });
  return stop ? Atomics.load(stop, 0) : 0;
};

export default function solveTask(task: SolverTask): unknown {
  port = task.port;
  stop = task.stop;
  offset = 0;
  try {
    if (stop && Atomics.load(stop, 0) !== 0) {
      const out = new Float64Array(OUT.HEADER);
      out[OUT.STATUS] = STATUS.CANCELLED;
      return move(out);
    }
    if (stop) Atomics.store(stop, 1, 1);
    const t0 = performance.now();
    const out = task.qlim
      ? solveWithQLimits(task.input, (inp) => engine.solve(inp), (its) => { offset = its; })
      : engine.solve(task.input);
    out[OUT.SOLVE_MS] = performance.now() - t0;
    if (!task.qlim) out[OUT.QLIM_RUNS] = 1;
    out[OUT.THREAD] = threadId;
    return move(out);
  } finally {
    port?.postMessage({ type: 'done' });
    port = undefined;
    stop = undefined;
  }
}
