// MATPOWER DC lines (mpc.dcline): read, written back, and solved as MATPOWER's runpf solves them
// (toggle_dcline: a generator pair per in-service line, p_to = p_from - loss0 - loss1 p_from).
// Reference: test/reference/psse/t_case9_dcline.pf.json, MATPOWER's runpf of its own lib/t/t_case9_dcline.m
// (copied beside it, BSD-3-Clause), made by make_dcline.m there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { writeMatpower } from '../src/matpower/writer.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const DIR = join(ROOT, 'test', 'reference', 'psse');
const text = readFileSync(join(DIR, 't_case9_dcline.m'), 'utf8');
const ref = JSON.parse(readFileSync(join(DIR, 't_case9_dcline.pf.json'), 'utf8')) as { pf: { bus: number[][]; gen: number[][]; branch: number[][]; dcline: number[][] } };

let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 1 }); });
after(async () => { await pool.close(); });

test('mpc.dcline is read (no longer skipped) and written back unchanged', () => {
  const m = parseMatpower(text, 't_case9_dcline.m');
  assert.equal(m.dc_lines?.length, 4);
  assert.deepEqual(m.dc_lines![0], {
    from: 30, to: 4, in_service: true, p_from: 10, p_to: 8.9, q_from: 0, q_to: 0, v_from: 1.01, v_to: 1, pmin: 1, pmax: 10,
    qmin_from: -10, qmax_from: 10, qmin_to: -10, qmax_to: 10, loss0: 1, loss1: 0.01,
    cost: { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [0, 0] },
  });
  // mpc.dclinecost: the OPF cost of p_from, one row per DC line
  assert.deepEqual(m.dc_lines![3]!.cost, { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [7.3, 0] });
  assert.equal(m.dc_lines![2]!.in_service, false);
  const again = parseMatpower(writeMatpower(m), 'again.m');
  assert.deepEqual(again.dc_lines, m.dc_lines);
  // a DC line to a bus that is not in mpc.bus is refused with its line
  assert.throws(() => parseMatpower(text.replace('\t30\t4\t1\t10\t8.9', '\t31\t4\t1\t10\t8.9'), 'bad.m'), /line \d+: expected F_BUS in mpc.dcline to be a bus number/);
});

test('the power flow of a case with DC lines equals MATPOWER runpf (buses, branches, generators, DC lines)', async () => {
  const m = parseMatpower(text, 't_case9_dcline.m');
  const res = await solvePowerFlow(pool, m, { method: 'newton_raphson', tolerance: 1e-8, maxIterations: 10 });
  assert.equal(res.status, 'converged', res.message);
  res.buses.forEach((b, k) => {
    const [id, , vm, va] = ref.pf.bus[k]!;
    assert.equal(b.id, id);
    assert.ok(Math.abs(b.v - vm!) <= 1e-6 && Math.abs(b.theta - (va! * Math.PI) / 180) <= 1e-6, `bus ${id}: ${b.v} ${b.theta}`);
  });
  res.branches.forEach((b, k) => {
    const r = ref.pf.branch[k]!;
    assert.ok(Math.max(Math.abs(b.p_from - r[2]!), Math.abs(b.q_from - r[3]!), Math.abs(b.p_to - r[4]!), Math.abs(b.q_to - r[5]!)) <= 1e-3, `branch ${k + 1}`);
  });
  assert.equal(res.generators.length, 3, 'the generator pairs are not in the answer');
  res.generators.forEach((g, k) => assert.ok(Math.abs(g.p_gen - ref.pf.gen[k]![1]!) <= 1e-3 && Math.abs(g.q_gen - ref.pf.gen[k]![2]!) <= 1e-3, `generator ${k + 1}`));
  assert.equal(res.dc_lines?.length, 4);
  res.dc_lines!.forEach((d, k) => {
    const r = ref.pf.dcline[k]!;
    assert.equal(d.in_service, r[2] === 1);
    const diff = Math.max(Math.abs(d.p_from - r[3]!), Math.abs(d.p_to - r[4]!), Math.abs(d.q_from - r[5]!), Math.abs(d.q_to - r[6]!));
    assert.ok(diff <= 1e-3, `DC line ${k + 1} off by ${diff}: ${JSON.stringify(d)} / ${r}`);
  });
  // bus totals stay the sums of the network's own generators
  const bus30 = res.buses.find((b) => b.id === 30)!;
  assert.ok(Math.abs(bus30.p_gen - 85) <= 1e-9);
});

test('a DC line cost that is not one is refused where the file says so (mpc.dclinecost)', () => {
  assert.throws(() => parseMatpower(text.replace('\t2\t0\t0\t2\t7.3\t0', '\t1\t0\t0\t2\t5\t0'), 'bad.m'), /mpc.dclinecost/);
  assert.throws(() => parseMatpower(text.replace(/mpc.dclinecost = \[\n[^\n]*\n/, 'mpc.dclinecost = [\n'), 'short.m'), /4 rows in mpc.dclinecost/);
});
// The OPF of DC lines (toggle_dcline's generator pairs and linking row) is tested against MATPOWER in test/opf-dcline.test.ts.

