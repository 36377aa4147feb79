// SSE at GET /api/v1/events/stream (SPEC 6.1, docs/sse.md) with real clients over
// HTTP: a raw stream reader (node:http) and the `eventsource` package (automatic
// reconnection with Last-Event-ID). Both modes; the distributed one also runs two
// API processes on one Redis/PostgreSQL and checks fan-out between them.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { EventSource } from 'eventsource';
import { MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders, createTenant, createUser, loginAs, tokenFor } from './helpers/auth.js';
import { loadRealtimeConfig, type RealtimeConfig } from '../src/realtime/settings.js';
import { appendEvent, type NewEvent } from '../src/domain/eventLog.js';
import { loadSecurityConfig } from '../src/security/settings.js';
import { tinyNetwork } from './helpers/rest.js';

type Headers = Record<string, string>;

interface SseEvent {
  type: string;
  id?: string;
  data: string;
  json: any;
}

interface SseConn {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  raw: string;
  events: SseEvent[];
  comments: string[];
  retry?: number;
  ended: Promise<void>;
  isEnded(): boolean;
  waitFor(pred: (events: SseEvent[]) => boolean, ms?: number, what?: string): Promise<void>;
  stored(): SseEvent[];
  close(): void;
}

/** A raw SSE reader: parses event blocks as the EventSource algorithm does. */
function openSse(base: string, path: string, headers: Headers = {}): Promise<SseConn> {
  return new Promise((resolve, reject) => {
    const req = http.get(base + path, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      let ended = false;
      let pending = '';
      const conn: SseConn = {
        status: res.statusCode ?? 0, headers: res.headers, body: '', raw: '', events: [], comments: [],
        ended: new Promise((r) => {
          res.on('end', () => { ended = true; r(); });
          res.on('close', () => { ended = true; r(); });
          res.on('error', () => { ended = true; r(); });
        }),
        isEnded: () => ended,
        async waitFor(pred, ms = 5000, what = 'condition') {
          const until = Date.now() + ms;
          while (!pred(conn.events)) {
            if (Date.now() > until) throw new Error(`timed out waiting for ${what}; got ${conn.events.map((e) => `${e.type}:${e.id ?? e.json?.kind}`).join(', ')}`);
            await new Promise((r) => setTimeout(r, 10));
          }
        },
        stored: () => conn.events.filter((e) => e.id),
        close: () => { req.destroy(); res.destroy(); },
      };
      res.on('data', (chunk: string) => {
        conn.raw += chunk;
        if (conn.status !== 200) {
          conn.body += chunk;
          return;
        }
        pending += chunk;
        let i;
        while ((i = pending.indexOf('\n\n')) >= 0) {
          const block = pending.slice(0, i);
          pending = pending.slice(i + 2);
          const ev: Partial<SseEvent> & { dataLines: string[] } = { dataLines: [] };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) { conn.comments.push(line.slice(1)); continue; }
            const c = line.indexOf(':');
            const field = c < 0 ? line : line.slice(0, c);
            const value = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
            if (field === 'event') ev.type = value;
            else if (field === 'id') ev.id = value;
            else if (field === 'data') ev.dataLines.push(value);
            else if (field === 'retry') conn.retry = Number(value);
          }
          if (ev.dataLines.length === 0) continue;
          const data = ev.dataLines.join('\n');
          let parsed: unknown;
          try { parsed = JSON.parse(data); } catch { parsed = undefined; }
          conn.events.push({ type: ev.type ?? 'message', id: ev.id, data, json: parsed });
        }
      });
      if (conn.status !== 200) res.on('end', () => resolve(conn));
      else resolve(conn);
    });
    req.on('error', reject);
  });
}

const tiny = tinyNetwork;

function realtime(over: Partial<RealtimeConfig> = {}): RealtimeConfig {
  return { ...loadRealtimeConfig({}), sseRetryMs: 100, ...over };
}

async function post(base: string, path: string, body: unknown, headers: Headers): Promise<{ status: number; body: any; headers: Headers }> {
  const r = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined, headers: Object.fromEntries(r.headers) };
}

