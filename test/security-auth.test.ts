// Security: authentication (tokens, refresh rotation, API keys), roles against
// each kind of endpoint, tenant isolation, X-Tenant-Id, and the audit trail, in
// both modes (embedded PGlite, distributed PostgreSQL + Redis).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createSigner } from 'fast-jwt';
import { generateKeyPairSync } from 'node:crypto';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, apiKeyFor, createUser, login, loginAs, tokenFor } from './helpers/auth.js';
import { purgeAudit } from '../src/security/audit.js';

type H = Record<string, string>;

const tiny = (name: string) => ({
  name,
  buses: [{ id: 1, type: 'slack', v: 1.02 }, { id: 2, type: 'pq' }],
  branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
  generators: [{ bus: 1, mw: 0 }],
  loads: [{ bus: 2, mw: 10, mvar: 2 }],
});

function claims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}
function header(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8'));
}

for (const mode of MODES) {
  describe(`security: authentication, roles, tenants, audit (${mode})`, () => {
    let app: TestApp;
    let admin: H;
    const call = (method: string, url: string, headers: H = {}, body?: unknown) =>
      app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body as object }) });

    before(async () => {
      app = await startTestApp(mode);
      admin = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('logs in with a good password: RS256 JWT with sub, tenant, role, scope, exp, iat, jti', async () => {
      const r = await call('POST', '/api/v1/auth/token', {}, { username: 'admin', password: app.config.adminPassword });
      assert.equal(r.statusCode, 200, r.body);
      const d = json(r).data;
      assert.equal(d.token_type, 'Bearer');
      assert.equal(d.expires_in, 3600);
      assert.ok(d.refresh_token);
      assert.equal(header(d.token).alg, 'RS256');
      const c = claims(d.token);
      assert.equal(c.sub, 'admin');
      assert.equal(c.tenant, 'default');
      assert.equal(c.role, 'admin');
      assert.equal(c.scope, 'default');
      assert.ok(typeof c.jti === 'string' && c.jti.length > 8);
      assert.equal(Number(c.exp) - Number(c.iat), 3600);
      const ok = await call('GET', '/api/v1/networks', { authorization: `Bearer ${d.token}` });
      assert.equal(ok.statusCode, 200);
    });

    it('refuses a bad password and an unknown user with the same 401 UNAUTHORIZED', async () => {
      const bad = await call('POST', '/api/v1/auth/token', {}, { username: 'admin', password: 'wrong-password' });
      const unknown = await call('POST', '/api/v1/auth/token', {}, { username: 'nobody-here', password: 'whatever' });
      for (const r of [bad, unknown]) {
        assert.equal(r.statusCode, 401);
        assert.equal(json(r).error.code, 'UNAUTHORIZED');
      }
      assert.equal(json(bad).error.message, json(unknown).error.message);
      assert.ok(!bad.body.includes('wrong-password'));
    });

    it('answers 401 UNAUTHORIZED without credentials and for garbage, tampered or foreign-key tokens', async () => {
      const d = await login(app, 'admin', app.config.adminPassword!);
      const [h, p, sig] = d.token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...claims(d.token), role: 'admin', tenant: 'other' })).toString('base64url');
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const foreign = createSigner({ algorithm: 'RS256', key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), kid: String(header(d.token).kid), iss: 'gridops', expiresIn: 60_000 })(
        { sub: 'admin', tenant: 'default', role: 'admin', scope: 'default', jti: 'x', fam: 'f' });
      const cases: Record<string, H> = {
        none: {},
        garbage: { authorization: 'Bearer not-a-token' },
        basic: { authorization: 'Basic YWRtaW46YWRtaW4=' },
        tamperedPayload: { authorization: `Bearer ${h}.${forged}.${sig}` },
        tamperedSignature: { authorization: `Bearer ${h}.${p}.${sig.slice(0, -4)}AAAA` },
        foreignKey: { authorization: `Bearer ${foreign}` },
        badApiKey: { 'x-api-key': 'gok_' + 'A'.repeat(43) },
      };
      for (const [name, hd] of Object.entries(cases)) {
        const r = await call('GET', '/api/v1/networks', hd);
        assert.equal(r.statusCode, 401, `${name}: ${r.body}`);
        assert.equal(json(r).error.code, 'UNAUTHORIZED', name);
      }
    });

    it('answers 401 TOKEN_EXPIRED for an expired token', async () => {
      const k = app.services.security.keys.signing!;
      const expired = createSigner({ algorithm: 'RS256', key: k.privatePem, kid: k.kid, iss: 'gridops', expiresIn: 3600_000, clockTimestamp: Date.now() - 7200_000 })(
        { sub: 'admin', uid: 'usr_x', tenant: 'default', role: 'admin', scope: 'default', jti: 'expired-1', fam: 'fam_x' });
      const r = await call('GET', '/api/v1/networks', { authorization: `Bearer ${expired}` });
      assert.equal(r.statusCode, 401);
      assert.equal(json(r).error.code, 'TOKEN_EXPIRED');
    });

    it('rotates refresh tokens; a reused one is refused and revokes its whole family, access tokens included', async () => {
      const first = await login(app, 'admin', app.config.adminPassword!);
      const r1 = await call('POST', '/api/v1/auth/refresh', {}, { refresh_token: first.refresh_token });
      assert.equal(r1.statusCode, 200, r1.body);
      const second = json(r1).data;
      assert.notEqual(second.token, first.token);
      assert.notEqual(second.refresh_token, first.refresh_token);
      assert.equal(claims(second.token).fam, claims(first.token).fam);
      assert.equal((await call('GET', '/api/v1/networks', { authorization: `Bearer ${second.token}` })).statusCode, 200);
      // Reuse of the first refresh token: refused, and the family is gone.
      const reuse = await call('POST', '/api/v1/auth/refresh', { 'x-request-id': `reuse-${mode}` }, { refresh_token: first.refresh_token });
      assert.equal(reuse.statusCode, 401);
      assert.equal(json(reuse).error.code, 'UNAUTHORIZED');
      assert.equal(json(reuse).error.details.reason, 'refresh_token_reused');
      const next = await call('POST', '/api/v1/auth/refresh', {}, { refresh_token: second.refresh_token });
      assert.equal(next.statusCode, 401, 'the rotated token of a revoked family is refused too');
      assert.equal((await call('GET', '/api/v1/networks', { authorization: `Bearer ${second.token}` })).statusCode, 401, 'access token of the revoked family');
      assert.equal((await call('GET', '/api/v1/networks', { authorization: `Bearer ${first.token}` })).statusCode, 401);
      // Other sessions of the same user are untouched.
      assert.equal((await call('GET', '/api/v1/networks', admin)).statusCode, 200);
      const audit = json(await call('GET', `/api/v1/audit?action=auth.refresh_reuse&request_id=reuse-${mode}`, admin)).data;
      assert.equal(audit.length, 1);
      assert.equal(audit[0].result, 'denied');
      assert.equal(audit[0].actor.id, 'admin');
      assert.equal((await call('POST', '/api/v1/auth/refresh', {}, { refresh_token: 'rt_0000.bad' })).statusCode, 401);
    });

    it('narrows a token with scope and refuses unknown scopes', async () => {
      const readOnly = await loginAs(app, 'admin', app.config.adminPassword!, { scope: 'read' });
      assert.equal((await call('GET', '/api/v1/networks', readOnly)).statusCode, 200);
      const w = await call('POST', '/api/v1/networks', readOnly, tiny('scoped'));
      assert.equal(w.statusCode, 403);
      assert.equal(json(w).error.code, 'FORBIDDEN');
      const bad = await call('POST', '/api/v1/auth/token', {}, { username: 'admin', password: app.config.adminPassword, scope: 'everything' });
      assert.equal(bad.statusCode, 400);
    });

    it('lets each role reach exactly the endpoints its permissions allow', async () => {
      const net = json(await call('POST', '/api/v1/networks', admin, tiny('roles-net'))).data.id;
      const kinds: Record<string, (h: H) => Promise<number>> = {
        read: async (h) => (await call('GET', '/api/v1/networks', h)).statusCode,
        write: async (h) => (await call('POST', '/api/v1/networks', h, tiny(`w-${Math.random()}`))).statusCode,
        compute: async (h) => (await call('POST', `/api/v1/networks/${net}/powerflow`, h, { method: 'dc' })).statusCode,
        admin: async (h) => (await call('GET', '/api/v1/admin/tenants', h)).statusCode,
        audit: async (h) => (await call('GET', '/api/v1/audit', h)).statusCode,
      };
      const expect: Record<string, string[]> = {
        admin: ['read', 'write', 'compute', 'admin', 'audit'],
        operator: ['read', 'write', 'compute'],
        viewer: ['read'],
        auditor: ['read', 'audit'],
      };
      for (const role of ['admin', 'operator', 'viewer', 'auditor'] as const) {
        const h = await tokenFor(app, role);
        for (const [kind, run] of Object.entries(kinds)) {
          const status = await run(h);
          if (expect[role].includes(kind)) assert.ok(status < 400, `${role} ${kind}: ${status}`);
          else assert.equal(status, 403, `${role} ${kind} must be 403 FORBIDDEN, got ${status}`);
        }
      }
      // An API key acts with its role.
      const key = await apiKeyFor(app, 'viewer', 'default', 'reporting');
      assert.equal(await kinds.read(key.headers), 200);
      assert.equal(await kinds.write(key.headers), 403);
    });

    it('creates, uses and revokes API keys; the key is shown once and stored hashed', async () => {
      const k = await apiKeyFor(app, 'operator', 'default', 'billing-svc');
      assert.match(k.key, /^gok_/);
      const created = await call('POST', '/api/v1/networks', k.headers, tiny('via-key'));
      assert.equal(created.statusCode, 201, created.body);
      const list = json(await call('GET', '/api/v1/admin/api-keys', admin)).data;
      assert.ok(list.some((x: { id: string }) => x.id === k.id));
      assert.ok(!JSON.stringify(list).includes(k.key));
      const { rows } = await app.services.db.query<{ key_hash: string }>('SELECT key_hash FROM api_keys WHERE id = $1', [k.id]);
      assert.notEqual(rows[0].key_hash, k.key);
      const audit = json(await call('GET', `/api/v1/audit?resource_id=${created.json().data.id}`, admin)).data;
      assert.equal(audit[0].actor.type, 'service');
      assert.equal(audit[0].actor.id, k.id);
      const del = await call('DELETE', `/api/v1/admin/api-keys/${k.id}`, admin);
      assert.equal(del.statusCode, 200, del.body);
      assert.ok(json(del).data.revoked_at);
      const after = await call('GET', '/api/v1/networks', k.headers);
      assert.equal(after.statusCode, 401);
      assert.equal((await call('DELETE', '/api/v1/admin/api-keys/key_0000', admin)).statusCode, 404);
    });

    it('admin endpoints: tenants, users (no password echoed), only for admins, audited without secrets', async () => {
      const t = await call('POST', '/api/v1/admin/tenants', { ...admin, 'x-request-id': `mk-tenant-${mode}` }, { tenant_id: `t-${mode}`, plan: 'free' });
      assert.equal(t.statusCode, 201, t.body);
      assert.equal(json(t).data.plan, 'free');
      assert.equal(json(t).data.quotas.api_requests_per_hour, 1000);
      assert.equal((await call('POST', '/api/v1/admin/tenants', admin, { tenant_id: `t-${mode}`, plan: 'free' })).statusCode, 409);
      const u = await call('POST', '/api/v1/admin/users', admin, { username: `alice-${mode}`, password: 'alice-password-1', tenant_id: `t-${mode}`, role: 'operator' });
      assert.equal(u.statusCode, 201, u.body);
      assert.ok(!u.body.includes('alice-password-1'));
      assert.ok(!('password' in json(u).data) && !('password_hash' in json(u).data));
      assert.equal((await call('POST', '/api/v1/admin/users', admin, { username: `alice-${mode}`, password: 'another-pass', tenant_id: `t-${mode}`, role: 'viewer' })).statusCode, 409);
      assert.equal((await call('POST', '/api/v1/admin/users', admin, { username: 'x-nobody', password: 'another-pass', tenant_id: 'no-such-tenant', role: 'viewer' })).statusCode, 422);
      const op = await tokenFor(app, 'operator');
      assert.equal((await call('POST', '/api/v1/admin/tenants', op, { tenant_id: 'sneaky' })).statusCode, 403);
      assert.equal((await call('POST', '/api/v1/admin/users', op, { username: 'sneaky', password: 'sneaky-pass', tenant_id: 'default', role: 'admin' })).statusCode, 403);
      assert.equal((await call('POST', '/api/v1/admin/api-keys', op, { name: 'x', tenant_id: 'default', role: 'admin' })).statusCode, 403);
      const alice = await loginAs(app, `alice-${mode}`, 'alice-password-1');
      assert.equal(claims(alice.authorization.slice(7)).tenant, `t-${mode}`);
      const entries = json(await call('GET', `/api/v1/audit?resource_type=user&actor=admin`, admin)).data;
      assert.ok(entries.length >= 1);
      assert.ok(!JSON.stringify(entries).includes('alice-password-1'));
      const tenantEntry = json(await call('GET', `/api/v1/audit?request_id=mk-tenant-${mode}`, admin)).data[0];
      assert.equal(tenantEntry.resource.type, 'tenant');
      assert.equal(tenantEntry.resource.id, `t-${mode}`);
    });

    it('isolates tenants: same names, no leak through list, detail, filters, counts, tasks or errors', async () => {
      const A = await tokenFor(app, 'operator', 'acme');
      const B = await tokenFor(app, 'operator', 'globex');
      const a = json(await call('POST', '/api/v1/networks', A, tiny('Shared Name'))).data;
      const b = json(await call('POST', '/api/v1/networks', B, { ...tiny('Shared Name'), tags: { site: 'x' } })).data;
      assert.ok(a.id && b.id && a.id !== b.id);
      for (const [me, mine, theirs] of [[A, a, b], [B, b, a]] as const) {
        const list = json(await call('GET', '/api/v1/networks', me));
        assert.deepEqual(list.data.map((n: { id: string }) => n.id), [mine.id]);
        assert.equal(list.meta.total, 1);
        const byName = json(await call('GET', '/api/v1/networks?name=Shared', me));
        assert.deepEqual(byName.data.map((n: { id: string }) => n.id), [mine.id]);
        assert.equal(byName.meta.total, 1);
        assert.equal(json(await call('GET', '/api/v1/networks?tag=site:x', me)).meta.total, mine.id === b.id ? 1 : 0);
        for (const [m, url, body] of [['GET', `/api/v1/networks/${theirs.id}`], ['PUT', `/api/v1/networks/${theirs.id}`, tiny('steal')], ['DELETE', `/api/v1/networks/${theirs.id}`],
          ['POST', `/api/v1/networks/${theirs.id}/validate`, {}], ['POST', `/api/v1/networks/${theirs.id}/powerflow`, { method: 'dc' }]] as const) {
          const r = await call(m, url, me, body);
          assert.equal(r.statusCode, 404, `${m} ${url}: ${r.body}`);
          // The 404 of another tenant's id reads like any unknown id.
          assert.ok(!r.body.includes('acme') && !r.body.includes('globex'), r.body);
        }
      }
      // Tasks: acme's task is invisible to globex.
      const task = json(await call('POST', `/api/v1/networks/${a.id}/powerflow`, A, { method: 'dc', async: true })).data;
      assert.ok(task.task_id, JSON.stringify(task));
      assert.equal((await call('GET', `/api/v1/tasks/${task.task_id}`, B)).statusCode, 404);
      assert.equal((await call('DELETE', `/api/v1/tasks/${task.task_id}`, B)).statusCode, 404);
      assert.equal((await call('GET', `/api/v1/tasks/${task.task_id}`, A)).statusCode, 200);
      // Quota views count each tenant's own networks only.
      assert.equal(json(await call('GET', '/api/v1/tenant/quota', A)).data.usage.network_count, 1);
      assert.equal(json(await call('GET', '/api/v1/tenant/quota', B)).data.tenant_id, 'globex');
      // An admin (cross_tenant) may act in another tenant with X-Tenant-Id.
      const viaAdmin = json(await call('GET', '/api/v1/networks', { ...admin, 'x-tenant-id': 'acme' }));
      assert.deepEqual(viaAdmin.data.map((n: { id: string }) => n.id), [a.id]);
      assert.equal((await call('GET', '/api/v1/networks', { ...admin, 'x-tenant-id': 'no-such-tenant' })).statusCode, 404);
    });

    it('answers 403 TENANT_MISMATCH for X-Tenant-Id of another tenant without cross_tenant permission', async () => {
      const A = await tokenFor(app, 'operator', 'acme');
      const r = await call('GET', '/api/v1/networks', { ...A, 'x-tenant-id': 'globex', 'x-request-id': `mismatch-${mode}` });
      assert.equal(r.statusCode, 403);
      assert.equal(json(r).error.code, 'TENANT_MISMATCH');
      assert.equal((await call('GET', '/api/v1/networks', { ...A, 'x-tenant-id': 'acme' })).statusCode, 200);
      const user = await createUser(app, { username: `mallory-${mode}`, role: 'operator', tenant_id: 'acme' });
      const l = await call('POST', '/api/v1/auth/token', {}, { username: user.username, password: user.password, tenant_id: 'globex' });
      assert.equal(l.statusCode, 403);
      assert.equal(json(l).error.code, 'TENANT_MISMATCH');
      // The denial is in the audit trail of the caller's tenant.
      const auditor = await tokenFor(app, 'auditor', 'acme');
      const e = json(await call('GET', `/api/v1/audit?request_id=mismatch-${mode}`, auditor)).data;
      assert.equal(e.length, 1);
      assert.equal(e[0].result, 'denied');
      assert.equal(e[0].details.error_code, 'TENANT_MISMATCH');
    });

    it('audits successes and denials with the X-Request-Id given, and mirrors them as audit events', async () => {
      const rid = (s: string) => `${s}-${mode}-${Date.now()}`;
      const ok = rid('audit-ok');
      const created = await call('POST', '/api/v1/networks', { ...admin, 'x-request-id': ok, 'user-agent': 'sec-test/1.0' }, tiny('audited'));
      assert.equal(created.statusCode, 201);
      const id = json(created).data.id;
      const denied = rid('audit-denied');
      const viewer = await tokenFor(app, 'viewer');
      assert.equal((await call('DELETE', `/api/v1/networks/${id}`, { ...viewer, 'x-request-id': denied })).statusCode, 403);
      const unauth = rid('audit-401');
      assert.equal((await call('GET', '/api/v1/networks', { 'x-request-id': unauth })).statusCode, 401);
      const badLogin = rid('audit-login');
      await call('POST', '/api/v1/auth/token', { 'x-request-id': badLogin }, { username: 'admin', password: 'nope' });

      const get = async (r: string) => json(await call('GET', `/api/v1/audit?request_id=${r}`, admin)).data;
      const [e1] = await get(ok);
      assert.equal(e1.request_id, ok);
      assert.equal(e1.action, 'POST /api/v1/networks');
      assert.deepEqual(e1.resource, { type: 'network', id });
      assert.deepEqual(e1.actor, { type: 'user', id: 'admin', tenant: 'default' });
      assert.equal(e1.result, 'success');
      assert.equal(e1.status, 201);
      assert.equal(e1.ip, '127.0.0.1');
      assert.equal(e1.user_agent, 'sec-test/1.0');
      assert.match(e1.id, /^aud_/);
      const [e2] = await get(denied);
      assert.equal(e2.result, 'denied');
      assert.equal(e2.status, 403);
      assert.deepEqual(e2.resource, { type: 'network', id });
      const [e3] = await get(unauth);
      assert.equal(e3.result, 'denied');
      assert.equal(e3.status, 401);
      assert.equal(e3.actor.type, 'anonymous');
      const [e4] = await get(badLogin);
      assert.equal(e4.action, 'auth.login');
      assert.equal(e4.result, 'denied');
      assert.equal(e4.actor.id, 'admin');
      // Filters and paging.
      const byAction = json(await call('GET', `/api/v1/audit?action=auth.*&page_size=100`, admin));
      assert.ok(byAction.data.every((e: { action: string }) => e.action.startsWith('auth.')));
      const page = json(await call('GET', '/api/v1/audit', admin));
      assert.equal(page.meta.page_size, 50);
      assert.equal((await call('GET', '/api/v1/audit?page_size=101', admin)).statusCode >= 400, true);
      const from = new Date(Date.now() + 60_000).toISOString();
      assert.equal(json(await call('GET', `/api/v1/audit?from=${encodeURIComponent(from)}`, admin)).meta.total, 0);
      assert.ok(json(await call('GET', `/api/v1/audit?resource_type=network&resource_id=${id}`, admin)).data.length >= 2);
      // Mirror in the event log, topic audit.
      const { rows } = await app.services.db.query<{ payload: { audit_id: string; request_id: string } }>(`SELECT payload FROM events WHERE topic = 'audit' AND payload->>'request_id' = $1`, [ok]);
      assert.equal(rows.length, 1);
      assert.equal(rows[0].payload.audit_id, e1.id);
    });

    it('refuses changes with 403 AUDIT_REQUIRED while the audit trail cannot be written', async () => {
      const st = app.services.security;
      st.auditFailing = true;
      const r = await call('POST', '/api/v1/networks', admin, tiny('unaudited'));
      assert.equal(r.statusCode, 403);
      assert.equal(json(r).error.code, 'AUDIT_REQUIRED');
      assert.equal((await call('GET', '/api/v1/networks', admin)).statusCode, 200, 'reads go on');
      // the refusal's own audit entry was written, so the store works again
      assert.equal(st.auditFailing, false);
      assert.equal((await call('POST', '/api/v1/networks', admin, tiny('audited-again'))).statusCode, 201);
    });

    it('keeps the audit trail append-only: SQL UPDATE/DELETE/TRUNCATE refused, no endpoint edits it, purge removes only expired entries', async () => {
      const db = app.services.db;
      const { rows } = await db.query<{ id: string }>('SELECT id FROM audit_log ORDER BY seq LIMIT 1');
      const id = rows[0].id;
      await assert.rejects(db.query(`UPDATE audit_log SET action = 'forged' WHERE id = $1`, [id]), /append-only/);
      await assert.rejects(db.query('DELETE FROM audit_log WHERE id = $1', [id]), /append-only/);
      await assert.rejects(db.exec('TRUNCATE audit_log'), /append-only/);
      // Even the purge's switch cannot delete an entry inside the retention.
      await assert.rejects(db.transaction(async (tx) => {
        await tx.query(`SELECT set_config('gridops.audit_purge', 'on', true)`);
        await tx.query('DELETE FROM audit_log WHERE id = $1', [id]);
      }), /append-only/);
      assert.equal((await db.query('SELECT 1 FROM audit_log WHERE id = $1', [id])).rows.length, 1);
      // An entry past the retention is removed by the purge, and only that one.
      await db.query(`INSERT INTO audit_log (id, ts, tenant_id, actor_type, actor_id, actor_tenant, action, result) VALUES ('aud_ancient', now() - interval '400 days', 'default', 'system', 'x', 'default', 'old', 'success')`);
      const before = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log')).rows[0].n);
      assert.equal(await purgeAudit(app.services), 1);
      const afterN = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log')).rows[0].n);
      assert.ok(afterN >= before - 1);
      assert.equal((await db.query(`SELECT 1 FROM audit_log WHERE id = 'aud_ancient'`)).rows.length, 0);
      // No route edits it.
      for (const m of ['PUT', 'PATCH', 'DELETE', 'POST']) {
        const r = await call(m, '/api/v1/audit', admin, m === 'DELETE' ? undefined : {});
        assert.equal(r.statusCode, 405, `${m} /api/v1/audit`);
      }
      assert.equal((await call('DELETE', `/api/v1/audit/${id}`, admin)).statusCode, 404);
    });
  });
}

