// DC lines in the OPF against MATPOWER's runopf / rundcopf with toggle_dcline (test/reference/dcline-opf, made by
// make_reference.m there): t_case9_dcline with and without its mpc.dclinecost, and case_ACTIVSg2000 with three DC
// lines added. Objective to 1e-6 relative; Vm to 1e-5, angles to 1e-6 rad; Pg, Qg, branch flows, LMPs and the DC
// lines' flows and multipliers to 1e-3 (MW, MVAr, currency/MWh); MIPS's iteration count where MIPS solves the
// same problem the same way (not the LPs, which gridops' MIPS runs with Mehrotra's predictor–corrector).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, ROOT } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { writeMatpower } from '../src/matpower/writer.js';
import { createSolverPool } from '../src/engine/pool.js';
import { solveOpf } from '../src/opf/solve.js';
import { solveSecurityConstrainedDcOpf } from '../src/opf/security.js';
import { fromTerminalCost } from '../src/opf/dcLines.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import type { OpfResult } from '../src/opf/types.js';
import { near } from './helpers/opfReference.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const DIR = join(ROOT, 'test', 'reference', 'dcline-opf');
const pool = createSolverPool({ threads: 1 });
after(() => pool.close());

interface DcLineRef {
  from: number;
  to: number;
  status: number;
  pf: number;
  pt: number;
  qf: number;
  qt: number;
  vf: number;
  vt: number;
  mu_pmin: number;
  mu_pmax: number;
  mu_qminf: number;
  mu_qmaxf: number;
  mu_qmint: number;
  mu_qmaxt: number;
}
interface Ref {
  opf_solver: string;
  success: number;
  f: number;
  iterations: number;
  bus: { id: number; vm: number; va: number; lam_p: number }[];
  gen: { bus: number; pg: number; qg: number; mu_pmin: number; mu_pmax: number }[];
  branch: { pf: number; qf: number; pt: number; qt: number }[];
  dcline: DcLineRef[];
}

/** The case as make_reference.m ran it (DC: t_dcline's changes that make t_case9_dcline feasible in DC). */
function network(name: string, method: 'dc' | 'ac'): NetworkModel {
  let net: NetworkModel;
  if (name === 'case_ACTIVSg2000_dcline') {
    const text = readFileSync(join(CASES_DIR, 'case_ACTIVSg2000.m'), 'utf8') + readFileSync(join(DIR, 'case_ACTIVSg2000.dcline.m'), 'utf8');
    net = parseMatpower(text, 'case_ACTIVSg2000_dcline.m');
  } else {
    net = parseMatpower(readFileSync(join(DIR, 't_case9_dcline.m'), 'utf8'), 't_case9_dcline.m');
    if (name === 't_case9_dcline_nocost') for (const d of net.dc_lines!) delete d.cost;
    if (method === 'dc') {
      net.generators[0]!.pmin = 10;
      net.branches[4]!.rate_a = 100;
    }
  }
  return net;
}

