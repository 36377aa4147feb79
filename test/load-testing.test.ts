// What a load tester meets (docs/load-testing.md): the 429 that points to the doc, the
// admin's live override of a tenant's rate limits (raised or lifted, expiring, no restart,
// seen by every API process) and refusals audited in aggregate, in both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, eventually, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, createUser, loginAs, tokenFor } from './helpers/auth.js';
import { loadSecurityConfig, type RateLimitOverrides, type SecurityConfig } from '../src/security/settings.js';
import { flushDenials } from '../src/security/denials.js';

type H = Record<string, string>;

function security(rateLimits: RateLimitOverrides): { security: SecurityConfig } {
  return { security: { ...loadSecurityConfig({}, 'test'), rateLimitScale: 1, rateLimits, sweepMs: 100 } };
}
// Five requests at once per address and per user, then one a second.
const LIMITS = security({ ip: { authenticated: { rate: 60, burst: 5 }, auth: { rate: 600, burst: 100 } }, user: { rate: 60, burst: 5 } });

for (const mode of MODES) {
  describe(`load testing: 429 advice, live limit overrides, aggregated refusals (${mode})`, () => {
    let app: TestApp;
    let admin: H;
    const call = (method: string, url: string, headers: H = {}, body?: unknown, ip = '10.9.0.1') =>
      app.app!.inject({ method: method as 'GET', url, headers, remoteAddress: ip, ...(body === undefined ? {} : { payload: body as object }) });
    /** n GETs of /networks: the status codes. */
    const burst = async (n: number, h: H, ip: string) => {
      const codes: number[] = [];
      for (let i = 0; i < n; i++) codes.push((await call('GET', '/api/v1/networks', h, undefined, ip)).statusCode);
      return codes;
    };

    before(async () => {
      app = await startTestApp(mode, { config: LIMITS });
      admin = await adminHeaders(app);
      // The admin (tenant default) sets up every test: its own limits are lifted, which is
      // also the first use of the feature. The floods run in tenants of their own.
      const lift = await call('PUT', '/api/v1/admin/tenants/default/rate-limits', admin, { lift: true, reason: 'test harness' });
      assert.equal(lift.statusCode, 200, lift.body);
    });
    after(async () => app?.close());

    it('says in the 429 where a load tester learns what to do, and serves that page', async () => {
      const h = await tokenFor(app, 'viewer', 'advice');
      const codes = await burst(8, h, '10.9.1.1');
      assert.ok(codes.includes(429), String(codes));
      const r = await call('GET', '/api/v1/networks', h, undefined, '10.9.1.1');
      assert.equal(r.statusCode, 429);
      assert.match(json(r).error.message, /Load testing\? See \/docs\/load-testing/);
      const doc = await call('GET', '/docs/load-testing', {}, undefined, '10.9.1.2');
      assert.equal(doc.statusCode, 200);
      assert.match(doc.body, /autocannon/);
      assert.match(doc.body, /rate-limits/);
    });

    it('counts refusals into one audit row per minute, caller, layer and address instead of a row each', async () => {
      const tenant = `flood-${mode}`;
      const u = await createUser(app, { username: `flood-${mode}`, role: 'viewer', tenant_id: tenant });
      const h = await loginAs(app, u.username, u.password);
      const auditor = { ...admin, 'x-tenant-id': tenant };
      const codes = await burst(40, h, '10.9.2.1');
      const refused = codes.filter((c) => c === 429).length;
      assert.ok(refused >= 30, `refused ${refused}`);
      await flushDenials(app.services);
      const rows = json(await call('GET', `/api/v1/audit/rate-limited?actor=${u.username}`, auditor, undefined, '10.9.2.9')).data;
      const total = rows.reduce((n: number, r: { count: number }) => n + r.count, 0);
      assert.equal(total, refused, JSON.stringify(rows));
      // One row per minute (and layer): a minute boundary during the burst makes two.
      assert.ok(rows.length <= 4, `${rows.length} rows for ${refused} refusals`);
      assert.ok(rows.every((r: { layer: string; ip: string; actions: Record<string, number> }) => ['ip', 'user'].includes(r.layer) && r.ip === '10.9.2.1' && r.actions['GET /api/v1/networks'] >= 1));
      // ... and not one immutable audit_log row each.
      const each = json(await call('GET', `/api/v1/audit?actor=${u.username}&result=denied&page_size=100`, auditor, undefined, '10.9.2.9'));
      assert.equal(each.meta.total, 0, JSON.stringify(each.data.slice(0, 2)));
      // Other denials are still audited one by one.
      const v = await createUser(app, { username: `flood2-${mode}`, role: 'viewer', tenant_id: tenant });
      const vh = await loginAs(app, v.username, v.password);
      const forbidden = await call('GET', '/api/v1/admin/tenants', vh, undefined, '10.9.2.2');
      assert.equal(forbidden.statusCode, 403, forbidden.body);
      await eventually(async () => {
        const d = json(await call('GET', `/api/v1/audit?actor=${v.username}&result=denied`, auditor, undefined, '10.9.2.9'));
        assert.equal(d.meta.total, 1);
      });
      // the aggregate needs the audit permission
      assert.equal((await call('GET', '/api/v1/audit/rate-limited', vh, undefined, '10.9.2.3')).statusCode, 403);
    });

    it('lets an admin raise a tenant\'s limits live, and end the raise', async () => {
      const tenant = `lt-${mode}`;
      const h = await tokenFor(app, 'operator', tenant);
      const other = await tokenFor(app, 'viewer', `other-${mode}`);
      assert.ok((await burst(8, h, '10.9.3.1')).includes(429), 'limited before');

      const put = await call('PUT', `/api/v1/admin/tenants/${tenant}/rate-limits`, admin, { factor: 100, expires_in_seconds: 600, reason: 'autocannon run' });
      assert.equal(put.statusCode, 200, put.body);
      const o = json(put).data;
      assert.deepEqual([o.active, o.factor, o.lifted, o.reason], [true, 100, false, 'autocannon run']);
      assert.ok(Math.abs(Date.parse(o.expires_at) - Date.now() - 600_000) < 10_000);
      const codes = await burst(60, h, '10.9.3.1');
      assert.deepEqual([...new Set(codes)], [200], 'raised: 60 at once pass');
      const r = await call('GET', '/api/v1/networks', h, undefined, '10.9.3.1');
      assert.equal(r.headers['x-ratelimit-limit'], '6000');
      assert.match(String(r.headers['x-ratelimit-override']), /^x100; expires /);
      // Another tenant from the same address keeps the normal limits.
      assert.ok((await burst(8, other, '10.9.3.1')).includes(429), 'other tenant still limited');
      assert.equal(json(await call('GET', `/api/v1/admin/tenants/${tenant}/rate-limits`, admin)).data.factor, 100);

      const del = await call('DELETE', `/api/v1/admin/tenants/${tenant}/rate-limits`, admin);
      assert.equal(del.statusCode, 200, del.body);
      assert.equal(json(del).data.active, false);
      assert.ok((await burst(8, h, '10.9.3.5')).includes(429), 'limited again');
      // The change is audited.
      const audit = json(await call('GET', `/api/v1/audit?action=tenant.rate_limits.*`, admin)).data;
      assert.ok(audit.some((e: { action: string; details: { reason?: string } }) => e.action === 'tenant.rate_limits.override' && e.details.reason === 'autocannon run'));
    });

    it('lifts a tenant\'s limits until they expire by themselves', async () => {
      const tenant = `lift-${mode}`;
      const h = await tokenFor(app, 'operator', tenant);
      const put = await call('PUT', `/api/v1/admin/tenants/${tenant}/rate-limits`, admin, { lift: true, expires_in_seconds: 2, reason: 'short soak' });
      assert.equal(put.statusCode, 200, put.body);
      assert.equal(json(put).data.lifted, true);
      const codes = await burst(30, h, '10.9.4.1');
      assert.deepEqual([...new Set(codes)], [200]);
      assert.match(String((await call('GET', '/api/v1/networks', h, undefined, '10.9.4.1')).headers['x-ratelimit-override']), /^lifted; expires /);
      // Expired: the normal limits apply again, no restart, no admin call.
      await eventually(async () => assert.ok((await burst(8, h, '10.9.4.2')).includes(429), 'limited after expiry'), 20_000);
      assert.equal(json(await call('GET', `/api/v1/admin/tenants/${tenant}/rate-limits`, admin)).data.active, false);
    });

    it('refuses bad override requests with the reason', async () => {
      const url = `/api/v1/admin/tenants/default/rate-limits`;
      for (const [body, status, re] of [
        [{ factor: 10, lift: true, reason: 'x' }, 400, /either factor .* or lift: true/],
        [{ reason: 'x' }, 400, /either factor/],
        [{ factor: 10 }, 400, /reason/],
        [{ factor: 10, reason: 'x', expires_in_seconds: 30 * 24 * 3600 }, 422, /expires_in_seconds/],
        [{ factor: 10, reason: 'x', expires_at: '2001-01-01T00:00:00Z' }, 422, /must be in the future/],
      ] as const) {
        const r = await call('PUT', url, admin, body);
        assert.equal(r.statusCode, status, `${JSON.stringify(body)}: ${r.body}`);
        assert.match(json(r).error.message, re);
      }
      assert.equal((await call('PUT', '/api/v1/admin/tenants/nobody-here/rate-limits', admin, { factor: 2, reason: 'x' })).statusCode, 404);
      const op = await tokenFor(app, 'operator');
      assert.equal((await call('PUT', url, op, { factor: 2, reason: 'x' }, '10.9.5.1')).statusCode, 403);
    });
  });
}

