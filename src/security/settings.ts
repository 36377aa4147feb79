// Security settings (from the environment; see docs/security.md): token
// lifetimes, blocked addresses and the rate-limit table of SPEC 8.1.
// Every limit is rate per minute + burst (bucket capacity).

export interface Bucket {
  /** Requests per minute (refill rate). */
  rate: number;
  /** Bucket capacity: how many requests may come at once. */
  burst: number;
}

/** L1, client IP, per endpoint type (SPEC 8.1 first table). */
export type IpClass = 'public' | 'auth' | 'authenticated' | 'compute' | 'timeseries_write' | 'ws_connect' | 'sse_connect' | 'static';
/** L4, endpoint table (SPEC 8.1 second table), keyed "METHOD /path/pattern" below /api/v1. */
export type EndpointKey =
  | 'POST /networks/:id/powerflow'
  | 'POST /networks/:id/opf'
  | 'POST /networks/:id/validate'
  | 'POST /agents/:id/command'
  | 'POST /timeseries/batch'
  | 'DELETE /networks/:id'
  | 'POST /networks/:id/studies';

export interface RateLimitTable {
  ip: Record<IpClass, Bucket>;
  /** L3: per user / service account / agent. */
  user: Bucket;
  endpoint: Record<EndpointKey, Bucket>;
  /** L2: requests beyond the tenant's hourly quota wait in a queue this deep, then 429. */
  tenantQueueDepth: number;
  /** L2: a request never waits longer than this in the tenant queue (else 429). */
  tenantQueueMaxWaitMs: number;
  /** L2 bucket capacity; default (undefined) = the whole hourly quota. */
  tenantBurst?: number;
}

export const DEFAULT_LIMITS: RateLimitTable = {
  ip: {
    public: { rate: 60, burst: 10 },
    auth: { rate: 30, burst: 5 },
    authenticated: { rate: 600, burst: 50 },
    compute: { rate: 30, burst: 5 },
    timeseries_write: { rate: 1000, burst: 100 },
    ws_connect: { rate: 10, burst: 2 },
    sse_connect: { rate: 20, burst: 5 },
    // the console's and the API documentation's files: a cold load of the console is ~38 files and reads, so at the
    // authenticated class's burst of 50 one operator reloading twice was refused files (test/console-large.test.ts)
    static: { rate: 1200, burst: 200 },
  },
  user: { rate: 1200, burst: 200 },
  endpoint: {
    'POST /networks/:id/powerflow': { rate: 30, burst: 5 },
    'POST /networks/:id/opf': { rate: 10, burst: 2 },
    'POST /networks/:id/validate': { rate: 60, burst: 10 },
    'POST /agents/:id/command': { rate: 100, burst: 20 },
    'POST /timeseries/batch': { rate: 1000, burst: 100 },
    'DELETE /networks/:id': { rate: 10, burst: 2 },
    // CONTRACT "Studies": a compute endpoint, endpoint layer 10 per minute, burst 2.
    'POST /networks/:id/studies': { rate: 10, burst: 2 },
  },
  tenantQueueDepth: 100,
  tenantQueueMaxWaitMs: 30_000,
};

/** Partial overrides, e.g. {"ip":{"authenticated":{"rate":5,"burst":2}},"user":{"rate":10,"burst":3}}. */
export interface RateLimitOverrides {
  ip?: Partial<Record<IpClass, Bucket>>;
  user?: Bucket;
  endpoint?: Partial<Record<EndpointKey, Bucket>>;
  tenantQueueDepth?: number;
  tenantQueueMaxWaitMs?: number;
  tenantBurst?: number;
}

