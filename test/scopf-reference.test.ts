// The security-constrained DC-OPF (CONTRACT "Security-constrained DC-OPF") against MATPOWER's explicit
// formulation (shared/reference/scopf: case9, case30), against the explicit formulation written out
// here for a case without a reference (case118 with ratings that make N-1 bind: every outage × branch
// row at once, one solve), and its post-contingency flows against DC power flows of the changed models
// (single and multi-branch outages). Engine level: the doors are tested in scopf-api.test.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { solveSecurityConstrainedDcOpf } from '../src/opf/security.js';
import { solveOpf } from '../src/opf/solve.js';
import { computeSensitivities, networkBridges } from '../src/sensitivities/compute.js';
import { ext2int } from '../src/powerflow/ext2int.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { deepFreeze } from '../src/lib/immutable.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const load = (c: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

interface RefRun { objective: number; generators: { index: number; p_mw: number }[]; binding?: { outage: number; branch: number; flow_mw: number; limit_mw: number; mu: number }[]; excluded?: number[] }

for (const c of ['case9', 'case30']) {
  test(`${c}: equal to MATPOWER's explicit preventive N-1 (objective, dispatch, binding rows, excluded outages)`, async () => {
    const ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'scopf', `${c}.json`), 'utf8')) as { runs: RefRun[] };
    const net = load(c);
    const plain = await solveOpf(pool, net, { method: 'dc' });
    assert.ok(Math.abs(plain.objective - ref.runs[0]!.objective) <= 1e-6 * ref.runs[0]!.objective, 'the formulation without post-contingency rows is the DC-OPF');
    const want = ref.runs[1]!;
    const r = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches' }, { method: 'dc' });
    assert.equal(r.status, 'converged');
    assert.ok(Math.abs(r.objective - want.objective) <= 1e-6 * want.objective, `objective ${r.objective} vs ${want.objective}`);
    for (const g of want.generators) assert.ok(Math.abs(r.generators[g.index]!.p_mw - g.p_mw) <= 1e-3, `generator ${g.index}: ${r.generators[g.index]!.p_mw} vs ${g.p_mw}`);
    assert.deepEqual(r.security.excluded, want.excluded);
    assert.deepEqual(r.security.binding.map((b) => [b.outage, b.branch]), want.binding!.map((b) => [b.outage, b.branch]));
    r.security.binding.forEach((b, k) => {
      const w = want.binding![k]!;
      assert.ok(Math.abs(b.flow_mw - w.flow_mw) <= 1e-3 && b.limit_mw === w.limit_mw, `flow ${b.flow_mw} vs ${w.flow_mw}`);
      assert.ok(Math.abs(b.mu - w.mu) <= 1e-4 * Math.max(1, Math.abs(w.mu)), `mu ${b.mu} vs ${w.mu}`);
    });
    assert.equal(r.security.contingencies, net.branches.filter((b) => b.status === 'closed').length);
    if (want.binding!.length > 0) assert.ok(r.objective > plain.objective, 'a binding post-contingency limit raises the cost');
  });
}

/** case118 with every branch rated a little above its base DC-OPF flow, so many outages overload others. */
async function tightCase118(): Promise<NetworkModel> {
  const net = load('case118');
  const base = await solveOpf(pool, net, { method: 'dc' });
  return { ...net, branches: net.branches.map((b, l) => ({ ...b, rate_a: Math.round(1.6 * Math.abs(base.branches[l]!.p_from) + 60) })) };
}

test('case118 with binding N-1 limits: constraint generation equals the explicit problem (every outage × branch row), solved once', async () => {
  const net = await tightCase118();
  const r = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches' }, { method: 'dc' });
  assert.equal(r.status, 'converged', r.message);
  assert.ok(r.security.binding.length > 0, 'the ratings make post-contingency limits bind');
  // the explicit problem: rows for every non-splitting outage k and every rated branch m ≠ k
  const bridges = new Set(networkBridges(net));
  const outages = net.branches.map((_, l) => l).filter((l) => net.branches[l]!.status === 'closed' && !bridges.has(l));
  const monitored = net.branches.map((_, l) => l).filter((l) => net.branches[l]!.rate_a > 0);
  const L = await computeSensitivities(pool, net, { kind: 'lodf', branches: monitored, outages });
  const ext = ext2int(net);
  const bus = (id: number) => ext.busIndex[ext.position(id)]!;
  const sus = (l: number) => 1 / net.branches[l]!.x / (net.branches[l]!.ratio || 1);
  const values: number[] = [];
  let count = 0;
  monitored.forEach((m, i) => outages.forEach((k, j) => {
    if (m === k) return;
    const w = L.values[i]![j]!;
    const bm = net.branches[m]!, bk = net.branches[k]!, lim = bm.rate_a / net.base_mva;
    const constant = -sus(m) * bm.shift - w * sus(k) * bk.shift;
    values.push(-lim - constant, lim - constant, 4, bus(bm.from), sus(m), bus(bm.to), -sus(m), bus(bk.from), w * sus(k), bus(bk.to), -w * sus(k));
    count++;
  }));
  const explicit = await solveOpf(pool, net, { method: 'dc', extraRows: { count, values: Float64Array.from(values) } });
  assert.equal(explicit.status, 'converged');
  assert.ok(count > 10_000, `${count} rows written out`);
  assert.ok(Math.abs(r.objective - explicit.objective) <= 1e-6 * explicit.objective, `objective ${r.objective} vs explicit ${explicit.objective}`);
  r.generators.forEach((g, i) => assert.ok(Math.abs(g.p_mw - explicit.generators[i]!.p_mw) <= 1e-2, `generator ${i}: ${g.p_mw} vs ${explicit.generators[i]!.p_mw}`));
  assert.ok(r.security.constraints_added < count / 20, `${r.security.constraints_added} rows added instead of ${count}`);
});

