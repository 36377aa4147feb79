// Device registry over REST in both modes: fields, validation and error codes,
// filters and paging, the status machine (every transition, allowed or refused),
// device events, fault alarms, batches with partial failures, tenants and roles.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';

const STATUSES = ['online', 'offline', 'maintenance', 'fault'] as const;
type Status = (typeof STATUSES)[number];
// The table of docs/devices.md, written out again so the test checks the code against the document.
const ALLOWED: Record<Status, Status[]> = {
  online: ['offline', 'maintenance', 'fault'],
  offline: ['online', 'maintenance', 'fault'],
  maintenance: ['online', 'offline'],
  fault: ['maintenance'],
};

const tinyNetwork = (name: string) => ({
  name,
  buses: [{ id: 1, type: 'slack', v: 1.0 }, { id: 2, type: 'pq' }, { id: 7, type: 'pq' }],
  branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }, { from: 2, to: 7, r: 0.01, x: 0.1 }],
  generators: [{ bus: 1, mw: 0 }],
  loads: [{ bus: 2, mw: 10 }, { bus: 7, mw: 5 }],
});

for (const mode of MODES) {
  describe(`devices API (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    let netId: string;
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = h) =>
      app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : typeof body === 'string' ? { payload: body, headers: { ...headers, 'content-type': 'application/json' } } : { payload: body as object }) });
    const create = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/api/v1/devices', body);
      assert.equal(res.statusCode, 201, res.body);
      return json(res).data;
    };
    const errorOf = (res: { statusCode: number; body: string }) => ({ status: res.statusCode, code: json(res).error?.code as string, message: json(res).error?.message as string, details: json(res).error?.details });

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const res = await call('POST', '/api/v1/networks', tinyNetwork('dev-net'));
      assert.equal(res.statusCode, 201, res.body);
      netId = json(res).data.id;
    });
    after(async () => app?.close());

    it('registers a device with defaults and every Device field', async () => {
      const res = await call('POST', '/api/v1/devices', { name: 'pv-roof-1', type: 'PV' });
      assert.equal(res.statusCode, 201, res.body);
      const d = json(res).data;
      assert.match(d.id, /^dev_[0-9a-f]+$/);
      assert.equal(d.name, 'pv-roof-1');
      assert.equal(d.type, 'PV');
      assert.equal(d.status, 'offline');
      assert.equal(d.online, false);
      assert.equal(d.network_id, null);
      assert.equal(d.bus, null);
      assert.equal(d.capacity_mw, null);
      assert.deepEqual(d.metadata, {});
      assert.equal(d.last_seen_at, null);
      assert.match(d.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(d.created_at, d.updated_at);
      const got = json(await call('GET', `/api/v1/devices/${d.id}`)).data;
      assert.deepEqual(got, d);
    });

    it('registers a placed device (network, bus, capacity, metadata, online)', async () => {
      const d = await create({ name: 'bess-7', type: 'BESS', status: 'online', network_id: netId, bus: 7, capacity_mw: 2.5, metadata: { vendor: 'acme', fw: { major: 3 } } });
      assert.equal(d.network_id, netId);
      assert.equal(d.bus, 7);
      assert.equal(d.capacity_mw, 2.5);
      assert.equal(d.status, 'online');
      assert.equal(d.online, true);
      assert.ok(d.last_seen_at, 'a device registered online has been seen now');
      assert.deepEqual(d.metadata, { vendor: 'acme', fw: { major: 3 } });
    });

    it('refuses bad input with the right code', async () => {
      const cases: [unknown, number, string][] = [
        [{ type: 'PV' }, 400, 'INVALID_REQUEST'], // no name
        [{ name: 'x' }, 400, 'INVALID_REQUEST'], // no type
        [{ name: 'x', type: 'pv' }, 400, 'INVALID_FIELD'], // DeviceType is uppercase
        [{ name: 'x', type: 'NUCLEAR' }, 400, 'INVALID_FIELD'],
        [{ name: 'x', type: 'PV', status: 'broken' }, 400, 'INVALID_FIELD'],
        [{ name: '', type: 'PV' }, 400, 'INVALID_FIELD'],
        [{ name: 'n'.repeat(129), type: 'PV' }, 400, 'INVALID_FIELD'],
        [{ name: 'x', type: 'PV', colour: 'red' }, 400, 'INVALID_REQUEST'], // unknown field
        [{ name: 'x', type: 'PV', capacity_mw: -1 }, 422, 'PARAM_OUT_OF_RANGE'],
        [{ name: 'x', type: 'PV', bus: 0 }, 422, 'PARAM_OUT_OF_RANGE'],
        [{ name: 'x', type: 'PV', bus: 1.5 }, 400, 'INVALID_FIELD'],
        [{ name: 'x', type: 'PV', metadata: [1] }, 400, 'INVALID_FIELD'],
        [{ name: 'x', type: 'PV', network_id: 'net_doesnotexist' }, 422, 'VALIDATION_FAILED'],
        [{ name: 'x', type: 'PV', network_id: 'bogus' }, 400, 'INVALID_FIELD'],
        [{ name: 'x', type: 'PV', bus: 2 }, 422, 'VALIDATION_FAILED'], // bus without network
        [{ name: 'x', type: 'PV', last_seen_at: 'yesterday' }, 400, 'INVALID_FIELD'],
        [{ name: 'x', type: 'PV', last_seen_at: new Date(Date.now() + 3600_000).toISOString() }, 422, 'PARAM_OUT_OF_RANGE'],
      ];
      for (const [body, status, code] of cases) {
        const e = errorOf(await call('POST', '/api/v1/devices', body));
        assert.deepEqual([e.status, e.code], [status, code], `${JSON.stringify(body)}: ${e.message}`);
      }
      const e = errorOf(await call('POST', '/api/v1/devices', { name: 'x', type: 'PV', network_id: netId, bus: 99 }));
      assert.deepEqual([e.status, e.code], [422, 'BUS_NOT_FOUND']);
      assert.equal(e.details.bus, 99);
      const bad = errorOf(await call('POST', '/api/v1/devices', '{"name": "x", "type": '));
      assert.deepEqual([bad.status, bad.code], [400, 'INVALID_REQUEST']);
    });

    it('answers unknown and malformed ids with 404 and 400', async () => {
      assert.equal(errorOf(await call('GET', '/api/v1/devices/dev_0000')).code, 'NOT_FOUND');
      assert.equal((await call('GET', '/api/v1/devices/dev_0000')).statusCode, 404);
      assert.equal((await call('PATCH', '/api/v1/devices/dev_0000', { name: 'y' })).statusCode, 404);
      assert.equal((await call('DELETE', '/api/v1/devices/dev_0000')).statusCode, 404);
      const e = errorOf(await call('GET', '/api/v1/devices/net_123'));
      assert.equal(e.status, 400);
      assert.equal((await call('PUT', '/api/v1/devices/dev_0000', { name: 'y' })).statusCode, 405);
    });

    it('lists with filters type, online, status, network_id, paging and sort', async () => {
      const tag = `flt${Date.now()}`;
      const made = [
        await create({ name: `${tag}-a`, type: 'WIND', status: 'online' }),
        await create({ name: `${tag}-b`, type: 'WIND', status: 'maintenance' }),
        await create({ name: `${tag}-c`, type: 'EV', status: 'online', network_id: netId }),
        await create({ name: `${tag}-d`, type: 'TRANSFORMER', network_id: netId, bus: 2 }),
      ];
      const list = async (qs: string) => {
        const res = await call('GET', `/api/v1/devices?${qs.includes('page_size') ? '' : 'page_size=100&'}${qs}`);
        assert.equal(res.statusCode, 200, res.body);
        return json(res);
      };
      const names = (b: any) => b.data.map((d: any) => d.name).filter((n: string) => n.startsWith(tag)).sort();
      assert.deepEqual(names(await list('type=WIND')), [`${tag}-a`, `${tag}-b`]);
      assert.deepEqual(names(await list('online=true')), [`${tag}-a`, `${tag}-c`]);
      assert.ok((await list('online=true')).data.every((d: any) => d.online === true && d.status === 'online'));
      assert.deepEqual(names(await list('online=false')), [`${tag}-b`, `${tag}-d`]);
      assert.deepEqual(names(await list('status=maintenance')), [`${tag}-b`]);
      assert.deepEqual(names(await list(`network_id=${netId}`)), [`${tag}-c`, `${tag}-d`]);
      assert.deepEqual(names(await list('type=WIND&online=true')), [`${tag}-a`]);
      // paging + meta + sort
      const p1 = await list(`type=WIND&page_size=1&sort=name`);
      assert.equal(p1.data.length, 1);
      assert.equal(p1.meta.page_size, 1);
      assert.ok(p1.meta.total >= 2);
      assert.ok(p1.meta.next_cursor);
      const p2 = json(await call('GET', `/api/v1/devices?type=WIND&page_size=1&sort=name&cursor=${p1.meta.next_cursor}`));
      assert.ok(p2.data[0].name > p1.data[0].name);
      const desc = (await list('sort=-name')).data.map((d: any) => d.name);
      assert.deepEqual(desc, [...desc].sort().reverse());
      // default sort: newest first
      const all = (await list('')).data;
      assert.ok(all.findIndex((d: any) => d.id === made[3].id) < all.findIndex((d: any) => d.id === made[0].id));
      // bad filters
      assert.deepEqual(Object.values(errorOf(await call('GET', '/api/v1/devices?type=pv'))).slice(0, 2), [400, 'INVALID_FIELD']);
      assert.deepEqual(Object.values(errorOf(await call('GET', '/api/v1/devices?online=maybe'))).slice(0, 2), [400, 'INVALID_FIELD']);
      assert.deepEqual(Object.values(errorOf(await call('GET', '/api/v1/devices?sort=colour'))).slice(0, 2), [400, 'INVALID_FIELD']);
      assert.deepEqual(Object.values(errorOf(await call('GET', '/api/v1/devices?page_size=101'))).slice(0, 2), [422, 'PARAM_OUT_OF_RANGE']);
      assert.deepEqual(Object.values(errorOf(await call('GET', '/api/v1/devices?page=0'))).slice(0, 2), [422, 'PARAM_OUT_OF_RANGE']);
    });

    it('enforces the status machine: every allowed transition works, every other is 409 CONFLICT', async () => {
      for (const from of STATUSES) {
        for (const to of STATUSES) {
          if (from === to) continue;
          const d = await create({ name: `sm-${from}-${to}`, type: 'BREAKER', status: from });
          const res = await call('PATCH', `/api/v1/devices/${d.id}`, { status: to });
          if (ALLOWED[from].includes(to)) {
            assert.equal(res.statusCode, 200, `${from} -> ${to}: ${res.body}`);
            const got = json(res).data;
            assert.equal(got.status, to);
            assert.equal(got.online, to === 'online');
          } else {
            const e = errorOf(res);
            assert.deepEqual([e.status, e.code], [409, 'CONFLICT'], `${from} -> ${to} must be refused`);
            assert.match(e.message, new RegExp(`${from} to ${to}`));
            assert.deepEqual(e.details.allowed, ALLOWED[from]);
            assert.equal(json(await call('GET', `/api/v1/devices/${d.id}`)).data.status, from, 'a refused transition changes nothing');
          }
        }
      }
      // setting the current status again is no transition: allowed, no event
      const d = await create({ name: 'sm-same', type: 'LOAD', status: 'fault' });
      assert.equal((await call('PATCH', `/api/v1/devices/${d.id}`, { status: 'fault' })).statusCode, 200);
    });

    it('writes a device event per status change (online/offline/status, with old_status)', async () => {
      const d = await create({ name: 'ev-events', type: 'EV' });
      for (const st of ['online', 'offline', 'maintenance', 'online'] as const) {
        assert.equal((await call('PATCH', `/api/v1/devices/${d.id}`, { status: st })).statusCode, 200);
      }
      await call('PATCH', `/api/v1/devices/${d.id}`, { name: 'ev-renamed', heartbeat: true }); // no status change: no event
      const evs = json(await call('GET', `/api/v1/events?topic=device&sort=id&page_size=100`)).data.filter((e: any) => e.payload.device_id === d.id);
      assert.deepEqual(evs.map((e: any) => e.kind), ['device.created', 'device.online', 'device.offline', 'device.status', 'device.online']);
      assert.deepEqual(evs.map((e: any) => [e.payload.old_status, e.payload.status]), [[null, 'offline'], ['offline', 'online'], ['online', 'offline'], ['offline', 'maintenance'], ['maintenance', 'online']]);
      assert.ok(evs.every((e: any) => e.topic === 'device' && /^evt_\d+$/.test(e.id)));
    });

    it('raises an alarm when a device enters fault and clears it when it leaves', async () => {
      const d = await create({ name: 'tx-fault', type: 'TRANSFORMER', status: 'online', network_id: netId });
      const active = async () => json(await call('GET', `/api/v1/alarms?network_id=${netId}&page_size=100`)).data
        .filter((a: any) => a.source?.id === d.id && a.status !== 'cleared');
      assert.equal((await active()).length, 0);
      assert.equal((await call('PATCH', `/api/v1/devices/${d.id}`, { status: 'fault' })).statusCode, 200);
      const open = await active();
      assert.equal(open.length, 1, 'one open alarm for the faulted device');
      assert.equal(open[0].type, 'device_fault');
      assert.equal(open[0].source.type, 'device');
      assert.equal((await call('PATCH', `/api/v1/devices/${d.id}`, { status: 'maintenance' })).statusCode, 200);
      assert.equal((await active()).length, 0, 'leaving fault clears the alarm');
      // a device deleted while faulted has its alarm cleared too
      const f = await create({ name: 'tx-fault-2', type: 'TRANSFORMER', status: 'fault', network_id: netId });
      const openF = async () => json(await call('GET', `/api/v1/alarms?network_id=${netId}&page_size=100`)).data.filter((a: any) => a.source?.id === f.id && a.status !== 'cleared');
      assert.equal((await openF()).length, 1, 'registered in fault: alarm raised');
      assert.equal((await call('DELETE', `/api/v1/devices/${f.id}`)).statusCode, 200);
      assert.equal((await openF()).length, 0);
    });

    it('updates name, metadata (merge), placement and heartbeats', async () => {
      const d = await create({ name: 'meter', type: 'LOAD', metadata: { a: 1, b: { c: 2, d: 3 }, gone: true } });
      let res = await call('PATCH', `/api/v1/devices/${d.id}`, { name: 'meter-2', metadata: { b: { d: 4 }, gone: null, e: 'x' } });
      assert.equal(res.statusCode, 200, res.body);
      let u = json(res).data;
      assert.equal(u.name, 'meter-2');
      assert.deepEqual(u.metadata, { a: 1, b: { c: 2, d: 4 }, e: 'x' });
      assert.ok(Date.parse(u.updated_at) >= Date.parse(d.updated_at));
      res = await call('PATCH', `/api/v1/devices/${d.id}`, { heartbeat: true });
      u = json(res).data;
      assert.ok(Math.abs(Date.parse(u.last_seen_at) - Date.now()) < 60_000);
      assert.equal(u.status, 'offline', 'a heartbeat records contact; status changes are explicit');
      res = await call('PATCH', `/api/v1/devices/${d.id}`, { last_seen_at: '2026-01-02T03:04:05Z' });
      assert.equal(json(res).data.last_seen_at, '2026-01-02T03:04:05.000Z');
      res = await call('PATCH', `/api/v1/devices/${d.id}`, { network_id: netId, bus: 2, capacity_mw: 0.4 });
      u = json(res).data;
      assert.deepEqual([u.network_id, u.bus, u.capacity_mw], [netId, 2, 0.4]);
      assert.equal(errorOf(await call('PATCH', `/api/v1/devices/${d.id}`, { bus: 42 })).code, 'BUS_NOT_FOUND');
      res = await call('PATCH', `/api/v1/devices/${d.id}`, { network_id: null });
      u = json(res).data;
      assert.deepEqual([u.network_id, u.bus], [null, null], 'leaving the network drops the bus');
      // bad patches
      const cases: [unknown, number, string][] = [
        [{}, 400, 'INVALID_REQUEST'],
        [{ status: 'asleep' }, 400, 'INVALID_FIELD'],
        [{ type: 'PV' }, 400, 'INVALID_REQUEST'], // type is fixed
        [{ heartbeat: 'yes' }, 400, 'INVALID_FIELD'],
        [{ metadata: 'x' }, 400, 'INVALID_FIELD'],
        [{ network_id: 'net_nothere' }, 422, 'VALIDATION_FAILED'],
        [{ last_seen_at: new Date(Date.now() + 86400_000).toISOString() }, 422, 'PARAM_OUT_OF_RANGE'],
      ];
      for (const [body, status, code] of cases) {
        const e = errorOf(await call('PATCH', `/api/v1/devices/${d.id}`, body));
        assert.deepEqual([e.status, e.code], [status, code], `${JSON.stringify(body)}: ${e.message}`);
      }
    });

    it('deletes (then 404) and keeps a device when its network is deleted', async () => {
      const d = await create({ name: 'gone', type: 'PV' });
      const res = await call('DELETE', `/api/v1/devices/${d.id}`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(json(res).data, { id: d.id, deleted: true });
      assert.equal((await call('GET', `/api/v1/devices/${d.id}`)).statusCode, 404);
      assert.equal((await call('DELETE', `/api/v1/devices/${d.id}`)).statusCode, 404);
      const net = json(await call('POST', '/api/v1/networks', tinyNetwork('short-lived'))).data.id;
      const placed = await create({ name: 'orphan', type: 'PV', network_id: net, bus: 1 });
      assert.equal((await call('DELETE', `/api/v1/networks/${net}`)).statusCode, 200);
      const after = json(await call('GET', `/api/v1/devices/${placed.id}`)).data;
      assert.deepEqual([after.network_id, after.bus], [null, null], 'the bus goes with the network');
    });

    it('batch-creates up to 200, judging each entry alone', async () => {
      const res = await call('POST', '/api/v1/devices/batch', {
        devices: [
          { name: 'b0', type: 'PV' },
          { name: 'b1', type: 'pv' }, // schema: enum
          { name: 'b2', type: 'WIND', network_id: 'net_missing' }, // domain: no such network
          'not an object',
          { name: 'b4', type: 'BESS', network_id: netId, bus: 1, capacity_mw: 1 },
          { name: 'b5', type: 'EV', network_id: netId, bus: 55 }, // bus absent
          { type: 'LOAD' }, // no name
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const r = json(res).data;
      assert.deepEqual(r.succeeded.map((x: any) => x.index), [0, 4]);
      assert.ok(r.succeeded.every((x: any) => /^dev_/.test(x.id)));
      assert.deepEqual(r.failed.map((x: any) => [x.index, x.error.code]), [[1, 'INVALID_FIELD'], [2, 'VALIDATION_FAILED'], [3, 'INVALID_FIELD'], [5, 'BUS_NOT_FOUND'], [6, 'INVALID_REQUEST']]);
      assert.ok(r.failed.every((x: any) => typeof x.error.message === 'string' && x.error.message.length > 0));
      assert.equal(json(await call('GET', `/api/v1/devices/${r.succeeded[1].id}`)).data.name, 'b4');

      const many = Array.from({ length: 200 }, (_, i) => ({ name: `bulk-${i}`, type: 'LOAD' }));
      const ok = json(await call('POST', '/api/v1/devices/batch', { devices: many })).data;
      assert.equal(ok.succeeded.length, 200);
      assert.equal(ok.failed.length, 0);
      const tooMany = errorOf(await call('POST', '/api/v1/devices/batch', { devices: [...many, { name: 'x', type: 'PV' }] }));
      assert.deepEqual([tooMany.status, tooMany.code], [422, 'VALIDATION_FAILED']);
      assert.match(tooMany.message, /200/);
      assert.equal(errorOf(await call('POST', '/api/v1/devices/batch', { devices: [] })).status, 422);
      assert.equal(errorOf(await call('POST', '/api/v1/devices/batch', { items: [] })).status, 400);
    });

    it('scopes devices to the tenant and checks roles', async () => {
      const tenant = `t${mode.slice(0, 3)}${Date.now().toString(36)}`;
      const other = await tokenFor(app, 'operator', tenant);
      const mine = await create({ name: 'tenant-default-device', type: 'PV' });
      assert.equal((await call('GET', `/api/v1/devices/${mine.id}`, undefined, other)).statusCode, 404);
      assert.equal((await call('PATCH', `/api/v1/devices/${mine.id}`, { status: 'online' }, other)).statusCode, 404);
      assert.equal((await call('DELETE', `/api/v1/devices/${mine.id}`, undefined, other)).statusCode, 404);
      const theirs = json(await call('POST', '/api/v1/devices', { name: 'tenant-b-device', type: 'WIND' }, other)).data;
      const listB = json(await call('GET', '/api/v1/devices?page_size=100', undefined, other));
      assert.deepEqual(listB.data.map((d: any) => d.id), [theirs.id]);
      assert.equal(listB.meta.total, 1);
      assert.ok(!json(await call('GET', '/api/v1/devices?page_size=100')).data.some((d: any) => d.id === theirs.id));
      // a network of another tenant cannot be referenced
      assert.equal(errorOf(await call('POST', '/api/v1/devices', { name: 'x', type: 'PV', network_id: netId }, other)).code, 'VALIDATION_FAILED');
      // viewer: read yes, write no; no credentials: 401
      const viewer = await tokenFor(app, 'viewer');
      assert.equal((await call('GET', `/api/v1/devices/${mine.id}`, undefined, viewer)).statusCode, 200);
      assert.equal(errorOf(await call('POST', '/api/v1/devices', { name: 'v', type: 'PV' }, viewer)).code, 'FORBIDDEN');
      assert.equal(errorOf(await call('PATCH', `/api/v1/devices/${mine.id}`, { status: 'online' }, viewer)).status, 403);
      assert.equal((await call('GET', '/api/v1/devices', undefined, {})).statusCode, 401);
    });
  });
}
