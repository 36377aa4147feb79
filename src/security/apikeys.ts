// API keys (X-API-Key): long-lived credentials of service accounts with one role
// in one tenant. The key is 32 random bytes shown once; only its sha256 is
// stored. Lookups are cached per process for 30 s (unknown keys for 5 s); a
// revocation drops the cache entry in every process at once.
import { createHash, randomBytes } from 'node:crypto';
import type { Caller, RoleName } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { tenantExists } from './quotas.js';
import { ROLES } from './users.js';
import { broadcast, type SecurityState } from './context.js';

export interface ApiKeyRecord {
  id: string;
  tenant_id: string;
  name: string;
  role: RoleName;
  created_by: string | null;
  created_at: Date;
  revoked_at: Date | null;
}

const HIT_MS = 30_000;
const MISS_MS = 5_000;
const MAX_CACHE = 10_000;

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export async function createApiKey(
  st: SecurityState,
  caller: Caller,
  input: { name: string; tenant_id: string; role: RoleName },
): Promise<ApiKeyRecord & { key: string }> {
  if (!ROLES.includes(input.role)) throw new AppError('INVALID_FIELD', `role must be one of ${ROLES.join(', ')}`, { field: 'role' });
  if (!(await tenantExists(st, input.tenant_id)))
    throw new AppError('VALIDATION_FAILED', `tenant ${input.tenant_id} does not exist`, { field: 'tenant_id' });
  const key = `gok_${randomBytes(32).toString('base64url')}`;
  const { rows } = await st.s.db.query<ApiKeyRecord>(
    `INSERT INTO api_keys (id, tenant_id, name, role, key_hash, created_by) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING id, tenant_id, name, role, created_by, created_at, revoked_at`,
    [newId('key'), input.tenant_id, input.name, input.role, hashKey(key), caller.actor.id],
  );
  return { ...rows[0], key };
}

export async function revokeApiKey(st: SecurityState, id: string): Promise<ApiKeyRecord> {
  const { rows } = await st.s.db.query<ApiKeyRecord & { key_hash: string }>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1
     RETURNING id, tenant_id, name, role, created_by, created_at, revoked_at, key_hash`, [id]);
  if (!rows[0]) throw new AppError('NOT_FOUND', `API key ${id} does not exist`, { resource: 'api_key', id });
  const { key_hash, ...rec } = rows[0];
  await broadcast(st, { kind: 'api_key_revoked', hash: key_hash });
  return rec;
}

export async function listApiKeys(st: SecurityState, tenantId?: string): Promise<ApiKeyRecord[]> {
  const { rows } = await st.s.db.query<ApiKeyRecord>(
    `SELECT id, tenant_id, name, role, created_by, created_at, revoked_at FROM api_keys ${tenantId ? 'WHERE tenant_id = $1' : ''} ORDER BY created_at, id`,
    tenantId ? [tenantId] : []);
  return rows;
}

/** The active key record for a presented key, or undefined. */
export async function lookupApiKey(st: SecurityState, key: string): Promise<ApiKeyRecord | undefined> {
  if (!/^gok_[A-Za-z0-9_-]{43}$/.test(key)) return undefined;
  const hash = hashKey(key);
  const now = Date.now();
  const hit = st.apiKeyCache.get(hash);
  if (hit && hit.until > now) return hit.rec ?? undefined;
  const { rows } = await st.s.db.query<ApiKeyRecord>(
    'SELECT id, tenant_id, name, role, created_by, created_at, revoked_at FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
  const rec = rows[0] ?? null;
  if (st.apiKeyCache.size >= MAX_CACHE) st.apiKeyCache.clear();
  st.apiKeyCache.set(hash, { rec, until: now + (rec ? HIT_MS : MISS_MS) });
  return rec ?? undefined;
}

/** Whether a lookup of this key would be answered from the cache (no database query). */
export function apiKeyCached(st: SecurityState, key: string): boolean {
  const hit = st.apiKeyCache.get(hashKey(key));
  return hit !== undefined && hit.until > Date.now();
}
