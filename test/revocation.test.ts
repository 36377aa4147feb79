// Revocation reaches open connections (#11 finding 3; docs/security.md "Revocation
// and open connections"), with real clients: `ws` on /ws, the graphql-ws client on
// /graphql, the eventsource package on the SSE stream. Embedded and distributed, and
// two gridops processes sharing PostgreSQL and Redis where the revocation happens on
// one and the connection is on the other.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { EventSource } from 'eventsource';
import { MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders, apiKeyFor, createUser, login } from './helpers/auth.js';
import { collect, wsClient } from './graphql-helpers.js';
import { watchedCount } from '../src/security/revocation.js';

type Headers = Record<string, string>;
type Msg = Record<string, any>;

interface WsConn {
  ws: WebSocket;
  messages: Msg[];
  closed: Promise<{ code: number; reason: string }>;
  send(m: unknown): void;
  next(pred: (m: Msg) => boolean, what: string): Promise<Msg>;
}

function openWs(base: string, headers: Headers): Promise<WsConn> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`, ['gridops.v1'], { headers });
    const messages: Msg[] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
    ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
    ws.on('error', reject);
    ws.on('open', () => resolve({
      ws, messages, closed,
      send: (m) => ws.send(JSON.stringify(m)),
      next: (pred, what) => waitFor(what, () => messages.find(pred)),
    }));
  });
}

/** Polls fn until it returns something (generous bound: the machine may be busy). */
async function waitFor<T>(what: string, fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Resolves with the close event, or rejects after ms. */
function closedWithin<T>(p: Promise<T>, what: string, ms = 15_000): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([p, new Promise<T>((_, reject) => { t = setTimeout(() => reject(new Error(`${what} was not closed within ${ms} ms`)), ms); })]).finally(() => clearTimeout(t));
}

async function rest(base: string, method: string, path: string, headers: Headers, body?: unknown) {
  const r = await fetch(base + path, { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

const familyOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).fam as string;

/** Logs in and uses the refresh token twice: the second use revokes the whole family (session). */
async function reuseRefreshToken(base: string, refreshToken: string): Promise<void> {
  const first = await rest(base, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: refreshToken });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const again = await rest(base, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: refreshToken });
  assert.equal(again.status, 401);
  assert.equal(again.body.error.details.reason, 'refresh_token_reused');
}

interface SseClient {
  es: EventSource;
  system: Msg[];
  opened: Promise<void>;
  errored: Promise<void>;
}

/** The eventsource package, authenticating with an X-API-Key header. */
function openSse(base: string, headers: Headers): SseClient {
  const es = new EventSource(`${base}/api/v1/events/stream?topics=constraint`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Headers), ...headers } }),
  });
  const system: Msg[] = [];
  es.addEventListener('system', (e) => system.push(JSON.parse((e as MessageEvent).data)));
  const opened = new Promise<void>((r) => { es.onopen = () => r(); });
  const errored = new Promise<void>((r) => { es.onerror = () => r(); });
  return { es, system, opened, errored };
}

const SMALL = {
  name: 'revoked-net', buses: [{ id: 1, type: 'SLACK' }, { id: 2, type: 'PQ' }], branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
  generators: [{ bus: 1, mw: 10 }], loads: [{ bus: 2, mw: 9 }],
};
const CREATE = `mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`;
const WATCH = `subscription { networkChanged { eventId kind } }`;

async function networkNamed(base: string, h: Headers, name: string): Promise<boolean> {
  const r = await rest(base, 'GET', `/api/v1/networks?page_size=100`, h);
  return r.body.data.some((n: { name: string }) => n.name === name);
}

for (const mode of MODES) {
  describe(`Revocation reaches open connections (${mode})`, () => {
    let app: TestApp;
    let base: string;
    let admin: Headers;
    before(async () => {
      app = await startTestApp(mode, { listen: true });
      base = app.url!;
      admin = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('refresh-token reuse closes the family\'s /ws with 4401; a command sent meanwhile gets no result; other sessions stay', async () => {
      const u = await createUser(app, { username: `rv-ws-${mode}`, role: 'operator' });
      const pair = await login(app, u.username, u.password);
      const h = { authorization: `Bearer ${pair.token}` };
      const agent = await rest(base, 'POST', '/api/v1/agents', h, { name: `rv-agent-${mode}`, type: 'dispatch' });
      assert.equal(agent.status, 201, JSON.stringify(agent.body));
      const c = await openWs(base, h);
      const other = await openWs(base, { authorization: `Bearer ${(await login(app, u.username, u.password)).token}` });
      c.send({ type: 'command', id: 'before', agent_id: agent.body.data.id, command: 'status' });
      assert.equal((await c.next((m) => m.id === 'before', 'the first command_result')).type, 'command_result');

      const reuse = reuseRefreshToken(base, pair.refresh_token);
      c.send({ type: 'command', id: 'meanwhile', agent_id: agent.body.data.id, command: 'status' });
      await reuse;
      const closed = await closedWithin(c.closed, 'the revoked /ws');
      assert.equal(closed.code, 4401);
      assert.match(closed.reason, /^UNAUTHORIZED: the session of this connection was revoked/);
      const err = c.messages.find((m) => m.type === 'error' && m.details?.reason === 'refresh_token_reused');
      assert.equal(err?.code, 'UNAUTHORIZED', JSON.stringify(c.messages));
      // The command either ran before the revocation reached the server, or was refused: never after.
      const meanwhile = c.messages.find((m) => m.id === 'meanwhile');
      if (meanwhile) assert.ok(meanwhile.type === 'command_result' || meanwhile.code === 'UNAUTHORIZED', JSON.stringify(meanwhile));
      // The same user's other session is untouched.
      other.send({ type: 'ping', id: 'p' });
      assert.equal((await other.next((m) => m.type === 'pong', 'pong')).id, 'p');
      other.ws.close();
      // And the revoked token no longer opens anything.
      const again = await rest(base, 'GET', '/api/v1/networks', h);
      assert.equal(again.status, 401);
    });

    it('a frame that raced the notice is refused by the per-frame check (command and subscribe)', async () => {
      const u = await createUser(app, { username: `rv-race-${mode}`, role: 'operator' });
      const pair = await login(app, u.username, u.password);
      const c = await openWs(base, { authorization: `Bearer ${pair.token}` });
      // The state a notice leaves behind, without its closing of sockets (as if the frame came first).
      app.services.security.revokedFamilies.set(familyOf(pair.token), Date.now() + 60_000);
      c.send({ type: 'command', id: 'late', agent_id: 'agent_0000000000000000', command: 'status' });
      const refused = await c.next((m) => m.id === 'late', 'the refusal of the late command');
      assert.equal(refused.type, 'error');
      assert.equal(refused.code, 'UNAUTHORIZED');
      assert.equal((await closedWithin(c.closed, 'the /ws')).code, 4401);

      const pair2 = await login(app, u.username, u.password);
      const d = await openWs(base, { authorization: `Bearer ${pair2.token}` });
      app.services.security.revokedFamilies.set(familyOf(pair2.token), Date.now() + 60_000);
      d.send({ type: 'subscribe', id: 's', topics: ['topology'] });
      assert.equal((await d.next((m) => m.id === 's', 'the refusal of the subscription')).code, 'UNAUTHORIZED');
      assert.equal((await closedWithin(d.closed, 'the /ws')).code, 4401);
    });

    it('deleting an API key ends its SSE stream with an in-stream error event and closes its /ws with 4401', async () => {
      const key = await apiKeyFor(app, 'viewer', 'default', `rv-sse-${mode}`);
      const sse = openSse(base, key.headers);
      const ws = await openWs(base, key.headers);
      try {
        await sse.opened;
        await waitFor('the connected event', () => sse.system.find((m) => m.type === 'connected'));
        const del = await rest(base, 'DELETE', `/api/v1/admin/api-keys/${key.id}`, admin);
        assert.equal(del.status, 200, JSON.stringify(del.body));
        const err = await waitFor('the in-stream error', () => sse.system.find((m) => m.type === 'error'));
        assert.equal(err.code, 'UNAUTHORIZED');
        assert.equal(err.payload.reason, 'api_key_revoked');
        assert.match(err.message, /API key of this connection was revoked/);
        await sse.errored; // the stream ended (the client would reconnect, and get 401)
        assert.equal((await closedWithin(ws.closed, 'the API key\'s /ws')).code, 4401);
        const after = await rest(base, 'GET', '/api/v1/events/stream', key.headers);
        assert.equal(after.status, 401);
        // The audit trail says why both ended.
        for (const action of ['sse.disconnect', 'ws.disconnect']) {
          await waitFor(`${action} with the revocation reason`, async () => {
            const r = await rest(base, 'GET', `/api/v1/audit?action=${action}&actor=${key.id}`, admin);
            return r.body.data.some((e: { details: { reason?: string } }) => e.details.reason === 'revoked_api_key_revoked');
          });
        }
      } finally {
        sse.es.close();
        ws.ws.close();
      }
    });

    it('graphql-ws: a revoked session closes the connection with 4401 and ends its subscriptions', async () => {
      const u = await createUser(app, { username: `rv-gql-${mode}`, role: 'operator' });
      const pair = await login(app, u.username, u.password);
      const c = wsClient(app, { token: pair.token });
      await c.acked;
      const sub = collect(c.client, WATCH);
      await reuseRefreshToken(base, pair.refresh_token);
      const closed = await closedWithin(c.closed, 'the graphql-ws connection');
      assert.equal(closed.code, 4401);
      assert.match(closed.reason, /^UNAUTHENTICATED: the session of this connection was revoked/);
      await sub.completed;
      assert.ok(sub.error, 'the subscription ended with an error');
      await c.client.dispose();
    });

    it('graphql-ws: an operation that raced the notice is refused (no mutation runs), then 4401', async () => {
      const u = await createUser(app, { username: `rv-gql-race-${mode}`, role: 'operator' });
      const pair = await login(app, u.username, u.password);
      const c = wsClient(app, { token: pair.token });
      await c.acked;
      app.services.security.revokedFamilies.set(familyOf(pair.token), Date.now() + 60_000);
      const name = `rv-mutation-${mode}`;
      const m = collect(c.client, CREATE, { i: { ...SMALL, name } });
      await m.completed;
      const errors = m.error as { extensions?: { code: string; details?: { reason?: string } } }[];
      assert.ok(Array.isArray(errors), `refused with GraphQL errors, got ${JSON.stringify(m.error)}`);
      assert.equal(errors[0].extensions?.code, 'UNAUTHENTICATED');
      assert.equal((await closedWithin(c.closed, 'the graphql-ws connection')).code, 4401);
      assert.equal(await networkNamed(base, admin, name), false);
      await c.client.dispose();
    });

    it('logout ends the session: its /ws closes with 4401, its SSE ends with an error event; all_sessions ends the others', async () => {
      const u = await createUser(app, { username: `rv-logout-${mode}`, role: 'viewer' });
      const one = await login(app, u.username, u.password);
      const two = await login(app, u.username, u.password);
      const h1 = { authorization: `Bearer ${one.token}` };
      const h2 = { authorization: `Bearer ${two.token}` };
      const ws1 = await openWs(base, h1);
      const ws2 = await openWs(base, h2);
      // Authenticated by its first frame instead of the upgrade.
      const byFrame = await openWs(base, {});
      byFrame.send({ type: 'auth', token: one.token });
      byFrame.send({ type: 'subscribe', id: 'f', topics: ['topology'] });
      await byFrame.next((m) => m.type === 'subscribed', 'subscribed after the auth frame');
      const sse = openSse(base, h1);
      try {
        await sse.opened;
        await waitFor('the connected event', () => sse.system.find((m) => m.type === 'connected'));
        const out = await rest(base, 'POST', '/api/v1/auth/logout', h1);
        assert.equal(out.status, 200, JSON.stringify(out.body));
        assert.equal(out.body.data.sessions, 1);
        const closed = await closedWithin(ws1.closed, 'the logged-out /ws');
        assert.equal(closed.code, 4401);
        assert.equal(ws1.messages.find((m) => m.type === 'error')?.details?.reason, 'logout');
        assert.equal((await closedWithin(byFrame.closed, 'the /ws authenticated by frame')).code, 4401);
        const err = await waitFor('the in-stream error', () => sse.system.find((m) => m.type === 'error'));
        assert.equal(err.reason, 'logout');
        assert.equal((await rest(base, 'GET', '/api/v1/networks', h1)).status, 401);
        assert.equal((await rest(base, 'POST', '/api/v1/auth/refresh', {}, { refresh_token: one.refresh_token })).status, 401);
        // The other session lives on, until all_sessions.
        ws2.send({ type: 'ping', id: 'p' });
        await ws2.next((m) => m.type === 'pong', 'pong');
        const all = await rest(base, 'POST', '/api/v1/auth/logout?all_sessions=true', h2);
        assert.equal(all.status, 200);
        assert.equal((await closedWithin(ws2.closed, 'the other session\'s /ws')).code, 4401);
        // An API key has no session to end.
        const key = await apiKeyFor(app, 'viewer', 'default', `rv-logout-key-${mode}`);
        const bad = await rest(base, 'POST', '/api/v1/auth/logout', key.headers);
        assert.equal(bad.status, 400);
        assert.match(bad.body.error.message, /DELETE \/api\/v1\/admin\/api-keys/);
      } finally {
        sse.es.close();
      }
    });

    it('admin changes to a user: a role losing permissions closes 4403, disabling and deleting close 4401', async () => {
      const u = await createUser(app, { username: `rv-user-${mode}`, role: 'operator' });
      const t1 = (await login(app, u.username, u.password)).token;
      const ws = await openWs(base, { authorization: `Bearer ${t1}` });
      const g = wsClient(app, { token: t1 });
      await g.acked;
      const demote = await rest(base, 'PATCH', `/api/v1/admin/users/${u.id}`, admin, { role: 'viewer' });
      assert.equal(demote.status, 200, JSON.stringify(demote.body));
      assert.equal(demote.body.data.role, 'viewer');
      assert.equal((await closedWithin(ws.closed, '/ws after the role change')).code, 4403);
      assert.equal(ws.messages.find((m) => m.type === 'error')?.code, 'FORBIDDEN');
      const gc = await closedWithin(g.closed, 'graphql-ws after the role change');
      assert.equal(gc.code, 4403);
      assert.match(gc.reason, /^FORBIDDEN: the role of this account changed/);
      await g.client.dispose();
      assert.equal((await rest(base, 'GET', '/api/v1/networks', { authorization: `Bearer ${t1}` })).status, 401);

      // A wider role does not end anything (it applies from the next login or refresh).
      const t2 = (await login(app, u.username, u.password)).token;
      const ws2 = await openWs(base, { authorization: `Bearer ${t2}` });
      assert.equal((await rest(base, 'PATCH', `/api/v1/admin/users/${u.id}`, admin, { role: 'operator' })).status, 200);
      assert.equal((await rest(base, 'GET', '/api/v1/networks', { authorization: `Bearer ${t2}` })).status, 200);
      const disable = await rest(base, 'PATCH', `/api/v1/admin/users/${u.id}`, admin, { disabled: true });
      assert.equal(disable.status, 200);
      assert.equal((await closedWithin(ws2.closed, '/ws after disabling')).code, 4401);
      assert.equal(ws2.messages.find((m) => m.type === 'error')?.details?.reason, 'user_disabled');
      assert.equal((await rest(base, 'POST', '/api/v1/auth/token', {}, { username: u.username, password: u.password })).status, 401);

      const v = await createUser(app, { username: `rv-gone-${mode}`, role: 'viewer' });
      const t3 = (await login(app, v.username, v.password)).token;
      const ws3 = await openWs(base, { authorization: `Bearer ${t3}` });
      const del = await rest(base, 'DELETE', `/api/v1/admin/users/${v.id}`, admin);
      assert.equal(del.status, 200, JSON.stringify(del.body));
      assert.equal((await closedWithin(ws3.closed, '/ws after deleting the user')).code, 4401);
      assert.equal(ws3.messages.find((m) => m.type === 'error')?.details?.reason, 'user_deleted');
      assert.equal((await rest(base, 'GET', '/api/v1/networks', { authorization: `Bearer ${t3}` })).status, 401);
      assert.equal((await rest(base, 'DELETE', `/api/v1/admin/users/${v.id}`, admin)).status, 404);

      // An admin cannot lock themselves out.
      const me = (await rest(base, 'GET', '/api/v1/admin/users', admin)).body.data.find((x: { username: string }) => x.username === app.config.adminUsername);
      const self = await rest(base, 'PATCH', `/api/v1/admin/users/${me.id}`, admin, { disabled: true });
      assert.equal(self.status, 409);
    });

    it('closed connections stop being watched', async () => {
      await waitFor('no watched connections left', () => watchedCount(app.services) === 0);
    });
  });
}

describe('Revocation across processes (distributed: two gridops sharing PostgreSQL and Redis)', () => {
  let a: TestApp;
  let b: TestApp;
  before(async () => {
    a = await startTestApp('distributed', { listen: true });
    b = await startTestApp('distributed', { listen: true, shared: { schema: a.schema!, prefix: a.prefix! }, keepData: true });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('refresh-token reuse on one process closes /ws (4401) and graphql-ws (4401) on the other', async () => {
    const u = await createUser(a, { username: 'rv-cross', role: 'operator' });
    const pair = await login(a, u.username, u.password);
    const c = await openWs(b.url!, { authorization: `Bearer ${pair.token}` });
    const g = wsClient(b, { token: pair.token });
    await g.acked;
    await reuseRefreshToken(a.url!, pair.refresh_token);
    assert.equal((await closedWithin(c.closed, '/ws on the other process')).code, 4401);
    assert.equal((await closedWithin(g.closed, 'graphql-ws on the other process')).code, 4401);
    await g.client.dispose();
  });

  it('a role change through one process closes graphql-ws on the other with 4403; a deleted user\'s token stays refused by a process started later', async () => {
    const u = await createUser(a, { username: 'rv-cross-role', role: 'operator' });
    const token = (await login(a, u.username, u.password)).token;
    const g = wsClient(b, { token });
    await g.acked;
    assert.equal((await rest(a.url!, 'PATCH', `/api/v1/admin/users/${u.id}`, await adminHeaders(a), { role: 'auditor' })).status, 200);
    assert.equal((await closedWithin(g.closed, 'graphql-ws on the other process')).code, 4403);
    await g.client.dispose();

    const v = await createUser(a, { username: 'rv-cross-gone', role: 'viewer' });
    const t = (await login(a, v.username, v.password)).token;
    assert.equal((await rest(a.url!, 'DELETE', `/api/v1/admin/users/${v.id}`, await adminHeaders(a))).status, 200);
    const c = await startTestApp('distributed', { listen: true, shared: { schema: a.schema!, prefix: a.prefix! }, keepData: true });
    try {
      assert.equal((await rest(c.url!, 'GET', '/api/v1/networks', { authorization: `Bearer ${t}` })).status, 401);
    } finally {
      await c.close();
    }
  });

  it('a revocation whose notice was lost (written straight to the database) still ends the connections within the sweep interval', { timeout: 90_000 }, async () => {
    const u = await createUser(a, { username: 'rv-lost', role: 'viewer' });
    const pair = await login(a, u.username, u.password);
    const c = await openWs(b.url!, { authorization: `Bearer ${pair.token}` });
    const key = await apiKeyFor(a, 'viewer', 'default', 'rv-lost-key');
    const sse = openSse(b.url!, key.headers);
    try {
      await sse.opened;
      await waitFor('the connected event', () => sse.system.find((m) => m.type === 'connected'));
      // What logout and DELETE /admin/api-keys write, without the notice (as if Redis had been away).
      const db = a.services.db;
      await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1', [familyOf(pair.token)]);
      await db.query(`INSERT INTO revoked_sessions (family_id, user_id, tenant_id, reason) VALUES ($1, $2, 'default', 'logout')`, [familyOf(pair.token), u.id]);
      await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
      const closed = await closedWithin(c.closed, '/ws after the sweep', 60_000);
      assert.equal(closed.code, 4401);
      assert.equal(c.messages.find((m) => m.type === 'error')?.details?.reason, 'logout');
      const err = await waitFor('the SSE error after the sweep', () => sse.system.find((m) => m.type === 'error'), 60_000);
      assert.equal(err.reason, 'api_key_revoked');
    } finally {
      sse.es.close();
    }
  });

  it('an API key deleted through one process ends its SSE stream on the other with an error event', async () => {
    const key = await apiKeyFor(a, 'viewer', 'default', 'rv-cross-sse');
    const sse = openSse(b.url!, key.headers);
    try {
      await sse.opened;
      await waitFor('the connected event', () => sse.system.find((m) => m.type === 'connected'));
      const del = await rest(a.url!, 'DELETE', `/api/v1/admin/api-keys/${key.id}`, await adminHeaders(a));
      assert.equal(del.status, 200);
      const err = await waitFor('the in-stream error on the other process', () => sse.system.find((m) => m.type === 'error'));
      assert.equal(err.code, 'UNAUTHORIZED');
      assert.equal(err.payload.reason, 'api_key_revoked');
      await sse.errored;
    } finally {
      sse.es.close();
    }
  });
});
