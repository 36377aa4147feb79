// Security: the four rate-limit layers (scope, headers, 429 body), blocked
// addresses, tenant quotas changed live and expiring, plans, connection slots,
// and limits shared by two API processes on one Redis.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, eventually, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, apiKeyFor, createTenant, createUser, login, loginAs } from './helpers/auth.js';
import { loadSecurityConfig, type RateLimitOverrides, type SecurityConfig } from '../src/security/settings.js';
import { acquireConnection, checkAgentQuota, consumeTimeseriesQuota } from '../src/security/index.js';
import type { Caller } from '../src/domain/caller.js';
import { systemCaller } from '../src/domain/caller.js';

type H = Record<string, string>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function security(rateLimits: RateLimitOverrides, extra: Partial<SecurityConfig> = {}): { security: SecurityConfig } {
  return { security: { ...loadSecurityConfig({}, 'test'), rateLimitScale: 1, rateLimits, sweepMs: 100, ...extra } };
}

const tiny = (name: string) => ({ name, buses: [{ id: 1, type: 'slack' }, { id: 2, type: 'pq' }], branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }], loads: [{ bus: 2, mw: 5, mvar: 1 }], generators: [{ bus: 1, mw: 0 }] });

function assertRateHeaders(r: { headers: Record<string, unknown> }, tenant: boolean) {
  for (const k of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) assert.match(String(r.headers[k]), /^\d+$/, k);
  assert.match(String(r.headers['x-ratelimit-policy']), /^\d+;w=\d+$/);
  assert.ok(Number(r.headers['x-ratelimit-reset']) >= Math.floor(Date.now() / 1000) - 1);
  if (tenant) {
    assert.match(String(r.headers['x-ratelimit-tenant-limit']), /^\d+$/);
    assert.match(String(r.headers['x-ratelimit-tenant-remaining']), /^\d+$/);
  }
}

function assert429(r: { statusCode: number; body: string; headers: Record<string, unknown> }, scope: string) {
  assert.equal(r.statusCode, 429, r.body);
  const e = JSON.parse(r.body).error;
  assert.equal(e.code, 'RATE_LIMITED');
  assert.equal(e.details.scope, scope, r.body);
  assert.ok(Number.isInteger(e.details.limit));
  assert.ok(Number.isInteger(e.details.window_seconds));
  assert.ok(Number.isInteger(e.details.retry_after) && e.details.retry_after >= 1);
  assert.ok(!Number.isNaN(Date.parse(e.details.reset_at)));
  assert.match(String(r.headers['retry-after']), /^\d+$/);
  assert.equal(Number(r.headers['retry-after']), e.details.retry_after);
  assertRateHeaders(r, false);
  return e.details;
}