/** Stores and publishes an event through the domain function every door shares. */
function emit(app: TestApp, e: Partial<NewEvent> & { payload?: Record<string, unknown> }) {
  return appendEvent(app.services.db, app.services.bus, { tenantId: 'default', topic: 'constraint', kind: 'test.tick', payload: {}, ...e } as NewEvent);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const STREAM = '/api/v1/events/stream';

for (const mode of MODES) {
  describe(`SSE stream (${mode})`, () => {
    let app: TestApp;
    let base: string;
    let admin: Headers;
    const open: SseConn[] = [];
    const sse = async (path: string, headers: Headers = admin) => {
      const c = await openSse(base, path, headers);
      open.push(c);
      return c;
    };

    before(async () => {
      app = await startTestApp(mode, { listen: true, config: { realtime: realtime() } });
      base = app.url!;
      admin = await adminHeaders(app);
    });
    after(async () => {
      for (const c of open) c.close();
      await app?.close();
    });

    it('answers with the SSE headers and wire format: retry first, then event/id/data blocks', async () => {
      const c = await sse(`${STREAM}?topics=topology`);
      assert.equal(c.status, 200);
      assert.equal(c.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(c.headers['cache-control'], 'no-cache');
      assert.equal(c.headers.connection, 'keep-alive');
      assert.ok(c.headers['x-request-id']);
      assert.equal(c.headers['x-ratelimit-concurrent'], '1');
      await c.waitFor((es) => es.some((e) => e.json?.kind === 'system.connected'), 5000, 'connected');
      assert.ok(c.raw.startsWith('retry: 100\n\n'), c.raw.slice(0, 40));
      const created = await post(base, '/api/v1/networks', tiny('sse-wire'), admin);
      assert.equal(created.status, 201);
      await c.waitFor((es) => es.some((e) => e.type === 'topology'), 5000, 'topology event');
      const ev = c.events.find((e) => e.type === 'topology')!;
      assert.match(ev.id!, /^evt_\d{16}$/);
      assert.equal(ev.json.id, ev.id);
      assert.equal(ev.json.topic, 'topology');
      assert.equal(ev.json.kind, 'network.created');
      assert.equal(ev.json.network_id, created.body.data.id);
      assert.match(ev.json.timestamp, /Z$/);
      // The raw block: event, id, data lines, blank line.
      assert.match(c.raw, new RegExp(`event: topology\\nid: ${ev.id}\\ndata: \\{[^\\n]*\\}\\n\\n`));
      c.close();
    });

    it('receives solver progress only while a stream is open; a stream opened after that gets it again', async () => {
      const hub = app.services.live;
      const untilQuiet = async () => {
        for (let i = 0; i < 500 && hub.receivesProgress; i++) await new Promise((r) => setTimeout(r, 10)); // the server's side of the close
      };
      for (const c of open.splice(0)) c.close();
      await untilQuiet();
      assert.equal(hub.receivesProgress, false, 'no stream open: the hub does not take progress');
      const net = await post(base, '/api/v1/networks', tiny('sse-progress'), admin);
      assert.equal(net.status, 201);
      for (const round of ['first', 'second']) {
        const c = await sse(`${STREAM}?topics=powerflow`);
        await c.waitFor((es) => es.some((e) => e.json?.kind === 'system.connected'), 5000, 'connected');
        assert.equal(hub.receivesProgress, true, `${round} stream: taking progress once connected`);
        const pf = await post(base, `/api/v1/networks/${net.body.data.id}/powerflow`, { async: true }, admin);
        assert.equal(pf.status, 202);
        const mine = (e: SseEvent) => e.json?.kind === 'powerflow.progress' && e.json.payload.task_id === pf.body.data.task_id;
        await c.waitFor((es) => es.some(mine), 10_000, `${round} stream: progress`);
        assert.ok(c.events.filter(mine).every((e, k) => e.json.payload.iteration === k + 1), 'every iteration, in order');
        c.close();
        await untilQuiet();
        assert.equal(hub.receivesProgress, false, `${round} stream closed: the hub no longer takes progress`);
      }
    });

    it('reconnects (eventsource client) with Last-Event-ID and gets exactly the missed events, none twice', async () => {
      const token = admin.authorization;
      const received: string[] = [];
      const es = new EventSource(`${base}${STREAM}?topics=constraint`, {
        fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Headers), authorization: token } }),
      });
      let opens = 0;
      es.onopen = () => { opens++; };
      es.addEventListener('constraint', (e) => received.push((e as MessageEvent).lastEventId));
      try {
        const deadline = Date.now() + 5000;
        while (opens < 1 && Date.now() < deadline) await sleep(10);
        assert.equal(opens, 1);
        const stored: string[] = [];
        let stop = false;
        // A steady flow of events, while the server drops every connection in the middle.
        const producer = (async () => {
          for (let n = 0; !stop; n++) {
            stored.push((await emit(app, { payload: { n } })).id);
            await sleep(5);
          }
        })();
        await sleep(150);
        app.app!.server.closeAllConnections();
        while (opens < 2 && Date.now() < deadline + 5000) await sleep(10);
        assert.ok(opens >= 2, 'the client reconnected');
        await sleep(150);
        stop = true;
        await producer;
        const last = stored[stored.length - 1];
        const until = Date.now() + 5000;
        while (received[received.length - 1] !== last && Date.now() < until) await sleep(10);
        assert.deepEqual(received, stored, 'every event once, in id order');
      } finally {
        es.close();
      }
    });

    it('replays after last_event_id (and the Last-Event-ID header, which wins) then continues live', async () => {
      const first = await emit(app, { payload: { n: 'a' } });
      const missed = [await emit(app, { payload: { n: 'b' } }), await emit(app, { payload: { n: 'c' } }), await emit(app, { payload: { n: 'd' } })];
      const c = await sse(`${STREAM}?topics=constraint&last_event_id=${first.id}`);
      await c.waitFor((es) => es.filter((e) => e.id).length >= 3, 5000, 'replay');
      const live = await emit(app, { payload: { n: 'e' } });
      await c.waitFor((es) => es.some((e) => e.id === live.id), 5000, 'live event');
      await sleep(50);
      assert.deepEqual(c.stored().map((e) => e.id), [...missed.map((e) => e.id), live.id]);
      // Header beats parameter (EventSource keeps the first URL and adds the header).
      const h = await sse(`${STREAM}?topics=constraint&last_event_id=${first.id}`, { ...admin, 'last-event-id': missed[1].id });
      await h.waitFor((es) => es.some((e) => e.id === live.id), 5000, 'replay via header');
      await sleep(50);
      assert.deepEqual(h.stored().map((e) => e.id), [missed[2].id, live.id]);
      c.close();
      h.close();
    });

    it('loses and duplicates nothing when events are published during the replay', async () => {
      const start = await emit(app, { topic: 'device', kind: 'test.race', payload: { n: -1 } });
      const backlog: string[] = [];
      for (let n = 0; n < 300; n++) backlog.push((await emit(app, { topic: 'device', kind: 'test.race', payload: { n } })).id);
      let stop = false;
      const during: string[] = [];
      const producer = (async () => {
        for (let n = 0; !stop; n++) {
          during.push((await emit(app, { topic: 'device', kind: 'test.race', payload: { n: 1000 + n } })).id);
          await sleep(1);
        }
      })();
      await sleep(20);
      const c = await sse(`${STREAM}?topics=device`, { ...admin, 'last-event-id': start.id });
      await sleep(300);
      stop = true;
      await producer;
      const all = [...backlog, ...during];
      await c.waitFor((es) => es.filter((e) => e.id).length >= all.length, 10000, 'all events');
      await sleep(50);
      const got = c.stored().map((e) => e.id!);
      assert.equal(new Set(got).size, got.length, 'no duplicates');
      assert.deepEqual([...got].sort(), [...all].sort(), 'no gap');
      c.close();
    });

    it('since replays from a time; until closes the stream, and a finished window answers 204', async () => {
      await emit(app, { topic: 'alarm', kind: 'test.window', payload: { n: 0 } });
      await sleep(20);
      const second = await emit(app, { topic: 'alarm', kind: 'test.window', payload: { n: 1 } });
      const third = await emit(app, { topic: 'alarm', kind: 'test.window', payload: { n: 2 } });
      const since = second.timestamp.toISOString();
      const until = new Date(Date.now() + 600).toISOString();
      const c = await sse(`${STREAM}?topics=alarm&since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`);
      await c.waitFor((es) => es.filter((e) => e.id).length >= 2, 5000, 'since replay');
      assert.deepEqual(c.stored().map((e) => e.id), [second.id, third.id]);
      const live = await emit(app, { topic: 'alarm', kind: 'test.window', payload: { n: 3 } });
      await c.ended;
      assert.ok(c.stored().some((e) => e.id === live.id), 'live event inside the window');
      const end = c.events.find((e) => e.json?.kind === 'system.end');
      assert.ok(end, 'a system end event before the close');
      assert.equal(end!.json.payload.reason, 'until');
      // The window is over: nothing after the last event -> 204 (EventSource stops).
      const again = await openSse(base, `${STREAM}?topics=alarm&since=${encodeURIComponent(since)}&until=${encodeURIComponent(until)}`, { ...admin, 'last-event-id': live.id });
      assert.equal(again.status, 204);
      // A window in the past with events in it: replayed, then closed.
      const past = await sse(`${STREAM}?topics=alarm&since=${encodeURIComponent(since)}&until=${encodeURIComponent(new Date(third.timestamp.getTime() + 1).toISOString())}`);
      await past.ended;
      assert.deepEqual(past.stored().map((e) => e.id), [second.id, third.id]);
    });

    it('refuses bad subscriptions before the stream starts (400, 403)', async () => {
      const eleven = 'topology,powerflow,task,agent,device,alarm,constraint,audit,system,heartbeat,extra';
      let r = await openSse(base, `${STREAM}?topics=${eleven}`, admin);
      assert.equal(r.status, 400);
      assert.equal(JSON.parse(r.body).error.code, 'INVALID_REQUEST');
      assert.match(r.headers['content-type']!, /application\/json/);
      r = await openSse(base, `${STREAM}?topics=nope`, admin);
      assert.equal(r.status, 400);
      assert.equal(JSON.parse(r.body).error.code, 'INVALID_FIELD');
      r = await openSse(base, `${STREAM}?severity=loud`, admin);
      assert.equal(r.status, 400);
      r = await openSse(base, `${STREAM}?last_event_id=42`, admin);
      assert.equal(r.status, 400);
      r = await openSse(base, `${STREAM}?format=xml`, admin);
      assert.equal(r.status, 400);
      r = await openSse(base, STREAM, {});
      assert.equal(r.status, 401);
      const viewer = await tokenFor(app, 'viewer');
      r = await openSse(base, `${STREAM}?include_audit=true`, viewer);
      assert.equal(r.status, 403);
      assert.equal(JSON.parse(r.body).error.code, 'FORBIDDEN');
      r = await openSse(base, `${STREAM}?topics=audit`, viewer);
      assert.equal(r.status, 403);
    });

    it('accepts the token as ?token= and delivers audit events only with include_audit and the audit permission', async () => {
      const auditor = await tokenFor(app, 'auditor');
      const token = auditor.authorization.slice('Bearer '.length);
      const withAudit = await sse(`${STREAM}?topics=topology&include_audit=true&token=${encodeURIComponent(token)}`, {});
      assert.equal(withAudit.status, 200);
      const plain = await sse(`${STREAM}?topics=topology`, auditor);
      const created = await post(base, '/api/v1/networks', tiny('sse-audit'), admin);
      await withAudit.waitFor((es) => es.some((e) => e.type === 'audit' && e.json.payload.action === 'POST /api/v1/networks'), 5000, 'audit event');
      await plain.waitFor((es) => es.some((e) => e.json?.network_id === created.body.data.id), 5000, 'topology event');
      await sleep(100);
      assert.ok(!plain.events.some((e) => e.type === 'audit'));
      withAudit.close();
      plain.close();
      // The connection itself is audited.
      const r = await fetch(`${base}/api/v1/audit?action=sse.connect&page_size=100`, { headers: admin });
      const entries = ((await r.json()) as any).data as { action: string; interface: string }[];
      assert.ok(entries.some((e) => e.action === 'sse.connect' && e.interface === 'sse'));
    });

    it('filters by network_id, agent_id, minimum severity and topic; format=plain', async () => {
      const c = await sse(`${STREAM}?topics=alarm,constraint&network_id=net_filter1&severity=error`);
      const d = await sse(`${STREAM}?topics=agent&agent_id=agent_f1&format=plain`);
      await emit(app, { topic: 'alarm', kind: 'test.f', networkId: 'net_filter1', severity: 1 });
      const hit1 = await emit(app, { topic: 'alarm', kind: 'test.f', networkId: 'net_filter1', severity: 2 });
      await emit(app, { topic: 'alarm', kind: 'test.f', networkId: 'net_other', severity: 3 });
      await emit(app, { topic: 'device', kind: 'test.f', networkId: 'net_filter1', severity: 3 });
      const hit2 = await emit(app, { topic: 'constraint', kind: 'test.f', networkId: 'net_filter1', severity: 3 });
      await emit(app, { topic: 'agent', kind: 'test.f', agentId: 'agent_other' });
      const hit3 = await emit(app, { topic: 'agent', kind: 'agent.status_changed', agentId: 'agent_f1', payload: { agent_id: 'agent_f1', new_status: 'running' } });
      await c.waitFor((es) => es.some((e) => e.id === hit2.id), 5000, 'filtered');
      await d.waitFor((es) => es.some((e) => e.id === hit3.id), 5000, 'agent');
      await sleep(50);
      assert.deepEqual(c.stored().map((e) => e.id), [hit1.id, hit2.id]);
      assert.equal(c.stored()[0].json.severity, 'error');
      assert.deepEqual(d.stored().map((e) => e.id), [hit3.id]);
      assert.equal(d.stored()[0].type, 'agent');
      assert.equal(d.stored()[0].data, 'agent agent.status_changed {"agent_id":"agent_f1","new_status":"running"}');
      c.close();
      d.close();
    });

    it('truncates payloads above 64 KB with a marker and a link to the stored event', async () => {
      const c = await sse(`${STREAM}?topics=system`);
      const big = await emit(app, { topic: 'system', kind: 'test.big', payload: { blob: 'x'.repeat(100_000) } });
      await c.waitFor((es) => es.some((e) => e.id === big.id), 5000, 'big event');
      const ev = c.events.find((e) => e.id === big.id)!;
      assert.ok(ev.data.length < 64 * 1024);
      assert.equal(ev.json.payload.truncated, true);
      assert.ok(ev.json.payload.original_bytes > 100_000);
      const r = await fetch(base + ev.json.payload.url, { headers: admin });
      const body = (await r.json()) as any;
      assert.equal(body.data[0].id, big.id);
      assert.equal(body.data[0].payload.blob.length, 100_000);
      c.close();
    });

    it('limits concurrent streams per token (5) and per tenant quota, with X-RateLimit-Concurrent', async () => {
      const u = await createUser(app, { username: `sse-limit-${mode}`, role: 'viewer' });
      const h1 = await loginAs(app, u.username, u.password);
      const five = [];
      for (let i = 0; i < 5; i++) {
        const c = await sse(STREAM, h1);
        assert.equal(c.status, 200);
        five.push(c);
      }
      const sixth = await openSse(base, STREAM, h1);
      assert.equal(sixth.status, 429);
      assert.equal(sixth.headers['x-ratelimit-concurrent'], '5');
      assert.ok(sixth.headers['retry-after']);
      const err = JSON.parse(sixth.body).error;
      assert.equal(err.code, 'RATE_LIMITED');
      assert.equal(err.details.limit, 5);
      // The same user with another token may open more (per-user limit is 10).
      const h2 = await loginAs(app, u.username, u.password);
      const other = await sse(STREAM, h2);
      assert.equal(other.status, 200);
      // Closing one frees its slot.
      five[0].close();
      await five[0].ended;
      let again: SseConn | undefined;
      for (let i = 0; i < 50; i++) {
        again = await openSse(base, STREAM, h1);
        if (again.status === 200) break;
        await sleep(20);
      }
      assert.equal(again!.status, 200);
      open.push(again!);
      for (const c of [...five, other, again!]) c.close();

      // Tenant quota (sse_connections), adjusted by an admin at run time.
      const tenant = `sq${mode.slice(0, 3)}`;
      await createTenant(app, tenant);
      const q = await fetch(`${base}/api/v1/admin/tenants/${tenant}/quota`, { method: 'PUT', headers: { ...admin, 'content-type': 'application/json' }, body: JSON.stringify({ sse_connections: 2, reason: 'test' }) });
      assert.equal(q.status, 200, await q.text());
      const t1 = await tokenFor(app, 'viewer', tenant);
      const t2 = await tokenFor(app, 'operator', tenant);
      const a = await sse(STREAM, t1);
      const b = await sse(STREAM, t2);
      assert.equal(a.status, 200);
      assert.equal(b.status, 200);
      assert.equal(b.headers['x-ratelimit-concurrent'], '2');
      const c = await openSse(base, STREAM, t1);
      assert.equal(c.status, 429);
      assert.equal(JSON.parse(c.body).error.details.scope, 'tenant');
      assert.equal(c.headers['x-ratelimit-concurrent'], '2');
      a.close();
      b.close();
    });

    it('keeps tenants apart; an admin with X-Tenant-Id reads another tenant', async () => {
      const tenant = `iso${mode.slice(0, 3)}`;
      await createTenant(app, tenant);
      const blue = await tokenFor(app, 'operator', tenant);
      const mine = await sse(`${STREAM}?topics=topology`, blue);
      const theirs = await sse(`${STREAM}?topics=topology`, await tokenFor(app, 'viewer'));
      const asAdmin = await sse(`${STREAM}?topics=topology`, { ...admin, 'x-tenant-id': tenant });
      const n1 = await post(base, '/api/v1/networks', tiny('blue-net'), blue);
      const n2 = await post(base, '/api/v1/networks', tiny('default-net'), admin);
      await mine.waitFor((es) => es.some((e) => e.json?.network_id === n1.body.data.id), 5000, 'own event');
      await theirs.waitFor((es) => es.some((e) => e.json?.network_id === n2.body.data.id), 5000, 'default event');
      await asAdmin.waitFor((es) => es.some((e) => e.json?.network_id === n1.body.data.id), 5000, 'admin in tenant');
      await sleep(100);
      assert.ok(!mine.events.some((e) => e.json?.network_id === n2.body.data.id), 'blue never sees default');
      assert.ok(!theirs.events.some((e) => e.json?.network_id === n1.body.data.id), 'default never sees blue');
      assert.ok(!asAdmin.events.some((e) => e.json?.network_id === n2.body.data.id));
      // Resume is tenant-scoped too.
      const resumed = await sse(`${STREAM}?topics=topology&last_event_id=evt_0000000000000000`, blue);
      await resumed.waitFor((es) => es.some((e) => e.json?.network_id === n1.body.data.id), 5000, 'replay');
      assert.ok(resumed.stored().every((e) => e.json.network_id !== n2.body.data.id));
      const other = await openSse(base, STREAM, { ...blue, 'x-tenant-id': 'default' });
      assert.equal(other.status, 403);
      for (const c of [mine, theirs, asAdmin, resumed]) c.close();
    });
  });

  describe(`SSE timers (${mode})`, () => {
    let app: TestApp;
    let base: string;
    let admin: Headers;
    before(async () => {
      app = await startTestApp(mode, { listen: true, config: { realtime: realtime({ sseKeepaliveMs: 100, sseHeartbeatMs: 250, sseIdleMs: 700 }) } });
      base = app.url!;
      admin = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('sends :keepalive comments and heartbeat events on the configured intervals', async () => {
      const c = await openSse(base, STREAM, admin);
      await sleep(600);
      assert.ok(c.comments.filter((x) => x === 'keepalive').length >= 4, `keepalives: ${c.comments.length}`);
      const beats = c.events.filter((e) => e.type === 'heartbeat');
      assert.ok(beats.length >= 2, `heartbeats: ${beats.length}`);
      assert.equal(beats[0].id, undefined, 'heartbeats carry no id (resume position unchanged)');
      assert.match(beats[0].json.payload.timestamp, /Z$/);
      assert.match(c.raw, /:keepalive\n\n/);
      c.close();
    });

    it('closes an idle stream with IDLE_TIMEOUT; events or heartbeat responses keep it open', async () => {
      const idle = await openSse(base, `${STREAM}?topics=alarm`, admin);
      const busy = await openSse(base, `${STREAM}?topics=constraint`, admin);
      const acked = await openSse(base, `${STREAM}?topics=topology`, admin);
      await acked.waitFor((es) => es.some((e) => e.json?.kind === 'system.connected'), 5000, 'connected');
      const connectionId = acked.events.find((e) => e.json?.kind === 'system.connected')!.json.payload.connection_id;
      const started = Date.now();
      while (Date.now() - started < 1500) {
        await emit(app, { payload: { keep: true } });
        const r = await post(base, '/api/v1/events/stream/heartbeat', { connection_id: connectionId }, admin);
        assert.equal(r.status, 200);
        await sleep(150);
      }
      assert.ok(idle.isEnded(), 'the idle stream was closed');
      const err = idle.events.find((e) => e.type === 'system' && e.json.payload.type === 'error');
      assert.equal(err?.json.payload.code, 'IDLE_TIMEOUT');
      assert.ok(!busy.isEnded(), 'a stream with events stays open');
      assert.ok(!acked.isEnded(), 'a stream whose heartbeats are answered stays open');
      busy.close();
      acked.close();
    });
  });
}

describe('SSE token expiry (embedded)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('embedded', { listen: true, config: { realtime: realtime() } });
    app.config.security.tokenTtlSeconds = 2;
  });
  after(async () => app?.close());

  it('sends SUBSCRIPTION_EXPIRED as a system error event when the token expires, then closes', async () => {
    const u = await createUser(app, { username: 'sse-exp', role: 'viewer' });
    const h = await loginAs(app, u.username, u.password);
    const c = await openSse(app.url!, STREAM, h);
    assert.equal(c.status, 200);
    await c.ended;
    const err = c.events.find((e) => e.type === 'system' && e.json.payload.type === 'error');
    assert.equal(err?.json.payload.code, 'SUBSCRIPTION_EXPIRED');
    // SPEC 6.1 rule 4: the data has type error, code and message.
    assert.equal(err?.json.type, 'error');
    assert.equal(err?.json.code, 'SUBSCRIPTION_EXPIRED');
    assert.ok(err?.json.message);
  });
});

