// Why the GraphQL door is not on mercurius (docs/graphql.md "Why not mercurius"):
// each test runs mercurius 16 and shows one behaviour that breaks SPEC 6.2/7.3/8.3
// or the graphql-ws protocol the door speaks. When a mercurius release changes
// one of them, its test fails: time to measure again.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import Fastify, { type FastifyInstance } from 'fastify';
import mercurius from 'mercurius';
import WebSocket from 'ws';
import { depthLimitRule } from '../src/graphql/limits.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { registerMercuriusDoor } from './helpers/mercurius-door.js';

const SDL = `
  type Item { name: String!, fails: String, child: Item }
  type Query { items: [Item!]! }
  type Subscription { ticks: Item! }
`;

// Finite: the duplicate-id test leaves one iterator that mercurius never returns.
async function* ticks() {
  for (let i = 0; i < 10; i++) {
    yield { ticks: { name: `t${i}`, child: { name: `c${i}` } } };
    await new Promise((r) => setImmediate(r));
  }
}

const resolvers = {
  Query: { items: () => [{ name: 'a' }, { name: 'b' }] },
  Item: { fails: () => { throw new Error('this field fails'); } },
  Subscription: { ticks: { subscribe: () => ticks() } },
};

const apps: (FastifyInstance | TestApp)[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

async function tiny(opts: Record<string, unknown> = {}): Promise<string> {
  const app = Fastify();
  await app.register(mercurius, { schema: SDL, resolvers: resolvers as never, subscription: true, ...opts });
  await app.listen({ port: 0, host: '127.0.0.1' });
  apps.push(app);
  const addr = app.server.address() as { port: number };
  return `127.0.0.1:${addr.port}`;
}

interface Session { messages: Record<string, unknown>[]; closed: Promise<{ code: number; reason: string }>; send(m: object): void; socket: WebSocket }

function open(url: string): Promise<Session> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, 'graphql-transport-ws');
    const messages: Record<string, unknown>[] = [];
    const closed = new Promise<{ code: number; reason: string }>((r) => socket.once('close', (code, reason) => r({ code, reason: String(reason) })));
    socket.on('message', (d) => messages.push(JSON.parse(String(d))));
    socket.once('error', reject);
    socket.once('open', () => resolve({ messages, closed, socket, send: (m) => socket.send(JSON.stringify(m)) }));
  });
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('a refused connection_init: mercurius sends connection_error (not a graphql-transport-ws message) and closes without a code; the door closes 4401', async () => {
  const host = await tiny({ subscription: { onConnect: () => false } });
  const m = await open(`ws://${host}/graphql`);
  m.send({ type: 'connection_init', payload: { token: 'not-a-token' } });
  const closed = await m.closed;
  assert.deepEqual(m.messages, [{ type: 'connection_error', payload: { message: 'Forbidden' } }]);
  assert.equal(closed.code, 1005, 'no close code: a graphql-ws client cannot tell 4401 (do not retry) from a network drop');

  // The gridops door, same refusal: 4401 with the GraphQL code in the reason.
  const app = await startTestApp('embedded', { listen: true });
  apps.push(app);
  const d = await open(`${app.url!.replace(/^http/, 'ws')}/graphql`);
  d.send({ type: 'connection_init', payload: { token: 'not-a-token' } });
  const dc = await d.closed;
  assert.equal(dc.code, 4401);
  assert.match(dc.reason, /^UNAUTHENTICATED: /);
});

test('subscriptions skip validation: an invalid document and one over the depth limit both start streaming', async () => {
  const host = await tiny({ validationRules: [depthLimitRule(1)] });
  const m = await open(`ws://${host}/graphql`);
  m.send({ type: 'connection_init' });
  await until(() => m.messages.some((x) => x.type === 'connection_ack'), 'ack');
  // Two root fields in a subscription break the spec's "single root field" rule; the
  // nested child is depth 2 where the rule allows 1 (SPEC 8.3 limits would not apply).
  m.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { ticks { name child { name } } again: ticks { name } }' } });
  await until(() => m.messages.some((x) => x.type === 'next' || x.type === 'error'), 'the answer');
  const first = m.messages.find((x) => x.type === 'next' || x.type === 'error')!;
  assert.equal(first.type, 'next', 'mercurius streams a document that graphql-js validate() refuses');
  assert.deepEqual((first.payload as { data: unknown }).data, { ticks: { name: 't0', child: { name: 'c0' } }, again: { name: 't0' } });
  m.socket.close();

  // The same document over HTTP goes through validate() and is refused.
  const res = await fetch(`http://${host}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ items { name child { name } } }' }) });
  const body = (await res.json()) as { errors?: { message: string }[] };
  assert.match(body.errors?.[0]?.message ?? '', /depth/);
});

test('a second subscribe with an id in use is not closed with 4409 (graphql-transport-ws: "Subscriber for <id> already exists")', async () => {
  const host = await tiny();
  const m = await open(`ws://${host}/graphql`);
  m.send({ type: 'connection_init' });
  await until(() => m.messages.some((x) => x.type === 'connection_ack'), 'ack');
  m.send({ id: 'same', type: 'subscribe', payload: { query: 'subscription { ticks { name } }' } });
  m.send({ id: 'same', type: 'subscribe', payload: { query: 'subscription { ticks { name } }' } });
  await until(() => m.messages.filter((x) => x.type === 'next').length >= 4, 'events on both');
  assert.equal(m.socket.readyState, WebSocket.OPEN);
  m.socket.close();
});

test('error paths lose their list indices over HTTP: mercurius serialises path items as strings', async () => {
  const host = await tiny();
  const res = await fetch(`http://${host}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ items { name fails } }' }) });
  const body = (await res.json()) as { errors: { path: unknown[] }[] };
  assert.deepEqual(body.errors[0].path, ['items', '0', 'fails'], 'the GraphQL spec (and SPEC 7.3 clients) expect ["items", 0, "fails"]');
});

test('the door rebuilt on mercurius (test/helpers/mercurius-door.ts) refuses an over-complex query before execution, in the SPEC 7.3 shape', async () => {
  const app = Fastify();
  apps.push(app);
  await registerMercuriusDoor(app, undefined);
  const res = await app.inject({ method: 'POST', url: '/graphql', payload: { query: '{ networks(pageSize: 100) { items { buses { id type area } } } }' } });
  const body = res.json() as { data: unknown; errors: { message: string; extensions: { code: string; details: Record<string, unknown> } }[] };
  assert.equal(res.statusCode, 200);
  assert.equal(body.errors[0].extensions.code, 'QUERY_TOO_COMPLEX', JSON.stringify(body));
  assert.deepEqual(body.errors[0].extensions.details, { complexity: 3102, limit: 1000 });
});
