// Comparing an AC-OPF answer with a reference run of MATPOWER's runopf (shared/reference/opf, and
// test/reference/reactive-costs made the same way): one place for the fields and their tolerances.
import assert from 'node:assert/strict';
import type { OpfResult } from '../../src/opf/types.js';

export interface AcOpfReference {
  f: number; iterations: number; success: boolean;
  bus: { id: number; vm: number; va: number; lam_p: number; lam_q: number | null; mu_vmax?: number; mu_vmin?: number }[];
  gen: { bus: number; status: number; pg: number; qg: number | null; mu_pmax: number; mu_pmin: number; mu_qmax?: number; mu_qmin?: number }[];
  branch: { from: number; to: number; status: number; pf: number; qf: number | null; pt: number; qt: number | null; mu_sf: number; mu_st: number }[];
}

export function near(actual: number, expected: number, tol: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs reference ${expected} (tolerance ${tol})`);
}

/** Objective to 1e-6 relative and the iteration count; Vm to 1e-5, angles to 1e-6 rad; powers, prices and every
 *  multiplier to 1e-3 (MW, MVAr, currency/MWh). */
export function assertAcOpfEqualsReference(r: OpfResult, ref: AcOpfReference): void {
  assert.equal(r.status, 'converged', r.message);
  assert.ok(ref.success);
  near(r.objective, ref.f, 1e-6 * Math.abs(ref.f), 'objective');
  assert.equal(r.iterations, ref.iterations, 'MIPS iterations as the reference');
  ref.bus.forEach((b, i) => {
    const x = r.buses[i]!;
    assert.equal(x.id, b.id);
    near(x.v, b.vm, 1e-5, `bus ${b.id} v`);
    near(x.theta, b.va, 1e-6, `bus ${b.id} theta`);
    near(x.lmp_p, b.lam_p, 1e-3, `bus ${b.id} lmp_p`);
    near(x.lmp_q, b.lam_q!, 1e-3, `bus ${b.id} lmp_q`);
    near(x.mu_vmax, b.mu_vmax!, 1e-3, `bus ${b.id} mu_vmax`);
    near(x.mu_vmin, b.mu_vmin!, 1e-3, `bus ${b.id} mu_vmin`);
  });
  ref.gen.forEach((g, i) => {
    const x = r.generators[i]!;
    near(x.p_mw, g.pg, 1e-3, `generator ${i} p_mw`);
    near(x.q_mvar, g.qg!, 1e-3, `generator ${i} q_mvar`);
    near(x.mu_pmax, g.mu_pmax, 1e-3, `generator ${i} mu_pmax`);
    near(x.mu_pmin, g.mu_pmin, 1e-3, `generator ${i} mu_pmin`);
    near(x.mu_qmax, g.mu_qmax!, 1e-3, `generator ${i} mu_qmax`);
    near(x.mu_qmin, g.mu_qmin!, 1e-3, `generator ${i} mu_qmin`);
  });
  ref.branch.forEach((b, i) => {
    const x = r.branches[i]!;
    near(x.p_from, b.pf, 1e-3, `branch ${i} p_from`);
    near(x.q_from, b.qf!, 1e-3, `branch ${i} q_from`);
    near(x.p_to, b.pt, 1e-3, `branch ${i} p_to`);
    near(x.q_to, b.qt!, 1e-3, `branch ${i} q_to`);
    near(x.mu_sf, b.mu_sf, 1e-3, `branch ${i} mu_sf`);
    near(x.mu_st, b.mu_st, 1e-3, `branch ${i} mu_st`);
  });
}
