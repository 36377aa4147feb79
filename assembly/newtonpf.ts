// Full Newton-Raphson power flow, polar coordinates, power balance: MATPOWER's
// newtonpf step for step.
//   V = V0; Va = angle(V); Vm = abs(V); F = mismatch; converged = |F|inf < tol
//   while !converged && i < max_it:
//     i++; J = dS/dV(V); dx = -J \ F; Va(pv,pq) += dx; Vm(pq) += dx
//     V = Vm e^{j Va}; Vm = abs(V); Va = angle(V)      (re-wrap)
//     F = mismatch; converged = |F|inf < tol
// The Jacobian pattern and its symbolic LU come from the topology cache; the
// loop itself allocates nothing.
import { Topology } from './topology';
import { SolveResult } from './solveResult';
import { injections, mismatchNR, polarToRect, rectBus, wrapAll, wrapBus } from './mismatch';
import { ptr, geti, getf, setf } from './sparse/raw';
import { fillJacobian } from './jacobian';
import { progress } from './progress';
import { countPivotings } from './analysis';
import { STATUS_CANCELLED, STATUS_CONVERGED, STATUS_MAXIT, STATUS_NAN, STATUS_SINGULAR } from './abi';

/** Solves from topo.vm / topo.va (start point) and leaves the solution there; iterations and the last
 *  mismatch in `result`. */
export function newtonpf(topo: Topology, tol: f64, maxIt: i32, result: SolveResult): i32 {
  const nb = topo.nb;
  const sys = topo.newton();
  const F = sys.rhs;
  const aAt = ptr(sys.aAt), mAt = ptr(sys.mAt);
  const vm = ptr(topo.vm), va = ptr(topo.va), vr = ptr(topo.vr), vi = ptr(topo.vi);
  const f = ptr(F);
  const lu = sys.lu;
  const nJ = topo.nJ;

  wrapAll(topo);
  polarToRect(topo);
  injections(topo);
  let norm = mismatchNR(topo, sys);
  let it = 0;
  let status = STATUS_MAXIT;
  if (norm < tol) status = STATUS_CONVERGED;
  else if (!isFinite(norm)) status = STATUS_NAN;
  while (status == STATUS_MAXIT && it < maxIt) {
    it++;
    fillJacobian(topo);
    if (nJ > 0) {
      const pivoted = max(lu.scalarFallbacks(), 0); // -1: the scalar fallback not analysed yet
      const factored = lu.factorFilled();
      countPivotings(max(lu.scalarFallbacks(), 0) - pivoted);
      if (!factored) { status = STATUS_SINGULAR; break; }
      lu.solveSteps(F); // F := J \ F
    }
    for (let i = 0; i < nb; i++) {
      const a = geti(aAt, i);
      if (a < 0) continue; // reference buses keep their V
      setf(va, i, getf(va, i) - getf(f, a));
      const m = geti(mAt, i);
      if (m >= 0) setf(vm, i, getf(vm, i) - getf(f, m));
      wrapBus(vm, va, i);
      rectBus(vm, va, vr, vi, i);
    }
    injections(topo);
    norm = mismatchNR(topo, sys);
    const stop = progress(it, norm);
    if (norm < tol) { status = STATUS_CONVERGED; break; }
    if (!isFinite(norm)) { status = STATUS_NAN; break; }
    if (stop != 0) { status = STATUS_CANCELLED; break; }
  }
  result.iterations = it;
  result.mismatch = norm;
  return status;
}
