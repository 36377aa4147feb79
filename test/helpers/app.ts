// Starts a real gridops process inside the test: embedded (PGlite in memory +
// in-process queue) or distributed (this machine's PostgreSQL and Redis, with a
// schema and a Redis key prefix of its own, dropped on close).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import pino from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { startGridops, type Running } from '../../src/runtime.js';

export type Mode = 'embedded' | 'distributed';
export const MODES: Mode[] = ['embedded', 'distributed'];

export const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const QUICK = process.env.QUICK === '1';

export interface TestApp extends Running {
  mode: Mode;
  config: Config;
  schema?: string;
  prefix?: string;
}

export function uniqueName(kind: string): string {
  return `${kind}_${randomBytes(5).toString('hex')}`;
}

export function testConfig(mode: Mode, overrides: Partial<Config> = {}, shared?: { schema: string; prefix: string }): Config {
  const base = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', WORKERS: '2' });
  if (mode === 'embedded') return { ...base, dataDir: ':memory:', port: 0, ...overrides };
  return {
    ...base, port: 0, databaseUrl: PG_URL, redisUrl: REDIS_URL,
    dbSchema: shared?.schema ?? uniqueName('t'), redisPrefix: shared?.prefix ?? uniqueName('gt'), ...overrides,
  };
}

/** Starts a gridops process; listen: true gives a URL for real HTTP/WebSocket clients. */
export async function startTestApp(mode: Mode, opts: { listen?: boolean; config?: Partial<Config>; shared?: { schema: string; prefix: string }; keepData?: boolean } = {}): Promise<TestApp> {
  const config = testConfig(mode, opts.config, opts.shared);
  const running = await startGridops(config, { listen: opts.listen ?? false, log: pino({ level: config.logLevel }) });
  return {
    ...running,
    mode,
    config,
    schema: mode === 'distributed' ? config.dbSchema : undefined,
    prefix: mode === 'distributed' ? config.redisPrefix : undefined,
    async close() {
      await running.close();
      if (mode === 'distributed' && !opts.keepData) await dropDistributed(config.dbSchema, config.redisPrefix);
    },
  };
}

export async function dropDistributed(schema: string, prefix: string): Promise<void> {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await c.end();
  }
  const r = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

/** Body of a JSON response from app.inject. */
export function json<T = any>(res: { body: string }): T {
  return JSON.parse(res.body) as T;
}

/** Polls GET /api/v1/tasks/{id} every 10 ms until its status is `wanted` or `tries` run out; returns the last status seen. */
export async function waitForTaskStatus(app: TestApp, headers: Record<string, string>, taskId: string, wanted: string, tries = 300): Promise<string> {
  let status = '';
  for (let i = 0; i < tries; i++) {
    status = json(await app.app!.inject({ method: 'GET', url: `/api/v1/tasks/${taskId}`, headers })).data.status;
    if (status === wanted) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  return status;
}

/** Retries check until it passes or timeoutMs has gone by (cross-process notices, expiries, sweepers). */
export async function eventually(check: () => Promise<void>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