describe('SSE across processes (distributed)', () => {
  let a: TestApp;
  let b: TestApp;
  let w: TestApp;
  let admin: Headers;
  before(async () => {
    // a serves the SSE client, b takes the REST writes (both ROLE=api: no solver),
    // w is a solver-only worker process (ROLE=worker) on the same Redis and PostgreSQL.
    a = await startTestApp('distributed', { listen: true, config: { role: 'api', realtime: realtime() } });
    const shared = { schema: a.schema!, prefix: a.prefix! };
    b = await startTestApp('distributed', { listen: true, shared, keepData: true, config: { role: 'api', realtime: realtime() } });
    w = await startTestApp('distributed', { shared, keepData: true, config: { role: 'worker' } });
    admin = await adminHeaders(a);
  });
  after(async () => {
    await w?.close();
    await b?.close();
    await a?.close();
  });

  it('a client on one API process receives events raised through another and power-flow progress from a worker process', async () => {
    const c = await openSse(a.url!, `${STREAM}?topics=topology,powerflow,task`, admin);
    assert.equal(c.status, 200);
    await c.waitFor((es) => es.some((e) => e.json?.kind === 'system.connected'), 5000, 'connected');
    const n = await post(b.url!, '/api/v1/networks', tiny('cross'), admin);
    assert.equal(n.status, 201);
    await c.waitFor((es) => es.some((e) => e.type === 'topology' && e.json.network_id === n.body.data.id), 5000, 'event from b');
    const pf = await post(b.url!, `/api/v1/networks/${n.body.data.id}/powerflow`, {}, admin);
    assert.equal(pf.status, 200, JSON.stringify(pf.body));
    await c.waitFor((es) => es.some((e) => e.type === 'task' && e.json.kind === 'task.completed'), 10000, 'task completion');
    const progress = c.events.filter((e) => e.json?.kind === 'powerflow.progress');
    assert.ok(progress.length >= 1, 'progress events');
    assert.equal(progress[0].type, 'powerflow');
    assert.equal(progress[0].id, undefined, 'progress is not stored: no id');
    assert.equal(progress[0].json.payload.task_id, pf.body.data.task_id);
    assert.ok(progress[0].json.payload.iteration >= 1);
    assert.ok('mismatch' in progress[0].json.payload);
    c.close();
  });

  it('counts one token\'s streams across both processes', async () => {
    const u = await createUser(a, { username: 'sse-cross-limit', role: 'viewer' });
    const h = await loginAs(a, u.username, u.password);
    const conns: SseConn[] = [];
    for (const app of [a, b, a, b, a]) {
      const c = await openSse(app.url!, STREAM, h);
      assert.equal(c.status, 200);
      conns.push(c);
    }
    const sixth = await openSse(b.url!, STREAM, h);
    assert.equal(sixth.status, 429);
    assert.equal(sixth.headers['x-ratelimit-concurrent'], '5');
    for (const c of conns) c.close();
  });
});


