// Tenant quotas (SPEC 8.1): plan presets, permanent and temporary overrides,
// live usage, and the checks other modules call (network/agent counts,
// WebSocket/SSE connection slots, daily time-series volume).
//
// Storage: tenants.plan + tenants.base_quotas (permanent overrides) +
// tenant_quota_overrides (temporary ones, until expires_at). tenants.quotas
// always holds the full EFFECTIVE set (preset + base + active temporaries) for
// readers that look at the row directly (the power-flow scheduler reads
// quotas->concurrent_powerflow on every pass). The sweeper rewrites it when a
// temporary override expires; this module computes the effective set itself at
// read time, so API checks switch back exactly at expires_at.
import type { PlanName } from '../schemas/vocabulary.js';
import type { Queryable } from '../db/database.js';
import type { Caller } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { systemCaller } from '../domain/caller.js';
import { broadcast, type SecurityState } from './context.js';
import { recordAudit, purgeAudit } from './audit.js';
import type { Services } from '../services.js';

export interface Quotas {
  api_requests_per_hour: number;
  ws_connections: number;
  sse_connections: number;
  concurrent_powerflow: number;
  timeseries_daily_gb: number;
  timeseries_daily_points: number;
  agent_count: number;
  network_count: number;
  /** Most cases one study may have (docs/studies.md); not one of SPEC's quotas. */
  study_cases: number;
  /** Megabytes of stored results (matrices, study rows, task results; src/domain/resultStorage.ts); not one of SPEC's quotas. */
  result_storage_mb: number;
}
export type QuotaName = keyof Quotas;
export const QUOTA_NAMES: readonly QuotaName[] = [
  'api_requests_per_hour', 'ws_connections', 'sse_connections', 'concurrent_powerflow', 'timeseries_daily_gb', 'timeseries_daily_points',
  'agent_count', 'network_count', 'study_cases', 'result_storage_mb',
];

// result_storage_mb: 5 GiB of stored results a tenant (docs/security.md "Storage quota and retention").
const BASE = {
  concurrent_powerflow: 100, timeseries_daily_points: 1_000_000, agent_count: 100, network_count: 50, study_cases: 250_000,
  result_storage_mb: 5120,
};
export const PLANS = {
  free: { ...BASE, api_requests_per_hour: 1000, ws_connections: 5, sse_connections: 10, timeseries_daily_gb: 1 },
  pro: { ...BASE, api_requests_per_hour: 5000, ws_connections: 20, sse_connections: 50, timeseries_daily_gb: 10 },
  enterprise: { ...BASE, api_requests_per_hour: 50000, ws_connections: 100, sse_connections: 200, timeseries_daily_gb: 100 },
  // Negotiated: starts from the pro preset; the admin sets the numbers with PUT .../quota.
  custom: { ...BASE, api_requests_per_hour: 5000, ws_connections: 20, sse_connections: 50, timeseries_daily_gb: 10 },
} satisfies Record<PlanName, Quotas>;
export type { PlanName };

export interface TemporaryQuota {
  id: string;
  quotas: Partial<Quotas>;
  reason: string;
  expires_at: Date;
}

/** A live change of a tenant's rate limits (src/security/rateOverrides.ts). */
export interface RateLimitOverride {
  /** Multiplies every rate and burst of the tenant's requests; null: the limits are lifted. */
  factor: number | null;
  reason: string;
  actor: string;
  created_at: Date;
  expires_at: Date;
}

export interface TenantQuotaState {
  tenant_id: string;
  /** Active until its expires_at (checked on every request, so it ends on time). */
  rateOverride?: RateLimitOverride;
  plan: PlanName;
  quotas: Quotas;
  base: Partial<Quotas>;
  temporary: TemporaryQuota[];
  /** Epoch ms of the next expiry of a temporary override (cache bound). */
  nextExpiry?: number;
}

function pick(o: Record<string, unknown> | null | undefined): Partial<Quotas> {
  const out: Partial<Quotas> = {};
  for (const k of QUOTA_NAMES) if (o && typeof o[k] === 'number') out[k] = o[k] as number;
  return out;
}

function compose(plan: string, base: Partial<Quotas>, temps: TemporaryQuota[]): Quotas {
  const preset = PLANS[plan as PlanName] ?? PLANS.pro;
  return Object.assign({}, preset, base, ...temps.map((t) => t.quotas));
}