test('post-contingency flows of the dispatch equal DC power flows of the changed models, for single and multi-branch outages', async () => {
  const net = await tightCase118();
  const list = [{ id: 'pair', branches: [6, 7] }, { branches: [20] }, { id: 'triple', branches: [30, 31, 40] }];
  const r = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: list, limit: 'rate_a' }, { method: 'dc' });
  assert.equal(r.status, 'converged', r.message);
  assert.equal(r.security.contingencies, 3);
  const dispatched: NetworkModel = { ...net, generators: net.generators.map((g, i) => ({ ...g, mw: r.generators[i]!.p_mw })) };
  for (const c of list) {
    if (r.security.excluded.includes(c.id ?? c.branches[0]!)) continue;
    const changed = { ...dispatched, branches: dispatched.branches.map((b, l) => (c.branches.includes(l) ? { ...b, status: 'open' as const } : b)) };
    const dcOptions = { method: 'dc' as const, tolerance: 1e-8, maxIterations: 10, flatStart: false, enforceQLimits: false, timeoutMs: 30_000 };
    const pf = await solvePowerFlow(pool, changed, dcOptions);
    for (const b of pf.branches) {
      if (c.branches.includes(b.index) || !(net.branches[b.index]!.rate_a > 0)) continue;
      assert.ok(Math.abs(b.p_from) <= net.branches[b.index]!.rate_a + 1e-2, `${c.id ?? c.branches[0]}: branch ${b.index} carries ${b.p_from} MW of ${net.branches[b.index]!.rate_a}`);
    }
    for (const b of r.security.binding.filter((x) => x.outage === (c.id ?? c.branches[0]))) {
      assert.ok(Math.abs(pf.branches[b.branch]!.p_from - b.flow_mw) <= 1e-3, `reported flow of ${b.branch} after ${b.outage}`);
    }
  }
});

test('ratings no dispatch can meet after the outages: infeasible, naming the post-contingency limits', async () => {
  const net = load('case118');
  const base = await solveOpf(pool, net, { method: 'dc' });
  const tight = { ...net, branches: net.branches.map((b, l) => ({ ...b, rate_a: Math.round(1.3 * Math.abs(base.branches[l]!.p_from) + 30) })) };
  const r = await solveSecurityConstrainedDcOpf(pool, tight, { contingencies: 'n-1-branches' }, { method: 'dc' });
  assert.equal(r.status, 'infeasible');
  assert.match(r.message!, /no dispatch meets the post-contingency limits: branch \d+ after outage \d+ \(limit \d+ MW\)/);
});

test('a stored (frozen) version: a second call answers the same, another list computes its own LODF columns', async () => {
  const net = deepFreeze(load('case30'));
  const a = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches' }, { method: 'dc' });
  const b = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches' }, { method: 'dc' });
  assert.equal(b.objective, a.objective);
  assert.deepEqual(b.security, a.security);
  const c = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: [{ branches: [35] }] }, { method: 'dc' });
  assert.deepEqual(c.security.binding.map((x) => [x.outage, x.branch]), [[35, 34]]);
  const d = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: [{ branches: [0] }] }, { method: 'dc' });
  assert.equal(d.security.binding.length, 0, 'outage 0 alone binds nothing: its own LODF columns, not the cached ones');
});

test('refusals: method ac, islanding, unknown or open branches, an unknown limit', async () => {
  const net = load('case30');
  await assert.rejects(solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches' }, { method: 'ac' }), /method "dc"/);
  await assert.rejects(solveSecurityConstrainedDcOpf(pool, net, { contingencies: [{ branches: [99] }] }, { method: 'dc' }), /contingencies\[0\]\.branches\[0\]: branch 99 does not exist/);
  const open = { ...net, branches: net.branches.map((b, l) => (l === 3 ? { ...b, status: 'open' as const } : b)) };
  await assert.rejects(solveSecurityConstrainedDcOpf(pool, open, { contingencies: [{ branches: [3] }] }, { method: 'dc' }), /already out of service/);
  await assert.rejects(solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches', limit: 'rate_z' as 'rate_a' }, { method: 'dc' }), /security.limit/);
});
