// The four rate-limit layers of SPEC 8.1, each a bucket with rate and burst:
//   L1 client IP per endpoint type, L2 tenant (hourly API-request quota, excess
//   queued up to 100 deep), L3 user / service account / agent, L4 endpoint.
// @fastify/rate-limit counts requests in a fixed window (one max per key), so it
// cannot express rate + burst; these are token buckets instead (L4's leaky bucket
// metered this way is the same bucket). One atomic step takes a token from every
// bucket of a request or from none: a Lua script on Redis (shared by every API
// process, clocked by Redis TIME) or the same arithmetic in memory.
// L2 lets its bucket go into debt down to -queueDepth: a request that finds no
// token but a place in that queue waits (-tokens / rate) and then proceeds.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Caller } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import type { Bucket, EndpointKey, IpClass } from './settings.js';
import { getQuotaState, type TenantQuotaState } from './quotas.js';
import type { SecurityState } from './context.js';
import type { RateLimitTable } from './settings.js';
import { normalizeIp } from './ip.js';

export type Layer = 'ip' | 'tenant' | 'user' | 'endpoint';

/** Where a refused load tester learns what to do (served by the service, docs/load-testing.md). */
export const LOAD_TESTING_DOC = '/docs/load-testing';

export interface BucketSpec {
  key: string;
  /** Tokens per millisecond. */
  perMs: number;
  burst: number;
  /** How far below zero the bucket may go (queued requests); 0 = none. */
  debt: number;
  maxWaitMs: number;
}

export interface TakeResult {
  /** 0 = taken from every bucket; else the 1-based index of the bucket that refused. */
  failed: number;
  waitMs: number;
  /** Tokens in each bucket (after taking when failed = 0; as found otherwise). */
  tokens: number[];
  now: number;
}

export interface BucketStore {
  take(specs: BucketSpec[], hourKey?: string): Promise<TakeResult>;
  hourCount(tenant: string, hour: number): Promise<number>;
  close(): void;
}

function decide(specs: BucketSpec[], found: number[]): { failed: number; waitMs: number } {
  let waitMs = 0;
  for (let i = 0; i < specs.length; i++) {
    const after = found[i] - 1;
    if (after >= 0) continue;
    const w = -after / specs[i].perMs;
    if (specs[i].debt <= 0 || after < -specs[i].debt || w > specs[i].maxWaitMs) return { failed: i + 1, waitMs: 0 };
    waitMs = Math.max(waitMs, w);
  }
  return { failed: 0, waitMs };
}

export function createMemoryStore(): BucketStore {
  const buckets = new Map<string, { t: number; ts: number; full: number }>();
  const hours = new Map<string, number>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [k, b] of buckets) if (now >= b.full) buckets.delete(k);
    const h = Math.floor(now / 3_600_000);
    for (const k of hours.keys()) if (Number(k.slice(k.lastIndexOf(':') + 1)) < h - 1) hours.delete(k);
  }, 60_000);
  sweep.unref();
  return {
    async take(specs, hourKey) {
      const now = Date.now();
      // Buckets are looked up once and updated in place: this runs on every request.
      const held: ({ t: number; ts: number; full: number } | undefined)[] = new Array(specs.length);
      const found: number[] = new Array(specs.length);
      for (let i = 0; i < specs.length; i++) {
        const sp = specs[i];
        const b = buckets.get(sp.key);
        held[i] = b;
        found[i] = b ? Math.min(sp.burst, b.t + Math.max(0, now - b.ts) * sp.perMs) : sp.burst;
      }
      const d = decide(specs, found);
      if (d.failed === 0) {
        for (let i = 0; i < specs.length; i++) {
          const sp = specs[i];
          const t = (found[i] -= 1);
          const full = now + (sp.burst - t) / sp.perMs;
          const b = held[i];
          if (b) {
            b.t = t;
            b.ts = now;
            b.full = full;
          } else buckets.set(sp.key, { t, ts: now, full });
        }
        if (hourKey) hours.set(hourKey, (hours.get(hourKey) ?? 0) + 1);
      }
      // Fields spelled out: an object spread here cost ~2 µs per request (a V8 slow path).
      return { failed: d.failed, waitMs: d.waitMs, tokens: found, now };
    },
    async hourCount(tenant, hour) {
      return hours.get(`usage:req:${tenant}:${hour}`) ?? 0;
    },
    close() {
      clearInterval(sweep);
    },
  };
}

