// Configuration from the environment (shared/CONTRACT.md "Configuration").
import { availableParallelism } from 'node:os';
import { parseWorkerNice } from './engine/threadPriority.js';
import { resolve } from 'node:path';
import { loadSecurityConfig, type SecurityConfig } from './security/settings.js';
import { loadCertMap, type ClientCertMap } from './security/certMap.js';
import { loadRealtimeConfig, loadVersioningConfig, type RealtimeConfig, type VersioningConfig } from './realtime/settings.js';

export type Role = 'all' | 'api' | 'worker';

export interface Config {
  port: number;
  host: string;
  nodeEnv: string;
  production: boolean;
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema holding gridops' tables (tests use one per run). */
  dbSchema: string;
  redisUrl?: string;
  /** Prefix of every Redis key (queues, rate limits, pub/sub channels); tests use one per run. */
  redisPrefix: string;
  workers: number;
  /** WORKER_NICE: how far below the main thread's priority solver and import threads run (src/engine/threadPriority.ts). */
  workerNice: number;
  /** GRIDOPS_STUDY_CHUNK_CASES: cases per study chunk; 0 (default) = chosen per study (docs/studies.md). */
  studyChunkCases: number;
  role: Role;
  adminUsername: string;
  adminPassword?: string;
  jwtPrivateKeyFile?: string;
  jwtPublicKeyFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  tlsCaFile?: string;
  /** Client certificate -> identity (TLS_CLIENT_MAP / TLS_CLIENT_MAP_FILE); without it no certificate authenticates. */
  clientCertMap?: ClientCertMap;
  logLevel: string;
  /** Body limit of the MATPOWER import endpoint; every other body is limited to 1 MB (SPEC 8.3). */
  importBodyLimit: number;
  version: string;
  /** Pages of list endpoints kept per process (0: off) and their longest life (docs/api-conventions.md). */
  listCacheEntries: number;
  /** Separate Prometheus listener (any role); undefined: none, /metrics on the API listener only (admin). */
  metricsPort?: number;
  metricsHost: string;
  listCacheMaxAgeMs: number;
  /** Weight bound of Services.models, in model elements: buses + branches + generators + loads + DC lines (~200 bytes each). */
  modelStoreElements: number;
  /**
   * When a synchronous power flow solved at once is stored (SYNC_POWERFLOW_STORE): 'after' its answer, in the next group
   * commit (write-behind, default), or 'before' it (a crash then loses no answered task; docs/reliability.md).
   */
  syncPowerflowStore: 'after' | 'before';
  /** GraphQL introspection (SPEC 4.5: on in development, off by default in production; GRAPHQL_INTROSPECTION). */
  introspection: boolean;
  /** GraphQL operation timeout (SPEC 8.3: 30 s; GRAPHQL_TIMEOUT_MS). */
  graphqlTimeoutMs: number;
  /** Authentication, rate limits, quotas, audit (src/security/settings.ts, docs/security.md). */
  security: SecurityConfig;
  /** SSE and WebSocket timers and limits (src/realtime/settings.ts, docs/sse.md, docs/websocket.md). */
  realtime: RealtimeConfig;
  /** Enabled API versions, default version, deprecations (docs/versioning.md). */
  versioning: VersioningConfig;
}

function parseSyncStore(v: string | undefined): 'after' | 'before' {
  if (v === undefined || v === '' || v === 'after') return 'after';
  if (v === 'before') return 'before';
  throw new Error(`SYNC_POWERFLOW_STORE must be after or before, got "${v}"`);
}

function int(name: string, value: string | undefined, dflt: number): number {
  if (value === undefined || value === '') return dflt;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const nodeEnv = env.NODE_ENV ?? 'development';
  const role = (env.ROLE ?? 'all') as Role;
  if (!['all', 'api', 'worker'].includes(role)) throw new Error(`ROLE must be all, api or worker, got "${role}"`);
  const production = nodeEnv === 'production';
  const adminPassword = env.ADMIN_PASSWORD ?? (production ? undefined : 'admin');
  const cfg: Config = {
    port: int('PORT', env.PORT, 8080),
    host: env.HOST ?? '127.0.0.1',
    nodeEnv,
    production,
    dataDir: resolve(env.DATA_DIR ?? './data'),
    databaseUrl: env.DATABASE_URL || undefined,
    dbSchema: env.GRIDOPS_DB_SCHEMA ?? 'public',
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.GRIDOPS_REDIS_PREFIX ?? 'gridops',
    workers: int('WORKERS', env.WORKERS, availableParallelism()),
    workerNice: parseWorkerNice(env.WORKER_NICE),
    studyChunkCases: int('GRIDOPS_STUDY_CHUNK_CASES', env.GRIDOPS_STUDY_CHUNK_CASES, 0),
    role,
    adminUsername: env.ADMIN_USERNAME ?? 'admin',
    adminPassword,
    jwtPrivateKeyFile: env.JWT_PRIVATE_KEY_FILE || undefined,
    jwtPublicKeyFile: env.JWT_PUBLIC_KEY_FILE || undefined,
    tlsCertFile: env.TLS_CERT_FILE || undefined,
    tlsKeyFile: env.TLS_KEY_FILE || undefined,
    tlsCaFile: env.TLS_CA_FILE || undefined,
    clientCertMap: loadCertMap(env),
    logLevel: env.LOG_LEVEL ?? 'info',
    importBodyLimit: int('IMPORT_BODY_LIMIT', env.IMPORT_BODY_LIMIT, 16 * 1024 * 1024),
    version: '0.1.0',
    listCacheEntries: int('LIST_CACHE_ENTRIES', env.LIST_CACHE_ENTRIES, 2000),
    metricsPort: env.METRICS_PORT === undefined || env.METRICS_PORT === '' ? undefined : int('METRICS_PORT', env.METRICS_PORT, 0),
    metricsHost: env.METRICS_HOST ?? '127.0.0.1',
    listCacheMaxAgeMs: int('LIST_CACHE_MAX_AGE_MS', env.LIST_CACHE_MAX_AGE_MS, 60_000),
    modelStoreElements: int('MODEL_STORE_ELEMENTS', env.MODEL_STORE_ELEMENTS, 500_000),
    syncPowerflowStore: parseSyncStore(env.SYNC_POWERFLOW_STORE),
    introspection: env.GRAPHQL_INTROSPECTION ? env.GRAPHQL_INTROSPECTION === 'true' : !production,
    graphqlTimeoutMs: int('GRAPHQL_TIMEOUT_MS', env.GRAPHQL_TIMEOUT_MS, 30_000),
    security: loadSecurityConfig(env, nodeEnv),
    realtime: loadRealtimeConfig(env),
    versioning: loadVersioningConfig(env),
    ...overrides,
  };
  if (cfg.role === 'worker' && !cfg.redisUrl)
    throw new Error('ROLE=worker needs REDIS_URL (workers take jobs from the shared BullMQ queue)');
  if (cfg.production && !cfg.adminPassword)
    throw new Error('NODE_ENV=production needs ADMIN_PASSWORD (there is no default admin password in production)');
  if (cfg.production && cfg.adminPassword && cfg.adminPassword.length < 12)
    throw new Error('NODE_ENV=production refuses a weak ADMIN_PASSWORD (at least 12 characters)');
  return cfg;
}
