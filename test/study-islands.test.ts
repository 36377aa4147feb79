// Studies on splitting outages (CONTRACT "Islands"): with islanding isolate (the default) and
// new_reference every splitting case is solved on what stays energized and equals the power
// flow of the changed model with the same rule, warm from the base solution, for Newton,
// fast-decoupled and DC; the MW lost equal MATPOWER's (shared/reference/islands); skip keeps
// the rows of MATPOWER's N-1 loop; and on random splits of case300 the lost load is the sum of
// the de-energized loads and the slack picks up the difference within the losses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyPlan } from '../src/studies/index.js';
import { contingencyModel } from '../src/studies/islanded.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import type { PowerFlowMethod } from '../src/powerflow/types.js';
import { rng } from '../src/lib/rng.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const load = (c: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

async function rows(net: NetworkModel, plan: StudyPlan): Promise<StudyCaseRow[]> {
  const out: StudyCaseRow[] = [];
  const jobs = [];
  for (let s = 0; s < plan.caseCount; s += 40) jobs.push(solveStudyChunk(pool, net, plan, s, Math.min(s + 40, plan.caseCount)));
  for (const c of await Promise.all(jobs)) out.push(...studyChunkRows(plan, c));
  return out;
}

const near = (a: number | null, b: number | null, tol: number, what: string) => {
  if (a === null || b === null) return assert.equal(a, b, what);
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);
};

for (const method of ['newton_raphson', 'fast_decoupled', 'dc'] as PowerFlowMethod[]) {
  for (const islanding of ['isolate', 'new_reference'] as const) {
    test(`case118 N-1 (${method}, ${islanding}): every splitting case is solved and equals the power flow of the changed model`, async () => {
      const net = load('case118');
      const opts = { method, tolerance: 1e-8, max_iterations: method === 'fast_decoupled' ? 30 : 10 };
      const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1', ...opts, islanding });
      const all = await rows(net, plan);
      const skipped = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', ...opts, islanding: 'skip' }));
      const split = skipped.filter((r) => r.status === 'islanded' || r.reason === 'slack_lost');
      assert.ok(split.length >= 9, `case118 has splitting outages (${split.length})`);
      assert.equal(all.filter((r) => r.status === 'islanded').length, 0, 'no case left unsolved');
      const base = await solvePowerFlow(pool, net, { method, tolerance: 1e-8, maxIterations: opts.max_iterations });
      for (const s of split) {
        const row = all.find((r) => r.case_id === s.case_id)!;
        const k = plan.contingencies.findIndex((c) => c.id === s.case_id || `${c.branches.length ? 'branch' : 'generator'}:${c.branches[0] ?? c.generators[0]}` === s.case_id);
        assert.ok(k >= 0, s.case_id);
        if (s.reason === 'slack_lost' && islanding === 'isolate') {
          assert.equal(row.reason, 'slack_lost', `${s.case_id}: isolate keeps a lost reference lost`);
          continue;
        }
        const model = contingencyModel(net, plan, k, base);
        const pf = await solvePowerFlow(pool, model, { method, tolerance: 1e-8, maxIterations: opts.max_iterations, islanding });
        assert.equal(row.status, pf.status === 'converged' ? 'converged' : 'diverged', s.case_id);
        assert.equal(row.iterations, pf.iterations, `${s.case_id} iterations`);
        if (pf.status !== 'converged') continue;
        const on = pf.buses.filter((b) => b.energized !== false);
        near(row.min_v, Math.min(...on.map((b) => b.v)), 1e-12, `${s.case_id} min_v`);
        near(row.max_v, Math.max(...on.map((b) => b.v)), 1e-12, `${s.case_id} max_v`);
        const lost = (pf.lost_load_mw ?? 0) > 0 || (pf.lost_generation_mw ?? 0) > 0 || pf.islands!.some((i) => !i.energized);
        assert.equal(row.islanded !== undefined, lost, `${s.case_id}: islanded names what was lost`);
        if (row.islanded) {
          assert.equal(row.islanded.load_mw, pf.lost_load_mw);
          assert.equal(row.islanded.generation_mw, pf.lost_generation_mw);
          assert.deepEqual(row.islanded.buses, pf.islands!.filter((i) => !i.energized).flatMap((i) => i.buses).sort((a, b) => net.buses.findIndex((x) => x.id === a) - net.buses.findIndex((x) => x.id === b)));
        }
      }
    });
  }
}

test('case118 N-1 isolate: the MW lost equal MATPOWER\'s (shared/reference/islands)', async () => {
  const net = load('case118');
  const { rows: ref } = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'islands', 'case118.n1.json'), 'utf8')) as { rows: { rule: string; branch_index: number; lost_load_mw: number; lost_generation_mw: number; converged: boolean }[] };
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', tolerance: 1e-8, max_iterations: 10 });
  assert.equal(plan.islanding, 'isolate', 'isolate is the default');
  const all = await rows(net, plan);
  for (const r of ref.filter((x) => x.rule === 'isolate')) {
    const row = all.find((x) => x.case_id === `branch:${r.branch_index}`)!;
    assert.equal(row.status, r.converged ? 'converged' : 'diverged', `branch ${r.branch_index}`);
    assert.ok(Math.abs((row.islanded?.load_mw ?? 0) - r.lost_load_mw) < 1e-9, `branch ${r.branch_index} lost load`);
    assert.ok(Math.abs((row.islanded?.generation_mw ?? 0) - r.lost_generation_mw) < 1e-9, `branch ${r.branch_index} lost generation`);
  }
});

