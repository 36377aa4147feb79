// Gauss–Newton WLS as doSE: flat start (every magnitude at 1 or its generator's set-point, every angle 0, the
// reference bus held there), G Δx = Hᵀ W r each iteration, converged when ‖Hᵀ W r‖∞ < tol, that last step still
// applied (doSE applies it), J from the last evaluation. The observability check runs on the first iteration
// (the flat start), where doSE's isobservable first refuses.
import { progress } from '../progress';
import { Estimator } from './estimator';
import { markBuses, unobservableStates } from './observability';
/** A step under this (p.u., radians) ends the iterations too: on a large, stiff network (case9241pegase) the
 *  weighted gradient stalls at its float64 rounding floor (about 5e-4 there) above doSE's 1e-5, and further steps
 *  change nothing. doSE's rule alone decides every reference case. */
const STEP_FLOOR: f64 = 1e-11;

import { SE_STATUS_CANCELLED, SE_STATUS_CONVERGED, SE_STATUS_DIVERGED, SE_STATUS_UNOBSERVABLE } from './abi';

/** One estimate from the flat start; `before` iterations of earlier passes number the progress reports. */
export function gaussNewton(e: Estimator, maxIt: i32, tol: f64, before: i32): i32 {
  const net = e.net, vm = e.vm, va = e.va, n = net.n, nn = net.nb - 1;
  for (let i = 0; i < net.nb; i++) { unchecked(vm[i] = net.vm0[i]); unchecked(va[i] = 0.0); }
  e.iterations = 0;
  for (let it = 1; it <= maxIt; it++) {
    e.iterations = it;
    e.evaluate(true);
    const ok = e.g.factor();
    if (it == 1) {
      e.deficit = unobservableStates(e.h, e.ms, e.g, !ok, e.stateFlags);
      markBuses(net, e.stateFlags, e.busFlags);
      if (e.deficit > 0 || !ok) return SE_STATUS_UNOBSERVABLE;
    } else if (!ok) return SE_STATUS_DIVERGED;
    const dx = e.dx, F = e.F;
    let normF = 0.0;
    for (let j = 0; j < n; j++) {
      const f = unchecked(F[j]);
      unchecked(dx[j] = f);
      if (Math.abs(f) > normF) normF = Math.abs(f);
    }
    e.normF = normF;
    e.g.solve(dx);
    let step = 0.0;
    for (let j = 0; j < n; j++) if (Math.abs(unchecked(dx[j])) > step) step = Math.abs(unchecked(dx[j]));
    for (let i = 0; i < net.nb; i++) {
      const a = unchecked(net.aCol[i]);
      if (a < 0) continue;
      let m = unchecked(vm[i]) + unchecked(dx[net.vCol[i]]);
      let t = unchecked(va[i]) + unchecked(dx[a]);
      // V = Vm e^{jVa}, then Vm = |V|, Va = angle(V), as doSE does (a negative magnitude turns the angle)
      if (m < 0.0) { m = -m; t += Math.PI; }
      if (t > Math.PI || t <= -Math.PI) t = Math.atan2(Math.sin(t), Math.cos(t));
      unchecked(vm[i] = m); unchecked(va[i] = t);
    }
    if (!isFinite(normF)) return SE_STATUS_DIVERGED;
    if (progress(before + it, normF) != 0) return SE_STATUS_CANCELLED;
    if (normF < tol || step < STEP_FLOOR) return SE_STATUS_CONVERGED;
    void nn;
  }
  return SE_STATUS_DIVERGED;
}
