// GraphQL subscriptions over the graphql-ws protocol at /graphql with the real
// graphql-ws client on a socket: authentication by the token connection
// parameter, each subscription of SPEC 6.2, tenant isolation, replay after a
// reconnect, and powerFlowProgress delivering every iteration of a solve run by
// a separate worker process (distributed) or by the API process (embedded).
import { describe, it as test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnGridops, type GridopsProcess } from './helpers/process.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MODES, PG_URL, REDIS_URL, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { Redis } from 'ioredis';
import { appendEvent } from '../src/domain/eventLog.js';
import { raiseAlarm } from '../src/domain/alarms.js';
import { collect, gql, ok, sleep, wsClient, type WsClient } from './graphql-helpers.js';

// Every test ends within a minute unless it says otherwise (a lost message must fail, not hang).
type TestFn = () => Promise<void>;
function it(name: string, a: { timeout?: number } | TestFn, b?: TestFn) {
  const [opts, fn] = typeof a === 'function' ? [{}, a] : [a, b!];
  return test(name, { timeout: 60_000, ...opts }, fn);
}

const tokenOf = (h: Record<string, string>) => h.authorization.replace(/^Bearer /, '');
/** A subscription is registered on the server once its subscribe message was handled; the protocol has no ack for it. */
const SETTLE_MS = 300;

