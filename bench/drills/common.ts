// What the reliability drills share (docs/reliability.md): the result row, a gridops
// deployment on private stores (an API process and ROLE=worker processes), an HTTP client
// that counts what the service answered, a power-flow load, and the bookkeeping that
// proves from the database that every accepted task completed exactly once.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { CASES_DIR } from '../../src/paths.js';
import { spawnGridops, type GridopsProcess } from '../../test/helpers/process.js';

export interface DrillResult {
  drill: string;
  submitted: number;
  completed: number;
  lost: number;
  duplicated: number;
  http_5xx: number;
  recovered_s: number | null;
  /** What else the drill measured (503s, reruns, RSS, delays…). */
  details: Record<string, unknown>;
}

export const ADMIN_PASSWORD = 'drill-admin-password';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const log = (...a: unknown[]) => console.error(...a);

/** Waits for `f` to give a truthy value, polling; throws after timeoutMs. */
export async function waitFor<T>(what: string, f: () => Promise<T | undefined | null | false>, timeoutMs: number, everyMs = 200): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Counts of what a client saw, by kind. */
export class Tally {
  readonly byStatus = new Map<number, number>();
  /** Requests that got no answer in time (a hang) or no answer at all (a reset). */
  noAnswer = 0;
  latencies: number[] = [];
  note(status: number, ms: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    this.latencies.push(ms);
  }
  count(pred: (s: number) => boolean): number {
    let n = 0;
    for (const [s, c] of this.byStatus) if (pred(s)) n += c;
    return n;
  }
  /** 5xx other than 503 SERVICE_UNAVAILABLE (the documented answer while a store is away). */
  get unexpected5xx(): number {
    return this.count((s) => s >= 500 && s !== 503);
  }
  get all5xx(): number {
    return this.count((s) => s >= 500);
  }
  summary(): Record<string, number> {
    return Object.fromEntries([...this.byStatus].sort((a, b) => a[0] - b[0]).map(([s, c]) => [String(s), c]));
  }
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export interface Answer { status: number; body: any; headers: Headers }

/** fetch with a deadline; the tally records every answer (0: no answer). */
export async function call(tally: Tally, url: string, init: RequestInit = {}, timeoutMs = 15_000): Promise<Answer> {
  const t0 = performance.now();
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await r.text();
    tally.note(r.status, performance.now() - t0);
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch { /* not JSON */ }
    return { status: r.status, body, headers: r.headers };
  } catch {
    tally.noAnswer++;
    return { status: 0, body: undefined, headers: new Headers() };
  }
}

/** A gridops deployment (one API process, N workers) on the given stores, with its own schema and prefix. */
export class Deployment {
  readonly schema = `drill_${randomBytes(4).toString('hex')}`;
  readonly prefix = `gridops-drill-${randomBytes(4).toString('hex')}`;
  api!: GridopsProcess;
  workers: GridopsProcess[] = [];
  headers: Record<string, string> = {};
  readonly networks = new Map<string, string>();
  private db?: pg.Client;

  constructor(readonly stores: { databaseUrl: string; redisUrl: string }, readonly extraEnv: Record<string, string> = {}) {}

  get env(): Record<string, string> {
    return {
      DATABASE_URL: this.stores.databaseUrl, REDIS_URL: this.stores.redisUrl, GRIDOPS_DB_SCHEMA: this.schema, GRIDOPS_REDIS_PREFIX: this.prefix,
      NODE_ENV: 'production', ADMIN_PASSWORD, LOG_LEVEL: process.env.DRILL_LOG_LEVEL ?? 'warn', PORT: '0', HOST: '127.0.0.1',
      RATE_LIMIT_SCALE: '1000000', QUOTA_CACHE_MS: '500', ...this.extraEnv,
    };
  }

  get url(): string {
    return this.api.url!;
  }