async function readState(q: Queryable, tenantId: string): Promise<TenantQuotaState | null> {
  const { rows } = await q.query<{
    plan: string;
    base_quotas: Record<string, unknown>;
    temps: { id: string; quotas: Record<string, unknown>; reason: string; expires_at: string }[] | null;
    rl: { factor: number | null; reason: string; actor: string; created_at: string; expires_at: string } | null;
  }>(
    `SELECT t.plan, t.base_quotas,
            (SELECT json_agg(json_build_object('id', o.id, 'quotas', o.quotas, 'reason', o.reason, 'expires_at', o.expires_at) ORDER BY o.created_at, o.id)
               FROM tenant_quota_overrides o WHERE o.tenant_id = t.id AND o.expired_at IS NULL AND o.expires_at > now()) AS temps,
            (SELECT json_build_object('factor', r.factor, 'reason', r.reason, 'actor', r.actor, 'created_at', r.created_at, 'expires_at', r.expires_at)
               FROM tenant_rate_limit_overrides r WHERE r.tenant_id = t.id AND r.expires_at > now()) AS rl
       FROM tenants t WHERE t.id = $1`,
    [tenantId],
  );
  const r = rows[0];
  if (!r) return null;
  const temporary = (r.temps ?? []).map((t) => ({ id: t.id, quotas: pick(t.quotas), reason: t.reason, expires_at: new Date(t.expires_at) }));
  const base = pick(r.base_quotas);
  const plan = (PLANS[r.plan as PlanName] ? r.plan : 'pro') as PlanName;
  const rateOverride = r.rl
    ? {
        factor: r.rl.factor,
        reason: r.rl.reason,
        actor: r.rl.actor,
        created_at: new Date(r.rl.created_at),
        expires_at: new Date(r.rl.expires_at),
      }
    : undefined;
  const expiries = [...temporary.map((t) => t.expires_at.getTime()), ...(rateOverride ? [rateOverride.expires_at.getTime()] : [])];
  return {
    tenant_id: tenantId, plan, base, temporary, quotas: compose(plan, base, temporary), rateOverride,
    nextExpiry: expiries.length ? Math.min(...expiries) : undefined,
  };
}

/** Effective quotas of a tenant (null: no such tenant), cached briefly per process. */
export function getQuotaState(st: SecurityState, tenantId: string): Promise<TenantQuotaState | null> {
  const now = Date.now();
  const hit = st.quotaCache.get(tenantId);
  if (hit && hit.until > now) return hit.value;
  const value = readState(st.s.db, tenantId);
  const entry = { value, until: now + st.s.config.security.quotaCacheMs };
  st.quotaCache.set(tenantId, entry);
  value.then((v) => {
    if (v?.nextExpiry !== undefined) entry.until = Math.min(entry.until, v.nextExpiry);
    if (!v) entry.until = Math.min(entry.until, Date.now() + 1000);
  }, () => st.quotaCache.delete(tenantId));
  return value;
}

export async function getQuotas(s: Pick<Services, 'security'>, tenantId: string): Promise<Quotas> {
  const q = await getQuotaState(s.security, tenantId);
  if (!q) throw new AppError('NOT_FOUND', `tenant ${tenantId} does not exist`, { resource: 'tenant', id: tenantId });
  return q.quotas;
}

export async function tenantExists(st: SecurityState, tenantId: string): Promise<boolean> {
  return (await getQuotaState(st, tenantId)) !== null;
}

/** Rewrites tenants.quotas (the effective set the scheduler reads) from plan, base and active temporaries. */
export async function writeEffectiveQuotas(q: Queryable, tenantId: string): Promise<Quotas | null> {
  const st = await readState(q, tenantId);
  if (!st) return null;
  await q.query('UPDATE tenants SET quotas = $2, updated_at = now() WHERE id = $1', [tenantId, JSON.stringify(st.quotas)]);
  return st.quotas;
}

// ---------------------------------------------------------------- count limits

/**
 * Refuses creating one more network/agent when the tenant is at its quota. Call it
 * inside the creating transaction (q) so the count is the committed one.
 * countSql counts the tenant's existing items with $1 = tenant id.
 */
