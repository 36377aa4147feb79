// The security-constrained DC-OPF through every door (CONTRACT "Security-constrained DC-OPF"), both
// modes: REST synchronous and async (the result on the task), apply: true storing the secure dispatch,
// GraphQL runOpf(security:), the CLI, and refusals with the spec's error body.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { CASES_DIR, ROOT, SHARED_DIR } from '../src/paths.js';
import { code as gqlCode, gql, ok as gqlOk } from './graphql-helpers.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { connectedComponents } from '../src/lib/graph.js';

const ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'scopf', 'case30.json'), 'utf8')).runs[1] as { objective: number; binding: { outage: number; branch: number; mu: number }[]; excluded: number[] };
const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.abs(b);

/** Distinct 64-branch outages of case118 that keep it connected (issue 35's attack, each a different set): the
 *  branches outside one spanning tree, 64 of them at a time, a different few left in each. */
function connectedOutages(count: number): number[][] {
  const net = parseMatpower(readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), 'case118.m');
  const pos = new Map(net.buses.map((b, k) => [b.id, k]));
  const tree = new Set<number>();
  const parent = Array.from(net.buses, (_, k) => k);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  net.branches.forEach((b, l) => {
    const a = find(pos.get(b.from)!), c = find(pos.get(b.to)!);
    if (a !== c) { parent[a] = c; tree.add(l); }
  });
  const spare = net.branches.map((_, l) => l).filter((l) => !tree.has(l));
  assert.ok(spare.length >= 69, `${spare.length} branches outside the tree`);
  // leave out 5 of the first 69 spare branches, a different 5 each time (C(69, 5) sets)
  const sets: number[][] = [];
  const drop = [0, 1, 2, 3, 4];
  while (sets.length < count) {
    sets.push(spare.slice(0, 69).filter((_, j) => !drop.includes(j)));
    let p = 4;
    while (drop[p] === 64 + p) p--;
    drop[p]!++;
    for (let q = p + 1; q < 5; q++) drop[q] = drop[q - 1]! + 1;
  }
  const check = connectedComponents(net.buses.length, (link) => net.branches.forEach((b, l) => { if (!sets[0]!.includes(l)) link(pos.get(b.from)!, pos.get(b.to)!); }));
  assert.equal(check.count, 1, 'the first outage keeps case118 connected');
  return sets;
}

