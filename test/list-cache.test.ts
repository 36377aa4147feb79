// The list-page cache (src/cache/listCache.ts): its generation rule on its own, in
// memory and on Redis, and through the service in both modes: a list never shows
// what a completed write changed, across API processes too, and tenants never see
// each other's pages.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { CASES_DIR } from '../src/paths.js';
import { createListCache, type ListCache } from '../src/cache/listCache.js';
import { MODES, REDIS_URL, startTestApp, json, uniqueName, dropDistributed, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders, createTenant, tokenFor } from './helpers/auth.js';
import { countQueries } from './graphql-helpers.js';

const tiny = (name: string) => ({
  name,
  buses: [{ id: 1, type: 'slack', v: 1.02 }, { id: 2, type: 'pq' }],
  branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
  generators: [{ bus: 1, mw: 0, vg: 1.02 }],
  loads: [{ bus: 2, mw: 10, mvar: 2 }],
});

function counter() {
  let n = 0;
  return { get n() { return n; }, compute: async () => ({ n: ++n }) };
}

describe('list cache: generation rule', () => {
  const prefix = `gt_lc_${randomBytes(4).toString('hex')}`;
  const caches: ListCache[] = [];
  const make = (o: Partial<Parameters<typeof createListCache>[0]> = {}) => {
    const c = createListCache({ maxEntries: 100, maxAgeMs: 60_000, ...o });
    caches.push(c);
    return c;
  };
  const ready = async (o: Partial<Parameters<typeof createListCache>[0]> = {}) => {
    const c = make(o);
    await c.ready();
    return c;
  };
  after(async () => {
    await Promise.all(caches.map((c) => c.close()));
    const r = new Redis(REDIS_URL);
    const keys = await r.keys(`${prefix}:*`);
    if (keys.length) await r.del(...keys);
    r.disconnect();
  });

  for (const where of ['memory', 'redis'] as const) {
    const opts = () => (where === 'redis' ? { redisUrl: REDIS_URL, redisPrefix: prefix } : {});

    it(`${where}: serves a page until its tenant's collection changes, then computes it again`, async () => {
      const cache = await ready(opts());
      assert.equal(cache.kind, where);
      const c = counter();
      assert.deepEqual(await cache.read('t1', 'networks', 'k', c.compute), { n: 1 });
      assert.deepEqual(await cache.read('t1', 'networks', 'k', c.compute), { n: 1 });
      await cache.read('t2', 'networks', 'k', c.compute); // another tenant: its own page
      assert.equal(c.n, 2);
      await cache.invalidate('networks', ['t1']);
      assert.deepEqual(await cache.read('t1', 'networks', 'k', c.compute), { n: 3 });
      assert.deepEqual(await cache.read('t2', 'networks', 'k', c.compute), { n: 2 }, 'a change of t1 leaves t2 cached');
    });

    it(`${where}: a page computed while a change committed is not served after the change`, async () => {
      const cache = await ready(opts());
      let release!: () => void;
      const gate = new Promise<void>((r) => { release = r; });
      const slow = cache.read('t3', 'networks', 'k', async () => {
        await gate; // the query ran on a snapshot from before the write
        return { v: 'old' };
      });
      await new Promise((r) => setTimeout(r, 10));
      await cache.invalidate('networks', ['t3']); // the write commits and bumps
      release();
      assert.deepEqual(await slow, { v: 'old' });
      assert.deepEqual(await cache.read('t3', 'networks', 'k', async () => ({ v: 'new' })), { v: 'new' });
    });

    it(`${where}: pages are frozen, so no request can change another's answer`, async () => {
      const cache = await ready(opts());
      const page = await cache.read('t4', 'networks', 'k', async () => ({ items: [{ id: 'a', tags: { x: '1' } }] }));
      assert.throws(() => { (page.items as { id: string }[]).push({ id: 'b' }); }, TypeError);
      assert.throws(() => { (page.items[0].tags as Record<string, string>).x = '2'; }, TypeError);
    });
  }

  it('redis: a change made through one process is seen at once by another (shared generations)', async () => {
    const a = await ready({ redisUrl: REDIS_URL, redisPrefix: prefix });
    const b = await ready({ redisUrl: REDIS_URL, redisPrefix: prefix });
    const c = counter();
    await b.read('t5', 'networks', 'k', c.compute);
    await b.read('t5', 'networks', 'k', c.compute);
    assert.equal(c.n, 1);
    await a.invalidate('networks', ['t5']);
    await b.read('t5', 'networks', 'k', c.compute);
    assert.equal(c.n, 2);
    await a.invalidate('networks', ['t5', 't6', 't5']); // several tenants in one MULTI
    await b.read('t5', 'networks', 'k', c.compute);
    assert.equal(c.n, 3);
  });

  it('redis unreachable: every read goes to the database and the error is reported, never thrown', async () => {
    const errors: unknown[] = [];
    const cache = make({ redisUrl: 'redis://127.0.0.1:1', redisPrefix: prefix, onError: (e) => errors.push(e) });
    await assert.rejects(cache.ready());
    const c = counter();
    await cache.read('t7', 'networks', 'k', c.compute);
    await cache.read('t7', 'networks', 'k', c.compute);
    assert.equal(c.n, 2);
    await cache.invalidate('networks', ['t7']);
    assert.ok(errors.length >= 3, `errors reported: ${errors.length}`);
  });

  it('expires pages after maxAgeMs and keeps at most maxEntries', async () => {
    const aged = make({ maxAgeMs: 30 });
    const c = counter();
    await aged.read('t8', 'networks', 'k', c.compute);
    await aged.read('t8', 'networks', 'k', c.compute);
    await new Promise((r) => setTimeout(r, 40));
    await aged.read('t8', 'networks', 'k', c.compute);
    assert.equal(c.n, 2);

    const small = make({ maxEntries: 2 });
    const d = counter();
    for (const k of ['a', 'b', 'a', 'c']) await small.read('t9', 'networks', k, d.compute); // b is least recently used
    assert.equal(d.n, 3);
    await small.read('t9', 'networks', 'a', d.compute);
    assert.equal(d.n, 3, 'a kept');
    await small.read('t9', 'networks', 'b', d.compute);
    assert.equal(d.n, 4, 'b was evicted');
  });

  it('LIST_CACHE_ENTRIES=0 turns it off', async () => {
    const off = make({ maxEntries: 0 });
    const c = counter();
    await off.read('t', 'networks', 'k', c.compute);
    await off.read('t', 'networks', 'k', c.compute);
    assert.equal(off.kind, 'off');
    assert.equal(c.n, 2);
  });
});

