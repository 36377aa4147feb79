// Reactive-power costs (#26 item 4): MATPOWER's gencost with 2·ng rows, read into `reactive_cost`, against
// test/reference/reactive-costs (PYPOWER's runopf, MATPOWER's formulation; how, in its README): objective to
// 1e-6 relative and MIPS's iteration count, every bus, generator and branch value and multiplier to the
// tolerances of test/opf-reference.test.ts. The DC-OPF drops reactive costs, as MATPOWER's does.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, ROOT } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { solveOpf } from '../src/opf/solve.js';

const DIR = join(ROOT, 'test', 'reference', 'reactive-costs');
const pool = createSolverPool({ threads: 1 });
after(() => pool.close());

interface Ref {
  f: number; iterations: number; success: boolean;
  bus: { id: number; vm: number; va: number; lam_p: number; lam_q: number; mu_vmax: number; mu_vmin: number }[];
  gen: { pg: number; qg: number; mu_pmax: number; mu_pmin: number; mu_qmax: number; mu_qmin: number }[];
  branch: { pf: number; qf: number; pt: number; qt: number; mu_sf: number; mu_st: number }[];
}

function near(actual: number, expected: number, tol: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs reference ${expected} (tolerance ${tol})`);
}

const load = (name: string) => parseMatpower(readFileSync(join(DIR, `${name}.m`), 'utf8'), `${name}.m`);

for (const name of ['case9Q', 'case30Q', 'case9Qpwl']) {
  test(`${name}: AC-OPF with reactive costs equals MATPOWER's runopf (PYPOWER)`, async () => {
    const ref = JSON.parse(readFileSync(join(DIR, `${name}.acopf.json`), 'utf8')) as Ref;
    const net = load(name);
    assert.ok(net.generators.every((g) => g.reactive_cost), 'every generator has its reactive cost');
    const r = await solveOpf(pool, net, { method: 'ac' });
    assert.equal(r.status, 'converged', r.message);
    assert.ok(ref.success);
    near(r.objective, ref.f, 1e-6 * Math.abs(ref.f), 'objective');
    assert.equal(r.iterations, ref.iterations, 'MIPS iterations');
    ref.bus.forEach((b, i) => {
      const x = r.buses[i]!;
      assert.equal(x.id, b.id);
      near(x.v, b.vm, 1e-5, `bus ${b.id} v`);
      near(x.theta, b.va, 1e-6, `bus ${b.id} theta`);
      near(x.lmp_p, b.lam_p, 1e-3, `bus ${b.id} lmp_p`);
      near(x.lmp_q, b.lam_q, 1e-3, `bus ${b.id} lmp_q`);
      near(x.mu_vmax, b.mu_vmax, 1e-3, `bus ${b.id} mu_vmax`);
      near(x.mu_vmin, b.mu_vmin, 1e-3, `bus ${b.id} mu_vmin`);
    });
    ref.gen.forEach((g, i) => {
      const x = r.generators[i]!;
      near(x.p_mw, g.pg, 1e-3, `generator ${i} p_mw`);
      near(x.q_mvar, g.qg, 1e-3, `generator ${i} q_mvar`);
      near(x.mu_pmax, g.mu_pmax, 1e-3, `generator ${i} mu_pmax`);
      near(x.mu_pmin, g.mu_pmin, 1e-3, `generator ${i} mu_pmin`);
      near(x.mu_qmax, g.mu_qmax, 1e-3, `generator ${i} mu_qmax`);
      near(x.mu_qmin, g.mu_qmin, 1e-3, `generator ${i} mu_qmin`);
    });
    ref.branch.forEach((b, i) => {
      const x = r.branches[i]!;
      near(x.p_from, b.pf, 1e-3, `branch ${i} p_from`);
      near(x.q_from, b.qf, 1e-3, `branch ${i} q_from`);
      near(x.p_to, b.pt, 1e-3, `branch ${i} p_to`);
      near(x.q_to, b.qt, 1e-3, `branch ${i} q_to`);
      near(x.mu_sf, b.mu_sf, 1e-3, `branch ${i} mu_sf`);
      near(x.mu_st, b.mu_st, 1e-3, `branch ${i} mu_st`);
    });
  });
}

test('the reactive cost changes the AC answer: case9Q costs more than case9 and holds the reactive output nearer 0', async () => {
  const plain = parseMatpower(readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), 'case9.m');
  const [a, q] = await Promise.all([solveOpf(pool, plain, { method: 'ac' }), solveOpf(pool, load('case9Q'), { method: 'ac' })]);
  assert.ok(q.objective > a.objective, `${q.objective} > ${a.objective}`);
  const sumSq = (r: typeof a) => r.generators.reduce((s, g) => s + g.q_mvar ** 2, 0);
  assert.ok(sumSq(q) < sumSq(a), 'Σ Qg² smaller once reactive power costs');
});

test('the DC-OPF drops reactive costs, as MATPOWER\'s: case9Q answers as case9', async () => {
  const plain = parseMatpower(readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), 'case9.m');
  const [a, q] = await Promise.all([solveOpf(pool, plain, { method: 'dc' }), solveOpf(pool, load('case9Q'), { method: 'dc' })]);
  assert.equal(q.status, 'converged');
  near(q.objective, a.objective, 1e-9 * a.objective, 'objective');
  q.generators.forEach((g, i) => near(g.p_mw, a.generators[i]!.p_mw, 1e-9, `generator ${i} p_mw`));
});

test('a reactive cost that is not convex is refused by the AC-OPF naming the generator', async () => {
  const net = load('case9Q');
  net.generators[1]!.reactive_cost = { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [-100, 0, 0, 50, 100, 60] };
  await assert.rejects(solveOpf(pool, net, { method: 'ac' }), (e: Error) => /generator 1 \(bus 2\) reactive_cost: piecewise-linear cost is not convex/.test(e.message));
  // the DC-OPF, which drops reactive costs, still answers
  assert.equal((await solveOpf(pool, net, { method: 'dc' })).status, 'converged');
});