export interface SecurityConfig {
  /** Access-token lifetime (TOKEN_TTL_SECONDS, default 3600). */
  tokenTtlSeconds: number;
  /** Refresh-token lifetime (REFRESH_TTL_SECONDS, default 30 days). */
  refreshTtlSeconds: number;
  /** BLOCKED_IPS: addresses or CIDR ranges (IPv4/IPv6), comma-separated. */
  blockedIps: string[];
  /** RATE_LIMIT_SCALE multiplies every rate, burst and tenant hourly quota (1 in production;
   *  1000 under NODE_ENV=test so functional tests are never throttled; benchmarks raise it). */
  rateLimitScale: number;
  /** RATE_LIMITS (JSON): exact overrides of entries of the table, applied after the scale.
   *  RATE_LIMITS=off (or GRIDOPS_RATE_LIMITS=off) turns the four layers off (a gateway in front does it; benchmarks). */
  rateLimits: RateLimitOverrides;
  rateLimitsEnabled: boolean;
  /** GRIDOPS_AUTH=off: every request acts as the bootstrap admin of tenant default. Benchmark
   *  baselines only; refused under NODE_ENV=production. */
  authDisabled: boolean;
  /** How long a tenant's effective quota is cached per process (ms); changes also invalidate it at once. */
  quotaCacheMs: number;
  /** How often expired temporary quotas are reverted and the audit retention purge runs (ms). */
  sweepMs: number;
  /** Audit retention in days (SPEC 8.1: 365, not adjustable per tenant). */
  auditRetentionDays: number;
}

function int(name: string, v: string | undefined, dflt: number, min = 0): number {
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new Error(`${name} must be a number >= ${min}, got "${v}"`);
  return n;
}

export function loadSecurityConfig(env: NodeJS.ProcessEnv, nodeEnv: string): SecurityConfig {
  let rateLimits: RateLimitOverrides = {};
  const off = env.RATE_LIMITS === 'off' || env.GRIDOPS_RATE_LIMITS === 'off';
  const authDisabled = env.GRIDOPS_AUTH === 'off';
  if (authDisabled && nodeEnv === 'production') throw new Error('GRIDOPS_AUTH=off is refused under NODE_ENV=production');
  if (env.RATE_LIMITS && !off) {
    try {
      rateLimits = JSON.parse(env.RATE_LIMITS) as RateLimitOverrides;
    } catch {
      throw new Error('RATE_LIMITS must be JSON such as {"ip":{"authenticated":{"rate":600,"burst":50}}}');
    }
  }
  return {
    tokenTtlSeconds: int('TOKEN_TTL_SECONDS', env.TOKEN_TTL_SECONDS, 3600, 1),
    refreshTtlSeconds: int('REFRESH_TTL_SECONDS', env.REFRESH_TTL_SECONDS, 30 * 24 * 3600, 1),
    blockedIps: (env.BLOCKED_IPS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    rateLimitScale: int('RATE_LIMIT_SCALE', env.RATE_LIMIT_SCALE, nodeEnv === 'test' ? 1000 : 1, 0.000001),
    rateLimits,
    rateLimitsEnabled: !off,
    authDisabled,
    quotaCacheMs: int('QUOTA_CACHE_MS', env.QUOTA_CACHE_MS, 5000),
    sweepMs: int('SECURITY_SWEEP_MS', env.SECURITY_SWEEP_MS, 1000, 10),
    auditRetentionDays: 365,
  };
}

/** The table in force: defaults × scale, then exact overrides. */
export function effectiveLimits(c: SecurityConfig): RateLimitTable {
  const k = c.rateLimitScale;
  const scale = (b: Bucket): Bucket => ({ rate: b.rate * k, burst: Math.max(1, Math.round(b.burst * k)) });
  const ip = Object.fromEntries(Object.entries(DEFAULT_LIMITS.ip).map(([n, b]) => [n, c.rateLimits.ip?.[n as IpClass] ?? scale(b)])) as Record<IpClass, Bucket>;
  const endpoint = Object.fromEntries(
    Object.entries(DEFAULT_LIMITS.endpoint).map(([n, b]) => [n, c.rateLimits.endpoint?.[n as EndpointKey] ?? scale(b)]),
  ) as Record<EndpointKey, Bucket>;
  return {
    ip,
    user: c.rateLimits.user ?? scale(DEFAULT_LIMITS.user),
    endpoint,
    tenantQueueDepth: c.rateLimits.tenantQueueDepth ?? DEFAULT_LIMITS.tenantQueueDepth,
    tenantQueueMaxWaitMs: c.rateLimits.tenantQueueMaxWaitMs ?? DEFAULT_LIMITS.tenantQueueMaxWaitMs,
    tenantBurst: c.rateLimits.tenantBurst,
  };
}
