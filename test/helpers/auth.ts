// Credentials for tests. Every request of a test goes through these helpers so
// that the same tests run unchanged with authentication enforced.
import type { TestApp } from './app.js';

type Headers = Record<string, string>;
const adminTokens = new WeakMap<TestApp, Promise<Headers>>();

async function post(app: TestApp, url: string, body: unknown, headers: Headers = {}): Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }> {
  if (!app.app) throw new Error('this test app has no HTTP interface (ROLE=worker)');
  const r = await app.app.inject({ method: 'POST', url, payload: body as object, headers: { 'content-type': 'application/json', ...headers } });
  return { statusCode: r.statusCode, body: r.body, headers: r.headers };
}

export interface TokenResponse {
  token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

/** POST /api/v1/auth/token; throws with the response body unless 200. */
export async function login(app: TestApp, username: string, password: string, extra: { tenant_id?: string; scope?: string } = {}): Promise<TokenResponse> {
  const r = await post(app, '/api/v1/auth/token', { username, password, ...extra });
  if (r.statusCode !== 200) throw new Error(`login ${username} failed: ${r.statusCode} ${r.body}`);
  return (JSON.parse(r.body) as { data: TokenResponse }).data;
}

/** Authorization header of a fresh login. */
export async function loginAs(app: TestApp, username: string, password: string, extra: { tenant_id?: string; scope?: string } = {}): Promise<Headers> {
  return { authorization: `Bearer ${(await login(app, username, password, extra)).token}` };
}

/** Headers that authenticate as the bootstrap administrator of tenant "default" (one login per app). */
export async function adminHeaders(app: TestApp): Promise<Headers> {
  let h = adminTokens.get(app);
  if (!h) {
    h = loginAs(app, app.config.adminUsername, app.config.adminPassword ?? 'admin');
    adminTokens.set(app, h);
    h.catch(() => adminTokens.delete(app));
  }
  return { ...(await h) };
}

/** POST /api/v1/admin/tenants (as the bootstrap admin); an existing tenant is fine. */
export async function createTenant(app: TestApp, tenantId: string, plan = 'pro'): Promise<void> {
  const r = await post(app, '/api/v1/admin/tenants', { tenant_id: tenantId, plan }, await adminHeaders(app));
  if (r.statusCode !== 201 && r.statusCode !== 409) throw new Error(`create tenant ${tenantId}: ${r.statusCode} ${r.body}`);
}

export interface NewUser {
  username: string;
  password?: string;
  tenant_id?: string;
  role: 'admin' | 'operator' | 'viewer' | 'auditor';
}

/** POST /api/v1/admin/users (as the bootstrap admin), creating the tenant if needed; returns the password used. */
export async function createUser(app: TestApp, u: NewUser): Promise<{ username: string; password: string; tenant_id: string; id: string }> {
  const tenant = u.tenant_id ?? 'default';
  if (tenant !== 'default') await createTenant(app, tenant);
  const password = u.password ?? `pw-${u.username}-secret`;
  const r = await post(app, '/api/v1/admin/users', { username: u.username, password, tenant_id: tenant, role: u.role }, await adminHeaders(app));
  if (r.statusCode !== 201) throw new Error(`create user ${u.username}: ${r.statusCode} ${r.body}`);
  return { username: u.username, password, tenant_id: tenant, id: (JSON.parse(r.body) as { data: { id: string } }).data.id };
}

let seq = 0;
const roleUsers = new WeakMap<TestApp, Map<string, Promise<Headers>>>();

/** Authorization header of a (created once per app) user with this role in this tenant. */
export async function tokenFor(app: TestApp, role: NewUser['role'], tenant = 'default'): Promise<Headers> {
  let m = roleUsers.get(app);
  if (!m) roleUsers.set(app, (m = new Map()));
  const key = `${role}@${tenant}`;
  let h = m.get(key);
  if (!h) {
    h = (async () => {
      const u = await createUser(app, { username: `${role}-${tenant}-${process.pid}-${++seq}`, role, tenant_id: tenant });
      return loginAs(app, u.username, u.password);
    })();
    m.set(key, h);
    h.catch(() => m!.delete(key));
  }
  return { ...(await h) };
}

/** POST /api/v1/admin/api-keys (as the bootstrap admin); returns the X-API-Key header and the key id. */
export async function apiKeyFor(app: TestApp, role: NewUser['role'], tenant = 'default', name = 'svc'): Promise<{ headers: Headers; id: string; key: string }> {
  if (tenant !== 'default') await createTenant(app, tenant);
  const r = await post(app, '/api/v1/admin/api-keys', { name, tenant_id: tenant, role }, await adminHeaders(app));
  if (r.statusCode !== 201) throw new Error(`create api key: ${r.statusCode} ${r.body}`);
  const d = (JSON.parse(r.body) as { data: { id: string; key: string } }).data;
  return { headers: { 'x-api-key': d.key }, id: d.id, key: d.key };
}
