// Power flow on a split network against MATPOWER (shared/reference/islands, CONTRACT "Islands"):
// chosen splits started as runpf starts, and every splitting branch outage warm-started from
// the base solution, each under `isolate` and `new_reference`: per bus v and theta <= 1e-6,
// flows and generator outputs <= 1e-4 MW / MVAr, the islands, de-energized sets and MW exact.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import type { IslandingRule, SolveOutcome } from '../src/powerflow/types.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

interface Island { buses: number[]; reference_bus: number | null; energized: boolean; load_mw: number; generation_mw: number }
interface Row {
  rule: IslandingRule; converged: boolean; iterations: number; islands: Island[]; lost_load_mw: number; lost_generation_mw: number;
  bus: { bus_i: number; vm: number; va: number }[]; gen: { index: number; pg: number; qg: number }[];
  branch: { index: number; pf: number; qf: number; pt: number; qt: number }[];
  opened_branches?: number[]; branch_index?: number;
}

const DIR = join(SHARED_DIR, 'reference', 'islands');
const NR = { method: 'newton_raphson' as const, tolerance: 1e-8, maxIterations: 10 };
let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

const load = (c: string) => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
const opened = (net: NetworkModel, idx: number[]): NetworkModel => ({ ...net, branches: net.branches.map((b, k) => (idx.includes(k) ? { ...b, status: 'open' as const } : b)) });

function compare(label: string, res: SolveOutcome, ref: Row): void {
  assert.equal(res.status, ref.converged ? 'converged' : 'diverged', `${label}: ${res.message}`);
  assert.deepEqual(res.islands, ref.islands.map((i) => ({ ...i, load_mw: res.islands!.find((x) => x.buses[0] === i.buses[0])!.load_mw, generation_mw: res.islands!.find((x) => x.buses[0] === i.buses[0])!.generation_mw })), `${label}: islands`);
  ref.islands.forEach((i, k) => {
    assert.ok(Math.abs(res.islands![k]!.load_mw - i.load_mw) < 1e-9, `${label}: island ${k} load`);
    assert.ok(Math.abs(res.islands![k]!.generation_mw - i.generation_mw) < 1e-9, `${label}: island ${k} generation`);
  });
  assert.ok(Math.abs(res.lost_load_mw! - ref.lost_load_mw) < 1e-9, `${label}: lost load ${res.lost_load_mw} vs ${ref.lost_load_mw}`);
  assert.ok(Math.abs(res.lost_generation_mw! - ref.lost_generation_mw) < 1e-9, `${label}: lost generation`);
  const off = new Set(ref.islands.filter((i) => !i.energized).flatMap((i) => i.buses));
  ref.bus.forEach((b, k) => {
    const r = res.buses[k]!;
    assert.equal(r.id, b.bus_i);
    assert.equal(r.energized, !off.has(b.bus_i), `${label}: bus ${b.bus_i} energized`);
    assert.ok(Math.abs(r.v - b.vm) <= 1e-6, `${label}: bus ${b.bus_i} v ${r.v} vs ${b.vm}`);
    assert.ok(Math.abs(r.theta - (b.va * Math.PI) / 180) <= 1e-6, `${label}: bus ${b.bus_i} theta`);
  });
  for (const g of ref.gen) {
    const r = res.generators[g.index]!;
    assert.ok(Math.abs(r.p_gen - g.pg) <= 1e-4 && Math.abs(r.q_gen - g.qg) <= 1e-4, `${label}: generator ${g.index} ${r.p_gen}/${r.q_gen} vs ${g.pg}/${g.qg}`);
  }
  for (const br of ref.branch) {
    const r = res.branches[br.index]!;
    for (const [a, b] of [[r.p_from, br.pf], [r.q_from, br.qf], [r.p_to, br.pt], [r.q_to, br.qt]] as const) {
      assert.ok(Math.abs(a - b) <= 1e-4, `${label}: branch ${br.index} flow ${a} vs ${b}`);
    }
  }
}

for (const c of ['case30', 'case118']) {
  test(`${c}: chosen splits under isolate and new_reference equal MATPOWER's runpf`, async () => {
    const net = load(c);
    const { variants } = JSON.parse(readFileSync(join(DIR, `${c}.variants.json`), 'utf8')) as { variants: Row[] };
    assert.ok(variants.length > 0);
    for (const v of variants) {
      const res = await solvePowerFlow(pool, opened(net, v.opened_branches!), { ...NR, islanding: v.rule });
      compare(`${c} open ${v.opened_branches} ${v.rule}`, res, v);
      assert.ok(Math.abs(res.iterations - v.iterations) <= 1, `iterations ${res.iterations} vs MATPOWER's ${v.iterations}`);
    }
  });

  test(`${c}: every splitting branch outage, warm from the base solution, equals MATPOWER`, async () => {
    const net = load(c);
    const base = await solvePowerFlow(pool, net, NR);
    assert.equal(base.status, 'converged');
    const warm: NetworkModel = { ...net, buses: net.buses.map((b, k) => ({ ...b, v: base.buses[k]!.v, theta: base.buses[k]!.theta })) };
    const { rows } = JSON.parse(readFileSync(join(DIR, `${c}.n1.json`), 'utf8')) as { rows: Row[] };
    assert.ok(rows.length > 0);
    for (const r of rows) {
      const res = await solvePowerFlow(pool, opened(warm, [r.branch_index!]), { ...NR, islanding: r.rule });
      compare(`${c} outage ${r.branch_index} ${r.rule}`, res, r);
    }
  });
}

test('refuse (the default) still answers ISLANDED_BUS for a split network; an unknown rule is refused', async () => {
  const net = opened(load('case118'), [183]); // cuts off bus 117 (20 MW of load, no generator)
  await assert.rejects(solvePowerFlow(pool, net, NR), (e: { code?: string }) => e.code === 'ISLANDED_BUS');
  await assert.rejects(solvePowerFlow(pool, net, { ...NR, islanding: 'refuse' }), (e: { code?: string }) => e.code === 'ISLANDED_BUS');
  await assert.rejects(solvePowerFlow(pool, net, { ...NR, islanding: 'nope' as IslandingRule }), (e: { code?: string }) => e.code === 'VALIDATION_FAILED');
});
