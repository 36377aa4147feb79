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
import { assertAcOpfEqualsReference, near, type AcOpfReference } from './helpers/opfReference.js';

const DIR = join(ROOT, 'test', 'reference', 'reactive-costs');
const pool = createSolverPool({ threads: 1 });
after(() => pool.close());

const load = (name: string) => parseMatpower(readFileSync(join(DIR, `${name}.m`), 'utf8'), `${name}.m`);

for (const name of ['case9Q', 'case30Q', 'case9Qpwl']) {
  test(`${name}: AC-OPF with reactive costs equals MATPOWER's runopf (PYPOWER)`, async () => {
    const ref = JSON.parse(readFileSync(join(DIR, `${name}.acopf.json`), 'utf8')) as AcOpfReference;
    const net = load(name);
    assert.ok(net.generators.every((g) => g.reactive_cost), 'every generator has its reactive cost');
    assertAcOpfEqualsReference(await solveOpf(pool, net, { method: 'ac' }), ref);
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