function assertEqualsReference(r: OpfResult, ref: Ref, method: 'dc' | 'ac', lp: boolean): void {
  assert.equal(r.status, 'converged', r.message);
  assert.equal(ref.success, 1);
  near(r.objective, ref.f, 1e-6 * Math.abs(ref.f), 'objective');
  if (!lp) assert.equal(r.iterations, ref.iterations, 'MIPS iterations');
  ref.bus.forEach((b, i) => {
    const x = r.buses[i]!;
    assert.equal(x.id, b.id);
    near(x.v, b.vm, 1e-5, `bus ${b.id} v`);
    near(x.theta, b.va, 1e-6, `bus ${b.id} theta`);
    near(x.lmp_p, b.lam_p, 1e-3, `bus ${b.id} lmp_p`);
  });
  assert.equal(r.generators.length, ref.gen.length, "the DC lines' terminals are not among the generators");
  ref.gen.forEach((g, i) => {
    near(r.generators[i]!.p_mw, g.pg, 1e-3, `generator ${i} p_mw`);
    if (method === 'ac') near(r.generators[i]!.q_mvar, g.qg, 1e-3, `generator ${i} q_mvar`);
    near(r.generators[i]!.mu_pmin, g.mu_pmin, 1e-3, `generator ${i} mu_pmin`);
    near(r.generators[i]!.mu_pmax, g.mu_pmax, 1e-3, `generator ${i} mu_pmax`);
  });
  ref.branch.forEach((b, i) => {
    near(r.branches[i]!.p_from, b.pf, 1e-3, `branch ${i} p_from`);
    near(r.branches[i]!.p_to, b.pt, 1e-3, `branch ${i} p_to`);
    if (method === 'ac') near(r.branches[i]!.q_from, b.qf, 1e-3, `branch ${i} q_from`);
  });
  assert.equal(r.dc_lines?.length, ref.dcline.length);
  ref.dcline.forEach((d, k) => {
    const x = r.dc_lines![k]!;
    assert.deepEqual([x.index, x.from, x.to, x.in_service], [k, d.from, d.to, d.status === 1]);
    if (d.status !== 1) {
      // MATPOWER keeps an out-of-service line's columns as they were; gridops answers zero flows
      assert.deepEqual([x.p_from, x.p_to, x.q_from, x.q_to, x.mu_pmin, x.mu_pmax], [0, 0, 0, 0, 0, 0]);
      return;
    }
    const pairs: [number, number, string][] = [
      [x.p_from, d.pf, 'p_from'],
      [x.p_to, d.pt, 'p_to'],
      [x.q_from, d.qf, 'q_from'],
      [x.q_to, d.qt, 'q_to'],
      [x.mu_pmin, d.mu_pmin, 'mu_pmin'],
      [x.mu_pmax, d.mu_pmax, 'mu_pmax'],
      [x.mu_qmin_from, d.mu_qminf, 'mu_qmin_from'],
      [x.mu_qmax_from, d.mu_qmaxf, 'mu_qmax_from'],
      [x.mu_qmin_to, d.mu_qmint, 'mu_qmin_to'],
      [x.mu_qmax_to, d.mu_qmaxt, 'mu_qmax_to'],
    ];
    for (const [a, b, what] of pairs) near(a, b, 1e-3, `DC line ${k} ${what}`);
    near(x.v_from, d.vf, 1e-5, `DC line ${k} v_from`);
    near(x.v_to, d.vt, 1e-5, `DC line ${k} v_to`);
  });
}

for (const name of ['t_case9_dcline', 't_case9_dcline_nocost', 'case_ACTIVSg2000_dcline']) {
  for (const method of ['dc', 'ac'] as const) {
    const runner = method === 'dc' ? 'rundcopf' : 'runopf';
    test(`${name} ${method.toUpperCase()}-OPF with its DC lines equals MATPOWER's ${runner} with toggle_dcline`, {
      timeout: 300_000,
    }, async () => {
      const ref = JSON.parse(readFileSync(join(DIR, `${name}.${method}opf.json`), 'utf8')) as Ref;
      const net = network(name, method);
      const r = await solveOpf(pool, net, { method });
      // t_case9_dcline's costs are piecewise linear and linear: its DC-OPF is an LP
      assertEqualsReference(r, ref, method, method === 'dc' && name.startsWith('t_case9'));
      // the row that links a line's ends holds: p_to = p_from − (loss0 + loss1·p_from)
      net.dc_lines!.forEach((d, k) => {
        if (d.in_service)
          near(r.dc_lines![k]!.p_to, r.dc_lines![k]!.p_from - (d.loss0 + d.loss1 * r.dc_lines![k]!.p_from), 1e-6, `DC line ${k} loss`);
      });
    });
  }
}

test("a DC line's cost counts: with mpc.dclinecost the objective is MATPOWER's, without it another one", async () => {
  const withCost = JSON.parse(readFileSync(join(DIR, 't_case9_dcline.acopf.json'), 'utf8')) as Ref;
  const without = JSON.parse(readFileSync(join(DIR, 't_case9_dcline_nocost.acopf.json'), 'utf8')) as Ref;
  assert.ok(withCost.f - without.f > 1, 'the references differ by the cost of line 4');
  // written back (mpc.dclinecost) and read again, the costed network answers the same
  const again = parseMatpower(writeMatpower(network('t_case9_dcline', 'ac')), 'again.m');
  assert.deepEqual(
    again.dc_lines!.map((d) => d.cost),
    network('t_case9_dcline', 'ac').dc_lines!.map((d) => d.cost),
  );
  const r = await solveOpf(pool, again, { method: 'ac' });
  near(r.objective, withCost.f, 1e-6 * withCost.f, 'objective after a MATPOWER round trip');
});