const TAKE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nb = tonumber(ARGV[1])
local found = {}
local failed = 0
local wait = 0
for i = 1, nb do
  local o = 1 + (i - 1) * 4
  local per = tonumber(ARGV[o + 1])
  local cap = tonumber(ARGV[o + 2])
  local v = redis.call('HMGET', KEYS[i], 't', 'ts')
  local tk = tonumber(v[1])
  local ts = tonumber(v[2])
  if tk == nil or ts == nil then tk = cap; ts = now end
  tk = math.min(cap, tk + math.max(0, now - ts) * per)
  found[i] = tk
end
for i = 1, nb do
  local o = 1 + (i - 1) * 4
  local per = tonumber(ARGV[o + 1])
  local debt = tonumber(ARGV[o + 3])
  local maxwait = tonumber(ARGV[o + 4])
  local after = found[i] - 1
  if after < 0 then
    local w = -after / per
    if debt <= 0 or after < -debt or w > maxwait then failed = i; wait = 0; break end
    if w > wait then wait = w end
  end
end
if failed == 0 then
  for i = 1, nb do
    local o = 1 + (i - 1) * 4
    local per = tonumber(ARGV[o + 1])
    local cap = tonumber(ARGV[o + 2])
    found[i] = found[i] - 1
    redis.call('HSET', KEYS[i], 't', string.format('%.6f', found[i]), 'ts', now)
    redis.call('PEXPIRE', KEYS[i], math.ceil((cap - found[i]) / per) + 1000)
  end
  if #KEYS > nb then
    redis.call('INCR', KEYS[nb + 1])
    redis.call('EXPIRE', KEYS[nb + 1], 7200)
  end