describe('security: production settings', () => {
  it('refuses a missing or weak admin password in production, turns introspection off, sends helmet headers', async () => {
    const { loadConfig } = await import('../src/config.js');
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /ADMIN_PASSWORD/);
    assert.throws(() => loadConfig({ NODE_ENV: 'production', ADMIN_PASSWORD: 'short' }), /weak/);
    assert.throws(() => loadConfig({ NODE_ENV: 'production', ADMIN_PASSWORD: 'a-long-enough-password', GRIDOPS_AUTH: 'off' }), /GRIDOPS_AUTH/);
    assert.equal(loadConfig({ NODE_ENV: 'production', ADMIN_PASSWORD: 'a-long-enough-password' }).introspection, false);
    assert.equal(loadConfig({ NODE_ENV: 'development' }).introspection, true);
    const app = await startTestApp('embedded', { config: { production: true, nodeEnv: 'production', adminPassword: 'a-long-enough-password' } });
    try {
      const r = await app.app!.inject({ method: 'GET', url: '/api/v1/health' });
      assert.equal(r.statusCode, 200);
      assert.ok(r.headers['strict-transport-security']);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      const h = await adminHeaders(app);
      const weak = await app.app!.inject({ method: 'POST', url: '/api/v1/admin/users', headers: h, payload: { username: 'weakling', password: 'only8chars', tenant_id: 'default', role: 'viewer' } });
      assert.equal(weak.statusCode, 422);
    } finally {
      await app.close();
    }
  });
});