test('the "from" terminal\'s cost is the line\'s cost mirrored (toggle_dcline): odd powers change sign, points mirror', () => {
  assert.deepEqual(
    fromTerminalCost({ model: 'polynomial', startup: 0, shutdown: 0, coefficients: [0.5, 7.3, 2] }).coefficients,
    [0.5, -7.3, 2],
  );
  assert.deepEqual(
    fromTerminalCost({ model: 'polynomial', startup: 0, shutdown: 0, coefficients: [1, 0.5, 7.3, 2] }).coefficients,
    [-1, 0.5, -7.3, 2],
  );
  assert.deepEqual(
    fromTerminalCost({ model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [0, 0, 10, 50, 20, 120] }).coefficients,
    [-20, 120, -10, 50, -0, 0],
  );
});

test('a DC line whose flow limits no dispatch can meet makes the OPF infeasible, not a wrong answer', async () => {
  const net = network('t_case9_dcline_nocost', 'ac');
  // line 1 (30 → 4) loses at least 5000 MW: more than the generators can make
  net.dc_lines![0]!.pmin = 9;
  net.dc_lines![0]!.loss0 = 5000;
  const r = await solveOpf(pool, net, { method: 'dc' });
  assert.equal(r.status, 'infeasible');
  assert.match(r.message ?? '', /DC lines' least loss/);
});

// The security-constrained DC-OPF takes the DC lines as the OPF does (their terminal pairs and linking rows are in
// every round's problem); an outage moves power through the DC line preventively. Checked against DC power flows
// of the dispatched network (generators and DC lines at the OPF's values) with each outaged branch open.
test('the security-constrained DC-OPF dispatches DC lines too: every post-contingency flow within its limit', async () => {
  const net = network('t_case9_dcline_nocost', 'dc');
  for (const b of net.branches) b.rate_c = 1.3 * b.rate_a;
  const plain = await solveOpf(pool, net, { method: 'dc' });
  const r = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches', limit: 'rate_c' }, { method: 'dc' });
  assert.equal(r.status, 'converged', r.message);
  assert.ok(r.security.binding.length > 0, 'a post-contingency limit binds');
  assert.ok(r.objective > plain.objective + 1, 'security costs something');
  // line 2 (7 → 9) carries more than its minimum to relieve the binding outage
  assert.ok(r.dc_lines![1]!.p_from > plain.dc_lines![1]!.p_from + 1, `${r.dc_lines![1]!.p_from} vs ${plain.dc_lines![1]!.p_from} MW`);
  const dispatched: NetworkModel = {
    ...net,
    generators: net.generators.map((g, i) => ({ ...g, mw: r.generators[i]!.p_mw })),
    dc_lines: net.dc_lines!.map((d, k) => ({ ...d, p_from: r.dc_lines![k]!.p_from })),
  };
  for (let k = 0; k < net.branches.length; k++) {
    if (r.security.excluded.includes(k)) continue;
    const changed = { ...dispatched, branches: dispatched.branches.map((b, l) => (l === k ? { ...b, status: 'open' as const } : b)) };
    const pf = await solvePowerFlow(pool, changed, {
      method: 'dc',
      tolerance: 1e-8,
      maxIterations: 10,
      flatStart: false,
      enforceQLimits: false,
      timeoutMs: 30_000,
    });
    assert.equal(pf.status, 'converged');
    for (const b of pf.branches) {
      if (b.index === k || !(net.branches[b.index]!.rate_a > 0)) continue;
      assert.ok(
        Math.abs(b.p_from) <= net.branches[b.index]!.rate_c! + 1e-3,
        `outage ${k}: branch ${b.index} carries ${b.p_from} MW of ${net.branches[b.index]!.rate_c}`,
      );
    }
    for (const x of r.security.binding.filter((y) => y.outage === k))
      near(pf.branches[x.branch]!.p_from, x.flow_mw, 1e-3, `flow of ${x.branch} after ${k}`);
  }
});