end
local out = {failed, tostring(wait), tostring(now)}
for i = 1, nb do out[#out + 1] = string.format('%.6f', found[i]) end
return out
`;

export function createRedisStore(redis: Redis, prefix: string, log: Logger): BucketStore {
  // Falls back to this process's own buckets while Redis is unreachable: limits
  // then hold per process instead of not at all.
  const local = createMemoryStore();
  let warned = 0;
  redis.defineCommand('gridopsTake', { lua: TAKE });
  const cmd = redis as unknown as { gridopsTake(...args: (string | number)[]): Promise<(string | number)[]> };
  return {
    async take(specs, hourKey) {
      const keys = specs.map((s) => `${prefix}:${s.key}`);
      if (hourKey) keys.push(`${prefix}:${hourKey}`);
      const args: (string | number)[] = [specs.length];
      for (const s of specs) args.push(s.perMs, s.burst, s.debt, s.maxWaitMs);
      // Redis away: this process's buckets at once, not after a reconnect attempt per request.
      if (redis.status !== 'ready') return local.take(specs, hourKey);
      try {
        const r = await cmd.gridopsTake(keys.length, ...keys, ...args);
        return { failed: Number(r[0]), waitMs: Number(r[1]), now: Number(r[2]), tokens: r.slice(3).map(Number) };
      } catch (err) {
        if (Date.now() - warned > 60_000) {
          warned = Date.now();
          log.warn({ err }, 'rate limits: Redis unavailable, using per-process buckets');
        }
        return local.take(specs, hourKey);
      }
    },
    async hourCount(tenant, hour) {
      if (redis.status !== 'ready') return local.hourCount(tenant, hour);
      try {
        return Number((await redis.get(`${prefix}:usage:req:${tenant}:${hour}`)) ?? 0);
      } catch {
        return local.hourCount(tenant, hour);
      }
    },
    close() {
      local.close();
    },
  };
}

// ---------------------------------------------------------------- the check

export interface RateLimitRequest {
  ip: string;
  ipClass: IpClass;
  endpoint?: EndpointKey;
  /** null/undefined: not authenticated, only L1 applies. */
  caller?: Caller | null;
  /** L1 was already taken for this request (a separate step before an expensive authentication). */
  skipIp?: boolean;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Headers of SPEC 8.2 to put on the response (429 included). */
  headers: Record<string, string>;
  /** Time the request must wait in the tenant queue before proceeding. */
  waitMs: number;
  /** The RATE_LIMITED error to answer with when not allowed. */
  error?: AppError;
  scope?: Layer;
}

interface Spec extends BucketSpec {
  layer: Layer;
  limit: number;      // requests per window
  window: number;     // seconds
}

const perMinute = (b: Bucket) => b.rate / 60_000;

export interface RatePlan {
  limits: RateLimitTable;
  quota: TenantQuotaState | null;
  scale: number;
  /** The tenant's live override factor the buckets were built with (1: none). */
  factor: number;
  specs: (Spec & { limitText: string; policyText: string })[];
  tenantIdx: number;
  tenantLimit: number;
  tenantLimitText: string;
  hourKey(hour: number): string;
}

// The buckets of a request depend only on who asks from where for what, and on the limits and
// the tenant's quota: they are built once per (class, address, caller, endpoint) and reused,
// with their key strings (whose hashes the engine then keeps), until the limits or quota change.
const PLANS_MAX = 10_000;

function planFor(st: SecurityState, r: RateLimitRequest, ip: string, q: TenantQuotaState | null, factor: number): RatePlan {
  const c = r.caller;
  const id = `${r.skipIp ? '' : r.ipClass}|${ip}|${c ? `${c.tenantId}|${c.actor.tenant}|${c.actor.type}|${c.actor.id}` : ''}|${r.endpoint ?? ''}`;
  const byId = st.ratePlans;
  const have = byId.get(id);
  const scale = st.s.config.security.rateLimitScale;
  if (have && have.limits === st.limits && have.quota === q && have.scale === scale && have.factor === factor) return have;
  const L = st.limits;
  const specs: Spec[] = [];
  const ipB = L.ip[r.ipClass];
  if (!r.skipIp)
    specs.push({
      layer: 'ip',
      key: `rl:ip:${r.ipClass}:${ip}`,
      perMs: perMinute(ipB),
      burst: ipB.burst,
      debt: 0,
      maxWaitMs: 0,
      limit: ipB.rate,
      window: 60,
    });
  let tenantIdx = -1;
  let tenantLimit = 0;
  if (c) {
    if (q) {
      tenantLimit = Math.max(1, Math.round(q.quotas.api_requests_per_hour * scale));
      tenantIdx = specs.length;
      specs.push({
        layer: 'tenant',
        key: `rl:tenant:${c.tenantId}`,
        perMs: tenantLimit / 3_600_000,
        burst: Math.min(tenantLimit, L.tenantBurst ?? tenantLimit),
        debt: L.tenantQueueDepth,
        maxWaitMs: L.tenantQueueMaxWaitMs,
        limit: tenantLimit,
        window: 3600,
      });
    }
    specs.push({
      layer: 'user',
      key: `rl:user:${c.actor.tenant}:${c.actor.type}:${c.actor.id}`,
      perMs: perMinute(L.user),
      burst: L.user.burst,
      debt: 0,
      maxWaitMs: 0,
      limit: L.user.rate,
      window: 60,
    });
    if (r.endpoint) {
      const e = L.endpoint[r.endpoint];
      specs.push({
        layer: 'endpoint',
        key: `rl:ep:${c.tenantId}:${r.endpoint}`,
        perMs: perMinute(e),
        burst: e.burst,
        debt: 0,
        maxWaitMs: 0,
        limit: e.rate,
        window: 60,
      });
    }
  }
  if (factor !== 1) {
    // Raised limits get buckets of their own (keys with the factor), full from the start: the
    // ones a load test drained keep their state, and other tenants' requests from the same
    // address keep using the normal address buckets.
    for (const sp of specs) {
      sp.key = `${sp.key}:x:${c!.tenantId}:${factor}`;
      sp.perMs *= factor;
      sp.burst = Math.max(1, Math.round(sp.burst * factor));
      sp.limit = Math.max(1, Math.round(sp.limit * factor));
    }
    if (tenantIdx >= 0) tenantLimit = specs[tenantIdx].limit;
  }
  let hourText = '';
  let hourNum = -1;
  const plan: RatePlan = {
    limits: L, quota: q, scale, factor, tenantIdx, tenantLimit, tenantLimitText: String(tenantLimit),
    specs: specs.map((sp) => ({ ...sp, limitText: String(sp.limit), policyText: `${sp.limit};w=${sp.window}` })),
    hourKey(hour) {
      if (hour !== hourNum) {
        hourNum = hour;
        hourText = `usage:req:${c!.tenantId}:${hour}`;
      }
      return hourText;
    },
  };
  if (byId.size >= PLANS_MAX) byId.clear();
  byId.set(id, plan);
  return plan;
}

/**
 * The four layers for one request of any door (REST hook, GraphQL, SSE, WebSocket).
 * Never throws for a limit: returns allowed=false with the 429 error and headers.
 */
export async function checkRateLimits(s: Pick<Services, 'config' | 'security'>, r: RateLimitRequest): Promise<RateLimitDecision> {
  const st = s.security;
  if (!s.config.security.rateLimitsEnabled) return { allowed: true, headers: {}, waitMs: 0 };
  const L = st.limits;
  const ip = normalizeIp(r.ip);
  const c = r.caller;
  if (r.skipIp && !c) return { allowed: true, headers: {}, waitMs: 0 };
  const q = c ? await getQuotaState(st, c.tenantId) : null;
  // An admin's live override of the tenant's limits (docs/load-testing.md), until it expires.
  const o = q?.rateOverride && q.rateOverride.expires_at.getTime() > Date.now() ? q.rateOverride : undefined;
  if (o && o.factor === null) return { allowed: true, headers: { 'X-RateLimit-Override': `lifted; expires ${o.expires_at.toISOString()}` }, waitMs: 0 };
  const plan = planFor(st, r, ip, q, o?.factor ?? 1);
  const { specs, tenantIdx } = plan;
  const hour = Math.floor(Date.now() / 3_600_000);
  const res = await st.store.take(specs, c && tenantIdx >= 0 ? plan.hourKey(hour) : undefined);
  const headers: Record<string, string> = {};
  const resetOf = (i: number) => Math.ceil((res.now + Math.max(0, specs[i].burst - res.tokens[i]) / specs[i].perMs) / 1000);
  // The headers describe the binding layer: the refusing one, else the one with the fewest tokens left.
  let show = res.failed ? res.failed - 1 : -1;
  if (show < 0) {
    for (let i = 0; i < specs.length; i++) {
      if (i === tenantIdx) continue;
      if (show < 0 || res.tokens[i] / specs[i].burst < res.tokens[show] / specs[show].burst) show = i;
    }
  }
  const sp = specs[show];
  if (o) headers['X-RateLimit-Override'] = `x${o.factor}; expires ${o.expires_at.toISOString()}`;
  headers['X-RateLimit-Limit'] = sp.limitText;
  headers['X-RateLimit-Remaining'] = String(Math.max(0, Math.floor(res.tokens[show])));
  headers['X-RateLimit-Reset'] = String(resetOf(show));
  headers['X-RateLimit-Policy'] = sp.policyText;
  if (tenantIdx >= 0) {
    headers['X-RateLimit-Tenant-Limit'] = plan.tenantLimitText;
    headers['X-RateLimit-Tenant-Remaining'] = String(Math.max(0, Math.floor(res.tokens[tenantIdx])));
  }
  if (res.failed === 0) return { allowed: true, headers, waitMs: Math.ceil(res.waitMs) };
  const retryAfter = Math.max(1, Math.ceil((1 - res.tokens[show]) / sp.perMs / 1000));
  headers['Retry-After'] = String(retryAfter);
  const resetAt = new Date(res.now + retryAfter * 1000).toISOString();
  const details: Record<string, unknown> = {
    limit: sp.limit,
    window_seconds: sp.window,
    retry_after: retryAfter,
    reset_at: resetAt,
    scope: sp.layer,
    burst: sp.burst,
  };
  if (sp.layer === 'ip') details.ip = ip;
  if (sp.layer === 'tenant') {
    details.tenant_id = c!.tenantId;
    details.queue_depth = L.tenantQueueDepth;
  }
  if (sp.layer === 'endpoint') details.endpoint = r.endpoint;
  if (sp.layer === 'user') details.actor = { type: c!.actor.type, id: c!.actor.id };
  const what = {
    ip: `client address ${ip} (${r.ipClass} endpoints)`,
    tenant: `tenant ${c?.tenantId} (API requests per hour; queue of ${L.tenantQueueDepth} full)`,
    user: `${c?.actor.type} ${c?.actor.id}`,
    endpoint: `endpoint ${r.endpoint}`,
  }[sp.layer];
  return {
    allowed: false,
    headers,
    waitMs: 0,
    scope: sp.layer,
    error: new AppError(
      'RATE_LIMITED',
      `rate limit of ${what} exceeded: ${sp.limit} per ${sp.window} s, burst ${sp.burst}; retry in ${retryAfter} s. Load testing? ` +
        `See ${LOAD_TESTING_DOC} (an admin can raise or lift a tenant's limits for a while)`,
      details,
    ),
  };
}

