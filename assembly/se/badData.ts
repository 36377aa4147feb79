// Largest-normalized-residual bad-data removal around the estimator (doSE has none; CONTRACT "State estimation"):
// while the largest |r_N| over the non-critical measurements exceeds the threshold, take that measurement out and
// estimate again from the flat start. Ties (within TIE relative) go to the measurement first in the list;
// critical measurements have no r_N and so are never removed.
import { Estimator } from './estimator';
import { gaussNewton } from './gaussNewton';
import { normalizedResiduals, RESIDUALS_DONE, RESIDUALS_STOPPED } from './normalizedResiduals';
import { SE_STATUS_CANCELLED, SE_STATUS_CONVERGED, SE_STATUS_DIVERGED } from './abi';

const TIE: f64 = 1e-6;

export class BadDataRun {
  passes: i32 = 0; totalIterations: i32 = 0; jDoSE: f64 = 0.0;
}

/** threshold ≤ 0: one estimate, no removal; residuals false: no normalized residuals either. */
export function estimateWithBadData(e: Estimator, maxIt: i32, tol: f64, threshold: f64, residuals: bool,
  nr: StaticArray<f64>, ratio: StaticArray<f64>, y: StaticArray<f64>, run: BadDataRun): i32 {
  const ms = e.ms;
  for (let i = 0; i < ms.m; i++) { unchecked(nr[i] = NaN); unchecked(ratio[i] = NaN); }
  for (;;) {
    run.passes++;
    const status = gaussNewton(e, maxIt, tol, run.totalIterations);
    run.totalIterations += e.iterations;
    run.jDoSE = e.J;
    if (status != SE_STATUS_CONVERGED) return status;
    if (!residuals && threshold <= 0.0) return status;
    const done = normalizedResiduals(e, nr, ratio, y);
    if (done != RESIDUALS_DONE) return done == RESIDUALS_STOPPED ? SE_STATUS_CANCELLED : SE_STATUS_DIVERGED;
    if (threshold <= 0.0) return status;
    let best = 0.0;
    for (let i = 0; i < ms.m; i++) {
      const v = Math.abs(unchecked(nr[i]));
      if (v > best) best = v; // NaN (critical, removed) never compares greater
    }
    if (!(best > threshold)) return status;
    for (let i = 0; i < ms.m; i++) {
      if (Math.abs(unchecked(nr[i])) >= best * (1.0 - TIE)) {
        unchecked(ms.w[i] = 0.0);
        unchecked(ms.removedPass[i] = run.passes);
        unchecked(ms.removedNr[i] = nr[i]);
        break;
      }
    }
  }
  return SE_STATUS_DIVERGED; // not reached: every pass removes one measurement or returns
}