  async start(workers: number): Promise<void> {
    this.api = await spawnGridops({ ...this.env, ROLE: 'api' }, { echo: !!process.env.DRILL_ECHO });
    for (let i = 0; i < workers; i++) await this.startWorker();
    const tally = new Tally();
    const login = await call(tally, `${this.url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
    this.headers = { authorization: `Bearer ${login.body.data.token}` };
    // The drills measure reliability, not the default plan's quotas.
    await this.sql(`UPDATE tenants SET quotas = quotas || '{"concurrent_powerflow": 1000, "api_requests_per_hour": 100000000, "sse_connections": 1000, "ws_connections": 1000, "network_count": 100000, "timeseries_daily_points": 100000000}'::jsonb,
      base_quotas = base_quotas || '{"concurrent_powerflow": 1000, "api_requests_per_hour": 100000000, "sse_connections": 1000, "ws_connections": 1000, "network_count": 100000, "timeseries_daily_points": 100000000}'::jsonb`);
  }

  async startWorker(): Promise<GridopsProcess> {
    const w = await spawnGridops({ ...this.env, ROLE: 'worker', WORKERS: '1' }, { echo: !!process.env.DRILL_ECHO });
    this.workers.push(w);
    return w;
  }

  async importCase(name: string): Promise<string> {
    const tally = new Tally();
    const r = await call(tally, `${this.url}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...this.headers, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, `${name}.m`), 'utf8') }, 60_000);
    if (r.status !== 201) throw new Error(`import ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    this.networks.set(name, r.body.data.id);
    return r.body.data.id;
  }

  /** A query on the deployment's schema through a connection of the drill's own (reconnects after a restart). */
  async sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        if (!this.db) {
          const c = new pg.Client({ connectionString: this.stores.databaseUrl, options: `-c search_path=${this.schema}` });
          c.on('error', () => { if (this.db === c) this.db = undefined; });
          await c.connect();
          this.db = c;
        }
        return (await this.db.query(text, params)).rows as T[];
      } catch (e) {
        const c = this.db;
        this.db = undefined;
        await c?.end().catch(() => {});
        if (attempt >= 20) throw e;
        await sleep(500);
      }
    }
  }

  alive(): { api: boolean; workers: number } {
    const up = (p: GridopsProcess) => p.proc.exitCode === null && p.proc.signalCode === null;
    return { api: up(this.api), workers: this.workers.filter(up).length };
  }

  /** Stops every process, drops the schema and the Redis keys; never throws. */
  async destroy(): Promise<void> {
    await Promise.all([this.api, ...this.workers].filter(Boolean).map((p) => p.stop(10_000).catch(() => {})));
    await this.sql(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`).catch(() => {});
    await this.db?.end().catch(() => {});
    const r = new Redis(this.stores.redisUrl, { maxRetriesPerRequest: 1, retryStrategy: () => null });
    r.on('error', () => {});
    try {
      let cursor = '0';
      do {
        const [next, keys] = await r.scan(cursor, 'MATCH', `${this.prefix}:*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length) await r.del(...keys);
      } while (cursor !== '0');
    } catch { /* store already gone */ } finally {
      r.disconnect();
    }
  }
}

/**
 * Submits async power flows (alternating over `networks`) from `concurrency` loops until
 * `target` are accepted or stop() is called. Every answer is tallied; accepted task ids kept.
 */
export class PowerFlowLoad {
  readonly accepted: string[] = [];
  readonly tally = new Tally();
  private stopped = false;
  private loops: Promise<void>[] = [];
  private i = 0;
  private pending = 0;
  /** One 503 answer as the client saw it (body and Retry-After), for the record. */
  sample503?: { body: unknown; retryAfter: string | null };
  /** Time of the first 202 after each mark(). */
  firstAcceptedAfterMark?: number;
  private markedAt?: number;

  constructor(private readonly d: Deployment, private readonly networks: string[], private readonly target: number, private readonly concurrency = 8) {}

  start(): this {
    this.loops = Array.from({ length: this.concurrency }, () => this.loop());
    return this;
  }

  /** From now on, note the time of the next accepted submission (recovery). */
  mark(): void {
    this.markedAt = Date.now();
    this.firstAcceptedAfterMark = undefined;
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.accepted.length + this.pending < this.target) {
      const net = this.networks[this.i++ % this.networks.length]!;
      this.pending++;
      const r = await call(this.tally, `${this.d.url}/api/v1/networks/${net}/powerflow`, { method: 'POST', headers: { ...this.d.headers, 'content-type': 'application/json' }, body: '{"async":true}' });
      this.pending--;
      if (r.status === 202) {
        this.accepted.push(r.body.data.task_id);
        if (this.markedAt !== undefined && this.firstAcceptedAfterMark === undefined) this.firstAcceptedAfterMark = Date.now();
      }
      if (r.status === 503) this.sample503 ??= { body: r.body, retryAfter: r.headers.get('retry-after') };
      if (r.status === 503 || r.status === 0) {
        await sleep(100); // the store is away: do not spin
      }
    }
  }

  async done(): Promise<void> {
    await Promise.all(this.loops);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done();
  }
}

export interface Ledger {
  accepted: number;
  completed: number;
  /** Accepted but not completed: no row, or the row ended elsewhere, by status. */
  lost: number;
  lostByStatus: Record<string, number>;
  /** Tasks finished more than once (several task.completed / powerflow.finished events). */
  finishedTwice: number;
  /** Stored tasks the client was never told of (it got an error, the task exists). */
  unacknowledged: number;
  /** Claims (task.running events) beyond one per task: runs redone after a fault. */
  reruns: number;
  /** Completed tasks without their task.completed event. */
  missingEvents: number;
}

export const FINISHED = ['completed', 'failed', 'cancelled'];

/** Waits until every accepted task has finished (or timeoutMs), then reads the ledger from the database. */
export async function settle(d: Deployment, accepted: string[], timeoutMs: number): Promise<Ledger> {
  await waitFor('every accepted task to finish', async () => {
    const [r] = await d.sql<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND status IN ('completed', 'failed', 'cancelled')`, [accepted]).catch(() => [{ n: -1 }]);
    return r!.n === accepted.length;
  }, timeoutMs, 500).catch((e) => log(String(e)));
  return ledger(d, accepted);
}