// ---------------------------------------------------------------- route classes

const ENDPOINTS: Record<string, EndpointKey> = {
  'POST /api/v1/networks/:id/powerflow': 'POST /networks/:id/powerflow',
  'POST /api/v1/networks/:id/opf': 'POST /networks/:id/opf',
  'POST /api/v1/networks/:id/validate': 'POST /networks/:id/validate',
  'POST /api/v1/agents/:id/command': 'POST /agents/:id/command',
  'POST /api/v1/timeseries/batch': 'POST /timeseries/batch',
  'DELETE /api/v1/networks/:id': 'DELETE /networks/:id',
  'POST /api/v1/networks/:id/studies': 'POST /networks/:id/studies',
};

/** L1 endpoint type and L4 endpoint of a route (method + URL pattern as Fastify registered it). */
export function classifyRoute(method: string, url: string | undefined, isPublic: boolean): { ipClass: IpClass; endpoint?: EndpointKey } {
  const u = url ?? '';
  const endpoint = ENDPOINTS[`${method} ${u}`];
  if (u.startsWith('/api/v1/auth/')) return { ipClass: 'auth' };
  if (/\/(powerflow|opf|sensitivities|state-estimation)$/.test(u) || (method === 'POST' && u === '/api/v1/networks/:id/studies'))
    return { ipClass: 'compute', endpoint };
  if (method === 'POST' && u === '/api/v1/timeseries/batch') return { ipClass: 'timeseries_write', endpoint };
  if (u === '/api/v1/events/stream') return { ipClass: 'sse_connect' };
  if (u === '/ws' || u === '/graphql' && method === 'GET') return { ipClass: isPublic ? 'ws_connect' : 'authenticated' };
  // Static API documentation (swagger UI assets, the OpenAPI document) and the console's files load
  // many files at once: a page load must spend neither the public class's burst of 10 nor the API's 50.
  if (u.startsWith('/docs') || u.endsWith('/openapi.json') || u.startsWith('/console')) return { ipClass: 'static' };
  if (isPublic) return { ipClass: 'public' };
  return { ipClass: 'authenticated', endpoint };
}
