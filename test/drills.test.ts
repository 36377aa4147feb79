// Short versions of the reliability drills (bench/drill.ts, docs/reliability.md), on a
// private Redis and PostgreSQL of this file (ports 6391 / 5441, never the shared 6379 /
// 5432), plus the service fixes they led to, each checked where it lives.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startPrivatePostgres, startPrivateRedis, type PrivateStore } from './helpers/stores.js';
import { openDatabase } from '../src/db/database.js';
import { createRedisBus } from '../src/events/bus.js';
import { unavailableDependency } from '../src/lib/unavailable.js';
import { postgresRestartDrill, redisRestartDrill, workerKilledDrill } from '../bench/drills/queue.js';
import { fuzzDrill } from '../bench/drills/fuzz.js';
import { soakDrill } from '../bench/drills/soak.js';
import type { DrillResult } from '../bench/drills/common.js';

const REDIS_PORT = Number(process.env.TEST_DRILL_REDIS_PORT ?? 6391);
const PG_PORT = Number(process.env.TEST_DRILL_PG_PORT ?? 5441);
// Shorter BullMQ lock timings, so a killed worker's jobs come back within seconds.
const QUEUE_ENV = { GRIDOPS_QUEUE_LOCK_MS: '3000', GRIDOPS_QUEUE_STALLED_MS: '1000' };
const QUEUE = { tasks: 40, outageMs: 2000, settleMs: 120_000, env: QUEUE_ENV };

function assertClean(r: DrillResult): void {
  const why = JSON.stringify(r);
  assert.ok(r.submitted > 0, why);
  assert.equal(r.lost, 0, `lost tasks: ${why}`);
  assert.equal(r.duplicated, 0, `duplicated tasks: ${why}`);
  assert.equal(r.http_5xx, 0, `5xx other than 503, or no answer: ${why}`);
  assert.equal(r.completed, r.submitted, why);
  assert.equal(r.details.api_alive, true, why);
}