test('random splits of case300 (isolate): lost load = the de-energized loads; the slack picks up the difference within losses', async () => {
  const net = load('case300');
  const r = rng(300);
  const base = await solvePowerFlow(pool, net, { method: 'newton_raphson' });
  assert.equal(base.status, 'converged');
  let splits = 0;
  for (let trial = 0; trial < 40 && splits < 8; trial++) {
    const open = new Set(Array.from({ length: 3 }, () => Math.floor(r() * net.branches.length)));
    const model = { ...net, branches: net.branches.map((b, k) => (open.has(k) ? { ...b, status: 'open' as const } : b)) };
    const pf = await solvePowerFlow(pool, model, { method: 'newton_raphson', islanding: 'isolate' });
    if (!pf.islands || pf.islands.every((i) => i.energized)) continue;
    splits++;
    if (pf.status !== 'converged') continue;
    const off = new Set(pf.islands.filter((i) => !i.energized).flatMap((i) => i.buses));
    const lostLoad = net.loads.filter((l) => l.in_service && off.has(l.bus)).reduce((s, l) => s + l.mw, 0);
    assert.ok(Math.abs(pf.lost_load_mw! - lostLoad) < 1e-9, 'lost load is the sum of the de-energized loads');
    // Power balance of what stays energized: generation = served load + losses.
    const served = net.loads.filter((l) => l.in_service && !off.has(l.bus)).reduce((s, l) => s + l.mw, 0);
    const gen = pf.generators.reduce((s, g) => s + g.p_gen, 0);
    const shunts = pf.buses.filter((b) => !off.has(b.id)).reduce((s, b) => s + (net.buses.find((x) => x.id === b.id)!.gs * b.v * b.v), 0);
    assert.ok(Math.abs(gen - served - pf.losses.p_mw - shunts) < 1e-3, `balance: ${gen} = ${served} + ${pf.losses.p_mw} + ${shunts}`);
    // The slack picks up the difference: every other energized generator keeps its set-point, de-energized ones produce nothing.
    const refs = new Set(pf.islands.filter((i) => i.energized).map((i) => i.reference_bus));
    net.generators.forEach((g, k) => {
      if (!g.in_service) return;
      if (off.has(g.bus)) assert.equal(pf.generators[k]!.p_gen, 0, `generator ${k} is de-energized`);
      else if (!refs.has(g.bus)) assert.ok(Math.abs(pf.generators[k]!.p_gen - g.mw) < 1e-9, `generator ${k} keeps its set-point`);
    });
  }
  assert.ok(splits >= 3, `random splits found: ${splits}`);
});

/** Connected components of the buses over the closed branches not in `out` (a union-find of its own, independent of the core's). */
function componentCount(net: NetworkModel, out: Set<number>): number {
  const at = new Map(net.buses.map((b, k) => [b.id, k]));
  const parent = net.buses.map((_, k) => k);
  const root = (i: number): number => (parent[i] === i ? i : (parent[i] = root(parent[i]!)));
  let n = net.buses.length;
  net.branches.forEach((b, l) => {
    if (b.status !== 'closed' || out.has(l)) return;
    const a = root(at.get(b.from)!), c = root(at.get(b.to)!);
    if (a !== c) { parent[a] = c; n--; }
  });
  return n;
}

// The core searches connectivity only for outages of a bridge (assembly/islands.ts findBridges, once per topology) and for
// outages of several branches: every single-branch outage and random and crafted pairs (the two branches of a bus with
// exactly two, parallel branches and meshes alike) must split exactly when a search of the changed graph says so.
for (const [c, method] of [['case118', 'newton_raphson'], ['case300', 'newton_raphson'], ['case2383wp', 'dc'], ['case_ACTIVSg2000', 'dc']] as const) {
  test(`${c}: an outage is islanded exactly when the changed network has more components (bridges, random and crafted pairs)`, async () => {
    const net = load(c);
    const r = rng(2383);
    const closed = net.branches.flatMap((b, l) => (b.status === 'closed' ? [l] : []));
    const ends = new Map<number, number[]>();
    for (const l of closed) for (const bus of [net.branches[l]!.from, net.branches[l]!.to]) ends.set(bus, [...(ends.get(bus) ?? []), l]);
    const pairs = [...ends.values()].filter((ls) => ls.length === 2).slice(0, 60).map((ls) => ls);
    for (let k = 0; k < 60; k++) pairs.push([closed[Math.floor(r() * closed.length)]!, closed[Math.floor(r() * closed.length)]!]);
    const contingencies = [...closed.map((l) => ({ branches: [l] })), ...pairs.map((p) => ({ branches: [...new Set(p)] }))];
    const plan = planStudy(net, { kind: 'contingency', method, contingencies, islanding: 'skip' });
    const got = await rows(net, plan);
    const base = componentCount(net, new Set());
    let split = 0, splitPairs = 0;
    got.forEach((row, k) => {
      const out = new Set(contingencies[k]!.branches);
      const splits = componentCount(net, out) > base;
      assert.equal(row.status === 'islanded', splits, `${c} outage of ${[...out].join(', ')}: islanded ${row.status === 'islanded'}, splits ${splits}`);
      if (splits) assert.ok(row.islanded!.buses.length > 0, `${c} ${[...out].join(', ')} names the cut-off buses`);
      if (splits) { split++; if (out.size > 1) splitPairs++; }
    });
    assert.ok(split > 0 && splitPairs > 0, `${c}: splitting single outages and pairs are among the cases (${split}, ${splitPairs})`);
  });
}
