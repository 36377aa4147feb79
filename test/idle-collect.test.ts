// The idle collection (src/lib/idleCollect.ts) counts what a major collection frees outside the JS heap too:
// a large answer's Float64Arrays (issue 35: once imports stopped building models on the main thread, nothing
// forced a major collection, and the heavy drill ended with 170 MB of dead array buffers held), and a trickle of
// requests (health probes) still counts as quiet. V8 decides by itself when array buffers go, so the process's
// memory figures are given here; the collection is a counter.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { collectWhenIdle, IDLE_CHECK_MS, isQuiet } from '../src/lib/idleCollect.js';

const MB = 1024 * 1024;

it('a few requests a second are quiet; a flood is not', () => {
  assert.equal(isQuiet(0), true);
  assert.equal(isQuiet(4, 0, 2000), true); // /health every half second
  assert.equal(isQuiet(200, 0, 2000), false);
  assert.equal(isQuiet(1, 1), false, 'a request being answered (a long computation) is not quiet');
});

it('does not collect while a request is being answered, and does once it is', { timeout: 60_000 }, async () => {
  let finish: (() => void) | undefined;
  let collections = 0;
  const g = globalThis as { gc?: () => void };
  const before = g.gc;
  g.gc = () => { collections++; };
  const memory = { heapUsed: 40 * MB, external: 5 * MB };
  const server: Server = createServer((_req, res) => {
    finish = () => res.end('done');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const stop = collectWhenIdle(server, { debug: () => {} }, () => memory);
  try {
    const port = (server.address() as { port: number }).port;
    const answer = fetch(`http://127.0.0.1:${port}/slow`).then((r) => r.text());
    memory.external += 170 * MB;
    await pause(3 * IDLE_CHECK_MS); // checks pass while the request is open
    assert.equal(collections, 0, 'no collection during an answer');
    finish!();
    assert.equal(await answer, 'done');
    for (let i = 0; collections === 0 && i < (5 * IDLE_CHECK_MS) / 500; i++) await pause(500);
    assert.equal(collections, 1);
  } finally {
    stop();
    g.gc = before;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

async function withCollector(f: (s: { port: number; collections: () => number; memory: { heapUsed: number; external: number } }) => Promise<void>) {
  let collections = 0;
  const g = globalThis as { gc?: () => void };
  const before = g.gc;
  g.gc = () => { collections++; };
  const memory = { heapUsed: 40 * MB, external: 5 * MB };
  const server: Server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const stop = collectWhenIdle(server, { debug: () => {} }, () => memory);
  try {
    await f({ port: (server.address() as { port: number }).port, collections: () => collections, memory });
  } finally {
    stop();
    g.gc = before;
    await new Promise((r) => server.close(r));
  }
}

const probe = (port: number) => fetch(`http://127.0.0.1:${port}/health`).then((r) => r.text());
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('collects once memory held outside the heap has grown, while probes trickle in', { timeout: 60_000 }, async () => {
  await withCollector(async ({ port, collections, memory }) => {
    memory.external += 170 * MB; // a large answer's buffers, dead but not yet collected
    // Probes every half second for at most five checks (a bound on the test, not a timing claim).
    for (let i = 0; collections() === 0 && i < (5 * IDLE_CHECK_MS) / 500; i++) {
      await probe(port);
      await pause(500);
    }
    assert.equal(collections(), 1, 'the dead buffers outside the heap were collected once quiet');
  });
});

it('does not collect while requests keep coming', { timeout: 60_000 }, async () => {
  await withCollector(async ({ port, collections, memory }) => {
    memory.external += 170 * MB;
    // A flood for two checks: 40 requests every quarter of a check.
    for (let i = 0; i < 8; i++) {
      await Promise.all(Array.from({ length: 40 }, () => probe(port)));
      await pause(IDLE_CHECK_MS / 4);
    }
    assert.equal(collections(), 0);
  });
});