for (const mode of MODES) {
  describe(`security-constrained DC-OPF through the doors (${mode})`, { timeout: 180_000 }, () => {
    let app: TestApp;
    let h: Headers;
    let net: string;
    const { call, ok, err } = restClient(() => ({ app, h }));
    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case30.m'), 'utf8'), { 'content-type': 'text/plain' });
      net = json(r).data.id;
    });
    after(async () => app?.close());

    it('REST synchronous: MATPOWER\'s objective, the binding post-contingency row, the excluded outages; LMPs carry its congestion', async () => {
      const d = await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', security: { contingencies: 'n-1-branches' } });
      assert.equal(d.status, 'converged');
      assert.ok(near(d.objective, ref.objective), `${d.objective} vs ${ref.objective}`);
      assert.deepEqual(d.security.binding.map((b: { outage: number; branch: number }) => [b.outage, b.branch]), [[35, 34]]);
      assert.deepEqual(d.security.excluded, ref.excluded);
      assert.equal(d.security.limit, 'rate_c');
      const plain = await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'dc' });
      const moved = d.buses.some((b: { lmp_p: number }, i: number) => Math.abs(b.lmp_p - plain.buses[i].lmp_p) > 1e-4);
      assert.ok(moved, 'the post-contingency constraint changes the prices');
    });

    it('async: the result with its security part on the task; apply stores the secure dispatch as the next version', async () => {
      const q = await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', async: true, security: { contingencies: [{ id: 'line 35', branches: [35] }], limit: 'rate_a' } }, 202);
      assert.ok(await app.services.tasks.waitFor(q.task_id, 60_000));
      const t = await ok('GET', `/api/v1/tasks/${q.task_id}?include=result`);
      assert.equal(t.status, 'completed', JSON.stringify(t.error));
      assert.equal(t.result.security.contingencies, 1);
      assert.deepEqual(t.result.security.binding.map((b: { outage: string }) => b.outage), ['line 35']);
      const applied = await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', apply: true, security: { contingencies: 'n-1-branches' } });
      const stored = await ok('GET', `/api/v1/networks/${net}`);
      assert.equal(stored.version, applied.applied.network_version);
      applied.generators.forEach((g: { index: number; p_mw: number }) => assert.ok(Math.abs(stored.generators[g.index].mw - g.p_mw) < 1e-9, `generator ${g.index} set to the secure dispatch`));
    });

    it('GraphQL runOpf(security:) answers the same', async () => {
      const r = gqlOk(await gql(app, `mutation($id: ID!) { runOpf(id: $id, method: DC, security: { n1Branches: true }) { status objective security { contingencies limit excluded rounds binding { outage branch flowMw limitMw mu } } } }`, { id: net }, h));
      const o = r.runOpf;
      assert.equal(o.status, 'CONVERGED');
      assert.ok(near(o.objective, ref.objective));
      assert.equal(o.security.limit, 'RATE_C');
      assert.deepEqual(o.security.binding.map((b: { outage: string; branch: number }) => [b.outage, b.branch]), [['35', 34]]);
      assert.ok(Math.abs(o.security.binding[0].mu - ref.binding[0]!.mu) < 1e-4);
      assert.deepEqual(o.security.excluded, ref.excluded.map(String));
    });

    it('identical contingencies (the same branch set) are solved once, the first keeping its id', async () => {
      const r118 = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), { 'content-type': 'text/plain' });
      const n118 = json(r118).data.id;
      const [set] = connectedOutages(1);
      const list = [{ id: 'first', branches: set }, ...Array.from({ length: 49 }, (_, i) => ({ id: `copy ${i}`, branches: [...set!].reverse() }))];
      const d = await ok('POST', `/api/v1/networks/${n118}/opf`, { method: 'dc', security: { contingencies: list } });
      assert.equal(d.status, 'converged');
      assert.equal(d.security.contingencies, 1, 'fifty listings of one branch set are one contingency');
    });

    it('work over the bounds is refused before it is queued (422 with advice), in every door', async () => {
      const r118 = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), { 'content-type': 'text/plain' });
      const n118 = json(r118).data.id;
      const list = connectedOutages(400).map((branches) => ({ branches }));
      let e = err(await call('POST', `/api/v1/networks/${n118}/opf`, { method: 'dc', async: true, security: { contingencies: list } }), 422, 'PARAM_OUT_OF_RANGE');
      assert.match(e.message, /list fewer contingencies/);
      assert.equal(e.details.limit, 50_000_000);
      e = err(await call('POST', `/api/v1/networks/${n118}/opf`, { method: 'dc', security: { contingencies: list } }), 422, 'PARAM_OUT_OF_RANGE');
      assert.deepEqual(await ok('GET', `/api/v1/tasks?network_id=${n118}`), [], 'nothing was queued');
      const g = await gql(app, 'mutation($id: ID!, $c: [OpfContingencyInput!]) { runOpf(id: $id, method: DC, security: { contingencies: $c }) { status } }', { id: n118, c: list }, h);
      assert.equal(gqlCode(g), 'VALIDATION_FAILED', JSON.stringify(g.body.errors)); // GraphQL's code (SPEC 7.3), the REST one in details
      assert.equal(g.body.errors?.[0]?.extensions?.details?.reason, 'PARAM_OUT_OF_RANGE');
    });

    it('the event loop stays free while a SCOPF runs: /health answers while the task is running', async () => {
      const r118 = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), { 'content-type': 'text/plain' });
      const n118 = json(r118).data.id;
      // a task's first progress event: its first round (the DC-OPF without post-contingency rows) is solved
      const solving = new Set<string>();
      const off = app.services.bus.subscribe<{ task_id?: string }>('progress', (m) => { if (m.task_id) solving.add(m.task_id); });
      await app.services.bus.ready('progress');
      // 160 distinct 64-branch outages that keep the network connected: within the bounds, seconds of work before the fix
      const q = await ok('POST', `/api/v1/networks/${n118}/opf`, { method: 'dc', async: true, security: { contingencies: connectedOutages(160).map((branches) => ({ branches })) } }, 202);
      while (!solving.has(q.task_id)) await new Promise((r) => setImmediate(r)); // the constraint generation has begun
      off();
      let t = await ok('GET', `/api/v1/tasks/${q.task_id}`);
      assert.equal(t.status, 'running', 'seen running after its first round');
      for (let i = 0; i < 3; i++) assert.equal((await call('GET', '/api/v1/health')).statusCode, 200);
      t = await ok('GET', `/api/v1/tasks/${q.task_id}`);
      assert.equal(t.status, 'running', 'health answered three times while the constraint generation ran');
      assert.ok(await app.services.tasks.waitFor(q.task_id, 120_000));
      t = await ok('GET', `/api/v1/tasks/${q.task_id}?include=result`);
      assert.equal(t.status, 'completed', JSON.stringify(t.error));
      assert.equal(t.result.security.contingencies, 160);
      assert.deepEqual(t.result.security.excluded, []);
    });

    it('refusals: method ac, islanding, an unknown branch, a bad limit, an empty list', async () => {
      let e = err(await call('POST', `/api/v1/networks/${net}/opf`, { security: { contingencies: 'n-1-branches' } }), 400, 'INVALID_FIELD');
      assert.match(e.message, /method.*dc/);
      err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', islanding: 'isolate', security: { contingencies: 'n-1-branches' } }), 400, 'INVALID_FIELD');
      e = err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', security: { contingencies: [{ branches: [500] }] } }), 400, 'INVALID_FIELD');
      assert.match(e.message, /branch 500 does not exist/);
      err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', security: { contingencies: 'n-1-branches', limit: 'rate_z' } }), 400, 'INVALID_FIELD');
      err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', security: { contingencies: [] } }), 400, 'INVALID_FIELD');
    });
  });
}

describe('gridops opf --security', () => {
  it('prints the security part in JSON; refuses it without --method dc', () => {
    const bin = join(ROOT, 'bin', 'gridops.js');
    const r = spawnSync(process.execPath, [bin, 'opf', join(CASES_DIR, 'case30.m'), '--method', 'dc', '--security', 'n-1-branches', '--json'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const o = JSON.parse(r.stdout);
    assert.ok(near(o.objective, ref.objective));
    assert.deepEqual(o.security.binding.map((b: { outage: number; branch: number }) => [b.outage, b.branch]), [[35, 34]]);
    const text = spawnSync(process.execPath, [bin, 'opf', join(CASES_DIR, 'case30.m'), '--method', 'dc', '--security', 'n-1-branches'], { encoding: 'utf8', timeout: 60_000 });
    assert.match(text.stdout, /Security \(N-1, rate_c\): 41 outages, 3 excluded/);
    assert.match(text.stdout, /binding: branch 34 after outage 35/);
    const bad = spawnSync(process.execPath, [bin, 'opf', join(CASES_DIR, 'case30.m'), '--security', 'n-1-branches'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /--security needs --method dc/);
  });
});