describe('load testing: an override and the refusal counts across two API processes (distributed)', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await startTestApp('distributed', { config: LIMITS, keepData: true });
    b = await startTestApp('distributed', { config: LIMITS, shared: { schema: a.schema!, prefix: a.prefix! } });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });
  const on = (app: TestApp, method: string, url: string, headers: H = {}, body?: unknown, ip = '10.8.0.1') =>
    app.app!.inject({ method: method as 'GET', url, headers, remoteAddress: ip, ...(body === undefined ? {} : { payload: body as object }) });

  it('applies an override made through one process in the other, and sums both processes\' refusals in one row', async () => {
    const admin = await adminHeaders(a);
    assert.equal((await on(a, 'PUT', '/api/v1/admin/tenants/default/rate-limits', admin, { lift: true, reason: 'test harness' })).statusCode, 200);
    const u = await createUser(a, { username: 'two-proc', role: 'operator', tenant_id: 'twoproc' });
    const h = await loginAs(a, u.username, u.password);
    // Warm B's quota cache for the tenant, so only the notice can tell it about the change.
    assert.equal((await on(b, 'GET', '/api/v1/networks', h, undefined, '10.8.1.1')).statusCode, 200);
    const put = await on(a, 'PUT', '/api/v1/admin/tenants/twoproc/rate-limits', admin, { factor: 50, reason: 'cross-process' });
    assert.equal(put.statusCode, 200, put.body);
    await eventually(async () => assert.match(String((await on(b, 'GET', '/api/v1/networks', h, undefined, '10.8.1.2')).headers['x-ratelimit-override']), /^x50/));
    assert.equal((await on(b, 'DELETE', '/api/v1/admin/tenants/twoproc/rate-limits', await adminHeaders(b))).statusCode, 200);
    await eventually(async () => assert.equal((await on(a, 'GET', '/api/v1/networks', h, undefined, '10.8.1.3')).headers['x-ratelimit-override'], undefined));

    let refused = 0;
    for (let i = 0; i < 30; i++) if ((await on(i % 2 ? a : b, 'GET', '/api/v1/networks', h, undefined, '10.8.2.1')).statusCode === 429) refused++;
    assert.ok(refused >= 20, `refused ${refused}`);
    await flushDenials(a.services);
    await flushDenials(b.services);
    const { rows: stored } = await a.services.db.query<{ count: number; minute: Date; layer: string }>('SELECT count, minute, layer FROM audit_rate_limited WHERE ip = $1', ['10.8.2.1']);
    assert.equal(stored.reduce((n, r) => n + Number(r.count), 0), refused);
    assert.ok(stored.length <= 4, `${stored.length} rows: one per minute and layer, whichever process refused`);
  });
});