export async function ledger(d: Deployment, accepted: string[], warmup: string[] = []): Promise<Ledger> {
  const rows = await d.sql<{ id: string; status: string; completed_events: number; finished_events: number; runs: number }>(
    `WITH ev AS (
       SELECT payload->>'task_id' AS id,
              count(*) FILTER (WHERE kind = 'task.completed')::int AS completed_events,
              count(*) FILTER (WHERE kind = 'powerflow.finished')::int AS finished_events,
              count(*) FILTER (WHERE kind = 'task.running')::int AS runs
       FROM events WHERE topic IN ('task', 'powerflow') GROUP BY 1)
     SELECT t.id, t.status, COALESCE(ev.completed_events, 0) AS completed_events, COALESCE(ev.finished_events, 0) AS finished_events, COALESCE(ev.runs, 0) AS runs
     FROM tasks t LEFT JOIN ev ON ev.id = t.id`);
  const known = new Set([...accepted, ...warmup]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: Ledger = { accepted: accepted.length, completed: 0, lost: 0, lostByStatus: {}, finishedTwice: 0, unacknowledged: 0, reruns: 0, missingEvents: 0 };
  for (const id of accepted) {
    const r = byId.get(id);
    const status = r?.status ?? 'missing';
    if (status === 'completed') out.completed++;
    else {
      out.lost++;
      out.lostByStatus[status] = (out.lostByStatus[status] ?? 0) + 1;
    }
    if (!r) continue;
    if (r.completed_events > 1 || r.finished_events > 1) out.finishedTwice++;
    if (status === 'completed' && r.completed_events === 0) out.missingEvents++;
    out.reruns += Math.max(0, r.runs - 1);
  }
  for (const r of rows) if (!known.has(r.id)) out.unacknowledged++;
  return out;
}
