// Live overrides of one tenant's rate limits (docs/load-testing.md): an admin raises them by a
// factor or lifts them for a while, with a reason, without a restart. Stored in PostgreSQL
// (tenant_rate_limit_overrides) and read with the tenant's quota state, which every API process
// caches briefly and drops at once on the quota_changed notice (Redis pub/sub when distributed);
// each request compares expires_at with the clock, so an override ends on time everywhere.
import type { Caller } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { broadcast, type SecurityState } from './context.js';
import { getQuotaState, type RateLimitOverride } from './quotas.js';

/** The longest an override may last: a forgotten one must not outlive a working week. */
export const MAX_OVERRIDE_SECONDS = 7 * 24 * 3600;
export const DEFAULT_OVERRIDE_SECONDS = 3600;
export const MAX_FACTOR = 10_000;

export interface RateOverrideChange {
  /** Multiplies every rate and burst of the tenant's requests (all four layers). */
  factor?: number;
  /** true: no rate limit applies to the tenant's requests. */
  lift?: boolean;
  expires_in_seconds?: number;
  expires_at?: string;
  reason: string;
}

export interface RateOverrideView {
  tenant_id: string;
  active: boolean;
  factor: number | null;
  lifted: boolean;
  reason: string | null;
  set_by: string | null;
  created_at: Date | null;
  expires_at: Date | null;
}

function view(tenantId: string, o: RateLimitOverride | undefined): RateOverrideView {
  const active = !!o && o.expires_at.getTime() > Date.now();
  return {
    tenant_id: tenantId, active, factor: active ? o!.factor : null, lifted: active && o!.factor === null,
    reason: active ? o!.reason : null, set_by: active ? o!.actor : null, created_at: active ? o!.created_at : null, expires_at: active ? o!.expires_at : null,
  };
}

function expiryOf(c: RateOverrideChange): Date {
  if (c.expires_at !== undefined && c.expires_in_seconds !== undefined) {
    throw new AppError('INVALID_REQUEST', 'give expires_at or expires_in_seconds, not both', { field: 'expires_at' });
  }
  const at = c.expires_at !== undefined ? new Date(c.expires_at) : new Date(Date.now() + (c.expires_in_seconds ?? DEFAULT_OVERRIDE_SECONDS) * 1000);
  if (Number.isNaN(at.getTime())) throw new AppError('INVALID_FIELD', 'expires_at must be an RFC 3339 date-time', { field: 'expires_at' });
  const left = at.getTime() - Date.now();
  if (left <= 0) throw new AppError('PARAM_OUT_OF_RANGE', 'expires_at must be in the future', { field: 'expires_at' });
  if (left > MAX_OVERRIDE_SECONDS * 1000) {
    throw new AppError('PARAM_OUT_OF_RANGE', `an override lasts at most ${MAX_OVERRIDE_SECONDS} s (7 days); set it again to extend it`, {
      field: 'expires_at',
      limit: MAX_OVERRIDE_SECONDS,
    });
  }
  return at;
}

export async function getRateOverride(st: SecurityState, tenantId: string): Promise<RateOverrideView> {
  st.quotaCache.delete(tenantId);
  const q = await getQuotaState(st, tenantId);
  if (!q) throw new AppError('NOT_FOUND', `tenant ${tenantId} does not exist`, { resource: 'tenant', id: tenantId });
  return view(tenantId, q.rateOverride);
}

/** Sets (replaces) the tenant's override; every API process applies it with its next request of the tenant. */
export async function setRateOverride(
  st: SecurityState,
  caller: Caller,
  tenantId: string,
  c: RateOverrideChange,
): Promise<{ override: RateOverrideView; previous: RateOverrideView }> {
  if ((c.factor === undefined) === (c.lift !== true)) {
    throw new AppError(
      'INVALID_REQUEST',
      'give either factor (a multiplier of every rate and burst, e.g. 100) or lift: true (no rate limits), until expires_at / expires_in_seconds',
      { field: 'factor' },
    );
  }
  if (c.factor !== undefined && !(c.factor > 0 && c.factor <= MAX_FACTOR)) {
    throw new AppError('PARAM_OUT_OF_RANGE', `factor must be above 0 and at most ${MAX_FACTOR}`, { field: 'factor', limit: MAX_FACTOR });
  }
  const expires = expiryOf(c);
  const previous = await getRateOverride(st, tenantId);
  await st.s.db.query(
    `INSERT INTO tenant_rate_limit_overrides (tenant_id, factor, reason, actor, expires_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id) DO UPDATE SET factor = EXCLUDED.factor, reason = EXCLUDED.reason, actor = EXCLUDED.actor,
                                           expires_at = EXCLUDED.expires_at, created_at = clock_timestamp()`,
    [tenantId, c.lift ? null : c.factor, c.reason, caller.actor.id, expires.toISOString()],
  );
  await broadcast(st, { kind: 'quota_changed', tenant: tenantId });
  return { override: await getRateOverride(st, tenantId), previous };
}

/** Ends the tenant's override now (the normal limits apply again). */
export async function clearRateOverride(st: SecurityState, tenantId: string): Promise<{ override: RateOverrideView; previous: RateOverrideView }> {
  const previous = await getRateOverride(st, tenantId);
  await st.s.db.query('DELETE FROM tenant_rate_limit_overrides WHERE tenant_id = $1', [tenantId]);
  await broadcast(st, { kind: 'quota_changed', tenant: tenantId });
  return { override: await getRateOverride(st, tenantId), previous };
}