async function importCase(app: TestApp, h: Record<string, string>, c: string): Promise<string> {
  const res = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/import?format=matpower&name=${c}`, headers: { ...h, 'content-type': 'text/plain' }, payload: readFileSync(join(CASES_DIR, `${c}.m`), 'utf8') });
  assert.equal(res.statusCode, 201, res.body);
  return json(res).data.id as string;
}

const SMALL = {
  name: 'ws-small',
  buses: [{ id: 1, type: 'SLACK' }, { id: 2, type: 'PQ' }],
  branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
  generators: [{ bus: 1, mw: 10 }],
  loads: [{ bus: 2, mw: 9 }],
};

for (const mode of MODES) {
  describe(`GraphQL subscriptions over graphql-ws (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    let token: string;
    let case9: string;
    const clients: WsClient[] = [];
    const connect = (params: Record<string, unknown> | undefined, opts: { retry?: boolean } = {}) => {
      const c = wsClient(app, params, opts);
      clients.push(c);
      return c;
    };
    const q = (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = h) => gql(app, query, variables, headers);

    before(async () => {
      app = await startTestApp(mode, { listen: true });
      h = await adminHeaders(app);
      token = tokenOf(h);
      case9 = await importCase(app, h, 'case9');
    });
    // Each test closes its connections: a user may hold at most 5 WebSocket connections (SPEC 8.1).
    afterEach(async () => {
      for (const c of clients.splice(0)) await c.client.dispose();
      await sleep(100);
    });
    after(async () => app?.close());

    it('refuses a connection without a valid token: close 4401 UNAUTHENTICATED', async () => {
      let c = connect(undefined);
      let e = await c.closed;
      assert.equal(e.code, 4401);
      assert.match(e.reason, /^UNAUTHENTICATED: /);
      c = connect({ token: 'not.a.token' });
      e = await c.closed;
      assert.equal(e.code, 4401);
      // A valid token of another tenant naming tenant default: 4403.
      const other = tokenOf(await tokenFor(app, 'operator', `wst-${mode}`));
      c = connect({ token: other, tenantId: 'default' });
      e = await c.closed;
      assert.equal(e.code, 4403);
      assert.match(e.reason, /^FORBIDDEN: /);
    });

    it('acknowledges with the schema version; deprecated versions say so; unknown ones are refused', async () => {
      let c = connect({ token });
      assert.deepEqual(await c.acked, { schemaVersion: '2026-07' });
      c = connect({ token, schemaVersion: '2026-01' });
      const ack = await c.acked;
      assert.equal(ack!.schemaVersion, '2026-01');
      assert.deepEqual((ack!.deprecation as { deprecated: boolean }).deprecated, true);
      c = connect({ token, schemaVersion: '2031-01' });
      const e = await c.closed;
      assert.equal(e.code, 4400);
      assert.match(e.reason, /^VALIDATION_FAILED: unknown GraphQL schema version/);
    });

    it('runs queries and mutations over the socket too (same resolvers, audited)', async () => {
      const c = connect({ token });
      const r = collect(c.client, `mutation($i: NetworkInput!) { createNetwork(input: $i) { id name } }`, { i: { ...SMALL, name: 'over-ws' } });
      await r.completed;
      const id = r.items[0].data!.createNetwork.id;
      assert.match(id, /^net_/);
      const audit = ok(await q(`{ audit(action: "graphql createNetwork") { items { resourceId details } } }`)).audit.items;
      assert.ok(audit.some((a: { resourceId: string; details: { transport: string } }) => a.resourceId === id && a.details.transport === 'ws'));
      // Errors in 7.3 form.
      const bad = collect(c.client, `{ network(id: "net_missing000000") { id } }`);
      await bad.completed;
      assert.equal((bad.items[0].errors![0].extensions as { code: string }).code, 'NOT_FOUND');
      const invalid = collect(c.client, `{ nope }`);
      await invalid.completed;
      assert.equal(((invalid.error as { extensions: { code: string } }[])[0]).extensions.code, 'VALIDATION_FAILED');
    });

    it('networkChanged delivers the changes of one network (or all of the tenant)', async () => {
      const id = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'watched' } })).createNetwork.id;
      const c = connect({ token });
      await c.acked;
      const one = collect(c.client, `subscription($id: ID) { networkChanged(id: $id) { eventId networkId kind changes timestamp actor } }`, { id });
      const all = collect(c.client, `subscription { networkChanged { networkId kind } }`);
      await sleep(SETTLE_MS);
      ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'unwatched' } }));
      ok(await q(`mutation($id: ID!, $i: NetworkInput!) { updateNetwork(id: $id, input: $i) { id } }`, { id, i: { ...SMALL, name: 'watched-2' } }));
      await one.waitFor(1);
      await all.waitFor(2);
      const ev = one.items[0].data!.networkChanged;
      assert.equal(ev.networkId, id);
      assert.equal(ev.kind, 'updated');
      assert.equal(ev.changes.version, 2);
      assert.equal(ev.actor, app.config.adminUsername);
      assert.match(ev.eventId, /^evt_\d{16}$/);
      assert.deepEqual(all.items.map((x) => x.data!.networkChanged.kind), ['created', 'updated']);
      await sleep(200);
      assert.equal(one.items.length, 1, 'the other network is filtered out');
      one.stop();
      all.stop();
    });

    it('tenant isolation: a subscription never delivers another tenant\'s events', async () => {
      const tenantB = `wsb-${mode}`;
      const hb = await tokenFor(app, 'operator', tenantB);
      const a = connect({ token });
      const b = connect({ token: tokenOf(hb) });
      await Promise.all([a.acked, b.acked]);
      const sa = collect(a.client, `subscription { eventStream(topic: "topology") { kind networkId payload } }`);
      const sb = collect(b.client, `subscription { eventStream { topic kind networkId } }`);
      await sleep(SETTLE_MS);
      const inA = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'tenant-a' } })).createNetwork.id;
      const inB = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'tenant-b' } }, hb)).createNetwork.id;
      await sb.waitFor(1);
      await sa.waitFor(1);
      await sleep(300);
      assert.deepEqual(sb.items.map((x) => x.data!.eventStream.networkId), [inB]);
      assert.ok(sa.items.every((x) => x.data!.eventStream.networkId !== inB));
      assert.ok(sa.items.some((x) => x.data!.eventStream.networkId === inA));
      // An admin may act in tenant B (cross_tenant) with the tenantId connection parameter.
      const admin = connect({ token, tenantId: tenantB });
      await admin.acked;
      const sx = collect(admin.client, `{ networks { items { id } } }`);
      await sx.completed;
      assert.deepEqual(sx.items[0].data!.networks.items.map((n: { id: string }) => n.id), [inB]);
      // The audit topic needs the audit permission.
      const viewer = connect({ token: tokenOf(await tokenFor(app, 'viewer')) });
      const au = collect(viewer.client, `subscription { eventStream(topic: "audit") { id } }`);
      await au.completed;
      assert.equal((au.items[0].errors![0].extensions as { code: string }).code, 'FORBIDDEN');
      // Another tenant's task cannot be followed either.
      const task = ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id, async: true) { taskId } }`, { id: case9 })).runPowerFlow.taskId;
      const p = collect(b.client, `subscription($t: ID!) { powerFlowProgress(taskId: $t) { iteration } }`, { t: task });
      await p.completed;
      assert.equal((p.items[0].errors![0].extensions as { code: string }).code, 'NOT_FOUND');
      sa.stop();
      sb.stop();
    });

    it('replay: the latest 100 stored events first, then live; after a reconnect, after: <last eventId> gives what was missed', async () => {
      for (let i = 0; i < 110; i++) await appendEvent(app.services.db, app.services.bus, { tenantId: 'default', topic: 'system', kind: 'test.tick', payload: { i } });
      const c = connect({ token });
      const s = collect(c.client, `subscription { eventStream(topic: "system", replay: true) { id sequence kind payload } }`);
      await s.waitFor(100);
      const replayed = s.items.map((x) => x.data!.eventStream.payload.i);
      assert.equal(replayed.length, 100);
      assert.deepEqual(replayed, Array.from({ length: 100 }, (_, k) => k + 10), 'the latest 100, oldest first');
      await appendEvent(app.services.db, app.services.bus, { tenantId: 'default', topic: 'system', kind: 'test.tick', payload: { i: 110 } });
      await s.waitFor(101);
      assert.equal(s.items[100].data!.eventStream.payload.i, 110);
      const lastSeen = s.items[100].data!.eventStream.id;

      // The client goes away; events happen; it reconnects and asks for what it missed.
      await c.client.dispose();
      for (let i = 111; i < 114; i++) await appendEvent(app.services.db, app.services.bus, { tenantId: 'default', topic: 'system', kind: 'test.tick', payload: { i } });
      const c2 = connect({ token });
      const s2 = collect(c2.client, `subscription($after: ID) { eventStream(topic: "system", after: $after) { payload } }`, { after: lastSeen });
      await s2.waitFor(3);
      await sleep(200);
      assert.deepEqual(s2.items.map((x) => x.data!.eventStream.payload.i), [111, 112, 113]);
      // Without replay only live events arrive.
      const s3 = collect(c2.client, `subscription { eventStream(topic: "system") { payload } }`);
      await sleep(SETTLE_MS);
      await appendEvent(app.services.db, app.services.bus, { tenantId: 'default', topic: 'system', kind: 'test.tick', payload: { i: 114 } });
      await s3.waitFor(1);
      assert.deepEqual(s3.items.map((x) => x.data!.eventStream.payload.i), [114]);
      s2.stop();
      s3.stop();
    });

    it('alarmStream filters by minimum severity; replay works for it too', async () => {
      const c = connect({ token });
      await c.acked;
      const s = collect(c.client, `subscription { alarmStream(severity: ERROR) { id severity status type message networkId source { type id } raisedAt } }`);
      await sleep(SETTLE_MS);
      await raiseAlarm(app.services, 'default', { type: 'ws-test', severity: 'warn', message: 'minor', network_id: case9, source: { type: 'bus', id: '1' } });
      const crit = await raiseAlarm(app.services, 'default', { type: 'ws-test', severity: 'critical', message: 'major', network_id: case9, source: { type: 'bus', id: '2' } });
      await s.waitFor(1);
      await sleep(200);
      assert.equal(s.items.length, 1);
      const a = s.items[0].data!.alarmStream;
      assert.equal(a.id, crit.id);
      assert.equal(a.severity, 'CRITICAL');
      assert.equal(a.status, 'ACTIVE');
      assert.equal(a.networkId, case9);
      assert.deepEqual(a.source, { type: 'bus', id: '2' });
      const r = collect(c.client, `subscription { alarmStream(severity: WARN, replay: true) { message } }`);
      await r.waitFor(2);
      assert.deepEqual(r.items.slice(-2).map((x) => x.data!.alarmStream.message), ['minor', 'major']);
      s.stop();
      r.stop();
    });

    it('agentStatusChanged reports old and new status', async () => {
      const agent = ok(await q(`mutation($i: AgentInput!) { createAgent(input: $i) { id } }`, { i: { name: 'ws-agent', type: 'DISPATCH', autoStart: true } })).createAgent.id;
      const c = connect({ token });
      await c.acked;
      const s = collect(c.client, `subscription($id: ID) { agentStatusChanged(id: $id) { agentId oldStatus newStatus reason timestamp } }`, { id: agent });
      await sleep(SETTLE_MS);
      ok(await q(`mutation($id: ID!) { pauseAgent(id: $id) { status } }`, { id: agent }));
      await s.waitFor(1);
      const e = s.items[0].data!.agentStatusChanged;
      assert.deepEqual([e.agentId, e.oldStatus, e.newStatus], [agent, 'RUNNING', 'PAUSED']);
      assert.ok(e.timestamp);
      s.stop();
    });

    it('powerFlowProgress streams every iteration of a running solve and completes with the task', { timeout: 120_000 }, async () => {
      const big = await importCase(app, h, 'case2383wp');
      const c = connect({ token });
      await c.acked;
      const task = ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id, async: true, options: { flatStart: true }) { taskId status } }`, { id: big })).runPowerFlow;
      const s = collect(c.client, `subscription($t: ID!) { powerFlowProgress(taskId: $t) { taskId iteration maxIterations mismatch timestamp } }`, { t: task.taskId });
      await s.completed;
      assert.equal(s.error, undefined);
      const done = ok(await q(`query($id: ID!) { task(id: $id) { status iterations } }`, { id: task.taskId })).task;
      assert.equal(done.status, 'CONVERGED');
      const its = s.items.map((x) => x.data!.powerFlowProgress);
      assert.equal(its.length, done.iterations, `progress messages ${its.length}, iterations ${done.iterations}`);
      assert.deepEqual(its.map((p) => p.iteration), Array.from({ length: done.iterations }, (_, k) => k + 1));
      assert.ok(its.every((p) => p.taskId === task.taskId && p.maxIterations === 50 && p.mismatch >= 0));
      assert.ok(its[its.length - 1].mismatch < 1e-8);
      // Subscribing to a finished task: its last progress, then complete.
      const late = collect(c.client, `subscription($t: ID!) { powerFlowProgress(taskId: $t) { iteration } }`, { t: task.taskId });
      await late.completed;
      assert.ok(late.items.length >= 1);
      assert.equal(late.items[late.items.length - 1].data!.powerFlowProgress.iteration, done.iterations);
    });

    it('listens to solver progress only while a client is connected; a client connecting after that gets every iteration', async () => {
      const listening = () => app.services.progress.listening || app.services.live.receivesProgress;
      const untilQuiet = async () => {
        for (let i = 0; i < 500 && listening(); i++) await sleep(10); // the server's side of the closes
      };
      const redis = mode === 'distributed' ? new Redis(REDIS_URL) : undefined;
      // Subscribers of this app's progress channel in Redis (its prefix is the test's own).
      const numsub = async () => Number(((await redis!.pubsub('NUMSUB', `${app.services.config.redisPrefix}:bus:progress`)) as [string, number])[1]);
      try {
        await untilQuiet();
        assert.equal(app.services.progress.listening, false, 'no client connected: the GraphQL hub does not listen');
        assert.equal(app.services.live.receivesProgress, false, 'nor the SSE / WebSocket hub');
        if (redis) assert.equal(await numsub(), 0, 'this process has left the Redis channel');
        for (const round of ['first', 'second']) {
          const c = connect({ token });
          await c.acked;
          assert.equal(app.services.progress.listening, true, `${round} client: listening from its ack`);
          if (redis) assert.equal(await numsub(), 1);
          const task = ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id, async: true, options: { flatStart: true }) { taskId } }`, { id: case9 })).runPowerFlow;
          const s = collect(c.client, `subscription($t: ID!) { powerFlowProgress(taskId: $t) { taskId iteration } }`, { t: task.taskId });
          await s.completed;
          assert.equal(s.error, undefined);
          const done = ok(await q(`query($id: ID!) { task(id: $id) { status iterations } }`, { id: task.taskId })).task;
          assert.ok(done.iterations >= 1);
          const its = s.items.map((x) => x.data!.powerFlowProgress.iteration);
          assert.deepEqual(its, Array.from({ length: done.iterations }, (_, k) => k + 1), `${round} client: every iteration`);
          await c.client.dispose();
          await untilQuiet();
          assert.equal(listening(), false, `${round} client gone: not listening`);
          if (redis) assert.equal(await numsub(), 0);
        }
      } finally {
        redis?.disconnect();
      }
    });

    it('at most 5 connections per user (SPEC 8.1): the sixth is closed with 4429 RATE_LIMITED', async () => {
      const five = Array.from({ length: 5 }, () => connect({ token }));
      await Promise.all(five.map((c) => c.acked));
      const sixth = connect({ token });
      const e = await sixth.closed;
      assert.equal(e.code, 4429);
      assert.match(e.reason, /^RATE_LIMITED: /);
      await five[0].client.dispose();
      await sleep(200);
      assert.deepEqual(await connect({ token }).acked, { schemaVersion: '2026-07' }, 'a released slot is free again');
    });

    it('at most 50 operations at once on one connection', async () => {
      const c = connect({ token });
      await c.acked;
      const subs = Array.from({ length: 50 }, () => collect(c.client, `subscription { eventStream(topic: "heartbeat") { id } }`));
      await sleep(SETTLE_MS);
      const extra = collect(c.client, `subscription { eventStream(topic: "heartbeat") { id } }`);
      await extra.completed;
      assert.equal(((extra.error as { extensions: { code: string } }[])[0]).extensions.code, 'RATE_LIMITED');
      for (const s of subs) s.stop();
    });
  });
}

describe('GraphQL subscriptions: the connection ends with its token (embedded)', () => {
  let app: TestApp;
  before(async () => {
    const { loadConfig } = await import('../src/config.js');
    const base = loadConfig({ NODE_ENV: 'test' });
    app = await startTestApp('embedded', { listen: true, config: { security: { ...base.security, tokenTtlSeconds: 2 } } });
  });
  after(async () => app?.close());

  it('an expired access token closes the socket with 4401', { timeout: 30_000 }, async () => {
    const c = wsClient(app, { token: tokenOf(await adminHeaders(app)) });
    await c.acked;
    const e = await c.closed;
    assert.equal(e.code, 4401);
    assert.match(e.reason, /^UNAUTHENTICATED: the access token expired/);
    await c.client.dispose();
  });
});

describe('powerFlowProgress from a separate worker process (distributed: ROLE=api here, ROLE=worker child)', () => {
  let app: TestApp;
  let h: Record<string, string>;
  let worker: GridopsProcess | undefined;
  let dataDir: string;
  const clients: WsClient[] = [];

  before(async () => {
    app = await startTestApp('distributed', { listen: true, config: { role: 'api' } });
    h = await adminHeaders(app);
    dataDir = mkdtempSync(join(tmpdir(), 'gridops-gql-worker-'));
    worker = await spawnGridops({
      NODE_ENV: 'test', ROLE: 'worker', DATABASE_URL: PG_URL, REDIS_URL,
      GRIDOPS_DB_SCHEMA: app.schema!, GRIDOPS_REDIS_PREFIX: app.prefix!, WORKERS: '1', DATA_DIR: dataDir, LOG_LEVEL: 'info',
    });
  });

  after(async () => {
    for (const c of clients) await c.client.dispose();
    await worker?.stop(15_000);
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every Newton-Raphson and fast-decoupled iteration solved in the worker reaches the API process\'s subscriber', { timeout: 180_000 }, async () => {
    assert.equal(app.services.solver, undefined, 'the API process has no solver: the worker solves');
    const c = wsClient(app, { token: tokenOf(h) });
    clients.push(c);
    await c.acked;
    for (const [name, method, options] of [['case2383wp', 'NEWTON_RAPHSON', { flatStart: true }], ['case9241pegase', 'NEWTON_RAPHSON', {}], ['case2383wp', 'FAST_DECOUPLED', { maxIterations: 100 }]] as const) {
      const net = await importCase(app, h, name);
      const task = ok(await gql(app, `mutation($id: ID!, $m: PowerFlowMethod, $o: PowerFlowOptions) { runPowerFlow(id: $id, async: true, method: $m, options: $o) { taskId status } }`, { id: net, m: method, o: options }, h)).runPowerFlow;
      assert.equal(task.status, 'QUEUED');
      const s = collect(c.client, `subscription($t: ID!) { powerFlowProgress(taskId: $t) { taskId iteration maxIterations mismatch timestamp } }`, { t: task.taskId });
      await s.completed;
      assert.equal(s.error, undefined);
      const done = ok(await gql(app, `query($id: ID!) { task(id: $id) { status iterations } }`, { id: task.taskId }, h)).task;
      const its = s.items.map((x) => x.data!.powerFlowProgress);
      assert.ok(done.iterations > 1, `${name} ${method}: ${done.status} after ${done.iterations}`);
      assert.equal(its.length, done.iterations, `${name} ${method}: ${its.length} progress messages for ${done.iterations} iterations`);
      assert.deepEqual(its.map((p) => p.iteration), Array.from({ length: done.iterations }, (_, k) => k + 1));
      assert.equal(done.status, 'CONVERGED');
    }
    assert.ok(worker!.log.some((l) => l.includes('"gridops started"')));
  });

  it('a subscriber waiting before the solve starts receives the iterations live, as the worker solves them', { timeout: 180_000 }, async () => {
    const c = wsClient(app, { token: tokenOf(h) });
    clients.push(c);
    await c.acked;
    const net = await importCase(app, h, 'case9241pegase');
    // No power-flow slot for the tenant: the task waits in the queue until the subscription is in place.
    // through the admin API: its quota_changed notice is what the direct path's kept quota listens to
    const setQuota = async (n: number) => {
      const r = await app.app!.inject({ method: 'PUT', url: '/api/v1/admin/tenants/default/quota', headers: await adminHeaders(app),
        payload: { concurrent_powerflow: n, reason: 'graphql subscriptions test: hold the task in the queue' } });
      assert.equal(r.statusCode, 200, r.body);
    };
    await setQuota(0);
    const task = ok(await gql(app, `mutation($id: ID!) { runPowerFlow(id: $id, async: true, options: { flatStart: true }) { taskId } }`, { id: net }, h)).runPowerFlow;
    const received: number[] = [];
    const s = collect(c.client, `subscription($t: ID!) { powerFlowProgress(taskId: $t) { iteration } }`, { t: task.taskId });
    await sleep(500);
    assert.equal(s.items.length, 0);
    const subscribedAt = Date.now();
    await setQuota(100);
    app.services.tasks.kick();
    await s.completed;
    for (const x of s.items) received.push(x.data!.powerFlowProgress.iteration);
    const t = json(await app.app!.inject({ method: 'GET', url: `/api/v1/tasks/${task.taskId}`, headers: h })).data;
    assert.ok(Date.parse(t.started_at) >= subscribedAt - 1000, 'the solve started after the subscription');
    assert.equal(t.status, 'completed');
    assert.equal(received.length, t.summary.iterations);
    assert.deepEqual(received, Array.from({ length: t.summary.iterations }, (_, k) => k + 1));
  });
});
