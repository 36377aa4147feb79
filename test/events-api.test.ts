// Event history (GET /api/v1/events) in both modes: the record, order and `after`,
// every filter with good and bad values, paging, tenants and roles, and the
// retention purge.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { purgeEvents, retentionSettings } from '../src/domain/eventHistory.js';

const tiny = (name: string) => ({
  name,
  buses: [{ id: 1, type: 'slack' }, { id: 2, type: 'pq' }],
  branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
  generators: [{ bus: 1, mw: 0 }],
  loads: [{ bus: 2, mw: 5 }],
});

for (const mode of MODES) {
  describe(`events API (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const nets: string[] = [];
    let startedAt: string;
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = h) =>
      app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    const list = async (qs: string, headers = h) => {
      const res = await call('GET', `/api/v1/events?${qs}`, undefined, headers);
      return { status: res.statusCode, body: json(res) };
    };
    const seq = (id: string) => Number(id.slice(4));

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      startedAt = new Date(Date.now() - 1000).toISOString();
      for (const n of ['ev-a', 'ev-b', 'ev-c']) {
        const res = await call('POST', '/api/v1/networks', tiny(n));
        assert.equal(res.statusCode, 201, res.body);
        nets.push(json(res).data.id);
      }
    });
    after(async () => app?.close());

    it('lists the topology events of network creation with the event record', async () => {
      const r = await list('topic=topology&page_size=100');
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const created = r.body.data.filter((e: any) => e.kind === 'network.created');
      assert.deepEqual(created.map((e: any) => e.network_id), [...nets].reverse(), 'newest first by default');
      const e = created[0];
      assert.deepEqual(Object.keys(e).sort(), ['agent_id', 'id', 'kind', 'network_id', 'payload', 'severity', 'timestamp', 'topic']);
      assert.match(e.id, /^evt_\d{16}$/);
      assert.equal(e.topic, 'topology');
      assert.equal(e.payload.network_id, nets[2]);
      assert.equal(e.payload.changes.name, 'ev-c');
      assert.match(e.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(e.agent_id, null);
      assert.equal(e.severity, null);
      assert.ok(r.body.meta.total >= 3);
      assert.equal(r.body.meta.page, 1);
    });

    it('orders by id (= time): -id by default, id/timestamp on request, ascending after an id', async () => {
      const desc = (await list('page_size=100')).body.data.map((e: any) => seq(e.id));
      assert.deepEqual(desc, [...desc].sort((a, b) => b - a));
      const asc = (await list('page_size=100&sort=id')).body.data.map((e: any) => seq(e.id));
      assert.deepEqual(asc, [...asc].sort((a, b) => a - b));
      assert.deepEqual((await list('page_size=100&sort=timestamp')).body.data.map((e: any) => seq(e.id)), asc);
      assert.deepEqual((await list('page_size=100&sort=-timestamp')).body.data.map((e: any) => seq(e.id)), desc);
      const all = (await list('topic=topology&sort=id&page_size=100')).body.data;
      const first = all.find((e: any) => e.network_id === nets[0]);
      const after = (await list(`topic=topology&after=${first.id}`)).body.data;
      assert.deepEqual(after.map((e: any) => e.network_id), [nets[1], nets[2]], 'after: later events, oldest first');
      assert.ok(after.every((e: any) => seq(e.id) > seq(first.id)));
      const afterDesc = (await list(`topic=topology&after=${first.id}&sort=-id`)).body.data;
      assert.deepEqual(afterDesc.map((e: any) => e.network_id), [nets[2], nets[1]]);
      const last = all[all.length - 1];
      assert.deepEqual((await list(`after=${last.id}&topic=topology`)).body.data, []);
      assert.equal((await list('sort=payload')).status, 400);
    });

    it('filters by topic list, time range, network, agent and minimum severity', async () => {
      const dev = json(await call('POST', '/api/v1/devices', { name: 'ev-dev', type: 'PV', status: 'online', network_id: nets[0] })).data;
      assert.equal((await call('PATCH', `/api/v1/devices/${dev.id}`, { status: 'fault' })).statusCode, 200);
      assert.equal((await call('PATCH', `/api/v1/devices/${dev.id}`, { status: 'maintenance' })).statusCode, 200);
      const topics = (qs: string) => list(`page_size=100&${qs}`).then((r) => new Set(r.body.data.map((e: any) => e.topic)));
      assert.deepEqual(await topics('topic=device'), new Set(['device']));
      const both = await topics('topic=topology,device');
      assert.ok(both.has('topology') && both.has('device'));
      assert.ok([...both].every((t) => t === 'topology' || t === 'device'));
      assert.deepEqual(await topics('topic= device , topology'), both);
      // network
      const onNet0 = (await list(`network_id=${nets[0]}&page_size=100&sort=id`)).body.data;
      assert.ok(onNet0.length >= 4);
      assert.ok(onNet0.every((e: any) => e.network_id === nets[0]));
      assert.deepEqual((await list('network_id=net_nothing')).body.data, []);
      assert.deepEqual((await list('agent_id=agent_nothing')).body.data, []);
      // severity: device fault is error (2), offline warn (1), others info (0); topology events have none
      const sev = async (s: string) => (await list(`topic=device&severity=${s}&page_size=100`)).body.data.filter((e: any) => e.payload.device_id === dev.id);
      assert.deepEqual((await sev('error')).map((e: any) => [e.payload.status, e.severity]), [['fault', 'error']]);
      assert.deepEqual((await sev('2')).map((e: any) => e.payload.status), ['fault']);
      assert.equal((await sev('critical')).length, 0);
      assert.equal((await sev('info')).length, 3, 'created, fault, maintenance');
      // time range
      const future = new Date(Date.now() + 3600_000).toISOString();
      assert.deepEqual((await list(`from=${future}`)).body.data, []);
      const early = (await list(`to=${startedAt}&topic=topology`)).body.data;
      assert.ok(early.every((e: any) => e.timestamp < startedAt));
      const inRange = (await list(`from=${startedAt}&to=${future}&topic=topology&page_size=100`)).body.data;
      assert.ok(inRange.filter((e: any) => e.kind === 'network.created').length === 3);
    });

    it('refuses bad filters with the right code', async () => {
      const cases: [string, number, string][] = [
        ['topic=weather', 400, 'INVALID_FIELD'],
        ['topic=topology,bogus', 400, 'INVALID_FIELD'],
        ['from=yesterday', 400, 'INVALID_FIELD'],
        ['to=2026-13-45', 400, 'INVALID_FIELD'],
        [`from=${new Date().toISOString()}&to=2020-01-01T00:00:00Z`, 422, 'VALIDATION_FAILED'],
        ['severity=loud', 400, 'INVALID_FIELD'],
        ['severity=7', 400, 'INVALID_FIELD'],
        ['after=42', 400, 'INVALID_FIELD'],
        ['after=evt_x', 400, 'INVALID_FIELD'],
        ['page_size=101', 422, 'PARAM_OUT_OF_RANGE'],
        ['page_size=0', 422, 'PARAM_OUT_OF_RANGE'],
        ['page=0', 422, 'PARAM_OUT_OF_RANGE'],
        ['cursor=not-ours', 400, 'INVALID_FIELD'],
        ['colour=red', 400, 'INVALID_REQUEST'],
      ];
      for (const [qs, status, code] of cases) {
        const r = await list(qs);
        assert.deepEqual([r.status, r.body.error?.code], [status, code], `${qs}: ${JSON.stringify(r.body)}`);
      }
      assert.equal((await call('POST', '/api/v1/events', {})).statusCode, 405);
    });

    it('pages with page/page_size and cursors', async () => {
      const all = (await list('page_size=100&sort=id')).body.data.map((e: any) => e.id);
      const p1 = (await list('page_size=2&sort=id')).body;
      assert.deepEqual(p1.data.map((e: any) => e.id), all.slice(0, 2));
      assert.equal(p1.meta.page_size, 2);
      assert.equal(p1.meta.total, all.length);
      assert.equal(p1.meta.total_pages, Math.ceil(all.length / 2));
      const p2 = (await list('page_size=2&sort=id&page=2')).body;
      assert.deepEqual(p2.data.map((e: any) => e.id), all.slice(2, 4));
      const c2 = (await list(`page_size=2&sort=id&cursor=${p1.meta.next_cursor}`)).body;
      assert.deepEqual(c2.data.map((e: any) => e.id), all.slice(2, 4));
      assert.equal((await list('page_size=20')).body.meta.page_size, 20);
      assert.equal((await list('')).body.meta.page_size, 20, 'default page size 20');
    });

    it('keeps tenants apart, hides audit events from callers without the audit permission, needs credentials', async () => {
      const tenant = `tev${mode.slice(0, 1)}${Date.now().toString(36)}`;
      const other = await tokenFor(app, 'operator', tenant);
      let r = await list('page_size=100', other);
      assert.equal(r.status, 200);
      assert.ok(!r.body.data.some((e: any) => nets.includes(e.network_id)));
      const theirs = json(await call('POST', '/api/v1/networks', tiny('theirs'), other)).data.id;
      r = await list('topic=topology', other);
      assert.deepEqual(r.body.data.map((e: any) => e.network_id), [theirs]);
      assert.ok(!(await list('topic=topology&page_size=100')).body.data.some((e: any) => e.network_id === theirs));
      // audit events (if any door writes them to the log) only with the audit permission
      await app.services.db.query(`INSERT INTO events (tenant_id, topic, kind, payload) VALUES ('default', 'audit', 'audit.test', '{"actor":"x","action":"y","resource":"z"}')`);
      assert.ok((await list('topic=audit')).body.data.some((e: any) => e.kind === 'audit.test'));
      const op = await tokenFor(app, 'operator');
      assert.deepEqual((await list('topic=audit', op)).body.data, []);
      assert.ok(!(await list('page_size=100', op)).body.data.some((e: any) => e.topic === 'audit'));
      const viewer = await tokenFor(app, 'viewer');
      assert.equal((await list('topic=topology', viewer)).status, 200);
      assert.equal((await list('', {})).status, 401);
    });

    it('purges events older than the retention, never younger than 24 hours', async () => {
      const db = app.services.db;
      const ins = (kind: string, age: string) => db.query(`INSERT INTO events (tenant_id, topic, kind, payload, created_at) VALUES ('default', 'system', $1, '{}', now() - $2::interval)`, [kind, age]);
      await ins('retention.old', '8 days');
      await ins('retention.week', '6 days');
      await ins('retention.hours', '2 hours');
      const kinds = async () => new Set((await db.query<{ kind: string }>(`SELECT kind FROM events WHERE kind LIKE 'retention.%'`)).rows.map((r) => r.kind));
      assert.equal(await purgeEvents(app.services, 7 * 24), 1);
      assert.deepEqual(await kinds(), new Set(['retention.week', 'retention.hours']));
      // a retention below 24 hours is raised to 24: the 2-hour-old event stays
      assert.equal(await purgeEvents(app.services, 1), 1);
      assert.deepEqual(await kinds(), new Set(['retention.hours']));
      assert.ok((await list('topic=topology')).body.data.length > 0, 'recent events untouched');
      // settings from the environment
      assert.deepEqual(retentionSettings({}), { retentionHours: 168, intervalSeconds: 3600 });
      assert.deepEqual(retentionSettings({ EVENT_RETENTION_HOURS: '48', EVENT_PURGE_INTERVAL_SECONDS: '60' }), { retentionHours: 48, intervalSeconds: 60 });
      assert.equal(retentionSettings({ EVENT_RETENTION_HOURS: '3' }).retentionHours, 24);
      assert.throws(() => retentionSettings({ EVENT_RETENTION_HOURS: 'week' }), /EVENT_RETENTION_HOURS/);
    });
  });
}