export async function checkCountQuota(s: Services, q: Queryable, tenantId: string, quota: 'network_count' | 'agent_count', countSql?: string): Promise<void> {
  // Serialises creations of one tenant so two concurrent ones cannot both take the last place.
  await q.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
  const state = await readState(q, tenantId);
  if (!state) throw new AppError('NOT_FOUND', `tenant ${tenantId} does not exist`, { resource: 'tenant', id: tenantId });
  const limit = state.quotas[quota];
  const table = quota === 'network_count' ? 'networks' : 'agents';
  const sql = countSql ?? `SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`;
  const { rows } = await q.query<{ n: number }>(sql, [tenantId]);
  const n = Number(rows[0]?.n ?? 0);
  if (n >= limit) {
    const what = quota === 'network_count' ? 'networks' : 'agents';
    throw new AppError('CONFLICT', `tenant ${tenantId} already has ${n} ${what}, its quota; delete one or ask an admin to raise ${quota}`, {
      quota,
      limit,
      current: n,
    });
  }
  void s;
}

/** For the agents module: throws CONFLICT when the tenant has agent_count agents already. */
export function checkAgentQuota(s: Services, q: Queryable, tenantId: string, countSql?: string): Promise<void> {
  return checkCountQuota(s, q, tenantId, 'agent_count', countSql);
}

export function checkNetworkQuota(s: Services, q: Queryable, tenantId: string): Promise<void> {
  return checkCountQuota(s, q, tenantId, 'network_count');
}

// ---------------------------------------------------------------- time series

/**
 * Counts a time-series write against the tenant's daily points and bytes (UTC day)
 * and refuses it (429 RATE_LIMITED, scope tenant) when it would exceed either.
 * Atomic across processes (one conditional upsert).
 */
