// Users and tenants: the bootstrap administrator, admin-created tenants and
// users, and password login. Usernames are unique across the deployment; a user
// belongs to one tenant (its home), which is the token's tenant unless the login
// names another and the role may act across tenants.
import { ROLES } from '../schemas/vocabulary.js';
import type { Caller, RoleName } from '../domain/caller.js';
import { ROLE_PERMISSIONS } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { issueTokenPair, parseScope, type TokenPair, type TokenSubject } from './tokens.js';
import { PLANS, type PlanName, writeEffectiveQuotas, tenantExists } from './quotas.js';
import type { SecurityState } from './context.js';
import type { Queryable } from '../db/database.js';
import { announceRevoked, revokeFamilies } from './sessions.js';
import type { RevocationReason } from './channel.js';

export interface UserView {
  id: string;
  username: string;
  tenant_id: string;
  role: RoleName;
  disabled: boolean;
  created_at: Date;
}

interface UserRow extends UserView {
  password_hash: string;
}

export { ROLES };

export async function ensureBootstrapAdmin(st: SecurityState): Promise<void> {
  const c = st.s.config;
  if (!c.adminPassword) return; // refused earlier in production; nothing to create
  const { rows } = await st.s.db.query('SELECT 1 FROM users WHERE username = $1', [c.adminUsername]);
  if (rows.length > 0) return;
  const hash = await hashPassword(c.adminPassword);
  await st.s.db.query(
    `INSERT INTO users (id, tenant_id, username, password_hash, role, created_by) VALUES ($1, 'default', $2, $3, 'admin', 'bootstrap')
     ON CONFLICT (username) DO NOTHING`, [newId('usr'), c.adminUsername, hash]);
}

export interface LoginResult {
  pair: TokenPair;
  subject: TokenSubject;
}

/** POST /auth/token. Every failure is the same 401 (no user enumeration); an unknown user costs one scrypt too. */
export async function login(st: SecurityState, input: { username: string; password: string; tenant_id?: string; scope?: string }): Promise<LoginResult> {
  const scope = parseScope(input.scope);
  const { rows } = await st.s.db.query<UserRow>('SELECT * FROM users WHERE username = $1', [input.username]);
  const u = rows[0];
  const ok = await verifyPassword(input.password, u?.password_hash);
  if (!u || !ok || u.disabled) throw new AppError('UNAUTHORIZED', 'invalid username or password');
  let tenant = u.tenant_id;
  if (input.tenant_id && input.tenant_id !== u.tenant_id) {
    if (!ROLE_PERMISSIONS[u.role].includes('cross_tenant')) {
      throw new AppError(
        'TENANT_MISMATCH',
        `user ${u.username} belongs to tenant ${u.tenant_id} and may not act in tenant ${input.tenant_id}`,
        { tenant_id: input.tenant_id },
      );
    }
    if (!(await tenantExists(st, input.tenant_id)))
      throw new AppError('NOT_FOUND', `tenant ${input.tenant_id} does not exist`, { resource: 'tenant', id: input.tenant_id });
    tenant = input.tenant_id;
  }
  const subject: TokenSubject = { userId: u.id, username: u.username, tenant, role: u.role, scope };
  return { pair: await issueTokenPair(st, subject), subject };
}

export interface TenantView {
  tenant_id: string;
  plan: string;
  created_at: Date;
}

export async function createTenant(st: SecurityState, caller: Caller, input: { tenant_id: string; plan?: PlanName }): Promise<TenantView> {
  const plan = input.plan ?? 'pro';
  if (!PLANS[plan]) throw new AppError('INVALID_FIELD', `plan must be one of ${Object.keys(PLANS).join(', ')}`, { field: 'plan' });
  const out = await st.s.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; plan: string; created_at: Date }>(
      `INSERT INTO tenants (id, plan) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id, plan, created_at`, [input.tenant_id, plan]);
    if (!rows[0]) throw new AppError('CONFLICT', `tenant ${input.tenant_id} already exists`, { resource: 'tenant', id: input.tenant_id });
    await writeEffectiveQuotas(tx, input.tenant_id);
    return rows[0];
  });
  void caller;
  return { tenant_id: out.id, plan: out.plan, created_at: out.created_at };
}

export async function listTenants(st: SecurityState): Promise<TenantView[]> {
  const { rows } = await st.s.db.query<{ id: string; plan: string; created_at: Date }>('SELECT id, plan, created_at FROM tenants ORDER BY created_at, id');
  return rows.map((r) => ({ tenant_id: r.id, plan: r.plan, created_at: r.created_at }));
}

