// POST /api/v1/networks/{id}/sensitivities in both modes: the PTDF and LODF of the engine through the
// door, ?format=csv, the 10-million-entry limit, refusals with the field named, roles; and the CLI.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { eventually, json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { loadSecurityConfig } from '../src/security/settings.js';
import { CASES_DIR, ROOT, SHARED_DIR } from '../src/paths.js';

const ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'sensitivities', 'case30.json'), 'utf8')) as { ptdf: number[][]; bridges: number[] };

for (const mode of MODES) {
  describe(`sensitivities API (${mode})`, () => {
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
    after(async () => { await app?.close(); });

    it('PTDF of selected rows equals MATPOWER\'s; LODF names the bridges; CSV streams the same matrix', async () => {
      const p = await ok('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', branches: [0, 5] });
      assert.deepEqual(p.rows, [0, 5]);
      assert.equal(p.columns.length, 30);
      p.values.forEach((row: number[], i: number) => row.forEach((v, j) => assert.ok(Math.abs(v - ref.ptdf[p.rows[i]]![j]!) <= 1e-9)));
      assert.deepEqual(p.bridges, ref.bridges);
      assert.equal(p.network_version, 1);
      const l = await ok('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'lodf', branches: [0, 1], outages: [1, 12] });
      assert.equal(l.values[1][0], -1, 'the outaged branch itself');
      assert.equal(l.values[0][1], null, 'branch 12 is a bridge');
      const csv = await call('POST', `/api/v1/networks/${net}/sensitivities?format=csv`, { kind: 'ptdf', branches: [0, 5] });
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /text\/csv/);
      const lines = csv.body.trimEnd().split('\n');
      assert.equal(lines.length, 3);
      assert.equal(lines[0]!.split(',').length, 31);
      assert.deepEqual(lines[2]!.split(',').slice(1).map(Number), p.values[1]);
    });

    it('GraphQL sensitivities answers the same matrix', async () => {
      const r = await app.app!.inject({ method: 'POST', url: '/graphql', headers: h, payload: { query: 'query($id: ID!) { sensitivities(networkId: $id, input: { kind: LODF, branches: [0, 1], outages: [1, 12] }) { kind rows columns values bridges networkVersion } }', variables: { id: net } } });
      const d = json(r);
      assert.equal(d.errors, undefined, r.body);
      const rest = await ok('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'lodf', branches: [0, 1], outages: [1, 12] });
      assert.deepEqual(d.data.sensitivities, { kind: 'LODF', rows: rest.rows, columns: rest.columns, values: rest.values, bridges: rest.bridges, networkVersion: 1 });
    });

    it('a large matrix is streamed as the same JSON envelope; GraphQL refuses one past its own limit with advice', async () => {
      const r300 = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case300.m'), 'utf8'), { 'content-type': 'text/plain' });
      const n300 = json(r300).data.id;
      const big = await call('POST', `/api/v1/networks/${n300}/sensitivities`, { kind: 'ptdf' });
      assert.equal(big.statusCode, 200);
      const d = json(big);
      assert.ok(d.request_id && d.timestamp);
      assert.ok(d.data.rows.length * d.data.columns.length > 100_000, 'past the streaming size');
      const small = await ok('POST', `/api/v1/networks/${n300}/sensitivities`, { kind: 'ptdf', branches: d.data.rows.slice(5, 7) });
      assert.deepEqual([d.data.values[5], d.data.values[6]], small.values, 'the streamed rows are the computed ones');
      assert.deepEqual(Object.keys(d.data).sort(), Object.keys(small).sort());
      const r1354 = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case1354pegase.m'), 'utf8'), { 'content-type': 'text/plain' });
      const g = await app.app!.inject({ method: 'POST', url: '/graphql', headers: h, payload: { query: 'query($id: ID!) { sensitivities(networkId: $id, input: { kind: PTDF }) { rows } }', variables: { id: json(r1354).data.id } } });
      const e = json(g).errors?.[0];
      assert.ok(e, g.body);
      assert.match(e.message, /through GraphQL .*select rows/);
    });

    it('async: true queues a task whose matrix equals the synchronous one, inline when small and streamed from export', async () => {
      const q = await ok('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'lodf', branches: [0, 1, 2], outages: [1, 12], async: true }, 202);
      assert.match(q.poll_url, new RegExp(q.task_id));
      assert.ok(await app.services.tasks.waitFor(q.task_id, 60_000), 'the task finished');
      const t = await ok('GET', `/api/v1/tasks/${q.task_id}?include=result`);
      assert.equal(t.kind, 'sensitivities');
      assert.equal(t.status, 'completed', JSON.stringify(t.error));
      const sync = await ok('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'lodf', branches: [0, 1, 2], outages: [1, 12] });
      assert.deepEqual(t.result.values, sync.values, 'inline values (a bridge column null)');
      assert.deepEqual([t.result.rows, t.result.columns, t.result.bridges, t.result.entries], [sync.rows, sync.columns, sync.bridges, 6]);
      const j = await call('GET', `/api/v1/tasks/${q.task_id}/export?format=json`);
      assert.equal(j.statusCode, 200, j.body);
      const d = json(j).data;
      assert.deepEqual(d, { network_id: net, network_version: 1, kind: 'lodf', rows: sync.rows, columns: sync.columns, bridges: sync.bridges, values: sync.values });
      const csv = await call('GET', `/api/v1/tasks/${q.task_id}/export?format=csv`);
      assert.match(String(csv.headers['content-type']), /text\/csv/);
      const direct = await call('POST', `/api/v1/networks/${net}/sensitivities?format=csv`, { kind: 'lodf', branches: [0, 1, 2], outages: [1, 12] });
      assert.equal(csv.body, direct.body, 'the same CSV as the synchronous door');
      err(await call('GET', `/api/v1/tasks/${q.task_id}/export?format=matpower`), 400, 'INVALID_FIELD');
      const events = json(await call('GET', `/api/v1/events?topic=powerflow&network_id=${net}`)).data as { kind: string; payload: { task_id: string; entries: number } }[];
      assert.ok(events.some((e) => e.kind === 'sensitivities.finished' && e.payload.task_id === q.task_id && e.payload.entries === 6), 'a sensitivities.finished event');
    });

    it('a large async matrix is stored by rows and streamed back; refusals are immediate', async () => {
      const r300 = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case300.m'), 'utf8'), { 'content-type': 'text/plain' });
      const n300 = json(r300).data.id;
      const q = await ok('POST', `/api/v1/networks/${n300}/sensitivities`, { kind: 'ptdf', async: true }, 202);
      assert.ok(await app.services.tasks.waitFor(q.task_id, 120_000));
      const t = await ok('GET', `/api/v1/tasks/${q.task_id}?include=result`);
      assert.equal(t.status, 'completed', JSON.stringify(t.error));
      assert.ok(t.result.entries > 100_000 && t.result.values === undefined, 'past the inline size: the header and values_url only');
      const j = json(await call('GET', t.result.values_url));
      const sync = json(await call('POST', `/api/v1/networks/${n300}/sensitivities`, { kind: 'ptdf' })).data;
      assert.deepEqual(j.data.values, sync.values, 'every stored row equals the synchronous answer');
      assert.equal(j.data.values.length, t.result.rows.length);
      // a bad index is refused before anything is queued, as the synchronous request is
      const e = err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', branches: [41], async: true }), 400, 'INVALID_FIELD');
      assert.equal(e.details.field, 'branches[0]');
      const viewer = await tokenFor(app, 'viewer');
      const r = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${net}/sensitivities`, headers: viewer, payload: { kind: 'ptdf', async: true } });
      assert.equal(r.statusCode, 403);
    });

    it('refuses bad selections with the field named, and a viewer', async () => {
      const e = err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', branches: [41] }), 400, 'INVALID_FIELD');
      assert.equal(e.details.field, 'branches[0]');
      err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'lodf', outages: [3], buses: [1] }), 400, 'INVALID_FIELD');
      err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'x' }), 400, 'INVALID_FIELD');
      const viewer = await tokenFor(app, 'viewer');
      const r = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${net}/sensitivities`, headers: viewer, payload: { kind: 'ptdf' } });
      assert.equal(r.statusCode, 403);
    });

    it('a repeated branch or bus is refused, naming both places (issue 35)', async () => {
      let e = err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', branches: [0, 3, 0] }), 400, 'INVALID_FIELD');
      assert.equal(e.details.field, 'branches[2]');
      assert.match(e.message, /listed twice \(also at branches\[0\]\)/);
      e = err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', buses: [1, 1], async: true }), 400, 'INVALID_FIELD');
      assert.equal(e.details.field, 'buses[1]');
      err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'lodf', outages: [2, 2] }), 400, 'INVALID_FIELD');
    });

    it('a PTDF of a few buses is computed by columns and equals the rows over every bus', async () => {
      const p = await ok('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', buses: [5, 2] });
      assert.equal(p.rows.length, 41);
      p.rows.forEach((l: number, i: number) => {
        assert.ok(Math.abs(p.values[i][0] - ref.ptdf[l]![4]!) <= 1e-9, `row ${l}, bus 5`);
        assert.ok(Math.abs(p.values[i][1] - ref.ptdf[l]![1]!) <= 1e-9, `row ${l}, bus 2`);
      });
    });

    it('case9241pegase: the work is bounded by the values computed, not only the values answered (issue 35)', { skip: process.env.QUICK === '1' }, async () => {
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case9241pegase.m'), 'utf8'), { 'content-type': 'text/plain' });
      assert.equal(r.statusCode, 201, r.body);
      const big = json(r).data.id;
      // the request: a column of 16,049 entries once took a row over every bus per branch (1 GiB, a core abort)
      const col = await ok('POST', `/api/v1/networks/${big}/sensitivities`, { kind: 'ptdf', buses: [1] });
      assert.equal(col.values.length, col.rows.length);
      const one = await ok('POST', `/api/v1/networks/${big}/sensitivities`, { kind: 'ptdf', branches: [col.rows[7]], buses: [1] });
      assert.ok(Math.abs(one.values[0][0] - col.values[7][0]) <= 1e-12, 'by rows and by columns alike');
      // one row, every outage: a small answer, 16,049 solves of 16,049 values each: refused before it runs
      const outages = col.rows.slice(0, 9000);
      let e = err(await call('POST', `/api/v1/networks/${big}/sensitivities`, { kind: 'lodf', branches: [0], outages }), 422, 'PARAM_OUT_OF_RANGE');
      assert.match(e.message, /values, more than 40000000.*"async": true/);
      e = err(await call('POST', `/api/v1/networks/${big}/sensitivities`, { kind: 'lodf', branches: [0], outages: col.rows, async: true }), 422, 'PARAM_OUT_OF_RANGE');
      assert.equal(e.details.limit, 120_000_000);
      const g = await app.app!.inject({ method: 'POST', url: '/graphql', headers: h, payload: { query: 'query($id: ID!, $o: [Int!]) { sensitivities(networkId: $id, input: { kind: LODF, branches: [0], outages: $o }) { rows } }', variables: { id: big, o: outages } } });
      assert.equal(json(g).errors?.[0]?.extensions?.details?.reason, 'PARAM_OUT_OF_RANGE', g.body);
    });
  });

  describe(`GraphQL compute fields take the compute rate class per field and are audited (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let net: string;
    const { call } = restClient(() => ({ app, h }));
    before(async () => {
      // two compute tokens per address, none refilled during the test
      app = await startTestApp(mode, { config: { security: { ...loadSecurityConfig({}, 'test'), rateLimitScale: 1, rateLimits: { ip: { compute: { rate: 0.001, burst: 2 } } } } } });
      h = await adminHeaders(app);
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), { 'content-type': 'text/plain' });
      net = json(r).data.id;
    });
    after(async () => { await app?.close(); });

    it('sensitivities: three aliases take three tokens (the third refused) and each is audited as REST audits its POST', async () => {
      const q = 'query($id: ID!) { a: sensitivities(networkId: $id, input: { kind: PTDF, branches: [0] }) { rows } b: sensitivities(networkId: $id, input: { kind: PTDF, branches: [1] }) { rows } c: sensitivities(networkId: $id, input: { kind: PTDF, branches: [2] }) { rows } }';
      const r = await app.app!.inject({ method: 'POST', url: '/graphql', headers: { ...h, 'x-request-id': 'sens-aliases-1' }, payload: { query: q, variables: { id: net } } });
      const d = json(r);
      const codes = (d.errors ?? []).map((e: { extensions: { code: string } }) => e.extensions.code);
      assert.deepEqual(codes, ['RATE_LIMITED'], r.body);
      // (the fields are non-null: one refused alias nulls the whole answer; two were computed, as the audit shows)
      await eventually(async () => {
        const audit = json(await call('GET', '/api/v1/audit?action=graphql*&page_size=100')).data as { action: string; result: string; request_id: string }[];
        const ours = audit.filter((x) => x.action === 'graphql sensitivities' && x.request_id === 'sens-aliases-1');
        assert.equal(ours.filter((x) => x.result === 'success').length, 2, JSON.stringify(audit));
      });
      // and a compute mutation the same way: no token left for runPowerFlow either
      const m = await app.app!.inject({ method: 'POST', url: '/graphql', headers: h, payload: { query: 'mutation($id: ID!) { x: runPowerFlow(id: $id) { status } }', variables: { id: net } } });
      assert.equal(json(m).errors?.[0]?.extensions?.code, 'RATE_LIMITED', m.body);
    });
  });
}

describe('gridops ptdf / lodf', () => {
  it('prints the JSON matrix and CSV; refuses an unknown option', () => {
    const bin = join(ROOT, 'bin', 'gridops.js');
    const r = spawnSync(process.execPath, [bin, 'ptdf', join(CASES_DIR, 'case30.m'), '--branches', '0,5'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.ok(Math.abs(out.values[1][4] - ref.ptdf[5]![4]!) <= 1e-9);
    const c = spawnSync(process.execPath, [bin, 'lodf', join(CASES_DIR, 'case30.m'), '--branches', '0', '--outages', '1', '--csv'], { encoding: 'utf8' });
    assert.equal(c.status, 0, c.stderr);
    assert.equal(c.stdout.trimEnd().split('\n').length, 2);
    const bad = spawnSync(process.execPath, [bin, 'ptdf', join(CASES_DIR, 'case30.m'), '--rows', '1'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /unknown option '--rows'/);
  });
});