export async function consumeTimeseriesQuota(
  s: Pick<Services, 'db' | 'security'>,
  caller: Caller,
  points: number,
  bytes: number,
): Promise<{ points_today: number; bytes_today: number }> {
  const quotas = await getQuotas(s, caller.tenantId);
  const maxBytes = Math.round(quotas.timeseries_daily_gb * 1e9);
  const refuse = (used?: { points: number; bytes: number }) => {
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    return new AppError(
      'RATE_LIMITED',
      `tenant ${caller.tenantId} has reached its daily time-series quota (${quotas.timeseries_daily_points} points, ` +
        `${quotas.timeseries_daily_gb} GB); writes are refused until ${tomorrow.toISOString()}`,
      {
        scope: 'tenant',
        tenant_id: caller.tenantId,
        quota: 'timeseries_daily',
        limit: quotas.timeseries_daily_points,
        limit_gb: quotas.timeseries_daily_gb,
        used_points: used?.points,
        reset_at: tomorrow.toISOString(),
        retry_after: Math.ceil((tomorrow.getTime() - Date.now()) / 1000),
        window_seconds: 86400,
      },
    );
  };
  if (points > quotas.timeseries_daily_points || bytes > maxBytes) throw refuse();
  const { rows } = await s.db.query<{ points: number; bytes: number }>(
    `INSERT INTO tenant_usage_daily AS u (tenant_id, day, points, bytes) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, $3)
     ON CONFLICT (tenant_id, day) DO UPDATE SET points = u.points + EXCLUDED.points, bytes = u.bytes + EXCLUDED.bytes
       WHERE u.points + EXCLUDED.points <= $4 AND u.bytes + EXCLUDED.bytes <= $5
     RETURNING points, bytes`,
    [caller.tenantId, points, bytes, quotas.timeseries_daily_points, maxBytes],
  );
  if (!rows[0]) {
    const cur = await s.db.query<{ points: number; bytes: number }>(
      `SELECT points, bytes FROM tenant_usage_daily WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
      [caller.tenantId],
    );
    throw refuse(cur.rows[0] ? { points: Number(cur.rows[0].points), bytes: Number(cur.rows[0].bytes) } : undefined);
  }
  return { points_today: Number(rows[0].points), bytes_today: Number(rows[0].bytes) };
}

// ---------------------------------------------------------------- usage and admin changes

export interface QuotaView {
  tenant_id: string;
  plan: PlanName;
  quotas: Quotas;
  usage: {
    api_requests_this_hour: number;
    ws_connections: number;
    sse_connections: number;
    concurrent_powerflow: number;
    timeseries_today_gb: number;
    timeseries_today_points: number;
    agent_count: number;
    network_count: number;
    /** Stored results (src/domain/resultStorage.ts), in MB and bytes. */
    result_storage_mb: number;
    result_storage_bytes: number;
  };
  temporary: { id: string; quotas: Partial<Quotas>; reason: string; expires_at: Date }[];
  reset_at: Date;
}

export async function quotaView(st: SecurityState, tenantId: string, fresh = false): Promise<QuotaView> {
  if (fresh) st.quotaCache.delete(tenantId);
  const q = await getQuotaState(st, tenantId);
  if (!q) throw new AppError('NOT_FOUND', `tenant ${tenantId} does not exist`, { resource: 'tenant', id: tenantId });
  const db = st.s.db;
  const hour = Math.floor(Date.now() / 3_600_000);
  const [counts, requests, ws, sse] = await Promise.all([
    db.query<{ networks: number; agents: number | null; pf: number; ts_points: number | null; ts_bytes: number | null;
      stored: string | null }>(
      `SELECT (SELECT count(*)::int FROM networks WHERE tenant_id = $1) AS networks,
              (SELECT sum(result_bytes) FROM tasks WHERE tenant_id = $1 AND result_bytes > 0) AS stored,
              (SELECT count(*)::int FROM tasks WHERE tenant_id = $1 AND status IN ('dispatched', 'running')) AS pf,
              (SELECT points FROM tenant_usage_daily WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date) AS ts_points,
              (SELECT bytes FROM tenant_usage_daily WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date) AS ts_bytes,
              NULL::int AS agents`, [tenantId]),
    st.store.hourCount(tenantId, hour),
    st.conns.count('ws', tenantId),
    st.conns.count('sse', tenantId),
  ]);
  let agents = 0;
  const hasAgents = await db.query<{ t: string | null }>(`SELECT to_regclass('agents')::text AS t`);
  if (hasAgents.rows[0]?.t)
    agents = Number((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM agents WHERE tenant_id = $1', [tenantId])).rows[0].n);
  const c = counts.rows[0];
  return {
    tenant_id: tenantId,
    plan: q.plan,
    quotas: q.quotas,
    usage: {
      api_requests_this_hour: requests,
      ws_connections: ws,
      sse_connections: sse,
      concurrent_powerflow: Number(c.pf),
      timeseries_today_gb: Number(c.ts_bytes ?? 0) / 1e9,
      timeseries_today_points: Number(c.ts_points ?? 0),
      agent_count: agents,
      network_count: Number(c.networks),
      result_storage_mb: Math.round((Number(c.stored ?? 0) / 1048576) * 1000) / 1000,
      result_storage_bytes: Number(c.stored ?? 0),
    },
    temporary: q.temporary,
    reset_at: new Date((hour + 1) * 3_600_000),
  };
}

export interface QuotaChange {
  api_requests_per_hour?: number;
  ws_connections?: number;
  sse_connections?: number;
  concurrent_powerflow?: number;
  timeseries_daily_gb?: number;
  timeseries_daily_points?: number;
  agent_count?: number;
  network_count?: number;
  study_cases?: number;
  result_storage_mb?: number;
  reason: string;
  expires_at?: string;
}

/** PUT /admin/tenants/{id}/quota: permanent (no expires_at) or temporary until expires_at. */
export async function changeQuota(st: SecurityState, caller: Caller, tenantId: string, change: QuotaChange) {
  const fields = pick(change as unknown as Record<string, unknown>);
  if (Object.keys(fields).length === 0) throw new AppError('INVALID_REQUEST', `name at least one quota to change (${QUOTA_NAMES.join(', ')})`);
  let expires: Date | undefined;
  if (change.expires_at !== undefined) {
    expires = new Date(change.expires_at);
    if (Number.isNaN(expires.getTime())) throw new AppError('INVALID_FIELD', 'expires_at must be an RFC 3339 date-time', { field: 'expires_at' });
    if (expires.getTime() <= Date.now()) throw new AppError('PARAM_OUT_OF_RANGE', 'expires_at must be in the future', { field: 'expires_at' });
  }
  const result = await st.s.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ base_quotas: Record<string, unknown> }>('SELECT base_quotas FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
    if (!rows[0]) throw new AppError('NOT_FOUND', `tenant ${tenantId} does not exist`, { resource: 'tenant', id: tenantId });
    const before = await readState(tx, tenantId);
    let overrideId: string | undefined;
    if (expires) {
      overrideId = newId('key').replace(/^key_/, 'qo_');
      await tx.query('INSERT INTO tenant_quota_overrides (id, tenant_id, quotas, reason, actor, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [overrideId, tenantId, JSON.stringify(fields), change.reason, caller.actor.id, expires.toISOString()]);
    } else {
      await tx.query('UPDATE tenants SET base_quotas = base_quotas || $2::jsonb WHERE id = $1', [tenantId, JSON.stringify(fields)]);
    }
    const after = await writeEffectiveQuotas(tx, tenantId);
    return { previous: before!.quotas, quotas: after!, overrideId };
  });
  await broadcast(st, { kind: 'quota_changed', tenant: tenantId });
  return { ...result, changed: fields, expires_at: expires };
}

// ---------------------------------------------------------------- sweeper

/** Reverts expired temporary quotas (writing tenants.quotas and an audit entry) and purges old audit entries. */
export async function sweepExpiredQuotas(s: Services): Promise<number> {
  const st = s.security;
  const { rows } = await s.db.query<{ tenant_id: string }>(
    `SELECT DISTINCT tenant_id FROM tenant_quota_overrides WHERE expired_at IS NULL AND expires_at <= now()`);
  let n = 0;
  for (const { tenant_id } of rows) {
    const done = await s.db.transaction(async (tx) => {
      await tx.query('SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE', [tenant_id]);
      const { rows: ex } = await tx.query<{ id: string; quotas: Record<string, unknown>; reason: string }>(
        `UPDATE tenant_quota_overrides SET expired_at = now() WHERE tenant_id = $1 AND expired_at IS NULL AND expires_at <= now() RETURNING id, quotas, reason`,
        [tenant_id],
      );
      if (ex.length === 0) return undefined;
      const quotas = await writeEffectiveQuotas(tx, tenant_id);
      return { ex, quotas };
    });
    if (!done) continue;
    n += done.ex.length;
    await broadcast(st, { kind: 'quota_changed', tenant: tenant_id });
    const sys = systemCaller(tenant_id, 'quota-sweeper');
    await recordAudit(s, {
      tenantId: tenant_id, actor: sys.actor, action: 'tenant.quota.expired', resource: { type: 'tenant', id: tenant_id }, result: 'success',
      interface: 'internal', details: { expired: done.ex.map((e) => ({ id: e.id, quotas: e.quotas, reason: e.reason })), quotas: done.quotas },
    }).catch((err) => s.log.error({ err }, 'audit of a quota expiry failed'));
  }
  return n;
}

/** Runs the sweeps of this process (createServices starts it; closeSecurity clears its timers). */
export function startSweeper(s: Services): void {
  const st = s.security;
  const c = s.config.security;
  let running = false;
  const tick = async () => {
    if (running || st.closed) return;
    running = true;
    try {
      await sweepExpiredQuotas(s);
      const now = Date.now();
      for (const [f, until] of st.revokedFamilies) if (until <= now) st.revokedFamilies.delete(f);
    } catch (err) {
      if (!st.closed) s.log.warn({ err }, 'quota sweep failed; retrying');
    } finally {
      running = false;
    }
  };
  const t = setInterval(tick, c.sweepMs);
  t.unref();
  st.timers.push(t);
  // Audit retention: once at start (after a short delay) and every 6 hours.
  const purge = async () => {
    if (st.closed) return;
    try {
      const n = await purgeAudit(s);
      if (n > 0) s.log.info({ purged: n }, 'audit entries past retention purged');
    } catch (err) {
      if (!st.closed) s.log.warn({ err }, 'audit purge failed; retrying later');
    }
  };
  const first = setTimeout(purge, 30_000);
  first.unref();
  const p = setInterval(purge, 6 * 3600_000);
  p.unref();
  st.timers.push(p, first as unknown as NodeJS.Timeout);
}