for (const mode of MODES) {
  describe(`security: rate limits (${mode})`, () => {
    let app: TestApp;
    let admin: H;
    const call = (method: string, url: string, headers: H = {}, body?: unknown, ip?: string) =>
      app.app!.inject({ method: method as 'GET', url, headers, remoteAddress: ip, ...(body === undefined ? {} : { payload: body as object }) });

    before(async () => {
      app = await startTestApp(mode, {
        // auth refills one token per 10 s: the 31 logins of the L1 test may take over a second on a busy machine.
        config: security({
          ip: { public: { rate: 60, burst: 3 }, auth: { rate: 6, burst: 30 }, authenticated: { rate: 60, burst: 5 } },
          user: { rate: 60, burst: 8 },
          endpoint: { 'DELETE /networks/:id': { rate: 10, burst: 2 } },
        }, { blockedIps: ['10.66.0.0/16', '192.0.2.7', '2001:db8::/32'] }),
      });
      admin = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('puts the rate-limit headers on every response, tenant headers on authenticated ones', async () => {
      const pub = await call('GET', '/api/v1/health', {}, undefined, '10.7.0.1');
      assert.equal(pub.statusCode, 200);
      assertRateHeaders(pub, false);
      assert.equal(pub.headers['x-ratelimit-policy'], '60;w=60');
      const auth = await call('GET', '/api/v1/networks', admin, undefined, '10.7.0.2');
      assert.equal(auth.statusCode, 200);
      assertRateHeaders(auth, true);
      assert.equal(auth.headers['x-ratelimit-tenant-limit'], '5000');
      const denied = await call('GET', '/api/v1/networks', {}, undefined, '10.7.0.3');
      assert.equal(denied.statusCode, 401);
      assertRateHeaders(denied, false);
    });

    it("L1: the console's and the docs' files have a class of their own, so a page load spends none of the API's burst", async () => {
      // a cold load of the console is ~38 requests (test/console-large.test.ts); here the API's burst is 5
      for (let i = 0; i < 12; i++) {
        const r = await call('GET', i % 2 === 0 ? '/console/' : '/console/app.js', {}, undefined, '10.0.4.1');
        assert.equal(r.statusCode, 200, `console file ${i}: ${r.statusCode}`);
      }
      const u = await createUser(app, { username: `static-${mode}`, role: 'viewer' });
      const h = await loginAs(app, u.username, u.password);
      for (let i = 0; i < 5; i++) assert.equal((await call('GET', '/api/v1/networks', h, undefined, '10.0.4.1')).statusCode, 200);
      assert429(await call('GET', '/api/v1/networks', h, undefined, '10.0.4.1'), 'ip');
    });

    it('L1 client IP: trips per address and endpoint type with scope ip', async () => {
      const u = await createUser(app, { username: `l1-${mode}`, role: 'viewer' });
      const h = await loginAs(app, u.username, u.password);
      const seen: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await call('GET', '/api/v1/networks', h, undefined, '10.0.0.1');
        assert.equal(r.statusCode, 200, r.body);
        seen.push(Number(r.headers['x-ratelimit-remaining']));
      }
      assert.ok(seen[4] < seen[0], `remaining decreases: ${seen}`);
      const d = assert429(await call('GET', '/api/v1/networks', h, undefined, '10.0.0.1'), 'ip');
      assert.equal(d.ip, '10.0.0.1');
      assert.equal(d.limit, 60);
      assert.equal(d.window_seconds, 60);
      assert.equal((await call('GET', '/api/v1/networks', h, undefined, '10.0.0.2')).statusCode, 200, 'another address has its own bucket');
      // public endpoints have their own class: 3 at once
      for (let i = 0; i < 3; i++) assert.equal((await call('GET', '/api/v1/health', {}, undefined, '10.0.0.9')).statusCode, 200);
      assert429(await call('GET', '/api/v1/health', {}, undefined, '10.0.0.9'), 'ip');
      // /auth/token: counted even when the login is refused (brute force)
      for (let i = 0; i < 30; i++) await call('POST', '/api/v1/auth/token', {}, {}, '10.0.0.10');
      const t = await call('POST', '/api/v1/auth/token', {}, { username: 'admin', password: app.config.adminPassword }, '10.0.0.10');
      assert429(t, 'ip');
      // made-up API keys are counted against the address before any database lookup
      const fake = (i: number) => ({ 'x-api-key': `gok_${String(i).padStart(43, 'x')}` });
      for (let i = 0; i < 5; i++) assert.equal((await call('GET', '/api/v1/networks', fake(i), undefined, '10.0.0.11')).statusCode, 401);
      assert429(await call('GET', '/api/v1/networks', fake(99), undefined, '10.0.0.11'), 'ip');
      // a request refused at L1 is audited, in aggregate (one row per minute, caller, layer and address)
      const audit = json(await call('GET', '/api/v1/audit/rate-limited?layer=ip&page_size=100', admin, undefined, '10.7.7.7')).data;
      assert.ok(audit.some((e: { count: number; ip: string; layer: string }) => e.layer === 'ip' && e.ip === '10.0.0.1' && e.count >= 1));
    });

    it('L3 user: trips across addresses with scope user', async () => {
      const u = await createUser(app, { username: `l3-${mode}`, role: 'viewer' });
      const h = await loginAs(app, u.username, u.password);
      for (let i = 0; i < 8; i++) assert.equal((await call('GET', '/api/v1/networks', h, undefined, `10.1.0.${i + 1}`)).statusCode, 200);
      const d = assert429(await call('GET', '/api/v1/networks', h, undefined, '10.1.0.99'), 'user');
      assert.equal(d.actor.id, u.username);
      // API keys (service accounts) have their own bucket
      const k = await apiKeyFor(app, 'viewer', 'default', 'l3-svc');
      assert.equal((await call('GET', '/api/v1/networks', k.headers, undefined, '10.1.1.1')).statusCode, 200);
    });

    it('L4 endpoint: DELETE /networks/{id} is limited to its own table entry with scope endpoint', async () => {
      const u = await createUser(app, { username: `l4-${mode}`, role: 'operator' });
      const h = await loginAs(app, u.username, u.password);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(json(await call('POST', '/api/v1/networks', h, tiny(`l4-${i}`), `10.2.0.${i + 1}`)).data.id);
      assert.ok((await call('DELETE', `/api/v1/networks/${ids[0]}`, h, undefined, '10.2.1.1')).statusCode < 300);
      assert.ok((await call('DELETE', `/api/v1/networks/${ids[1]}`, h, undefined, '10.2.1.2')).statusCode < 300);
      const r = await call('DELETE', `/api/v1/networks/${ids[2]}`, h, undefined, '10.2.1.3');
      const d = assert429(r, 'endpoint');
      assert.equal(d.endpoint, 'DELETE /networks/:id');
      assert.equal(d.limit, 10);
      assert.equal(r.headers['x-ratelimit-policy'], '10;w=60');
      assert.equal((await call('GET', `/api/v1/networks/${ids[2]}`, h, undefined, '10.2.1.4')).statusCode, 200, 'other endpoints are not affected');
    });

    it('rejects blocked addresses and ranges with 403 IP_BLOCKED, before authentication', async () => {
      for (const ip of ['10.66.1.2', '192.0.2.7', '2001:db8::5', '::ffff:10.66.9.9']) {
        const r = await call('GET', '/api/v1/health', {}, undefined, ip);
        assert.equal(r.statusCode, 403, ip);
        assert.equal(json(r).error.code, 'IP_BLOCKED');
      }
      assert.equal((await call('GET', '/api/v1/networks', admin, undefined, '10.66.0.1')).statusCode, 403);
      assert.equal((await call('GET', '/api/v1/health', {}, undefined, '192.0.2.8')).statusCode, 200);
      const audit = json(await call('GET', '/api/v1/audit?result=denied&page_size=100', admin, undefined, '10.7.7.8')).data;
      assert.ok(audit.some((e: { details: { error_code?: string } }) => e.details.error_code === 'IP_BLOCKED'));
    });
  });

  describe(`security: tenant layer and quotas (${mode})`, () => {
    let app: TestApp;
    let admin: H;
    const call = (method: string, url: string, headers: H = {}, body?: unknown, ip?: string) =>
      app.app!.inject({ method: method as 'GET', url, headers, remoteAddress: ip, ...(body === undefined ? {} : { payload: body as object }) });
    const setQuota = async (tenant: string, body: Record<string, unknown>) => {
      const r = await call('PUT', `/api/v1/admin/tenants/${tenant}/quota`, admin, { reason: 'test', ...body });
      assert.equal(r.statusCode, 200, r.body);
      return json(r).data;
    };

    before(async () => {
      app = await startTestApp(mode, { config: security({ tenantBurst: 2, tenantQueueDepth: 2, tenantQueueMaxWaitMs: 10_000 }) });
      admin = await adminHeaders(app);
      // The admin's own tenant refills fast, so only the tenants under test queue.
      await setQuota('default', { api_requests_per_hour: 100_000_000 });
    });
    after(async () => app?.close());

    it('L2 tenant: beyond its hourly quota a request waits in a queue of limited depth, then 429 with scope tenant', async () => {
      const u = await createUser(app, { username: `l2-${mode}`, role: 'viewer', tenant_id: 'l2-tenant' });
      await setQuota('l2-tenant', { api_requests_per_hour: 1800 }); // one token per 2 s, bucket of 2, queue of 2
      const h = await loginAs(app, u.username, u.password);
      const t0 = Date.now();
      const rs = await Promise.all([0, 1, 2, 3, 4].map(async (i) => {
        const r = await call('GET', '/api/v1/networks', h, undefined, `10.3.0.${i + 1}`);
        return { r, ms: Date.now() - t0 };
      }));
      const ok = rs.filter((x) => x.r.statusCode === 200);
      const refused = rs.filter((x) => x.r.statusCode === 429);
      assert.equal(ok.length, 4, rs.map((x) => x.r.statusCode).join());
      assert.equal(refused.length, 1);
      const d = assert429(refused[0].r, 'tenant');
      assert.equal(d.tenant_id, 'l2-tenant');
      assert.equal(d.window_seconds, 3600);
      assert.equal(d.limit, 1800);
      const waited = ok.map((x) => x.ms).sort((a, b) => a - b);
      assert.ok(waited[2] >= 1500, `the third request waited about 2 s: ${waited}`);
      assert.ok(waited[3] >= 3500, `the fourth about 4 s: ${waited}`);
      assert.equal(ok[0].r.headers['x-ratelimit-tenant-limit'], '1800');
    });

    it('applies quota changes live (rate headers, counts, the scheduler\'s row) and audits them with the reason', async () => {
      const u = await createUser(app, { username: `q-${mode}`, role: 'operator', tenant_id: 'q-tenant' });
      const h = await loginAs(app, u.username, u.password);
      const before = json(await call('GET', '/api/v1/tenant/quota', h));
      assert.equal(before.data.plan, 'pro');
      assert.equal(before.data.quotas.network_count, 50);
      assert.ok(before.data.reset_at);
      assert.equal((await call('GET', '/api/v1/networks', h)).headers['x-ratelimit-tenant-limit'], '5000');
      const changed = await setQuota('q-tenant', { api_requests_per_hour: 4321, network_count: 1, concurrent_powerflow: 7, reason: 'incident 42' });
      assert.equal(changed.quotas.network_count, 1);
      assert.equal(changed.previous.network_count, 50);
      assert.equal((await call('GET', '/api/v1/networks', h)).headers['x-ratelimit-tenant-limit'], '4321');
      const { rows } = await app.services.db.query<{ cp: string }>(`SELECT quotas->>'concurrent_powerflow' AS cp FROM tenants WHERE id = 'q-tenant'`);
      assert.equal(rows[0].cp, '7', 'the scheduler reads tenants.quotas->concurrent_powerflow on its next pass');
      assert.equal((await call('POST', '/api/v1/networks', h, tiny('q1'))).statusCode, 201);
      const refused = await call('POST', '/api/v1/networks', h, tiny('q2'));
      assert.equal(refused.statusCode, 409);
      assert.equal(json(refused).error.details.quota, 'network_count');
      const usage = json(await call('GET', '/api/v1/tenant/quota', h)).data;
      assert.equal(usage.usage.network_count, 1);
      assert.ok(usage.usage.api_requests_this_hour >= 3);
      const audit = json(await call('GET', '/api/v1/audit?action=tenant.quota.change&resource_id=q-tenant', admin)).data;
      assert.equal(audit[0].details.reason, 'incident 42');
      assert.equal(audit[0].details.changed.network_count, 1);
      // reason is required; only admins
      assert.equal((await call('PUT', '/api/v1/admin/tenants/q-tenant/quota', admin, { network_count: 3 })).statusCode, 400);
      assert.equal((await call('PUT', '/api/v1/admin/tenants/q-tenant/quota', h, { network_count: 3, reason: 'me' })).statusCode, 403);
      assert.equal((await call('PUT', '/api/v1/admin/tenants/no-such/quota', admin, { network_count: 3, reason: 'x' })).statusCode, 404);
    });

    it('a temporary quota applies until expires_at, then the previous one returns (API and scheduler row)', async () => {
      const u = await createUser(app, { username: `tq-${mode}`, role: 'operator', tenant_id: 'tq-tenant' });
      const h = await loginAs(app, u.username, u.password);
      await setQuota('tq-tenant', { network_count: 1, concurrent_powerflow: 3 });
      assert.equal((await call('POST', '/api/v1/networks', h, tiny('t1'))).statusCode, 201);
      assert.equal((await call('POST', '/api/v1/networks', h, tiny('t2'))).statusCode, 409);
      const expires = new Date(Date.now() + 1500).toISOString();
      const tmp = await setQuota('tq-tenant', { network_count: 2, concurrent_powerflow: 9, reason: 'maintenance window', expires_at: expires });
      assert.ok(tmp.override_id);
      assert.equal((await call('POST', '/api/v1/networks', h, tiny('t2'))).statusCode, 201);
      const during = json(await call('GET', '/api/v1/tenant/quota', h)).data;
      assert.equal(during.quotas.network_count, 2);
      assert.equal(during.temporary.length, 1);
      assert.equal((await app.services.db.query<{ cp: string }>(`SELECT quotas->>'concurrent_powerflow' AS cp FROM tenants WHERE id = 'tq-tenant'`)).rows[0].cp, '9');
      await sleep(Date.parse(expires) - Date.now() + 50);
      const afterQ = json(await call('GET', '/api/v1/tenant/quota', h)).data;
      assert.equal(afterQ.quotas.network_count, 1, 'the API switches back exactly at expires_at');
      assert.equal(afterQ.temporary.length, 0);
      await eventually(async () => {
        assert.equal((await app.services.db.query<{ cp: string }>(`SELECT quotas->>'concurrent_powerflow' AS cp FROM tenants WHERE id = 'tq-tenant'`)).rows[0].cp, '3');
      });
      assert.equal((await call('POST', '/api/v1/networks', h, tiny('t3'))).statusCode, 409);
      await eventually(async () => {
        const audit = json(await call('GET', '/api/v1/audit?action=tenant.quota.expired&resource_id=tq-tenant', { ...admin, 'x-tenant-id': 'tq-tenant' })).data;
        assert.equal(audit.length, 1);
        assert.equal(audit[0].actor.type, 'system');
      });
      assert.equal((await call('PUT', '/api/v1/admin/tenants/tq-tenant/quota', admin, { network_count: 5, reason: 'x', expires_at: '2001-01-01T00:00:00Z' })).statusCode, 422);
    });

    it('plans are presets; agent, time-series and connection quotas refuse when full', async () => {
      await createTenant(app, 'plan-free', 'free');
      await createTenant(app, 'plan-ent', 'enterprise');
      const free = json(await call('GET', '/api/v1/tenant/quota', { ...admin, 'x-tenant-id': 'plan-free' })).data;
      assert.deepEqual([free.quotas.api_requests_per_hour, free.quotas.ws_connections, free.quotas.sse_connections, free.quotas.timeseries_daily_gb], [1000, 5, 10, 1]);
      const ent = json(await call('GET', '/api/v1/tenant/quota', { ...admin, 'x-tenant-id': 'plan-ent' })).data;
      assert.deepEqual([ent.quotas.api_requests_per_hour, ent.quotas.ws_connections, ent.quotas.sse_connections, ent.quotas.timeseries_daily_gb], [50000, 100, 200, 100]);
      const s = app.services;
      // agents: the check the agents module calls inside its creating transaction
      await setQuota('plan-free', { agent_count: 2 });
      await checkAgentQuota(s, s.db, 'plan-free', 'SELECT 1 AS n WHERE $1::text IS NOT NULL');
      await assert.rejects(checkAgentQuota(s, s.db, 'plan-free', 'SELECT 2 AS n WHERE $1::text IS NOT NULL'), (e: { code: string; details: { quota: string } }) => e.code === 'CONFLICT' && e.details.quota === 'agent_count');
      // time series: daily points
      await setQuota('plan-free', { timeseries_daily_points: 10 });
      const caller: Caller = { ...systemCaller('plan-free'), tenantId: 'plan-free' };
      assert.equal((await consumeTimeseriesQuota(s, caller, 6, 600)).points_today, 6);
      await assert.rejects(consumeTimeseriesQuota(s, caller, 5, 500), (e: { code: string }) => e.code === 'RATE_LIMITED');
      assert.equal((await consumeTimeseriesQuota(s, caller, 4, 400)).points_today, 10);
      // connection slots (SSE / WebSocket doors)
      await setQuota('plan-free', { sse_connections: 1 });
      const slot = await acquireConnection(s, caller, 'sse');
      await assert.rejects(acquireConnection(s, { ...caller, actor: { ...caller.actor, id: 'other' } }, 'sse'), (e: { code: string; details: { scope: string } }) => e.code === 'RATE_LIMITED' && e.details.scope === 'tenant');
      const q = json(await call('GET', '/api/v1/tenant/quota', { ...admin, 'x-tenant-id': 'plan-free' })).data;
      assert.equal(q.usage.sse_connections, 1);
      assert.equal(q.usage.timeseries_today_points, 10);
      await slot.release();
      await (await acquireConnection(s, caller, 'sse')).release();
    });
  });
}

describe('security: limits shared by two API processes on one Redis (distributed)', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    const cfg = security({ ip: { authenticated: { rate: 60, burst: 4 } } });
    a = await startTestApp('distributed', { config: cfg, keepData: true });
    b = await startTestApp('distributed', { config: cfg, shared: { schema: a.schema!, prefix: a.prefix! } });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });
  const on = (app: TestApp, method: string, url: string, headers: H = {}, body?: unknown, ip?: string) =>
    app.app!.inject({ method: method as 'GET', url, headers, remoteAddress: ip, ...(body === undefined ? {} : { payload: body as object }) });

  it('shares buckets, tokens, revocations and quota changes between the processes', async () => {
    const admin = await adminHeaders(a);
    // a token issued by A is accepted by B (one key pair per deployment)
    assert.equal((await on(b, 'GET', '/api/v1/networks', admin, undefined, '10.4.0.9')).statusCode, 200);
    // L1 bucket of one address: 2 on A + 2 on B, the 5th is refused on either
    for (const app of [a, b, a, b]) assert.equal((await on(app, 'GET', '/api/v1/networks', admin, undefined, '10.4.0.1')).statusCode, 200);
    const r = await on(a, 'GET', '/api/v1/networks', admin, undefined, '10.4.0.1');
    assert.equal(r.statusCode, 429);
    assert.equal(JSON.parse(r.body).error.details.scope, 'ip');
    assert.equal((await on(b, 'GET', '/api/v1/networks', admin, undefined, '10.4.0.1')).statusCode, 429);
    // a quota change made through A is in force on B at once
    await createTenant(a, 'shared-t');
    const u = await createUser(a, { username: 'shared-user', role: 'viewer', tenant_id: 'shared-t' });
    const h = await loginAs(a, u.username, u.password);
    assert.equal((await on(b, 'GET', '/api/v1/networks', h, undefined, '10.4.1.1')).headers['x-ratelimit-tenant-limit'], '5000');
    const put = await on(a, 'PUT', '/api/v1/admin/tenants/shared-t/quota', admin, { api_requests_per_hour: 1234, reason: 'shared test' }, '10.4.1.2');
    assert.equal(put.statusCode, 200, put.body);
    await eventually(async () => assert.equal((await on(b, 'GET', '/api/v1/networks', h, undefined, '10.4.1.3')).headers['x-ratelimit-tenant-limit'], '1234'));
    // a refresh-token reuse detected on A revokes the family's access token on B
    const s1 = await login(a, u.username, u.password);
    assert.equal((await on(b, 'GET', '/api/v1/networks', { authorization: `Bearer ${s1.token}` }, undefined, '10.4.2.1')).statusCode, 200);
    assert.equal((await on(a, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: s1.refresh_token }, '10.4.2.2')).statusCode, 200);
    assert.equal((await on(a, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: s1.refresh_token }, '10.4.2.3')).statusCode, 401);
    await eventually(async () => assert.equal((await on(b, 'GET', '/api/v1/networks', { authorization: `Bearer ${s1.token}` }, undefined, '10.4.2.4')).statusCode, 401));
    // an API key revoked through B stops working on A at once
    const k = await apiKeyFor(a, 'viewer', 'default', 'shared-svc');
    assert.equal((await on(a, 'GET', '/api/v1/networks', k.headers, undefined, '10.4.3.1')).statusCode, 200);
    assert.equal((await on(b, 'DELETE', `/api/v1/admin/api-keys/${k.id}`, await adminHeaders(b), undefined, '10.4.3.2')).statusCode, 200);
    await eventually(async () => assert.equal((await on(a, 'GET', '/api/v1/networks', k.headers, undefined, '10.4.3.3')).statusCode, 401));
    // connection slots are counted across processes
    const put2 = await on(a, 'PUT', '/api/v1/admin/tenants/shared-t/quota', admin, { ws_connections: 1, reason: 'shared test' }, '10.4.1.4');
    assert.equal(put2.statusCode, 200);
    const caller: Caller = { ...systemCaller('shared-t'), tenantId: 'shared-t' };
    const slot = await acquireConnection(a.services, caller, 'ws');
    await assert.rejects(acquireConnection(b.services, caller, 'ws'), (e: { code: string }) => e.code === 'RATE_LIMITED');
    await slot.release();
    await (await acquireConnection(b.services, caller, 'ws')).release();
  });
});
