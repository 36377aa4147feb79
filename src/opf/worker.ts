// The OPF side of the Piscina worker (workers/solver.ts): one packed input in, the
// output buffer out, followed by the progress trailer: every MIPS iteration's
// (iteration, feascond, gradcond, compcond, objective), then the number of
// iterations as the buffer's last value. The job's stop (src/engine/jobControl.ts
// ThreadJob) is read between iterations through the progress hook.
// A solve that runs longer than LIVE_AFTER_MS (an AC-OPF of thousands of buses)
// also posts its rows as they come on the pool's BroadcastChannel, as power
// flow does: {key, from, progress}.
import { threadId } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import type { PowerFlowEngine } from '../engine/solverInstance.js';
import { LIVE_AFTER_MS } from '../engine/liveChannel.js';
import type { ThreadJob } from '../engine/jobControl.js';
import { IN, METHOD_CODE, OUT, SOLVER_CODE, STATUS } from './abi.js';
import { solveOpfLp } from './lp.js';

export const PROGRESS_FIELDS = 5;

let progress = new Float64Array(PROGRESS_FIELDS * 64);

/** One OPF of input under job (stopped already: answered at once, as cancelled); live posts its rows once it has run
 *  LIVE_AFTER_MS. The rounds of a security-constrained OPF (./securityWorker.ts) call this under their own job. */
export async function runOpfTask(
  engine: PowerFlowEngine, input: Float64Array, job: ThreadJob, live?: (from: number, rows: Float64Array) => void,
): Promise<Float64Array> {
  let n = 0;
  const started = performance.now();
  if (job.stop !== 0) {
    const out = new Float64Array(OUT.HEADER + 1);
    out[OUT.STATUS] = STATUS.CANCELLED;
    return out;
  }
  let sent = 0;
  engine.onOpfProgress = (it, feas, grad, comp, obj) => {
    if (PROGRESS_FIELDS * (n + 1) > progress.length) {
      const grown = new Float64Array(progress.length * 2);
      grown.set(progress);
      progress = grown;
    }
    progress.set([it, feas, grad, comp, obj], PROGRESS_FIELDS * n);
    n++;
    if (live && performance.now() - started >= LIVE_AFTER_MS) {
      live(sent, progress.slice(PROGRESS_FIELDS * sent, PROGRESS_FIELDS * n));
      sent = n;
    }
    return job.stop;
  };
  try {
    // solveOpf copies input into the core: it stays as sent, for the LP path
    const dc = input[IN.METHOD] === METHOD_CODE.dc;
    let out = engine.solveOpf(input);
    if (dc && out[OUT.STATUS] !== STATUS.CONVERGED && out[OUT.STATUS] !== STATUS.CANCELLED) {
      // MIPS did not converge on a DC-OPF: if its costs are linear it is an LP, which HiGHS solves (./lp.ts),
      // as MATPOWER hands LPs to GLPK; one more progress report at its end
      // HiGHS gets what is left of timeout_ms (it cannot read the stop flag)
      const left = (input[IN.TIME_LIMIT_S] || 600) - (performance.now() - started) / 1000;
      const lp = await solveOpfLp(engine, input, Math.max(left, 0.01));
      if (lp) {
        const last = n > 0 ? progress[PROGRESS_FIELDS * (n - 1)]! : 0;
        engine.onOpfProgress(last + 1, 0, 0, 0, lp.objective);
        out = lp.output;
        out[OUT.LP_ITERATIONS] = lp.iterations;
        out[OUT.SOLVER] = SOLVER_CODE.highs;
        out[OUT.ITER] = last;
      }
    }
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