describe('error classification: a store that is away', () => {
  it('recognises PostgreSQL and Redis unavailability, and nothing else', () => {
    assert.equal(unavailableDependency(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })), 'database');
    assert.equal(unavailableDependency(Object.assign(new Error('the database system is starting up'), { code: '57P03' })), 'database');
    assert.equal(unavailableDependency(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' })), 'database');
    assert.equal(unavailableDependency(new Error('Connection terminated unexpectedly')), 'database');
    assert.equal(unavailableDependency(Object.assign(new Error('Reached the max retries per request limit (which is 2).'), { name: 'MaxRetriesPerRequestError' })), 'redis');
    assert.equal(unavailableDependency(new Error('Connection is closed.')), 'redis');
    assert.equal(unavailableDependency(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' })), undefined);
    assert.equal(unavailableDependency(new Error('boom')), undefined);
    assert.equal(unavailableDependency(undefined), undefined);
  });
});

describe('reliability drills (short)', () => {
  let redis: PrivateStore;
  let postgres: PrivateStore;
  before(async () => {
    redis = await startPrivateRedis(REDIS_PORT);
    postgres = await startPrivatePostgres(PG_PORT);
  });
  after(async () => {
    await redis?.destroy();
    await postgres?.destroy();
  });
  const stores = () => ({ redis, postgres });

  it('a PostgreSQL restart under an open transaction: it fails with a connection error, the process lives, the pool reconnects', { timeout: 120_000 }, async () => {
    const db = await openDatabase({ url: postgres.url, schema: 'pool_drill' });
    try {
      let crashed!: () => void;
      const isCrashed = new Promise<void>((r) => (crashed = r));
      const tx = db.transaction(async (q) => {
        await q.query('SELECT 1');
        await isCrashed; // the server goes away between two statements: the client emits 'error'
        await q.query('SELECT 1');
      });
      await postgres.crash();
      crashed();
      await assert.rejects(tx, (e) => unavailableDependency(e) === 'database');
      await postgres.start();
      // The broken client was not put back: the next queries run on fresh connections.
      for (let i = 0; i < 12; i++) assert.deepEqual((await db.query<{ x: number }>('SELECT 1 AS x')).rows, [{ x: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('the Redis event bus drops live messages at once while Redis is away (the write they follow has committed) and carries them again after', { timeout: 60_000 }, async () => {
    let dropped = 0;
    const bus = await createRedisBus(redis.url, 'bus_drill', (_e, n) => { dropped += n; });
    try {
      const got: unknown[] = [];
      bus.subscribe('event', (m) => got.push(m));
      await bus.ready('event');
      await redis.crash();
      // Resolves while Redis is still down: had it waited for a reconnect, it would never resolve (Redis starts only below).
      await bus.publish('event', { n: 1 });
      assert.equal(dropped, 1);
      assert.equal(await bus.ping(), false);
      await redis.start();
      // ioredis reconnects and re-subscribes on its own; wait for it, then a message goes through.
      const end = Date.now() + 30_000;
      while (!(await bus.ping())) {
        assert.ok(Date.now() < end, 'the bus did not reconnect within 30 s');
        await new Promise((r) => setTimeout(r, 100));
      }
      while (got.length === 0) {
        assert.ok(Date.now() < end, 'no message after the reconnect within 30 s');
        await bus.publish('event', { n: 2 });
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(got[0], { n: 2 });
    } finally {
      await bus.close();
    }
  });

  it('worker killed: kill -9 one of two workers mid-run, start another; every task completes exactly once', { timeout: 240_000 }, async (t) => {
    const r = await workerKilledDrill(stores(), QUEUE);
    t.diagnostic(JSON.stringify(r));
    assertClean(r);
    assert.equal(r.details.workers_alive, 2);
    assert.ok(r.recovered_s !== null, 'the tasks in flight at the kill finished');
  });

  it('Redis restart under load: submissions answer 503 SERVICE_UNAVAILABLE with Retry-After, reads go on, every accepted task completes', { timeout: 240_000 }, async (t) => {
    const r = await redisRestartDrill(stores(), QUEUE);
    t.diagnostic(JSON.stringify(r));
    assertClean(r);
    const answers = r.details.answers as Record<string, number>;
    assert.ok((answers['503'] ?? 0) > 0, `no 503 while Redis was away: ${JSON.stringify(answers)}`);
    const sample = r.details.sample_503 as { body: { error: { code: string; message: string; trace_id: string; details: { dependency: string } }; request_id: string }; retryAfter: string };
    assert.equal(sample.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(sample.body.error.details.dependency, 'redis');
    assert.match(sample.body.error.message, /Redis.*unavailable.*retry/);
    assert.ok(sample.body.error.trace_id && sample.body.request_id);
    assert.equal(sample.retryAfter, '5');
    assert.deepEqual(Object.keys(r.details.reads_during_outage as object), ['200'], 'lists and task reads answer from PostgreSQL');
  });

  it('PostgreSQL restart under load: the API answers 503, recovers without a restart, no accepted task lost', { timeout: 240_000 }, async (t) => {
    const r = await postgresRestartDrill(stores(), QUEUE);
    t.diagnostic(JSON.stringify(r));
    assertClean(r);
    const sample = r.details.sample_503 as { body: { error: { code: string; details: { dependency: string } } } } | undefined;
    assert.ok(sample, 'a submission was refused with 503 while PostgreSQL was away');
    assert.equal(sample.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.equal(sample.body.error.details.dependency, 'database');
    assert.equal(r.details.missing_events, 0, 'every completed task has its task.completed event');
    assert.ok(r.recovered_s !== null && r.recovered_s < 30, `recovered in ${r.recovered_s} s`);
  });

  it('soak (15 s): mixed load with SSE and WebSocket listeners; no errors, no growth beyond a generous bound', { timeout: 180_000 }, async (t) => {
    const r = await soakDrill(stores(), { seconds: 15, sse: 2, ws: 2 });
    t.diagnostic(JSON.stringify(r));
    assertClean(r);
    const d = r.details as Record<string, number>;
    assert.equal(d.live_errors, 0, 'SSE and WebSocket listeners stayed connected');
    assert.ok(d.sse_events > 0 && d.ws_events > 0, `live events reached the listeners: ${d.sse_events} SSE, ${d.ws_events} WebSocket`);
    assert.ok(d.rss_end_mb < d.rss_start_mb * 1.5 + 150, `API RSS ${d.rss_start_mb} → ${d.rss_end_mb} MB`);
    assert.ok(d.worker_rss_end_mb < d.worker_rss_start_mb * 1.5 + 150, `worker RSS ${d.worker_rss_start_mb} → ${d.worker_rss_end_mb} MB`);
    // Latency (p99 start → end) is the drill's figure for docs/reliability.md, not a test's assertion on a shared machine.
  });

  it('fuzz, distributed (300 requests, seed 11: an API process and a worker on PostgreSQL and Redis): no 5xx, no exit', { timeout: 180_000 }, async (t) => {
    const r = await fuzzDrill({ requests: 300, seed: 11, stores: { databaseUrl: postgres.url, redisUrl: redis.url } });
    t.diagnostic(JSON.stringify(r));
    assertFuzzClean(r);
  });
});

describe('fuzz drill (short, embedded): three seeds', () => {
  for (const seed of [7, 1, 23]) {
    it(`300 malformed requests through every door (seed ${seed}): no 5xx, no exit, every covered request audited, RSS bounded`, { timeout: 240_000 }, async (t) => {
      const r = await fuzzDrill({ requests: 300, seed });
      t.diagnostic(JSON.stringify(r));
      assertFuzzClean(r);
    });
  }
});

function assertFuzzClean(r: DrillResult): void {
  const d = r.details as Record<string, number>;
  assert.equal(d.process_exits, 0, JSON.stringify(r));
  assert.equal(r.http_5xx, 0, `5xx or INTERNAL_ERROR: ${JSON.stringify(r.details.findings)}`);
  assert.equal(d.no_answer, 0, `requests without an answer: ${JSON.stringify(r.details.findings)}`);
  assert.equal(d.health_after, 200);
  assert.ok(d.audit_expected > 0, 'the drill sent requests the audit rule covers');
  assert.equal(d.audit_missing, 0, `answered requests without their audit row: ${JSON.stringify(r.details.audit_missing_sample)}`);
  assert.ok(d.rss_max_mb < d.rss_start_mb + 512, `RSS ${d.rss_start_mb} → max ${d.rss_max_mb} MB`);
}