describe('SSE shutdown (embedded)', () => {
  it('announces reconnect_backoff with a spread retry and shutdown, then closes, when the process stops', async () => {
    const app = await startTestApp('embedded', { listen: true, config: { realtime: realtime({ sseRetryMs: 1000 }) } });
    const c = await openSse(app.url!, STREAM, await adminHeaders(app));
    await c.waitFor((es) => es.some((e) => e.json?.kind === 'system.connected'), 5000, 'connected');
    await app.close();
    await c.ended;
    const backoff = c.events.find((e) => e.json?.type === 'reconnect_backoff');
    assert.ok(backoff, 'reconnect_backoff event');
    assert.ok(backoff!.json.interval_ms >= 1000 && backoff!.json.interval_ms < 2000);
    assert.equal(c.retry, backoff!.json.interval_ms, 'the retry field carries the same interval');
    assert.ok(c.events.some((e) => e.json?.type === 'shutdown'));
  });
});

describe('SSE connection-establishment rate (embedded)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('embedded', {
      listen: true,
      config: { realtime: realtime(), security: loadSecurityConfig({ RATE_LIMITS: JSON.stringify({ ip: { sse_connect: { rate: 1, burst: 2 } } }) }, 'test') },
    });
  });
  after(async () => app?.close());

  it('trips the per-address SSE establishment limit (L1) with 429 before the stream starts', async () => {
    const h = await adminHeaders(app);
    const a = await openSse(app.url!, STREAM, h);
    const b = await openSse(app.url!, STREAM, h);
    const c = await openSse(app.url!, STREAM, h);
    assert.deepEqual([a.status, b.status, c.status], [200, 200, 429]);
    const e = JSON.parse(c.body).error;
    assert.equal(e.code, 'RATE_LIMITED');
    assert.equal(e.details.scope, 'ip');
    assert.ok(c.headers['retry-after']);
    a.close();
    b.close();
  });
});
