// Prometheus metrics (issue #15, docs/observability.md): /metrics after real traffic in both
// modes, admin only on the API listener, bounded route labels, the METRICS_PORT listener,
// and a ROLE=worker process exposing the tasks it ran.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODES, PG_URL, REDIS_URL, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { spawnGridops } from './helpers/process.js';
import { loadSecurityConfig } from '../src/security/settings.js';
import { CASES_DIR } from '../src/paths.js';

type Headers = Record<string, string>;

/** One sample of the text format: name, labels, value. */
interface Sample { name: string; labels: Record<string, string>; value: number }

function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a sample line of the text format: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

const find = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
const total = (samples: Sample[], name: string, labels: Record<string, string> = {}) => find(samples, name, labels).reduce((n, s) => n + s.value, 0);

function get(url: string, headers: Headers = {}): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type'] ?? '') }));
    }).on('error', reject);
  });
}

/** An open SSE connection (held until close()). */
function openSse(url: string, headers: Headers): Promise<{ status: number; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.on('data', () => {});
      resolve({ status: res.statusCode ?? 0, close: () => req.destroy() });
    });
    req.on('error', (e) => (e.message === 'socket hang up' ? undefined : reject(e)));
  });
}

/** Histogram buckets of one series never decrease with le, and +Inf equals _count. */
function assertHistogram(samples: Sample[], name: string, labels: Record<string, string>) {
  const buckets = find(samples, `${name}_bucket`, labels).map((s) => [s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), s.value] as const);
  assert.ok(buckets.length > 2, `${name} has buckets for ${JSON.stringify(labels)}`);
  for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i]![1] >= buckets[i - 1]![1], `${name} buckets are cumulative`);
  assert.equal(buckets.at(-1)![0], Infinity);
  assert.equal(buckets.at(-1)![1], total(samples, `${name}_count`, labels));
}

