// Hostile input must never hurt the service (issue #11, findings 1, 2, 5, 7, 8), in
// both modes: the timeseriesMulti attack and the point budget, the MATPOWER reader
// on a pathological function line and large imports off the event loop, credentials
// kept out of the request log, forged cursors, and client request ids.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { threadId } from 'node:worker_threads';
import pino from 'pino';
import { MODES, dropDistributed, json, testConfig, type Mode, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { code, gql } from './graphql-helpers.js';
import { startGridops } from '../src/runtime.js';
import { CASES_DIR } from '../src/paths.js';
import { MatpowerParseError, parseMatpower } from '../src/matpower/reader.js';
import { parseMatpowerOffLoop, readsOffLoop } from '../src/matpower/offLoop.js';
import { PointGate, pointGate, TS_MULTI_CONCURRENCY } from '../src/domain/timeseriesBudget.js';
import { AppError } from '../src/lib/errors.js';

/** A gridops process whose log lines (JSON) are kept in `lines`. */
async function startLogged(mode: Mode): Promise<{ app: TestApp; lines: string[] }> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n')) if (l) lines.push(l);
      done();
    },
  });
  const config = testConfig(mode);
  // debug: the request log is kept at whatever level the service logs requests.
  const running = await startGridops(config, { log: pino({ level: 'debug' }, stream) });
  const app: TestApp = {
    ...running, mode, config,
    async close() {
      await running.close();
      if (mode === 'distributed') await dropDistributed(config.dbSchema, config.redisPrefix);
    },
  };
  return { app, lines };
}

const cursorOf = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** case9 followed by `bytes` of gencost rows: read and skipped by the reader, so the parse dominates. */
function paddedCase9(bytes: number): string {
  const case9 = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');
  const row = '\t2\t1500\t0\t3\t0.11\t5\t150;\n';
  // An ignored matrix (mpc.areas-like), so only the scan over it costs: gencost is read since OPF.
  return `${case9}\nmpc.areas = [\n${row.repeat(Math.floor(bytes / row.length))}];\n`;
}

describe('MATPOWER reader: no regular-expression backtracking on input', () => {
  it('refuses the issue\'s 80,000-blank function line at once, naming the cap', () => {
    const attack = 'function a' + ' '.repeat(80000) + 'b = case9\n';
    assert.throws(() => parseMatpower(attack, 'attack.m'), (e: unknown) => e instanceof MatpowerParseError && /function line of at most 1024 characters/.test(e.expected));
  });

  it('still reads bracketed and blank-padded function lines', () => {
    const case9 = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');
    const padded = case9.replace(/^function mpc = case9/m, `function [ mpc ${' '.repeat(500)}] = case9 ;`);
    assert.notEqual(padded, case9);
    const m = parseMatpower(padded, 'padded.m');
    assert.equal(m.name, 'case9');
    assert.equal(m.buses.length, 9);
  });

  it('reads a large case off the event loop: the loop pauses far less than the parse takes', async () => {
    // Parse-dominated (a 15 MB file, a 9-bus network): what the loop still does is hand
    // the text over and take a small model back. (For a 13,659-bus case, rebuilding the
    // model on the loop costs about half of its parse; docs/api-conventions.md.)
    const text = paddedCase9(15e6);
    const inline = parseMatpower(text, 'big.m');
    const before = readsOffLoop.length;
    const result = await parseMatpowerOffLoop(text, 'big.m');
    assert.deepEqual(result, inline);
    // Where it ran, not how long the loop paused (that is the drills' and bench's to measure):
    // the parse was done by a worker thread, never the main thread (id 0).
    assert.equal(readsOffLoop.length, Math.min(before + 1, 16));
    assert.notEqual(readsOffLoop.at(-1), threadId);
    // A small case is read inline: no thread for it.
    const n = readsOffLoop.length;
    await parseMatpowerOffLoop(readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), 'case9.m');
    assert.equal(readsOffLoop.length, n);
  });

  it('turns a parse error of the reader thread into the same MatpowerParseError', async () => {
    const bad = `function mpc = big\nmpc.version = '2';\n%${'x'.repeat(300_000)}\nmpc.baseMVA = 100;\nmpc.bus = [1 3 0 0 0 0 1 1 0 345 1 1.1 0.9;\n 2 1 0];\n`;
    await assert.rejects(parseMatpowerOffLoop(bad, 'big.m'), (e: unknown) => e instanceof MatpowerParseError && e.line === 6);
  });
});

