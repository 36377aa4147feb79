// PTDF and LODF against MATPOWER's makePTDF / makeLODF (shared/reference/sensitivities): every entry
// of case9 and case30 to 1e-9, the bridges exactly (an LODF column of a bridge is null), and selections
// of rows and columns equal to the same entries of the full matrices.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { computeSensitivities, networkBridges } from '../src/sensitivities/compute.js';
import { bridges } from '../src/lib/graph.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

interface Ref { ptdf: number[][]; lodf_rows_branches_cols_outages: (number | null)[][]; bridges: number[]; bus_ids: number[] }
const load = (c: string) => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
const ref = (c: string) => JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'sensitivities', `${c}.json`), 'utf8')) as Ref;
let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

for (const c of ['case9', 'case30']) {
  test(`${c}: PTDF and LODF equal MATPOWER's, the bridges too`, async () => {
    const net = load(c), r = ref(c);
    const p = await computeSensitivities(pool, net, { kind: 'ptdf' });
    assert.deepEqual(p.columns, r.bus_ids);
    assert.deepEqual(p.rows, r.ptdf.map((_, l) => l));
    r.ptdf.forEach((row, l) => row.forEach((v, j) => assert.ok(Math.abs(p.values[l]![j]! - v) <= 1e-9, `${c} PTDF(${l}, ${j}) ${p.values[l]![j]} vs ${v}`)));
    assert.deepEqual(p.bridges, r.bridges);
    const q = await computeSensitivities(pool, net, { kind: 'lodf' });
    const differ: [number, number][] = [];
    r.lodf_rows_branches_cols_outages.forEach((row, m) => row.forEach((v, k) => {
      const got = q.values[m]![k]!;
      if (v === null) assert.equal(got, null, `${c} LODF(${m}, ${k}) of a bridge`);
      else if (!(Math.abs(got - v) <= 1e-9)) differ.push([m, k]);
    }));
    // Where the reference differs (case30: two entries of series branches through a bus of degree two, 0 there),
    // the answer must be what an outage does to a DC power flow (MATPOWER's own test of makeLODF, t_makeLODF).
    assert.ok(differ.length <= 2, `${c}: ${differ.length} LODF entries differ from MATPOWER's`);
    if (differ.length > 0) {
      const base = await solvePowerFlow(pool, net, { method: 'dc' });
      for (const [m, k] of differ) {
        const outaged = { ...net, branches: net.branches.map((b, l) => (l === k ? { ...b, status: 'open' as const } : b)) };
        const out = await solvePowerFlow(pool, outaged, { method: 'dc' });
        const byFlow = (out.branches[m]!.p_from - base.branches[m]!.p_from) / base.branches[k]!.p_from;
        assert.ok(Math.abs(q.values[m]![k]! - byFlow) <= 1e-9, `${c} LODF(${m}, ${k}) ${q.values[m]![k]} vs the DC power flow's ${byFlow}`);
      }
    }
    // a selection is the same entries
    const sel = await computeSensitivities(pool, net, { kind: 'ptdf', branches: [3, 1], buses: [r.bus_ids[4]!, r.bus_ids[0]!] });
    assert.deepEqual(sel.values, [[p.values[3]![4], p.values[3]![0]], [p.values[1]![4], p.values[1]![0]]]);
    const lsel = await computeSensitivities(pool, net, { kind: 'lodf', branches: [0, 2], outages: [5] });
    assert.deepEqual(lsel.values, [[q.values[0]![5]], [q.values[2]![5]]]);
  });
}

test('bridges: a chain, a cycle with a tail, parallel edges and several components', () => {
  assert.deepEqual(bridges(4, [0, 1, 2], [1, 2, 3]), [0, 1, 2]);
  assert.deepEqual(bridges(5, [0, 1, 2, 2], [1, 2, 0, 3]), [3]);
  assert.deepEqual(bridges(3, [0, 0, 1], [1, 1, 2]), [2], 'parallel branches are not bridges');
  assert.deepEqual(bridges(6, [0, 1, 3, 4, 5], [1, 2, 4, 5, 3]), [0, 1]);
  const long = 20_000;
  assert.equal(bridges(long, Array.from({ length: long - 1 }, (_, i) => i), Array.from({ length: long - 1 }, (_, i) => i + 1)).length, long - 1, 'no recursion limit');
  const net = load('case118');
  assert.ok(networkBridges(net).length >= 9);
});

test('refusals name the field', async () => {
  const net = load('case9');
  await assert.rejects(computeSensitivities(pool, net, { kind: 'ptdf', branches: [99] }), /branches\[0\]: branch index 99 does not exist/);
  await assert.rejects(computeSensitivities(pool, net, { kind: 'ptdf', buses: [42] }), /buses\[0\]: bus 42 does not exist/);
  await assert.rejects(computeSensitivities(pool, net, { kind: 'lodf', buses: [1] }), /buses: names PTDF columns/);
  const open = { ...net, branches: net.branches.map((b, l) => (l === 2 ? { ...b, status: 'open' as const } : b)) };
  await assert.rejects(computeSensitivities(pool, open, { kind: 'lodf', outages: [2] }), /outages\[0\]: branch 2 is out of service/);
});

test('a synchronous PTDF of case9241pegase (16,049 × 9,241 entries) is refused at once with advice, before any solve (#21 item 6)', async () => {
  const net = load('case9241pegase');
  await assert.rejects(computeSensitivities(pool, net, { kind: 'ptdf' }), (e: { code?: string; message?: string; details?: { entries?: number } }) =>
    e.code === 'PARAM_OUT_OF_RANGE' && /select rows/.test(e.message ?? '') && e.details?.entries === net.branches.filter((b) => b.status === 'closed').length * net.buses.length);
});