function view(r: UserRow): UserView {
  return { id: r.id, username: r.username, tenant_id: r.tenant_id, role: r.role, disabled: r.disabled, created_at: r.created_at };
}

export async function createUser(
  st: SecurityState,
  caller: Caller,
  input: { username: string; password: string; tenant_id: string; role: RoleName },
): Promise<UserView> {
  if (!ROLES.includes(input.role)) throw new AppError('INVALID_FIELD', `role must be one of ${ROLES.join(', ')}`, { field: 'role' });
  if (st.s.config.production && input.password.length < 12)
    throw new AppError('VALIDATION_FAILED', 'in production a password has at least 12 characters', { field: 'password' });
  if (!(await tenantExists(st, input.tenant_id)))
    throw new AppError('VALIDATION_FAILED', `tenant ${input.tenant_id} does not exist; create it first with POST /api/v1/admin/tenants`, {
      field: 'tenant_id',
    });
  const hash = await hashPassword(input.password);
  const { rows } = await st.s.db.query<UserRow>(
    `INSERT INTO users (id, tenant_id, username, password_hash, role, created_by) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (username) DO NOTHING RETURNING *`,
    [newId('usr'), input.tenant_id, input.username, hash, input.role, caller.actor.id],
  );
  if (!rows[0]) throw new AppError('CONFLICT', `username ${input.username} is taken`, { resource: 'user', field: 'username' });
  return view(rows[0]);
}

export async function listUsers(st: SecurityState, tenantId?: string): Promise<UserView[]> {
  const { rows } = await st.s.db.query<UserRow>(
    `SELECT * FROM users ${tenantId ? 'WHERE tenant_id = $1' : ''} ORDER BY created_at, id`, tenantId ? [tenantId] : []);
  return rows.map(view);
}

async function lockedUser(q: Queryable, caller: Caller, id: string, what: string): Promise<UserRow> {
  const { rows } = await q.query<UserRow>('SELECT * FROM users WHERE id = $1 FOR UPDATE', [id]);
  const u = rows[0];
  if (!u) throw new AppError('NOT_FOUND', `user ${id} does not exist`, { resource: 'user', id });
  // An admin locking themselves out (or demoting themselves) is a mistake another admin should make.
  if (caller.actor.type === 'user' && caller.actor.id === u.username) {
    throw new AppError('CONFLICT', `you cannot ${what} your own account; ask another admin`, { resource: 'user', id });
  }
  return u;
}

/**
 * PATCH /admin/users/{id}: role and/or disabled. Disabling, or a role that loses a
 * permission, ends every session of the user at once, open connections included
 * (close 4401 when disabled, 4403 for the role); a wider role applies from the next login or refresh.
 */
export async function updateUser(st: SecurityState, caller: Caller, id: string, input: { role?: RoleName; disabled?: boolean }): Promise<UserView> {
  if (input.role !== undefined && !ROLES.includes(input.role))
    throw new AppError('INVALID_FIELD', `role must be one of ${ROLES.join(', ')}`, { field: 'role' });
  const out = await st.s.db.transaction(async (tx) => {
    const u = await lockedUser(tx, caller, id, 'change the role or disable');
    const role = input.role ?? u.role;
    const disabled = input.disabled ?? u.disabled;
    const { rows } = await tx.query<UserRow>('UPDATE users SET role = $2, disabled = $3 WHERE id = $1 RETURNING *', [id, role, disabled]);
    const lost = ROLE_PERMISSIONS[u.role].some((p) => !ROLE_PERMISSIONS[role].includes(p));
    const reason: RevocationReason | undefined = disabled && !u.disabled ? 'user_disabled' : lost ? 'role_changed' : undefined;
    const families = reason ? await revokeFamilies(st, tx, { userId: id }, reason) : [];
    return { user: view(rows[0]), reason, families };
  });
  if (out.reason) await announceRevoked(st, id, out.families, out.reason);
  return out.user;
}

/** DELETE /admin/users/{id}: the user, its refresh tokens, and every session at once (open connections close with 4401). */
export async function deleteUser(st: SecurityState, caller: Caller, id: string): Promise<UserView> {
  const out = await st.s.db.transaction(async (tx) => {
    const u = await lockedUser(tx, caller, id, 'delete');
    const families = await revokeFamilies(st, tx, { userId: id }, 'user_deleted');
    await tx.query('DELETE FROM users WHERE id = $1', [id]);
    return { user: view(u), families };
  });
  await announceRevoked(st, id, out.families, 'user_deleted');
  return out.user;
}
