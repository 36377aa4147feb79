// The WebSocket door at /ws (CONTRACT "Events: WebSocket protocol at /ws",
// docs/websocket.md) with a real `ws` client in both modes: subprotocol
// negotiation, the authentication variants, subscribe filters, commands through
// the REST code path, ping/pong, malformed frames, per-connection and per-user /
// tenant limits, tenant isolation, and fan-out between two processes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders, apiKeyFor, createTenant, createUser, loginAs, tokenFor } from './helpers/auth.js';
import { loadRealtimeConfig, type RealtimeConfig } from '../src/realtime/settings.js';
import { appendEvent, type NewEvent } from '../src/domain/eventLog.js';
import { loadSecurityConfig } from '../src/security/settings.js';

type Headers = Record<string, string>;
type Msg = Record<string, any>;

interface Client {
  ws: WebSocket;
  protocol: string;
  upgradeHeaders: Record<string, string | string[] | undefined>;
  messages: Msg[];
  closed: Promise<{ code: number; reason: string }>;
  send(m: unknown): void;
  next(pred: (m: Msg) => boolean, ms?: number, what?: string): Promise<Msg>;
  close(): void;
}

interface Refused {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

function connect(base: string, opts: { protocols?: string[]; headers?: Headers; query?: string } = {}): Promise<Client | Refused> {
  const url = base.replace(/^http/, 'ws') + '/ws' + (opts.query ? `?${opts.query}` : '');
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, opts.protocols ?? ['gridops.v1'], { headers: opts.headers ?? {} });
    const messages: Msg[] = [];
    let upgradeHeaders: Client['upgradeHeaders'] = {};
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('upgrade', (res) => { upgradeHeaders = res.headers; });
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body ? JSON.parse(body) : undefined }));
    });
    ws.on('error', (e) => { if (!('status' in (e as object))) reject(e); });
    ws.on('open', () => {
      resolve({
        ws, protocol: ws.protocol, upgradeHeaders, messages, closed,
        send: (m) => ws.send(typeof m === 'string' || Buffer.isBuffer(m) ? (m as string) : JSON.stringify(m)),
        async next(pred, ms = 5000, what = 'message') {
          const until = Date.now() + ms;
          for (;;) {
            const hit = messages.find(pred);
            if (hit) return hit;
            if (Date.now() > until) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(messages).slice(0, 800)}`);
            await new Promise((r) => setTimeout(r, 10));
          }
        },
        close: () => ws.close(),
      });
    });
  });
}

async function open(base: string, opts: Parameters<typeof connect>[1] = {}): Promise<Client> {
  const c = await connect(base, opts);
  if (!('ws' in c)) throw new Error(`upgrade refused: ${c.status} ${JSON.stringify(c.body)}`);
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const bearer = (h: Headers) => h.authorization.slice('Bearer '.length);

function realtime(over: Partial<RealtimeConfig> = {}): RealtimeConfig {
  return { ...loadRealtimeConfig({}), wsAuthTimeoutMs: 400, wsAbuseLimit: 60, ...over };
}

function emit(app: TestApp, e: Partial<NewEvent>) {
  return appendEvent(app.services.db, app.services.bus, { tenantId: 'default', topic: 'constraint', kind: 'test.ws', payload: {}, ...e } as NewEvent);
}

async function rest(base: string, method: string, path: string, headers: Headers, body?: unknown) {
  const r = await fetch(base + path, { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

for (const mode of MODES) {
  describe(`WebSocket /ws (${mode})`, () => {
    let app: TestApp;
    let base: string;
    let admin: Headers;
    const clients: Client[] = [];
    const ws = async (opts: Parameters<typeof connect>[1] = {}) => {
      const c = await open(base, { headers: admin, ...opts });
      clients.push(c);
      return c;
    };

    before(async () => {
      app = await startTestApp(mode, { listen: true, config: { realtime: realtime() } });
      base = app.url!;
      admin = await adminHeaders(app);
    });
    after(async () => {
      for (const c of clients) c.close();
      await app?.close();
    });

    it('negotiates the subprotocol: the highest gridops.vN offered that is served', async () => {
      let c = await ws({ protocols: ['gridops.v2', 'gridops.v1'] });
      assert.equal(c.protocol, 'gridops.v1');
      assert.equal(c.upgradeHeaders['x-ratelimit-concurrent'], '1');
      c.close();
      c = await ws({ protocols: ['x-other', 'gridops.v1'] });
      assert.equal(c.protocol, 'gridops.v1');
      c.close();
      c = await ws({ protocols: [] });
      assert.equal(c.protocol, '', 'no subprotocol offered: accepted, speaking v1');
      c.send({ type: 'ping' });
      await c.next((m) => m.type === 'pong');
      c.close();
      for (const protocols of [['gridops.v2'], ['graphql-ws']]) {
        const r = await connect(base, { protocols, headers: admin });
        assert.ok(!('ws' in r));
        assert.equal((r as Refused).status, 400);
        assert.deepEqual((r as Refused).body.error.details.supported, ['gridops.v1']);
      }
    });

    it('authenticates by header, ?token=, X-API-Key or a first auth frame; refuses bad credentials', async () => {
      const viewer = await tokenFor(app, 'viewer');
      for (const opts of [{ headers: viewer }, { headers: {}, query: `token=${encodeURIComponent(bearer(viewer))}` }, { headers: (await apiKeyFor(app, 'viewer')).headers }]) {
        const c = await ws(opts);
        c.send({ type: 'subscribe', id: 'a' });
        await c.next((m) => m.type === 'subscribed' && m.id === 'a');
        c.close();
      }
      // First frame.
      const f = await ws({ headers: {} });
      f.send({ type: 'subscribe', id: 'early' });
      const early = await f.next((m) => m.id === 'early');
      assert.deepEqual([early.type, early.code], ['error', 'UNAUTHORIZED']);
      f.send({ type: 'auth', token: bearer(viewer) });
      f.send({ type: 'subscribe', id: 'later' });
      assert.equal((await f.next((m) => m.id === 'later')).type, 'subscribed');
      // Token refresh with another token of the same user is accepted; another principal is not.
      f.send({ type: 'auth', token: bearer(viewer) });
      f.send({ type: 'auth', token: bearer(admin), id: 'swap' });
      const swap = await f.next((m) => m.id === 'swap');
      assert.equal(swap.code, 'TENANT_MISMATCH');
      f.close();
      // Bad credentials on the upgrade: 401 before upgrading.
      const bad = await connect(base, { headers: { authorization: 'Bearer nope' } });
      assert.equal((bad as Refused).status, 401);
      // Bad token in the frame: error, then close 4401.
      const g = await ws({ headers: {} });
      g.send({ type: 'auth', token: 'nope' });
      const closed = await g.closed;
      assert.equal(closed.code, 4401);
      assert.equal(g.messages[0].code, 'UNAUTHORIZED');
      // Nothing within the auth timeout: close 4401.
      const h = await ws({ headers: {} });
      const t0 = Date.now();
      assert.equal((await h.closed).code, 4401);
      assert.ok(Date.now() - t0 >= 300);
    });

    it('delivers events per matching subscription in the contract shape; unsubscribe stops them', async () => {
      const c = await ws();
      c.send({ type: 'subscribe', id: 'net', topics: ['alarm', 'constraint'], network_id: 'net_ws1' });
      c.send({ type: 'subscribe', id: 7, topics: 'alarm', severity: 'critical' });
      c.send({ type: 'subscribe', id: 'agent', agent_id: 'agent_ws1' });
      await c.next((m) => m.type === 'subscribed' && m.id === 'agent');
      const e1 = await emit(app, { topic: 'alarm', networkId: 'net_ws1', severity: 3 });
      const e2 = await emit(app, { topic: 'constraint', networkId: 'net_ws1', severity: 1 });
      await emit(app, { topic: 'alarm', networkId: 'net_other', severity: 1 });
      const e4 = await emit(app, { topic: 'agent', agentId: 'agent_ws1', payload: { agent_id: 'agent_ws1' } });
      await c.next((m) => m.type === 'event' && m.event.id === e4.id);
      await sleep(50);
      const got = c.messages.filter((m) => m.type === 'event').map((m) => [m.subscription, m.event.id]);
      assert.deepEqual(got, [['net', e1.id], [7, e1.id], ['net', e2.id], ['agent', e4.id]]);
      const ev = c.messages.find((m) => m.type === 'event')!.event;
      assert.deepEqual(Object.keys(ev).sort(), ['id', 'kind', 'payload', 'timestamp', 'topic']);
      assert.equal(ev.topic, 'alarm');
      c.send({ type: 'unsubscribe', id: 'net' });
      assert.deepEqual(await c.next((m) => m.type === 'unsubscribed'), { type: 'unsubscribed', id: 'net' });
      c.send({ type: 'unsubscribe', id: 'net' });
      assert.equal((await c.next((m) => m.type === 'error' && m.id === 'net')).code, 'NOT_FOUND');
      const before = c.messages.length;
      await emit(app, { topic: 'constraint', networkId: 'net_ws1' });
      await sleep(100);
      assert.equal(c.messages.slice(before).filter((m) => m.type === 'event').length, 0);
      // Bad filters answer an error with the subscription id.
      c.send({ type: 'subscribe', id: 'bad', topics: ['nope'] });
      assert.equal((await c.next((m) => m.id === 'bad')).code, 'INVALID_FIELD');
      c.send({ type: 'subscribe', id: 'bad2', severity: 'loud' });
      assert.equal((await c.next((m) => m.id === 'bad2')).code, 'INVALID_FIELD');
      c.close();
      const viewer = await ws({ headers: await tokenFor(app, 'viewer') });
      viewer.send({ type: 'subscribe', id: 'aud', topics: ['audit'] });
      assert.equal((await viewer.next((m) => m.id === 'aud')).code, 'FORBIDDEN');
      viewer.close();
    });

    it('answers ping with pong and malformed frames with INVALID_REQUEST', async () => {
      const c = await ws();
      c.send({ type: 'ping' });
      assert.deepEqual(await c.next((m) => m.type === 'pong'), { type: 'pong' });
      c.send('not json');
      c.send('[1,2]');
      c.send({ id: 'x' });
      c.send({ type: 'dance', id: 'd' });
      c.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      c.send({ type: 'subscribe' });
      c.send({ type: 'command', id: 'c', agent_id: 'not-an-agent', command: 'status' });
      await sleep(200);
      const errors = c.messages.filter((m) => m.type === 'error');
      assert.equal(errors.length, 7, JSON.stringify(errors));
      assert.deepEqual(errors.slice(0, 6).map((e) => e.code), Array(6).fill('INVALID_REQUEST'));
      assert.equal(errors.find((e) => e.id === 'd')?.code, 'INVALID_REQUEST');
      assert.equal(errors.find((e) => e.id === 'c')?.code, 'INVALID_FIELD');
      assert.equal(c.ws.readyState, WebSocket.OPEN, 'malformed frames do not close the connection');
      c.close();
    });

    it('allows 50 subscriptions and 100 messages per second per connection; persistent floods are closed with 1008', async () => {
      const c = await ws();
      for (let i = 0; i < 51; i++) c.send({ type: 'subscribe', id: `s${i}` });
      const over = await c.next((m) => m.id === 's50');
      assert.equal(over.code, 'RATE_LIMITED');
      assert.equal(c.messages.filter((m) => m.type === 'subscribed').length, 50);
      c.send({ type: 'subscribe', id: 's3', topics: ['alarm'] });
      assert.ok(await c.next((m) => m.type === 'subscribed' && m.id === 's3' && c.messages.filter((x) => x.id === 's3').length === 2), 'replacing an id is not a new subscription');
      await sleep(1100);
      const d = await ws();
      for (let i = 0; i < 120; i++) d.send({ type: 'ping' });
      await d.next((m) => m.code === 'RATE_LIMITED', 3000, 'rate error');
      await sleep(100);
      const pongs = d.messages.filter((m) => m.type === 'pong').length;
      assert.ok(pongs >= 100 && pongs < 120, `pongs ${pongs}`);
      assert.equal(d.ws.readyState, WebSocket.OPEN);
      const e = await ws();
      for (let i = 0; i < 400; i++) e.send({ type: 'ping' });
      const closed = await e.closed;
      assert.equal(closed.code, 1008);
      c.close();
      d.close();
    });

    it('limits connections per user (5) and per tenant quota: 429 on the upgrade, 4429 after a frame auth', async () => {
      const u = await createUser(app, { username: `ws-limit-${mode}`, role: 'viewer' });
      const h = await loginAs(app, u.username, u.password);
      const five: Client[] = [];
      for (let i = 0; i < 5; i++) five.push(await ws({ headers: i % 2 ? h : await loginAs(app, u.username, u.password) }));
      const sixth = await connect(base, { headers: h });
      assert.equal((sixth as Refused).status, 429);
      assert.equal((sixth as Refused).headers['x-ratelimit-concurrent'], '5');
      assert.equal((sixth as Refused).body.error.code, 'RATE_LIMITED');
      assert.equal((sixth as Refused).body.error.details.scope, 'user');
      const late = await ws({ headers: {} });
      late.send({ type: 'auth', token: bearer(h) });
      assert.equal((await late.closed).code, 4429);
      assert.equal(late.messages[0].code, 'RATE_LIMITED');
      five[0].close();
      await five[0].closed;
      let again: Client | Refused | undefined;
      for (let i = 0; i < 50; i++) {
        again = await connect(base, { headers: h });
        if ('ws' in again) break;
        await sleep(20);
      }
      assert.ok(again && 'ws' in again, 'a closed connection frees its slot');
      clients.push(again as Client);
      for (const c of [...five, again as Client]) c.close();

      const tenant = `wq${mode.slice(0, 3)}`;
      await createTenant(app, tenant);
      const q = await rest(base, 'PUT', `/api/v1/admin/tenants/${tenant}/quota`, admin, { ws_connections: 2, reason: 'test' });
      assert.equal(q.status, 200);
      const a = await ws({ headers: await tokenFor(app, 'viewer', tenant) });
      const b = await ws({ headers: await tokenFor(app, 'operator', tenant) });
      const c = await connect(base, { headers: await tokenFor(app, 'viewer', tenant) });
      assert.equal((c as Refused).status, 429);
      assert.equal((c as Refused).body.error.details.scope, 'tenant');
      a.close();
      b.close();
    });

    it('runs commands through the REST code path (same result, permission, audit)', async () => {
      const operator = await tokenFor(app, 'operator');
      const created = await rest(base, 'POST', '/api/v1/agents', operator, { name: `ws-agent-${mode}`, type: 'dispatch' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const agentId = created.body.data.id;
      const viaRest = await rest(base, 'POST', `/api/v1/agents/${agentId}/command`, operator, { command: 'status' });
      assert.equal(viaRest.status, 200, JSON.stringify(viaRest.body));
      const c = await ws({ headers: operator });
      c.send({ type: 'command', id: 'c1', agent_id: agentId, command: 'status', priority: 'high' });
      const r = await c.next((m) => m.id === 'c1', 10000, 'command_result');
      assert.equal(r.type, 'command_result', JSON.stringify(r));
      assert.deepEqual(Object.keys(r.result).sort(), Object.keys(viaRest.body.data).sort());
      assert.equal(r.result.command, 'status');
      assert.equal(r.result.agent_id, agentId);
      assert.equal(r.result.priority, 'high');
      assert.deepEqual(r.result.requested_by, viaRest.body.data.requested_by, 'who sent it (four-eyes record)');
      assert.equal(r.result.requested_by.type, 'user');
      assert.equal(r.result.confirmed_by, null);
      c.send({ type: 'command', id: 'c2', agent_id: 'agent_doesnotexist', command: 'status' });
      assert.equal((await c.next((m) => m.id === 'c2')).code, 'NOT_FOUND');
      c.send({ type: 'command', id: 'c3', agent_id: agentId, command: 'fly' });
      const bad = await c.next((m) => m.id === 'c3');
      assert.equal(bad.type, 'error');
      const restBad = await rest(base, 'POST', `/api/v1/agents/${agentId}/command`, operator, { command: 'fly' });
      assert.equal(bad.code, restBad.body.error.code, 'the same error as REST');
      c.close();
      const v = await ws({ headers: await tokenFor(app, 'viewer') });
      v.send({ type: 'command', id: 'v1', agent_id: agentId, command: 'status' });
      assert.equal((await v.next((m) => m.id === 'v1')).code, 'FORBIDDEN');
      v.close();
      // Both the door's entry and the command's own entry are in the audit trail.
      const audit = await rest(base, 'GET', '/api/v1/audit?page_size=100', admin);
      const actions = (audit.body.data as { action: string; interface: string }[]).map((e) => `${e.action}|${e.interface}`);
      assert.ok(actions.includes('WS /ws command|websocket'), actions.join(','));
      assert.ok(actions.includes('agent.command.status|websocket'), actions.join(','));
    });

    it('keeps tenants apart; an admin with X-Tenant-Id on the upgrade reads another tenant', async () => {
      const tenant = `wi${mode.slice(0, 3)}`;
      await createTenant(app, tenant);
      const blueH = await tokenFor(app, 'operator', tenant);
      const blue = await ws({ headers: blueH });
      const def = await ws({ headers: await tokenFor(app, 'viewer') });
      const asAdmin = await ws({ headers: { ...admin, 'x-tenant-id': tenant } });
      for (const c of [blue, def, asAdmin]) c.send({ type: 'subscribe', id: 'all' });
      await Promise.all([blue, def, asAdmin].map((c) => c.next((m) => m.type === 'subscribed')));
      const b = await emit(app, { tenantId: tenant, topic: 'device', kind: 'test.iso' });
      const d = await emit(app, { topic: 'device', kind: 'test.iso' });
      await blue.next((m) => m.event?.id === b.id);
      await def.next((m) => m.event?.id === d.id);
      await asAdmin.next((m) => m.event?.id === b.id);
      await sleep(100);
      assert.ok(!blue.messages.some((m) => m.event?.id === d.id));
      assert.ok(!def.messages.some((m) => m.event?.id === b.id));
      assert.ok(!asAdmin.messages.some((m) => m.event?.id === d.id));
      const refused = await connect(base, { headers: { ...blueH, 'x-tenant-id': 'default' } });
      assert.equal((refused as Refused).status, 403);
      for (const c of [blue, def, asAdmin]) c.close();
    });
  });
}

describe('WebSocket across processes (distributed)', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await startTestApp('distributed', { listen: true, config: { realtime: realtime() } });
    b = await startTestApp('distributed', { listen: true, shared: { schema: a.schema!, prefix: a.prefix! }, keepData: true, config: { realtime: realtime() } });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('a client on one process receives events raised through the other; connections count across both', async () => {
    const admin = await adminHeaders(a);
    const c = await open(a.url!, { headers: admin });
    c.send({ type: 'subscribe', id: 'topo', topics: ['topology'] });
    await c.next((m) => m.type === 'subscribed');
    const r = await rest(b.url!, 'POST', '/api/v1/networks', admin, {
      name: 'ws-cross', buses: [{ id: 1, type: 'slack' }, { id: 2, type: 'pq' }], branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }], generators: [{ bus: 1, mw: 0 }], loads: [{ bus: 2, mw: 5 }],
    });
    assert.equal(r.status, 201);
    const ev = await c.next((m) => m.type === 'event' && m.event.payload.network_id === r.body.data.id);
    assert.equal(ev.subscription, 'topo');
    assert.equal(ev.event.kind, 'network.created');
    c.close();

    const u = await createUser(a, { username: 'ws-cross-limit', role: 'viewer' });
    const h = await loginAs(a, u.username, u.password);
    const conns: Client[] = [];
    for (const app of [a, b, a, b, a]) conns.push(await open(app.url!, { headers: h }));
    const sixth = await connect(b.url!, { headers: h });
    assert.equal((sixth as Refused).status, 429);
    for (const x of conns) x.close();
  });
});

describe('WebSocket connection-establishment rate (embedded)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('embedded', {
      listen: true,
      config: { realtime: realtime(), security: loadSecurityConfig({ RATE_LIMITS: JSON.stringify({ ip: { ws_connect: { rate: 1, burst: 2 } } }) }, 'test') },
    });
  });
  after(async () => app?.close());

  it('trips the per-address WebSocket establishment limit (L1) with 429 on the upgrade', async () => {
    const h = await adminHeaders(app);
    const a = await open(app.url!, { headers: h });
    const b = await open(app.url!, { headers: {} });
    const c = await connect(app.url!, { headers: h });
    assert.equal((c as Refused).status, 429);
    assert.equal((c as Refused).body.error.details.scope, 'ip');
    a.close();
    b.close();
  });
});
