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
import { gql, ok as gqlOk } from './graphql-helpers.js';

const ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'scopf', 'case30.json'), 'utf8')).runs[1] as { objective: number; binding: { outage: number; branch: number; mu: number }[]; excluded: number[] };
const near = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.abs(b);

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