for (const mode of MODES) {
  describe(`GET /networks through the list cache (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const call = async (method: string, url: string, body?: unknown, headers = h) =>
      app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    const names = async (headers = h, query = '') => (json(await call('GET', `/api/v1/networks?sort=name${query}`, undefined, headers)).data as { name: string }[]).map((n) => n.name);

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('a repeated list is answered without SQL, and every write shows in the next list', async () => {
      const a = json(await call('POST', '/api/v1/networks', tiny('lc-a'))).data;
      assert.deepEqual(await names(), ['lc-a']);
      const again = await countQueries(app, () => names());
      assert.deepEqual(again.result, ['lc-a']);
      assert.equal(again.count, 0, `a cached page needs no SQL: ${again.sql.join(' | ')}`);

      await call('POST', '/api/v1/networks', tiny('lc-b'));
      assert.deepEqual(await names(), ['lc-a', 'lc-b']);
      const detail = async () => json(await call('GET', `/api/v1/networks/${a.id}`)).data;
      assert.equal((await detail()).name, 'lc-a');
      const detailAgain = await countQueries(app, detail);
      assert.equal(detailAgain.result.name, 'lc-a');
      assert.equal(detailAgain.result.buses.length, 2);
      assert.equal(detailAgain.count, 0, `a cached detail needs no SQL: ${detailAgain.sql.join(' | ')}`);
      const put = await call('PUT', `/api/v1/networks/${a.id}`, tiny('lc-a2'));
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(await names(), ['lc-a2', 'lc-b']);
      assert.equal((await detail()).name, 'lc-a2');
      assert.equal((await detail()).version, 2);
      const batch = json(await call('POST', '/api/v1/networks/batch', { networks: [tiny('lc-c'), tiny('lc-d')] })).data;
      assert.equal(batch.succeeded.length, 2);
      assert.deepEqual(await names(), ['lc-a2', 'lc-b', 'lc-c', 'lc-d']);
      assert.equal((await call("DELETE", `/api/v1/networks/${a.id}`)).statusCode, 200);
      assert.deepEqual(await names(), ['lc-b', 'lc-c', 'lc-d']);
      const del = json(await call('DELETE', '/api/v1/networks/batch', { ids: batch.succeeded.map((s: { id: string }) => s.id) })).data;
      assert.equal(del.succeeded.length, 2);
      assert.deepEqual(await names(), ['lc-b']);
      // Different queries are different pages; tz only renders.
      assert.deepEqual(await names(h, '&name=zzz'), []);
      const berlin = json(await call('GET', '/api/v1/networks?tz=Europe/Berlin')).data[0];
      assert.match(berlin.created_at, /\+0[12]:00$/);
      assert.match(json(await call('GET', '/api/v1/networks')).data[0].created_at, /Z$/);
    });

    it('status shows "locked" while a power flow runs and "ready" as soon as it is cancelled', async () => {
      const net = json(await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case2383wp.m'), 'utf8'), { ...h, 'content-type': 'text/plain' })).data;
      const status = async () => (json(await call('GET', `/api/v1/networks?sort=name&name=${encodeURIComponent(net.name)}`)).data as { status: string }[])[0].status;
      assert.equal(await status(), 'ready');
      const task = json(await call('POST', `/api/v1/networks/${net.id}/powerflow`, { async: true, tolerance: 1e-15, max_iterations: 1000, flat_start: true, timeout_ms: 20000 })).data;
      assert.equal(await waitForTaskStatus(app, h, task.task_id, 'running'), 'running');
      assert.equal(await status(), 'locked');
      assert.deepEqual((json(await call('GET', '/api/v1/networks?status=locked')).data as { id: string }[]).map((n) => n.id), [net.id]);
      assert.equal(json(await call('GET', `/api/v1/networks/${net.id}`)).data.status, 'locked');
      assert.equal((await call('DELETE', `/api/v1/tasks/${task.task_id}`)).statusCode, 200);
      assert.equal(await status(), 'ready', 'the cancel answered only after the lists were told');
      assert.equal(json(await call('GET', `/api/v1/networks/${net.id}`)).data.status, 'ready');
      assert.deepEqual(json(await call('GET', '/api/v1/networks?status=locked')).data, []);
    });

    it("tenants never share pages", async () => {
      const other = uniqueName('lct');
      await createTenant(app, other);
      const ho = await tokenFor(app, 'operator', other);
      assert.deepEqual(await names(ho), []);
      await call('POST', '/api/v1/networks', tiny('lc-other'), ho);
      assert.deepEqual(await names(ho), ['lc-other']);
      assert.ok(!(await names()).includes('lc-other'));
    });
  });
}

describe('list cache across two API processes (distributed)', () => {
  let a: TestApp;
  let b: TestApp;
  let shared: { schema: string; prefix: string };
  before(async () => {
    shared = { schema: uniqueName('t'), prefix: uniqueName('gt') };
    a = await startTestApp('distributed', { shared, keepData: true });
    b = await startTestApp('distributed', { shared, keepData: true });
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await dropDistributed(shared.schema, shared.prefix);
  });

  it('a page cached by one process is not served after a write through the other', async () => {
    const ha = await adminHeaders(a);
    const hb = await adminHeaders(b);
    const list = async () => (json(await b.app!.inject({ method: 'GET', url: '/api/v1/networks?sort=name', headers: hb })).data as { name: string }[]).map((n) => n.name);
    assert.deepEqual(await list(), []);
    assert.deepEqual(await list(), []); // cached in b
    const created = json(await a.app!.inject({ method: 'POST', url: '/api/v1/networks', headers: ha, payload: tiny('x-one') })).data;
    assert.deepEqual(await list(), ['x-one']);
    const detail = async () => json(await b.app!.inject({ method: 'GET', url: `/api/v1/networks/${created.id}`, headers: hb })).data.name;
    assert.equal(await detail(), 'x-one');
    assert.equal(await detail(), 'x-one'); // cached in b
    await a.app!.inject({ method: 'PUT', url: `/api/v1/networks/${created.id}`, headers: ha, payload: tiny('x-two') });
    assert.deepEqual(await list(), ['x-two']);
    assert.equal(await detail(), 'x-two');
    await a.app!.inject({ method: 'DELETE', url: `/api/v1/networks/${created.id}`, headers: ha });
    assert.deepEqual(await list(), []);
  });
});