describe('time-series point gate (all queries of a process together)', () => {
  it('lets queries in while they fit, queues the rest in order, and answers 503 after the wait', async () => {
    const gate = new PointGate(100);
    const a = await gate.acquire(60);
    const order: string[] = [];
    const b = gate.acquire(60).then((r) => { order.push('b'); return r; });
    const c = gate.acquire(10).then((r) => { order.push('c'); return r; }); // fits, but waits behind b
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(order, []);
    a();
    const rb = await b;
    const rc = await c;
    assert.deepEqual(order, ['b', 'c']);
    assert.equal(gate.inUse, 70);
    await assert.rejects(gate.acquire(40, 20), (e: unknown) => e instanceof AppError && e.code === 'SERVICE_UNAVAILABLE' && e.details?.reason === 'TIMESERIES_BUSY');
    rb();
    rc();
    rc(); // releasing twice gives nothing back twice
    assert.equal(gate.inUse, 0);
    assert.equal(gate.peak, 70);
  });
});

for (const mode of MODES) {
  describe(`hostile input (${mode})`, () => {
    let app: TestApp;
    let lines: string[];
    let admin: Record<string, string>;
    let viewer: Record<string, string>;
    const from = '2026-03-01T00:00:00.000Z';

    before(async () => {
      ({ app, lines } = await startLogged(mode));
      admin = await adminHeaders(app);
      viewer = await tokenFor(app, 'viewer');
      const points = Array.from({ length: 120 }, (_, i) => ({ metric: 'budget.load', value: i, timestamp: new Date(Date.parse(from) + i * 60_000).toISOString(), tags: { feeder: 'f1' } }));
      const w = await app.app!.inject({ method: 'POST', url: '/api/v1/timeseries/batch', headers: admin, payload: { points } });
      assert.equal(w.statusCode, 200, w.body);
    });
    after(async () => app?.close());

    // ------------------------------------------------------------ finding 1
    const attackEntry = { metric: 'budget.load', from: '1970-01-01T00:00:00Z', to: '9999-12-31T00:00:00Z', aggregation: 'SUM', interval: '1d', fill: 'zero', limit: 100000 };
    const MULTI = 'query($qs: [TimeSeriesQuery!]!) { timeseriesMulti(queries: $qs) { timestamp value } }';

    it('refuses the timeseriesMulti attack (10 × 100,000 filled days) before running it; the process stays up', async () => {
      const heapBefore = process.memoryUsage().heapUsed;
      const r = await gql(app, MULTI, { qs: Array(10).fill(attackEntry) }, viewer);
      assert.equal(r.status, 200);
      assert.equal(code(r), 'QUERY_TOO_COMPLEX', JSON.stringify(r.body).slice(0, 300));
      assert.equal(r.body.data, undefined);
      assert.ok(process.memoryUsage().heapUsed - heapBefore < 64 * 1024 * 1024, 'no 100,000-bin results were built');
      const health = await app.app!.inject({ method: 'GET', url: '/api/v1/health' });
      assert.equal(health.statusCode, 200);
    });

    it('refuses 2,000 entries as LIST_TOO_LONG (at most 20)', async () => {
      const r = await gql(app, MULTI, { qs: Array(2000).fill(attackEntry) }, viewer);
      assert.equal(code(r), 'QUERY_TOO_COMPLEX');
      assert.equal(r.body.errors![0].extensions.details.reason, 'LIST_TOO_LONG');
      assert.equal(r.body.errors![0].extensions.details.limit, 20);
      assert.match(r.body.errors![0].message, /at most 20/);
    });

    it('counts every limit against one point budget per request (100,000), aliases included', async () => {
      const q = { metric: 'budget.load', from, to: '2026-03-02T00:00:00Z' };
      const eleven = await gql(app, MULTI, { qs: Array(11).fill(q) }, viewer); // 11 × default 10,000
      assert.equal(code(eleven), 'QUERY_TOO_COMPLEX');
      assert.equal(eleven.body.errors![0].extensions.details.reason, 'POINT_BUDGET');
      const aliased = await gql(app, `query($q: TimeSeriesQuery!, $p: TimeSeriesQuery!) { a: timeseries(query: $q) { value } b: timeseries(query: $p) { value } }`,
        { q: { ...q, limit: 60000 }, p: { ...q, limit: 60000 } }, viewer);
      assert.equal(code(aliased), 'QUERY_TOO_COMPLEX');
      assert.equal(aliased.body.errors![0].extensions.details.reason, 'POINT_BUDGET');
      // A negative limit (refused on its own) gives no points back to the other entries.
      const gamed = await gql(app, MULTI, { qs: [{ ...q, limit: -1_000_000_000 }, ...Array(4).fill({ ...q, limit: 100000 })] }, viewer);
      assert.equal(code(gamed), 'QUERY_TOO_COMPLEX');
      assert.equal(gamed.body.errors![0].extensions.details.reason, 'POINT_BUDGET');
      // Within the budget: ten default entries answer, the same as REST.
      const ten = await gql(app, MULTI, { qs: Array(10).fill({ ...q, aggregation: 'AVG', interval: '1h' }) }, viewer);
      assert.equal(ten.body.errors, undefined, JSON.stringify(ten.body.errors));
      const rest = json(await app.app!.inject({ method: 'GET', url: `/api/v1/timeseries?metric=budget.load&from=${from}&to=2026-03-02T00:00:00Z&aggregation=avg&interval=1h`, headers: viewer })).data;
      assert.equal(ten.body.data.timeseriesMulti.length, 10);
      assert.deepEqual(ten.body.data.timeseriesMulti[9].map((p: { value: number | null }) => p.value), rest.points.map((p: { value: number | null }) => p.value));
    });

    it('runs the entries of one timeseriesMulti a few at a time', async () => {
      const db = app.services.db as unknown as { query: (...a: unknown[]) => Promise<unknown> };
      const original = db.query;
      let inFlight = 0;
      let most = 0;
      db.query = async (...a: unknown[]) => {
        const counted = String(a[0]).includes('timeseries_points');
        if (counted) most = Math.max(most, ++inFlight);
        try {
          return await original.apply(db, a);
        } finally {
          if (counted) inFlight--;
        }
      };
      try {
        const q = { metric: 'budget.load', from, to: '2026-03-02T00:00:00Z', aggregation: 'MAX', interval: '10m', limit: 500 };
        const r = await gql(app, MULTI, { qs: Array(12).fill(q) }, viewer);
        assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
        assert.equal(r.body.data.timeseriesMulti.length, 12);
      } finally {
        db.query = original;
      }
      assert.ok(most >= 1 && most <= TS_MULTI_CONCURRENCY, `${most} entries ran at once`);
    });

    it('REST: the largest query (100,000 filled daily bins) is capped at its limit and truncated', async () => {
      const heapBefore = process.memoryUsage().heapUsed;
      const r = await app.app!.inject({ method: 'GET', url: '/api/v1/timeseries?metric=budget.load&from=1970-01-01T00:00:00Z&to=9999-12-31T00:00:00Z&aggregation=sum&interval=1d&fill=zero&limit=100000', headers: viewer });
      assert.equal(r.statusCode, 200, r.body.slice(0, 300));
      const body = json(r);
      assert.equal(body.data.count, 100000);
      assert.equal(body.meta.truncated, true);
      assert.ok(process.memoryUsage().heapUsed - heapBefore < 256 * 1024 * 1024);
      const over = await app.app!.inject({ method: 'GET', url: `/api/v1/timeseries?metric=budget.load&from=${from}&to=2026-03-02T00:00:00Z&limit=100001`, headers: viewer });
      assert.ok(over.statusCode === 400 || over.statusCode === 422, over.body);
    });

    it('REST: concurrent large queries share the process gate and all answer', async () => {
      const saved = pointGate.capacity;
      pointGate.capacity = 100_000;
      pointGate.peak = 0;
      try {
        const url = `/api/v1/timeseries?metric=budget.load&from=${from}&to=2026-05-15T00:00:00Z&aggregation=avg&interval=1m&fill=zero&limit=60000`;
        const rs = await Promise.all([1, 2, 3].map(() => app.app!.inject({ method: 'GET', url, headers: viewer })));
        for (const r of rs) {
          assert.equal(r.statusCode, 200, r.body.slice(0, 200));
          assert.equal(json(r).data.count, 60000);
        }
        assert.ok(pointGate.peak <= 100_000 && pointGate.peak >= 60_000, `peak ${pointGate.peak}`);
      } finally {
        pointGate.capacity = saved;
      }
    });

    // ------------------------------------------------------------ finding 2
    it('imports a large MATPOWER case while health checks keep answering', async () => {
      const text = paddedCase9(15e6);
      let n = 0;
      const importWithProbes = async () => {
        let importing = true;
        let answered = 0;
        const imported = app.app!.inject({ method: 'POST', url: `/api/v1/networks/import?format=matpower&name=big-import-${n++}`, headers: { ...admin, 'content-type': 'text/plain' }, payload: text })
          .finally(() => { importing = false; });
        const probes = (async () => {
          while (importing) {
            const h = await app.app!.inject({ method: 'GET', url: '/api/v1/health' });
            if (h.statusCode === 200) answered++;
            await new Promise((r) => setImmediate(r));
          }
        })();
        const [res] = await Promise.all([imported, probes]);
        assert.equal(res.statusCode, 201, res.body.slice(0, 300));
        assert.equal(json(res).data.bus_count, 9);
        assert.ok(answered > 0, 'health checks answered during the import');
      };
      // Health answered while the import ran, and the import's parse ran on a worker thread:
      // true on any machine, however busy (the loop's pause is measured by the drills, not here).
      const threads = [...readsOffLoop];
      await importWithProbes();
      assert.notDeepEqual(readsOffLoop, threads, 'the import was read off the loop');
      assert.notEqual(readsOffLoop.at(-1), threadId);
    });

    // ------------------------------------------------------------ finding 5
    it('keeps tokens, API keys and credential headers out of the request log', async () => {
      const secret = 'Sup3rSecretTokenValue';
      const bearer = admin.authorization;
      lines.length = 0;
      await app.app!.inject({ method: 'GET', url: `/api/v1/networks?token=${secret}1&api_key=${secret}2&access_token=${secret}3&refresh_token=${secret}4&X-Api-Key=${secret}5&page=1`, headers: { ...admin, 'x-api-key': `${secret}6`, cookie: `sid=${secret}7` } });
      await app.app!.inject({ method: 'GET', url: `/api/v1/events/stream?token=${encodeURIComponent(bearer.slice(7))}&topics=nope` });
      await app.app!.inject({ method: 'GET', url: `/ws?token=${secret}8` });
      const log = lines.join('\n');
      assert.match(log, /\/api\/v1\/networks\?token=\[redacted\]&api_key=\[redacted\]&access_token=\[redacted\]&refresh_token=\[redacted\]&X-Api-Key=\[redacted\]&page=1/, 'the request URL is logged, redacted');
      assert.match(log, /\/api\/v1\/events\/stream\?token=\[redacted\]&topics=nope/);
      assert.ok(!log.includes(secret), 'no secret query value or header reaches the log');
      assert.ok(!log.includes(bearer.slice(7)), 'the bearer token never reaches the log');
    });

    // ------------------------------------------------------------ finding 7
    it('answers 400 INVALID_FIELD to forged cursors on every list, never a 500', async () => {
      const forged = [cursorOf({ o: 1e300 }), cursorOf({ o: -1 }), cursorOf({ o: '5' }), cursorOf({ o: 5, x: 1 }), cursorOf([5]), cursorOf({ o: 2 ** 53 }), 'not-base64!!', cursorOf(null)];
      for (const list of ['networks', 'agents', 'devices', 'alarms', 'audit', 'events']) {
        for (const c of forged) {
          const r = await app.app!.inject({ method: 'GET', url: `/api/v1/${list}?cursor=${encodeURIComponent(c)}`, headers: admin });
          assert.equal(r.statusCode, 400, `${list} ${c}: ${r.body.slice(0, 200)}`);
          assert.equal(json(r).error.code, 'INVALID_FIELD', `${list} ${c}`);
        }
      }
      const good = json(await app.app!.inject({ method: 'GET', url: `/api/v1/audit?page_size=1`, headers: admin }));
      const next = await app.app!.inject({ method: 'GET', url: `/api/v1/audit?page_size=1&cursor=${good.meta.next_cursor}`, headers: admin });
      assert.equal(next.statusCode, 200, 'a cursor the service issued still works');
      // Event ids are cursors too: 16 digits beyond 2^53 would be rounded to another event.
      const after = await app.app!.inject({ method: 'GET', url: '/api/v1/events?after=evt_9999999999999999', headers: admin });
      assert.equal(after.statusCode, 400, after.body);
      assert.equal(json(after).error.code, 'INVALID_FIELD');
      const far = await app.app!.inject({ method: 'GET', url: '/api/v1/networks?page=1e300', headers: admin });
      assert.ok(far.statusCode === 400 || far.statusCode === 422, far.body);
      const gqlFar = await gql(app, '{ networks(page: 2147483647, pageSize: 100) { total } }', undefined, admin);
      assert.equal(code(gqlFar), 'VALIDATION_FAILED', JSON.stringify(gqlFar.body));
    });

    // ------------------------------------------------------------ finding 8
    it('accepts a client X-Request-Id only when short and plain, in the log and the audit trail', async () => {
      const plain = `req.${mode}:abc_DEF-123`;
      const kept = await app.app!.inject({ method: 'POST', url: '/api/v1/networks', headers: { ...admin, 'x-request-id': plain }, payload: { name: '' } });
      assert.equal(kept.headers['x-request-id'], plain);
      assert.equal(json(kept).request_id, plain);
      for (const bad of ['x'.repeat(300), 'has space', 'semi;colon', 'quote"d', 'slash/x']) {
        lines.length = 0;
        const r = await app.app!.inject({ method: 'POST', url: '/api/v1/networks', headers: { ...admin, 'x-request-id': bad }, payload: { name: '' } });
        const id = String(r.headers['x-request-id']);
        assert.notEqual(id, bad);
        assert.match(id, /^[0-9a-f-]{36}$/, 'a generated id');
        assert.equal(json(r).request_id, id);
        const logged = lines.map((l) => JSON.parse(l)).filter((l) => l.reqId !== undefined);
        assert.ok(logged.length > 0 && logged.every((l) => l.reqId === id), 'the log carries the generated id');
        const audit = json(await app.app!.inject({ method: 'GET', url: `/api/v1/audit?request_id=${id}`, headers: admin })).data;
        assert.equal(audit.length, 1, 'the audit entry carries the generated id');
      }
      const longAudit = json(await app.app!.inject({ method: 'GET', url: `/api/v1/audit?request_id=${'x'.repeat(200)}`, headers: admin })).data;
      assert.equal(longAudit.length, 0);
    });
  });
}
