// The what-if check (src/studies/whatIf.ts) on its own, with the real solver pool and
// MATPOWER's case30: the verdicts a study or a control command builds on, and the shared
// island search (src/lib/graph.ts) underneath.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { changeAsStudyCase, whatIf, type BaseFlows } from '../src/studies/whatIf.js';
import { createModelStore } from '../src/cache/modelStore.js';
import { branchIds } from '../src/domain/alarmRules.js';
import { connectedComponents } from '../src/lib/graph.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { CASES_DIR } from '../src/paths.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

let pool: SolverPool;
let case30: NetworkModel;
before(() => {
  pool = createSolverPool({ threads: 1 });
  case30 = parseMatpower(readFileSync(join(CASES_DIR, 'case30.m'), 'utf8'), 'case30.m');
});
after(async () => { await pool.close(); });

const open = (m: NetworkModel, from: number, to: number): NetworkModel => ({
  ...m, branches: m.branches.map((b) => ((b.from === from && b.to === to) || (b.from === to && b.to === from) ? { ...b, status: 'open' as const } : b)),
});
const unlimited = (m: NetworkModel): NetworkModel => ({ ...m, branches: m.branches.map((b) => ({ ...b, rate_a: 0 })) });

test('connectedComponents labels components in order of their lowest node', () => {
  const c = connectedComponents(6, (link) => {
    link(4, 1);
    link(5, 3);
    link(1, 0);
  });
  assert.equal(c.count, 3);
  assert.deepEqual([...c.label], [0, 0, 1, 2, 0, 2]);
});

test('an acceptable change: ok with the changed flow and the island count', async () => {
  const before = unlimited(case30);
  const v = await whatIf(pool, before, open(before, 10, 21), branchIds(before));
  assert.equal(v.ok, true, JSON.stringify(v));
  if (!v.ok) return;
  assert.equal(v.outcome.status, 'converged');
  assert.equal(v.islands, 1);
  assert.equal(v.outcome.branches[26]!.p_from, 0, 'the opened branch carries nothing');
});

test('islanding is judged before any solve', async () => {
  const closed = createSolverPool({ threads: 1 });
  await closed.close(); // a solve would reject: the verdict must come before any
  const v = await whatIf(closed, case30, open(case30, 9, 11), branchIds(case30));
  assert.equal(v.ok, false);
  if (v.ok || v.reason !== 'islanding') return assert.fail(JSON.stringify(v));
  assert.deepEqual(v.buses, [11]);
  assert.deepEqual([v.islandsBefore, v.islandsAfter], [1, 2]);
});

test('limits: a new overload is a violation; an existing one the change barely touches is not', async () => {
  // MATPOWER's case30 ratings: branch 6-8 is already above its rate_a; opening 8-28 pushes it much further.
  // The base solution is kept where the service keeps it (Services.models) and read back by the second check.
  const baseMemo = createModelStore({ maxWeight: 10_000 }).memo<BaseFlows | null>('case30', 1, 'whatIf.base');
  const v = await whatIf(pool, case30, open(case30, 8, 28), branchIds(case30), { baseMemo });
  assert.equal(baseMemo.get()?.branches.length, case30.branches.length, 'the base solution is kept');
  if (v.ok || v.reason !== 'limits') return assert.fail(JSON.stringify(v).slice(0, 300));
  const first = v.violations[0]!;
  assert.equal(first.type, 'overload');
  if (first.type !== 'overload') return;
  assert.equal(first.branch_id, '6-8');
  assert.ok(first.loading > (first.loading_before ?? 0) + 1);
  // a change elsewhere that leaves 6-8 as it was: accepted although 6-8 stays above 100 %
  const gen = { ...case30, generators: case30.generators.map((g, i) => (i === 1 ? { ...g, mw: g.mw + 0.5 } : g)) };
  const w = await whatIf(pool, case30, gen, branchIds(case30), { baseMemo });
  assert.equal(w.ok, true, JSON.stringify(w).slice(0, 300));
});

test('the change as a study case: outages and set points are expressed, closing a branch is not', () => {
  const gen = { ...case30, generators: case30.generators.map((g, i) => (i === 1 ? { ...g, mw: g.mw + 5 } : i === 3 ? { ...g, in_service: false } : g)) };
  const both = { ...open(gen, 10, 21), loads: gen.loads.map((l, i) => (i === 0 ? { ...l, mw: l.mw * 1.1 } : l)) };
  const req = changeAsStudyCase(case30, both)!;
  assert.equal(req.kind, 'scenarios');
  assert.deepEqual(req.contingencies, [{ id: 'change', branches: [26], generators: [3] }]);
  assert.deepEqual(Object.keys(req.scenarios!.generators!), ['1']);
  assert.deepEqual(Object.keys(req.scenarios!.loads!), ['0']);
  assert.deepEqual(changeAsStudyCase(case30, open(case30, 10, 21)), {
    kind: 'contingency', method: 'newton_raphson', tolerance: 1e-8, max_iterations: 30, monitor: { branches: 'all', buses: 'all' },
    contingencies: [{ id: 'change', branches: [26], generators: [] }],
  });
  const opened = open(case30, 10, 21);
  assert.equal(changeAsStudyCase(opened, case30), null, 'closing a branch is not an outage');
  assert.equal(changeAsStudyCase(case30, { ...case30, branches: case30.branches.map((b, i) => (i === 0 ? { ...b, x: b.x * 2 } : b)) }), null);
});

test('the study engine judges the change: the same flows as the changed model\'s power flow', async () => {
  const before = unlimited(case30);
  for (const after of [open(before, 10, 21), { ...before, generators: before.generators.map((g, i) => (i === 2 ? { ...g, mw: g.mw + 3 } : g)) }]) {
    const v = await whatIf(pool, before, after, branchIds(before));
    if (!v.ok) return assert.fail(JSON.stringify(v).slice(0, 300));
    assert.equal(v.outcome.engine, 'study');
    const pf = await solvePowerFlow(pool, after, { tolerance: 1e-10 });
    for (const b of v.outcome.buses) assert.ok(Math.abs(b.v - pf.buses.find((x) => x.id === b.id)!.v) < 1e-6, `bus ${b.id}`);
    v.outcome.branches.forEach((f, i) => assert.ok(Math.abs(f.p_from - pf.branches[i]!.p_from) < 1e-4, `branch ${i}`));
    assert.ok(Math.abs(v.outcome.losses.p_mw - pf.losses.p_mw) < 1e-4);
  }
  // closing the branch again: the changed model's own power flow
  const back = await whatIf(pool, open(before, 10, 21), before, branchIds(before));
  if (!back.ok) return assert.fail(JSON.stringify(back).slice(0, 300));
  assert.equal(back.outcome.engine, 'power_flow');
});
