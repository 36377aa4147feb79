// API versioning (SPEC 9, docs/versioning.md): deprecation phases of configured
// endpoints (headers, Warning 299, 10% rate, 410 GONE), disabled and unknown
// versions, the default version, the v1 sunset, and the /api/v2 preview shapes
// over the same store as v1 (same ids).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { loadVersioningConfig } from '../src/realtime/settings.js';
import { tinyNetwork } from './helpers/rest.js';

type Headers = Record<string, string>;

const tiny = tinyNetwork;

const DAY = 86_400_000;
const iso = (ms: number) => new Date(Date.now() + ms).toISOString();

function call(app: TestApp, h: Headers) {
  return (method: string, url: string, body?: unknown, extra: Headers = {}) =>
    app.app!.inject({ method: method as 'GET', url, headers: { ...h, ...extra }, ...(body === undefined ? {} : { payload: body as object }) });
}

for (const mode of MODES) {
  describe(`versioning and /api/v2 (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let req: ReturnType<typeof call>;

    before(async () => {
      const deprecations = [
        // phase 1 (announced, sunset a year away)
        { method: 'POST', path: '/api/v1/networks/:id/validate', deprecated_at: iso(-DAY), sunset: iso(365 * DAY), successor: '/api/v2/networks/{id}' },
        // phase 2 from the dates (sunset in 60 days)
        { method: 'GET', path: '/api/v1/networks/:id/export', sunset: iso(60 * DAY), successor: '/api/v2/networks/{id}' },
        // phase 3 from the dates (sunset in 10 days): 10% rate
        { method: 'DELETE', path: '/api/v1/tasks/:id', sunset: iso(10 * DAY), successor: '/api/v2/tasks/{id}' },
        // phase 4: removed
        { method: 'POST', path: '/api/v1/networks/batch', sunset: '2026-01-01T00:00:00Z', successor: '/api/v2/networks', doc_url: 'https://gridops.dev/docs/versioning#batch' },
        // announced in the future: nothing yet
        { method: 'GET', path: '/api/v1/events', deprecated_at: iso(30 * DAY), sunset: iso(400 * DAY) },
      ];
      app = await startTestApp(mode, {
        config: { versioning: loadVersioningConfig({ API_DEPRECATIONS: JSON.stringify(deprecations), API_DEPRECATED_RATE_PER_MINUTE: '6' }) },
      });
      h = await adminHeaders(app);
      req = call(app, h);
    });
    after(async () => app?.close());

    it('phase 1: Deprecation, Sunset (HTTP date), Link rel=successor-version and meta.deprecated', async () => {
      const n = json(await req('POST', '/api/v1/networks', tiny('dep1'))).data;
      const r = await req('POST', `/api/v1/networks/${n.id}/validate`);
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers.deprecation, 'true');
      assert.match(String(r.headers.sunset), /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
      assert.equal(r.headers.link, `</api/v2/networks/${n.id}>; rel="successor-version"`);
      assert.equal(r.headers.warning, undefined);
      const body = json(r);
      assert.equal(body.meta.deprecated, true);
      assert.equal(body.meta.successor, `/api/v2/networks/${n.id}`);
      assert.equal(body.data.valid, true);
      // Other endpoints are untouched.
      const other = await req('GET', `/api/v1/networks/${n.id}`);
      assert.equal(other.headers.deprecation, undefined);
      assert.equal(other.headers['x-api-version'], 'v1');
      // Not announced yet: no headers.
      const ev = await req('GET', '/api/v1/events');
      assert.equal(ev.statusCode, 200);
      assert.equal(ev.headers.deprecation, undefined);
    });

    it('phase 2 adds Warning: 299; phase 3 cuts the rate to 10%; phase 4 answers 410 GONE with removed_at, successor, doc_url', async () => {
      const n = json(await req('POST', '/api/v1/networks', tiny('dep2'))).data;
      const r = await req('GET', `/api/v1/networks/${n.id}/export?format=matpower`);
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers.deprecation, 'true');
      assert.match(String(r.headers.warning), /^299 - "Deprecated API: GET \/api\/v1\/networks\/:id\/export will be removed on .* GMT; use \/api\/v2\/networks\/net_/);

      const codes: number[] = [];
      let limited;
      for (let i = 0; i < 3; i++) {
        const t = await req('DELETE', '/api/v1/tasks/task_0000');
        codes.push(t.statusCode);
        if (t.statusCode === 429) limited = t;
      }
      assert.equal(codes[0], 404, 'the first passes (unknown task)');
      assert.ok(limited, `phase 3 limits: ${codes}`);
      assert.equal(limited!.headers.warning !== undefined, true);
      const e = json(limited!).error;
      assert.equal(e.code, 'RATE_LIMITED');
      assert.equal(e.details.limit, 6);
      assert.equal(e.details.deprecated, true);
      assert.ok(limited!.headers['retry-after']);

      const gone = await req('POST', '/api/v1/networks/batch', { networks: [tiny('x')] });
      assert.equal(gone.statusCode, 410);
      const g = json(gone).error;
      assert.equal(g.code, 'GONE');
      assert.equal(g.details.removed_at, '2026-01-01T00:00:00.000Z');
      assert.equal(g.details.successor, '/api/v2/networks');
      assert.equal(g.details.doc_url, 'https://gridops.dev/docs/versioning#batch');
      // Removed is removed for everyone, before authentication.
      assert.equal((await app.app!.inject({ method: 'POST', url: '/api/v1/networks/batch', payload: {} })).statusCode, 410);
    });

    it('unversioned /api paths are served by the default version; unknown versions answer 404 with a clear message', async () => {
      const a = await req('GET', '/api/networks?page_size=1');
      assert.equal(a.statusCode, 200);
      assert.equal(a.headers['x-api-version'], 'v1');
      assert.ok(Array.isArray(json(a).data));
      const v3 = await req('GET', '/api/v3/networks');
      assert.equal(v3.statusCode, 404);
      assert.match(json(v3).error.message, /v3 \(planning\) is not enabled/);
      const v9 = await req('GET', '/api/v9/networks');
      assert.equal(v9.statusCode, 404);
      assert.match(json(v9).error.message, /does not exist/);
    });

    it('v2 reads what v1 wrote (same ids) in the nested shapes, and v1 reads what v2 wrote', async () => {
      const v1 = json(await req('POST', '/api/v1/networks', tiny('shared-store'))).data;
      const r = await req('GET', `/api/v2/networks/${v1.id}`);
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.headers['x-api-version'], 'v2');
      const v2 = json(r).data;
      assert.equal(v2.id, v1.id);
      assert.equal(v2.topology.buses.count, 3);
      assert.equal(v2.topology.branches.count, 3);
      assert.equal(v2.topology.generators.count, 2);
      assert.equal(v2.metadata.created_at, v1.created_at);
      assert.equal(v2.bus_count, undefined);
      assert.equal(v2.created_at, undefined);
      const bus1 = v2.topology.buses.items[0];
      assert.deepEqual(bus1.voltage, { magnitude: 1.02, angle: 0 });
      assert.equal(bus1.v, undefined);
      assert.equal(bus1.theta, undefined);
      assert.equal(json(r).meta.version, 'v2');

      const created = await req('POST', '/api/v2/networks', {
        ...tiny('from-v2'),
        buses: [{ id: 1, type: 'slack', voltage: { magnitude: 1.03, angle: 0.1 } }, { id: 2, type: 'pq' }, { id: 3, type: 'pv', voltage: { magnitude: 1.01 } }],
      });
      assert.equal(created.statusCode, 201, created.body);
      const c2 = json(created).data;
      assert.equal(c2.topology.buses.count, 3);
      const back = json(await req('GET', `/api/v1/networks/${c2.id}`)).data;
      assert.equal(back.id, c2.id);
      assert.equal(back.buses[0].v, 1.03);
      assert.equal(back.buses[0].theta, 0.1);
      assert.equal(back.bus_count, 3);
      // v1 field names are refused by the v2 schema.
      const old = await req('POST', '/api/v2/networks', tiny('old-shape'));
      assert.equal(old.statusCode, 400);

      const list = json(await req('GET', '/api/v2/networks'));
      assert.equal(list.meta.page_size, 50, 'v2 default page size');
      assert.equal(json(await req('GET', '/api/v1/networks')).meta.page_size, 20);
      assert.ok(list.data.every((n: any) => n.topology && n.metadata));
    });

    it('POST /api/v2/networks/{id}:runPowerFlow: colon action, default timeout 60000 ms, v2 result; tasks shared with v1', async () => {
      const n = json(await req('POST', '/api/v1/networks', tiny('pf-v2'))).data;
      const r = await req('POST', `/api/v2/networks/${n.id}:runPowerFlow`, {});
      assert.equal(r.statusCode, 200, r.body);
      const res = json(r).data;
      assert.equal(res.status, 'converged');
      assert.ok(res.buses.every((b: any) => typeof b.voltage.magnitude === 'number' && typeof b.voltage.angle === 'number' && b.v === undefined));
      const task = json(await req('GET', `/api/v1/tasks/${res.task_id}`)).data;
      assert.equal(task.options.timeout_ms, 60000);
      const v1run = json(await req('POST', `/api/v1/networks/${n.id}/powerflow`, {})).data;
      const v1task = json(await req('GET', `/api/v1/tasks/${v1run.task_id}`)).data;
      assert.equal(v1task.options.timeout_ms, 30000, 'v1 keeps its default');

      const q = await req('POST', `/api/v2/networks/${n.id}:runPowerFlow`, { async: true });
      assert.equal(q.statusCode, 202);
      const queued = json(q).data;
      assert.equal(queued.poll_url, `/api/v2/tasks/${queued.task_id}`);
      let t;
      for (let i = 0; i < 200; i++) {
        t = json(await req('GET', queued.poll_url)).data;
        if (t.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(t.status, 'completed');
      assert.ok(t.result.buses[0].voltage);
      assert.ok(t.metadata.created_at);
      assert.equal(json(await req('GET', `/api/v1/tasks/${queued.task_id}?include=result`)).data.result.buses[0].v, t.result.buses[0].voltage.magnitude);

      assert.equal((await req('POST', `/api/v2/networks/${n.id}:fly`, {})).statusCode, 404);
      assert.equal((await req('GET', `/api/v2/networks/${n.id}:fly`)).statusCode, 404);
      assert.equal((await req('POST', `/api/v2/networks/net_nothere:runPowerFlow`, {})).statusCode, 404);
      const viewer = await tokenFor(app, 'viewer');
      assert.equal((await req('POST', `/api/v2/networks/${n.id}:runPowerFlow`, {}, viewer)).statusCode, 403);
      assert.equal((await app.app!.inject({ method: 'POST', url: `/api/v2/networks/${n.id}:runPowerFlow`, payload: {} })).statusCode, 401);
    });

    it('GET /api/v2/agents/{id}:getStatus and POST /api/v2/timeseries:batchWrite call the v1 domain functions', async (t) => {
      const agent = await req('POST', '/api/v1/agents', { name: `v2-agent-${mode}`, type: 'planning' });
      assert.equal(agent.statusCode, 201, agent.body);
      const id = json(agent).data.id;
      const s = await req('GET', `/api/v2/agents/${id}:getStatus`);
      assert.equal(s.statusCode, 200, s.body);
      assert.equal(json(s).data.id, id);
      assert.equal(json(s).data.status, json(agent).data.status);
      assert.ok(json(s).data.metadata.created_at);
      const w = await req('POST', '/api/v2/timeseries:batchWrite', { points: [{ metric: 'v2.test', value: 1.5, timestamp: new Date().toISOString() }, { metric: '', value: 'x' }] });
      if (w.statusCode === 404) return t.skip('time-series domain not present in this build');
      assert.equal(w.statusCode, 200, w.body);
      assert.equal(json(w).data.accepted, 1);
      assert.equal(json(w).data.rejected, 1);
    });
  });
}

describe('versioning settings (embedded)', () => {
  it('a disabled version answers 404 with a clear message, before authentication', async () => {
    const app = await startTestApp('embedded', { config: { versioning: loadVersioningConfig({ API_VERSIONS: 'v1' }) } });
    try {
      const r = await app.app!.inject({ method: 'GET', url: '/api/v2/networks' });
      assert.equal(r.statusCode, 404);
      const e = json(r).error;
      assert.equal(e.code, 'NOT_FOUND');
      assert.match(e.message, /API version v2 \(preview\) is not enabled on this deployment; served: v1 \(stable\)/);
      assert.deepEqual(e.details.enabled, ['v1']);
      const ok = await app.app!.inject({ method: 'GET', url: '/api/v1/health' });
      assert.equal(ok.statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it('a v1 sunset date announces the end of v1 on every v1 response, naming the v2 twin when there is one', async () => {
    const app = await startTestApp('embedded', { config: { versioning: loadVersioningConfig({ API_V1_SUNSET: iso(300 * DAY) }) } });
    try {
      const h = await adminHeaders(app);
      const r = await app.app!.inject({ method: 'GET', url: '/api/v1/networks', headers: h });
      assert.equal(r.statusCode, 200);
      assert.equal(r.headers.deprecation, 'true');
      assert.ok(r.headers.sunset);
      assert.equal(r.headers.link, '</api/v2/networks>; rel="successor-version"');
      const health = await app.app!.inject({ method: 'GET', url: '/api/v1/health' });
      assert.equal(health.headers.link, '</api/v2>; rel="successor-version"');
      const v2 = await app.app!.inject({ method: 'GET', url: '/api/v2/networks', headers: h });
      assert.equal(v2.headers.deprecation, undefined);
    } finally {
      await app.close();
    }
  });

  it('refuses a default version that is not enabled, and malformed settings', () => {
    assert.throws(() => loadVersioningConfig({ API_VERSIONS: 'v2', API_DEFAULT_VERSION: 'v1' }), /API_DEFAULT_VERSION/);
    assert.throws(() => loadVersioningConfig({ API_VERSIONS: 'one' }), /API_VERSIONS/);
    assert.throws(() => loadVersioningConfig({ API_DEPRECATIONS: '{' }), /API_DEPRECATIONS/);
    assert.throws(() => loadVersioningConfig({ API_V1_SUNSET: 'soon' }), /sunset/);
  });
});