for (const mode of MODES) {
  describe(`Prometheus metrics (${mode})`, { timeout: 180_000 }, () => {
    let app: TestApp;
    let admin: Headers;
    before(async () => {
      app = await startTestApp(mode, {
        listen: true,
        // Production limits (scale 1): DELETE /networks/:id has a burst of 2, so the third one is refused.
        config: { metricsPort: 0, security: { ...loadSecurityConfig({}, 'test'), rateLimitScale: 1 } },
      });
      admin = await adminHeaders(app);
    });
    after(async () => app?.close());

    const scrape = async () => {
      const r = await get(`${app.url}/metrics`, admin);
      assert.equal(r.status, 200, r.body);
      assert.match(r.type, /^text\/plain; version=0\.0\.4/);
      return parseMetrics(r.body);
    };

    it('exports every series after real traffic', async () => {
      const inject = (method: string, url: string, payload?: string | object, headers: Headers = admin) =>
        app.app!.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
      const imported = await inject('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), { ...admin, 'content-type': 'text/plain' });
      assert.equal(imported.statusCode, 201, imported.body);
      const net = json(imported).data.id as string;
      const sync = await inject('POST', `/api/v1/networks/${net}/powerflow`, {});
      assert.equal(sync.statusCode, 200, sync.body);
      const queued = await inject('POST', `/api/v1/networks/${net}/powerflow`, { async: true, method: 'fast_decoupled' });
      assert.equal(queued.statusCode, 202, queued.body);
      assert.equal(await waitForTaskStatus(app, admin, json(queued).data.task_id, 'completed', 6000), 'completed');
      for (const path of ['/api/v1/no-such-thing', '/api/v1/also/missing/1', '/api/v1/also/missing/2']) assert.equal((await inject('GET', path)).statusCode, 404);
      const deletes = [];
      for (let i = 0; i < 3; i++) deletes.push((await inject('DELETE', `/api/v1/networks/net_missing${i}`)).statusCode);
      assert.deepEqual(deletes, [404, 404, 429]);

      const before = await scrape();
      assert.equal(total(before, 'gridops_live_connections', { transport: 'sse' }), 0);
      const stream = await openSse(`${app.url}/api/v1/events/stream?topics=task`, admin);
      assert.equal(stream.status, 200);
      const open = await scrape();
      assert.equal(total(open, 'gridops_live_connections', { transport: 'sse' }), 1, 'one SSE connection open');
      stream.close();
      // The gauge goes down when the server sees the connection end: wait for that state, not a time.
      // (Polled on the METRICS_PORT listener, which no rate limit meters.)
      const sideGauge = async () => total(parseMetrics((await get(app.metricsUrl!)).body), 'gridops_live_connections', { transport: 'sse' });
      for (let i = 0; (await sideGauge()) !== 0; i++) {
        assert.ok(i < 3000, 'the SSE gauge returns to 0 after the connection closed');
        await new Promise((r) => setTimeout(r, 10));
      }

      // Tasks are counted when their end is announced, which can trail the stored status a moment.
      for (let i = 0; total(parseMetrics((await get(app.metricsUrl!)).body), 'gridops_tasks_total', { kind: 'powerflow', status: 'completed' }) < 2; i++) {
        assert.ok(i < 3000, 'both power flows are counted');
        await new Promise((r) => setTimeout(r, 10));
      }
      const s = await scrape();
      // HTTP: by route pattern; the three unknown URLs share one label.
      assertHistogram(s, 'http_request_duration_seconds', { method: 'POST', route: '/api/v1/networks/:id/powerflow', status: '200' });
      assert.equal(total(s, 'http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/networks/:id/powerflow', status: '202' }), 1);
      assert.equal(total(s, 'http_request_duration_seconds_count', { method: 'GET', route: 'unmatched', status: '404' }), 3);
      assert.ok(!s.some((x) => x.labels.route?.includes('no-such-thing') || x.labels.route?.includes('missing')), 'no route label per unknown URL');
      // Tasks and solves: the two power flows ran in this process (embedded: in-process queue; distributed: ROLE=all consumes).
      assert.equal(total(s, 'gridops_tasks_total', { kind: 'powerflow', status: 'completed' }), 2);
      assertHistogram(s, 'gridops_task_duration_seconds', { kind: 'powerflow', method: 'fast_decoupled' });
      assert.equal(total(s, 'gridops_solver_iterations_count', { method: 'newton_raphson' }), 1);
      assert.equal(total(s, 'gridops_solve_duration_seconds_count', { method: 'fast_decoupled' }), 1);
      assert.ok(total(s, 'gridops_solver_iterations_sum', { method: 'newton_raphson' }) >= 1);
      // The queue is empty again; the rate limit refused one request on the endpoint layer.
      assert.equal(total(s, 'gridops_queue_depth', { tenant: 'default' }), 0);
      assert.equal(total(s, 'gridops_rate_limit_rejections_total', { layer: 'endpoint' }), 1);
      // Events reached the live hub (the SSE stream subscribed it): lag observed per topic.
      assert.ok(find(s, 'gridops_event_publish_lag_seconds_count').length > 0, 'publish lag observed');
      // Default process metrics, with the role label.
      for (const name of ['process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
        assert.ok(find(s, name).length === 1, `${name} exported`);
        assert.equal(find(s, name)[0]!.labels.role, 'all');
      }
    });

    it('counts queued tasks per tenant while they wait', async () => {
      const quota = (n: number) => app.app!.inject({ method: 'PUT', url: '/api/v1/admin/tenants/default/quota', headers: admin, payload: { concurrent_powerflow: n, reason: 'metrics test: hold tasks in the queue' } });
      assert.equal((await quota(0)).statusCode, 200);
      try {
        const nets = await app.app!.inject({ method: 'GET', url: '/api/v1/networks', headers: admin });
        const net = json(nets).data[0].id as string;
        for (let i = 0; i < 2; i++) assert.equal((await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${net}/powerflow`, headers: admin, payload: { async: true } })).statusCode, 202);
        assert.equal(total(await scrape(), 'gridops_queue_depth', { tenant: 'default', state: 'queued' }), 2);
      } finally {
        assert.equal((await quota(100)).statusCode, 200);
      }
    });

    it('answers /metrics to admins only on the API listener, and without credentials on METRICS_PORT', async () => {
      assert.equal((await get(`${app.url}/metrics`)).status, 401);
      for (const role of ['operator', 'viewer', 'auditor'] as const) {
        const r = await get(`${app.url}/metrics`, await tokenFor(app, role));
        assert.equal(r.status, 403, `${role}: ${r.body}`);
        assert.equal(JSON.parse(r.body).error.code, 'FORBIDDEN');
      }
      assert.ok(app.metricsUrl, 'METRICS_PORT=0 started a listener');
      const side = await get(app.metricsUrl!);
      assert.equal(side.status, 200);
      assert.ok(parseMetrics(side.body).some((x) => x.name === 'http_request_duration_seconds_count'));
      assert.equal((await get(app.metricsUrl!.replace('/metrics', '/other'))).status, 404);
    });
  });
}

describe('Prometheus metrics of a ROLE=worker process', { timeout: 180_000 }, () => {
  let app: TestApp;
  let dataDir: string;
  before(async () => {
    app = await startTestApp('distributed', { config: { role: 'api' } });
    dataDir = mkdtempSync(join(tmpdir(), 'gridops-metrics-'));
  });
  after(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exposes the tasks it ran on its METRICS_PORT listener', async () => {
    const w = await spawnGridops({
      NODE_ENV: 'test', ROLE: 'worker', DATABASE_URL: PG_URL, REDIS_URL, GRIDOPS_DB_SCHEMA: app.schema!, GRIDOPS_REDIS_PREFIX: app.prefix!,
      WORKERS: '1', DATA_DIR: dataDir, METRICS_PORT: '0',
    });
    try {
      assert.ok(w.metricsUrl, 'the worker reports its metrics listener');
      const admin = await adminHeaders(app);
      const imported = await app.app!.inject({ method: 'POST', url: '/api/v1/networks/import?format=matpower', headers: { ...admin, 'content-type': 'text/plain' }, payload: readFileSync(join(CASES_DIR, 'case14.m'), 'utf8') });
      const queued = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${json(imported).data.id}/powerflow`, headers: admin, payload: { async: true } });
      assert.equal(queued.statusCode, 202, queued.body);
      assert.equal(await waitForTaskStatus(app, admin, json(queued).data.task_id, 'completed', 6000), 'completed');
      // The worker counts a task once its events are out, just after the row says completed: wait for that state.
      let s = parseMetrics((await get(w.metricsUrl!)).body);
      for (let i = 0; total(s, 'gridops_tasks_total', { kind: 'powerflow', status: 'completed', role: 'worker' }) === 0; i++) {
        assert.ok(i < 3000, 'the worker counts the task it ran');
        await new Promise((r) => setTimeout(r, 10));
        s = parseMetrics((await get(w.metricsUrl!)).body);
      }
      assert.equal(total(s, 'gridops_tasks_total', { kind: 'powerflow', status: 'completed', role: 'worker' }), 1);
      assert.equal(total(s, 'gridops_solver_iterations_count', { method: 'newton_raphson' }), 1);
      assert.ok(find(s, 'process_cpu_seconds_total', { role: 'worker' }).length === 1);
    } finally {
      await w.stop();
    }
  });
});
