// The what-if check (src/powerflow/whatIf.ts) on its own, with the real solver pool and
// MATPOWER's case30: the verdicts a study or a control command builds on, and the shared
// island search (src/lib/graph.ts) underneath.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/powerflow/pool.js';
import { WHAT_IF_SOLVE, whatIf, type Solve } from '../src/powerflow/whatIf.js';
import { branchIds } from '../src/domain/alarms.js';
import { connectedComponents } from '../src/lib/graph.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { CASES_DIR } from '../src/paths.js';

let pool: SolverPool;
let case30: NetworkModel;
let solve: Solve;
before(() => {
  pool = createSolverPool({ threads: 1 });
  case30 = parseMatpower(readFileSync(join(CASES_DIR, 'case30.m'), 'utf8'), 'case30.m');
  solve = (m) => pool.solve(m, { ...WHAT_IF_SOLVE, timeoutMs: 30_000 });
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
  const v = await whatIf(solve, before, open(before, 10, 21), branchIds(before));
  assert.equal(v.ok, true, JSON.stringify(v));
  if (!v.ok) return;
  assert.equal(v.outcome.status, 'converged');
  assert.equal(v.islands, 1);
  assert.equal(v.outcome.branches[26]!.p_from, 0, 'the opened branch carries nothing');
});

test('islanding is judged before any solve', async () => {
  let solves = 0;
  const counting: Solve = (m) => {
    solves++;
    return solve(m);
  };
  const v = await whatIf(counting, case30, open(case30, 9, 11), branchIds(case30));
  assert.equal(v.ok, false);
  if (v.ok || v.reason !== 'islanding') return assert.fail(JSON.stringify(v));
  assert.deepEqual(v.buses, [11]);
  assert.deepEqual([v.islandsBefore, v.islandsAfter], [1, 2]);
  assert.equal(solves, 0);
});

test('limits: a new overload is a violation; an existing one the change barely touches is not', async () => {
  // MATPOWER's case30 ratings: branch 6-8 is already above its rate_a; opening 8-28 pushes it much further.
  const v = await whatIf(solve, case30, open(case30, 8, 28), branchIds(case30), { baseKey: 'case30@test' });
  if (v.ok || v.reason !== 'limits') return assert.fail(JSON.stringify(v).slice(0, 300));
  const first = v.violations[0]!;
  assert.equal(first.type, 'overload');
  if (first.type !== 'overload') return;
  assert.equal(first.branch_id, '6-8');
  assert.ok(first.loading > (first.loading_before ?? 0) + 1);
  // a change elsewhere that leaves 6-8 as it was: accepted although 6-8 stays above 100 %
  const gen = { ...case30, generators: case30.generators.map((g, i) => (i === 1 ? { ...g, mw: g.mw + 0.5 } : g)) };
  const w = await whatIf(solve, case30, gen, branchIds(case30), { baseKey: 'case30@test' });
  assert.equal(w.ok, true, JSON.stringify(w).slice(0, 300));
});
