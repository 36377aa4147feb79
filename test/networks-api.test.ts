// REST conventions and the networks resource, in both modes (embedded and
// distributed): envelope, error codes, paging, sorting, versions, locking.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { threeBusNetwork } from './helpers/networks.js';

const tiny = threeBusNetwork;

for (const mode of MODES) {
  describe(`networks API (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
      app.app!.inject({ method: method as 'GET', url, headers: { ...h, ...headers }, ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }) });

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('creates a network with defaults and the success envelope', async () => {
      const res = await call('POST', '/api/v1/networks', tiny('alpha'), { 'x-request-id': 'req-create-1' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['x-request-id'], 'req-create-1');
      assert.ok(res.headers['x-trace-id']);
      const body = json(res);
      assert.equal(body.request_id, 'req-create-1');
      assert.match(body.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      const n = body.data;
      assert.match(n.id, /^net_[0-9a-f]+$/);
      assert.equal(n.status, 'ready');
      assert.equal(n.description, '');
      assert.equal(n.base_kv, 110);
      assert.equal(n.base_mva, 100);
      assert.deepEqual([n.bus_count, n.branch_count, n.generator_count, n.load_count], [3, 3, 2, 1]);
      assert.deepEqual(n.tags, {});
      const detail = json(await call('GET', `/api/v1/networks/${n.id}`)).data;
      assert.equal(detail.buses[1].v, 1.0);
      assert.equal(detail.buses[1].area, 1);
      assert.equal(detail.branches[1].b, 0);
      assert.equal(detail.branches[0].status, 'closed');
      assert.equal(detail.generators[0].in_service, true);
      assert.equal(detail.loads[0].mvar, 20);
    });

    it('generates a request id when none is given', async () => {
      const res = await call('GET', '/api/v1/networks');
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      assert.equal(json(res).request_id, res.headers['x-request-id']);
    });

    it('answers malformed JSON with 400 INVALID_REQUEST', async () => {
      const res = await call('POST', '/api/v1/networks', '{"name": "x", buses: [', { 'content-type': 'application/json' });
      assert.equal(res.statusCode, 400);
      const e = json(res);
      assert.equal(e.error.code, 'INVALID_REQUEST');
      assert.ok(e.error.trace_id);
      assert.ok(e.request_id);
    });

    it('answers a wrong enum with 400 INVALID_FIELD naming the field', async () => {
      const body = tiny('bad-enum');
      (body.buses[1] as Record<string, unknown>).type = 'PQ-ish';
      const res = await call('POST', '/api/v1/networks', body);
      assert.equal(res.statusCode, 400, res.body);
      const e = json(res).error;
      assert.equal(e.code, 'INVALID_FIELD');
      assert.match(e.message, /buses\.1\.type/);
    });

    it('refuses a missing name, too long a name, no buses', async () => {
      const noName = tiny('x') as Record<string, unknown>;
      delete noName.name;
      let res = await call('POST', '/api/v1/networks', noName);
      assert.equal(res.statusCode, 400);
      assert.equal(json(res).error.code, 'INVALID_REQUEST');
      res = await call('POST', '/api/v1/networks', tiny('n'.repeat(65)));
      assert.equal(res.statusCode, 400);
      assert.equal(json(res).error.code, 'INVALID_FIELD');
      res = await call('POST', '/api/v1/networks', { ...tiny('empty'), buses: [] });
      assert.equal(res.statusCode, 422);
      assert.equal(json(res).error.code, 'VALIDATION_FAILED');
    });

    it('names the element in topology errors', async () => {
      let res = await call('POST', '/api/v1/networks', tiny('bad-ref', { branches: [{ from: 1, to: 9, r: 0.01, x: 0.1 }, { from: 1, to: 2, r: 0.01, x: 0.1 }, { from: 1, to: 3, r: 0.01, x: 0.1 }] }));
      assert.equal(res.statusCode, 422);
      const e = json(res).error;
      assert.equal(e.code, 'BUS_NOT_FOUND');
      assert.equal(e.details.bus, 9);
      assert.equal(e.details.field, 'branches[0].to');

      // A split network is stored (CONTRACT "Islands"); validate reports its islands, a power flow refuses it by default.
      res = await call('POST', '/api/v1/networks', tiny('island', { branches: [{ from: 1, to: 3, r: 0.01, x: 0.1 }] }));
      assert.equal(res.statusCode, 201, res.body);
      const split = json(res).data.id;
      const v = json(await call('POST', `/api/v1/networks/${split}/validate`)).data;
      assert.equal(v.valid, false);
      assert.equal(v.errors[0].code, 'ISLANDED_BUS');
      assert.deepEqual(v.islands, [{ buses: [1, 3], slack_bus: 1 }, { buses: [2], slack_bus: null }]);
      res = await call('POST', `/api/v1/networks/${split}/powerflow`, {});
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(json(res).error.code, 'ISLANDED_BUS');

      res = await call('POST', '/api/v1/networks', tiny('noslack', { buses: [{ id: 1, type: 'pq' }, { id: 2, type: 'pq' }, { id: 3, type: 'pv' }] }));
      assert.equal(res.statusCode, 422);
      assert.equal(json(res).error.code, 'TOPOLOGY_INVALID');
    });

    it('refuses generator limits the wrong way round where they are entered (create, update)', async () => {
      const swapped = tiny('pmin-above-pmax', { generators: [{ bus: 1, mw: 0, vg: 1.02 }, { bus: 3, mw: 40, vg: 1.01, pmin: 90, pmax: 50 }] });
      let res = await call('POST', '/api/v1/networks', swapped);
      assert.equal(res.statusCode, 422, res.body);
      let e = json(res).error;
      assert.equal(e.code, 'PARAM_OUT_OF_RANGE');
      assert.equal(e.details.field, 'generators[1].pmin');
      assert.match(e.message, /pmin 90 MW above pmax 50 MW/);
      const id = json(await call('POST', '/api/v1/networks', tiny('limits-ok'))).data.id;
      res = await call('PUT', `/api/v1/networks/${id}`, tiny('limits-ok', { generators: [{ bus: 1, mw: 0, vg: 1.02, qmin: 10, qmax: -10 }, { bus: 3, mw: 40, vg: 1.01 }] }));
      assert.equal(res.statusCode, 422, res.body);
      e = json(res).error;
      assert.equal(e.details.field, 'generators[0].qmin');
      assert.equal(json(await call('GET', `/api/v1/networks/${id}`)).data.version, 1, 'the stored network is unchanged');
      // equal limits (a fixed output) are fine
      res = await call('POST', '/api/v1/networks', tiny('fixed-output', { generators: [{ bus: 1, mw: 0, vg: 1.02 }, { bus: 3, mw: 40, vg: 1.01, pmin: 40, pmax: 40 }] }));
      assert.equal(res.statusCode, 201, res.body);
    });

    it('answers 413 PAYLOAD_TOO_LARGE above 1 MB', async () => {
      const big = tiny('huge', { description: 'x', tags: Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`k${i}`, 'v'.repeat(200)])) });
      const res = await call('POST', '/api/v1/networks', big);
      assert.equal(res.statusCode, 413);
      assert.equal(json(res).error.code, 'PAYLOAD_TOO_LARGE');
    });

    it('answers 404 and 405 with the error body', async () => {
      let res = await call('GET', '/api/v1/networks/net_doesnotexist00');
      assert.equal(res.statusCode, 404);
      assert.equal(json(res).error.code, 'NOT_FOUND');
      res = await call('PATCH', '/api/v1/networks/net_abc');
      assert.equal(res.statusCode, 405);
      assert.equal(json(res).error.code, 'METHOD_NOT_ALLOWED');
      assert.match(String(res.headers.allow), /GET/);
      res = await call('DELETE', '/api/v1/health');
      assert.equal(res.statusCode, 405);
      res = await call('GET', '/api/v1/nothing-here');
      assert.equal(res.statusCode, 404);
    });

    it('pages, filters and sorts the list', async () => {
      for (const [i, name] of ['p-cherry', 'p-apple', 'p-banana', 'p-date', 'p-elder'].entries()) {
        const res = await call('POST', '/api/v1/networks', tiny(name, { tags: { region: i % 2 ? 'north' : 'south' } }));
        assert.equal(res.statusCode, 201);
      }
      let body = json(await call('GET', '/api/v1/networks?name=p-&sort=name&page_size=2'));
      assert.deepEqual(body.data.map((n: { name: string }) => n.name), ['p-apple', 'p-banana']);
      assert.deepEqual({ page: body.meta.page, page_size: body.meta.page_size, total: body.meta.total, total_pages: body.meta.total_pages }, { page: 1, page_size: 2, total: 5, total_pages: 3 });
      body = json(await call('GET', '/api/v1/networks?name=p-&sort=name&page_size=2&page=3'));
      assert.deepEqual(body.data.map((n: { name: string }) => n.name), ['p-elder']);
      body = json(await call('GET', '/api/v1/networks?name=p-&sort=-name&page_size=2'));
      assert.deepEqual(body.data.map((n: { name: string }) => n.name), ['p-elder', 'p-date']);
      // cursor paging walks the same order
      const seen: string[] = [];
      const url = '/api/v1/networks?name=p-&sort=name&page_size=2&cursor=';
      let cursor: string | null = Buffer.from(JSON.stringify({ o: 0 })).toString('base64url');
      while (cursor) {
        body = json(await call('GET', url + cursor));
        seen.push(...body.data.map((n: { name: string }) => n.name));
        cursor = body.meta.next_cursor ?? null;
      }
      assert.deepEqual(seen, ['p-apple', 'p-banana', 'p-cherry', 'p-date', 'p-elder']);
      body = json(await call('GET', '/api/v1/networks?tag=region:north&sort=name'));
      assert.deepEqual(body.data.map((n: { name: string }) => n.name), ['p-apple', 'p-date']);
      body = json(await call('GET', '/api/v1/networks?name=p-&sort=status,-created_at&page_size=1'));
      assert.equal(body.data[0].name, 'p-elder');
      let res = await call('GET', '/api/v1/networks?page_size=101');
      assert.equal(res.statusCode, 422);
      assert.equal(json(res).error.code, 'PARAM_OUT_OF_RANGE');
      res = await call('GET', '/api/v1/networks?sort=password');
      assert.equal(res.statusCode, 400);
      assert.equal(json(res).error.code, 'INVALID_FIELD');
      res = await call('GET', '/api/v1/networks?status=sleeping');
      assert.equal(json(res).error.code, 'INVALID_FIELD');
      res = await call('GET', '/api/v1/networks?cursor=garbage');
      assert.equal(json(res).error.code, 'INVALID_FIELD');
    });

    it('renders timestamps in another zone with tz', async () => {
      const id = json(await call('POST', '/api/v1/networks', tiny('tz-net'))).data.id;
      const utc = json(await call('GET', `/api/v1/networks/${id}`)).data.created_at;
      const tokyo = json(await call('GET', `/api/v1/networks/${id}?tz=Asia/Tokyo`)).data.created_at;
      assert.match(tokyo, /\+09:00$/);
      assert.equal(new Date(tokyo).getTime(), new Date(utc).getTime());
      const res = await call('GET', `/api/v1/networks/${id}?tz=Mars/Olympus`);
      assert.equal(res.statusCode, 400);
      assert.equal(json(res).error.code, 'INVALID_FIELD');
    });

    it('updates with a new version and leaves the stored network unchanged after a rejected update', async () => {
      const id = json(await call('POST', '/api/v1/networks', tiny('versioned'))).data.id;
      const before = json(await call('GET', `/api/v1/networks/${id}`)).data;
      for (const [bad, code] of [
        [tiny('versioned', { branches: [{ from: 1, to: 42, r: 0.1, x: 0.1 }] }), 'BUS_NOT_FOUND'],
        [tiny('versioned', { buses: [{ id: 1, type: 'pq' }] , branches: [], generators: [], loads: [] }), 'TOPOLOGY_INVALID'],
        [{ ...tiny('versioned'), buses: 'nope' }, 'INVALID_FIELD'],
        [{ ...tiny('versioned'), extra: 1 }, 'INVALID_REQUEST'],
      ] as const) {
        const res = await call('PUT', `/api/v1/networks/${id}`, bad);
        assert.equal(json(res).error.code, code, res.body);
      }
      const after = json(await call('GET', `/api/v1/networks/${id}`)).data;
      assert.deepEqual(after, before);
      const upd = await call('PUT', `/api/v1/networks/${id}`, tiny('versioned-2', { description: 'second' }));
      assert.equal(upd.statusCode, 200, upd.body);
      assert.equal(json(upd).data.version, 2);
      assert.equal(json(upd).data.name, 'versioned-2');
      // archived is read-only until restored
      const arch = await call('PUT', `/api/v1/networks/${id}`, { ...tiny('versioned-2'), status: 'archived' });
      assert.equal(json(arch).data.status, 'archived');
      const refused = await call('PUT', `/api/v1/networks/${id}`, tiny('versioned-3'));
      assert.equal(refused.statusCode, 409);
      assert.equal(json(refused).error.code, 'CONFLICT');
      const pf = await call('POST', `/api/v1/networks/${id}/powerflow`, {});
      assert.equal(pf.statusCode, 409);
    });

    it('validates a stored network', async () => {
      const id = json(await call('POST', '/api/v1/networks', tiny('valid-one'))).data.id;
      const v = json(await call('POST', `/api/v1/networks/${id}/validate`)).data;
      assert.deepEqual(v, { valid: true, errors: [], islands: [{ buses: [1, 2, 3], slack_bus: 1 }] });
      const res = await call('POST', '/api/v1/networks/net_nothere0000/validate');
      assert.equal(res.statusCode, 404);
    });

    it('batch-creates and batch-deletes judging each entry alone', async () => {
      const res = await call('POST', '/api/v1/networks/batch', { networks: [tiny('b1'), { name: 'b2', buses: 'x' }, tiny('b3', { branches: [{ from: 1, to: 7, r: 0, x: 0.1 }] }), tiny('b4')] });
      assert.equal(res.statusCode, 200, res.body);
      const d = json(res).data;
      assert.deepEqual(d.succeeded.map((s: { index: number }) => s.index), [0, 3]);
      assert.deepEqual(d.failed.map((f: { index: number; error: { code: string } }) => [f.index, f.error.code]), [[1, 'INVALID_FIELD'], [2, 'BUS_NOT_FOUND']]);
      const tooMany = await call('POST', '/api/v1/networks/batch', { networks: Array.from({ length: 21 }, (_, i) => tiny(`m${i}`)) });
      assert.equal(tooMany.statusCode, 422);
      const del = json(await call('DELETE', '/api/v1/networks/batch', { ids: [d.succeeded[0].id, 'net_missing00000', d.succeeded[1].id] })).data;
      assert.deepEqual(del.succeeded.map((s: { index: number }) => s.index), [0, 2]);
      assert.equal(del.failed[0].error.code, 'NOT_FOUND');
      assert.equal((await call('GET', `/api/v1/networks/${d.succeeded[0].id}`)).statusCode, 404);
    });

    it('accepts DELETE with Content-Type application/json and no body; POST keeps the strict parser', async () => {
      const id = json(await call('POST', '/api/v1/networks', tiny('doomed-json'))).data.id;
      const res = await call('DELETE', `/api/v1/networks/${id}`, '', { 'content-type': 'application/json' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await call('GET', `/api/v1/networks/${id}`)).statusCode, 404);
      const post = await call('POST', '/api/v1/networks', '', { 'content-type': 'application/json' });
      assert.equal(post.statusCode, 400);
      assert.equal(json(post).error.code, 'INVALID_REQUEST');
      assert.match(json(post).error.message, /body is empty/);
    });

    it('stores versions deflated (model_z, bus_ids) and still reads a version stored as jsonb before migration 019', async () => {
      const id = json(await call('POST', '/api/v1/networks', tiny('stored'))).data.id;
      const before = json(await call('GET', `/api/v1/networks/${id}`)).data;
      const db = app.services.db;
      const { rows: [v] } = await db.query<{ model: unknown; model_z: Uint8Array | null; bus_ids: number[] | null }>(
        'SELECT model, model_z, bus_ids FROM network_versions WHERE network_id = $1', [id]);
      assert.equal(v.model, null, 'no jsonb copy of the model');
      assert.ok(v.model_z && v.model_z.length > 0);
      assert.deepEqual(v.bus_ids, [1, 2, 3]);
      // A row as written before 019: the jsonb model only.
      const legacy = JSON.parse(inflateSync(v.model_z).toString('utf8'));
      await db.query('UPDATE network_versions SET model = $2::jsonb, model_z = NULL, bus_ids = NULL WHERE network_id = $1', [id, JSON.stringify(legacy)]);
      const after = json(await call('GET', `/api/v1/networks/${id}`)).data;
      assert.deepEqual(after.buses, before.buses);
      assert.deepEqual(after.branches, before.branches);
      // The device placement check reads both forms.
      assert.equal((await call('POST', '/api/v1/devices', { name: 'legacy-pv', type: 'PV', network_id: id, bus: 2 })).statusCode, 201);
      assert.equal((await call('POST', '/api/v1/devices', { name: 'legacy-x', type: 'PV', network_id: id, bus: 9 })).statusCode, 422);
      await call('PUT', `/api/v1/networks/${id}`, tiny('stored'));
      assert.equal((await call('POST', '/api/v1/devices', { name: 'new-pv', type: 'PV', network_id: id, bus: 3 })).statusCode, 201);
      assert.equal((await call('POST', '/api/v1/devices', { name: 'new-x', type: 'PV', network_id: id, bus: 9 })).statusCode, 422);
    });

    it('deletes a network', async () => {
      const id = json(await call('POST', '/api/v1/networks', tiny('doomed'))).data.id;
      const res = await call('DELETE', `/api/v1/networks/${id}`);
      assert.equal(res.statusCode, 200);
      assert.equal((await call('GET', `/api/v1/networks/${id}`)).statusCode, 404);
      assert.equal((await call('DELETE', `/api/v1/networks/${id}`)).statusCode, 404);
    });

    it('imports and exports MATPOWER', async () => {
      const text = readFileSync(join(CASES_DIR, 'case30.m'), 'utf8');
      const res = await call('POST', '/api/v1/networks/import?format=matpower&name=ieee30', text, { 'content-type': 'text/plain' });
      assert.equal(res.statusCode, 201, res.body);
      const n = json(res).data;
      assert.equal(n.name, 'ieee30');
      assert.equal(n.bus_count, 30);
      assert.equal(n.branch_count, 41);
      const exp = await call('GET', `/api/v1/networks/${n.id}/export?format=matpower`);
      assert.equal(exp.statusCode, 200);
      assert.match(String(exp.headers['content-type']), /text\/plain/);
      assert.match(exp.body, /mpc\.branch = \[/);
      const again = await call('POST', '/api/v1/networks/import?format=matpower', exp.body, { 'content-type': 'text/plain' });
      assert.equal(json(again).data.bus_count, 30);
      const bad = await call('POST', '/api/v1/networks/import?format=matpower', 'function mpc = broken\nmpc.baseMVA = 100;\nmpc.bus = [\n1 3 0;\n];\n', { 'content-type': 'text/plain' });
      assert.equal(bad.statusCode, 422);
      assert.equal(json(bad).error.code, 'VALIDATION_FAILED');
      assert.match(json(bad).error.message, /line \d+/);
      const wrongFmt = await call('POST', '/api/v1/networks/import?format=psse', text, { 'content-type': 'text/plain' });
      assert.equal(wrongFmt.statusCode, 400);
    });

    it('serves health and the OpenAPI document', async () => {
      const hres = await call('GET', '/api/v1/health');
      assert.equal(hres.statusCode, 200);
      const hd = json(hres).data;
      assert.equal(hd.status, 'ok');
      for (const k of ['database', 'timeseries', 'eventbus', 'realtime']) assert.equal(hd.checks[k], 'ok');
      assert.equal(typeof hd.uptime_seconds, 'number');
      const doc = json(await call('GET', '/api/v1/openapi.json'));
      assert.equal(doc.openapi, '3.1.0');
      assert.ok(doc.paths['/api/v1/networks/{id}/powerflow']);
      assert.ok(doc.paths['/api/v1/tasks/{id}']);
      const page = await call('GET', '/docs/');
      assert.ok(page.statusCode === 200 || page.statusCode === 302);
    });
  });
}
