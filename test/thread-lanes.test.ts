// Who gets the next solver thread (src/engine/threadLanes.ts). Long solves leave a thread to short ones: with two threads, a
// second long solve waits for the first while short work starts at once; a waiting one can be withdrawn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHORT_BEFORE_BULK, SHORT_RECENT_MS, ThreadLanes, type Lane } from '../src/engine/threadLanes.js';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

test('long work holds at most all threads but one; short work is not held back', async () => {
  const lanes = new ThreadLanes(2);
  assert.equal(lanes.longMax, 1);
  const started: string[] = [];
  const a = gate();
  const first = lanes.run('long', undefined, async () => {
    started.push('long A');
    await a.opened;
    return 'A';
  });
  const second = lanes.run('long', undefined, async () => {
    started.push('long B');
    return 'B';
  });
  const short = await lanes.run('short', undefined, async () => {
    started.push('short');
    return 'S';
  });
  assert.equal(short, 'S');
  assert.deepEqual(started, ['long A', 'short'], 'the second long solve waits for the first');
  assert.equal(lanes.longRunning, 1);
  a.open();
  assert.deepEqual(await Promise.all([first, second]), ['A', 'B']);
  assert.deepEqual(started, ['long A', 'short', 'long B']);
  assert.equal(lanes.longRunning, 0);
});

test('a long solve waiting for its slot is withdrawn by its signal; one thread keeps nothing back', async () => {
  const lanes = new ThreadLanes(2);
  const a = gate();
  const first = lanes.run('long', undefined, () => a.opened);
  const ac = new AbortController();
  let ran = false;
  const waiting = lanes.run('long', ac.signal, async () => {
    ran = true;
  });
  ac.abort();
  await assert.rejects(waiting, (e: Error) => e.name === 'AbortError');
  a.open();
  await first;
  assert.equal(ran, false);
  assert.equal(lanes.longRunning, 0);
  // an aborted signal is refused before it waits
  await assert.rejects(
    lanes.run('long', ac.signal, async () => 1),
    (e: Error) => e.name === 'AbortError',
  );

  const single = new ThreadLanes(1);
  assert.equal(single.longMax, 1);
  assert.equal(await single.run('long', undefined, async () => 7), 7);
});

/** Work that holds its thread until opened, noting when it started. */
function held(lanes: ThreadLanes, lane: Lane, name: string, started: string[]) {
  const g = gate();
  const done = lanes.run(lane, undefined, async () => {
    started.push(name);
    await g.opened;
    return name;
  });
  return { open: g.open, done };
}

test('a short task takes the next free thread before study chunks that came earlier', async () => {
  let clock = 0;
  const lanes = new ThreadLanes(2, () => clock);
  const started: string[] = [];
  const c1 = held(lanes, 'bulk', 'chunk1', started);
  const c2 = held(lanes, 'bulk', 'chunk2', started);
  const c3 = held(lanes, 'bulk', 'chunk3', started); // waits: both threads hold chunks
  const pf = held(lanes, 'short', 'pf', started);
  assert.deepEqual(started, ['chunk1', 'chunk2']);
  assert.equal(lanes.waiting, 2);
  c1.open();
  await c1.done;
  assert.deepEqual(started, ['chunk1', 'chunk2', 'pf'], 'the power flow, not the chunk queued before it');
  pf.open();
  await pf.done;
  clock += SHORT_RECENT_MS + 1;
  c2.open();
  await c2.done;
  assert.deepEqual(started, ['chunk1', 'chunk2', 'pf', 'chunk3']);
  c3.open();
  await c3.done;
  assert.equal(lanes.running, 0);
});

test('a flood of short work lets one waiting chunk through every SHORT_BEFORE_BULK short tasks', async () => {
  const lanes = new ThreadLanes(1);
  const started: string[] = [];
  const first = held(lanes, 'short', 'first', started);
  const chunk = held(lanes, 'bulk', 'chunk', started);
  const shorts = Array.from({ length: 2 * SHORT_BEFORE_BULK }, (_, i) => held(lanes, 'short', `pf${i}`, started));
  first.open();
  await first.done;
  for (const s of shorts.slice(0, SHORT_BEFORE_BULK)) {
    s.open();
    await s.done;
  }
  assert.equal(started[SHORT_BEFORE_BULK + 1], 'chunk', 'the chunk went after SHORT_BEFORE_BULK short tasks');
  chunk.open();
  for (const s of shorts.slice(SHORT_BEFORE_BULK)) s.open();
  await Promise.all([chunk.done, ...shorts.map((s) => s.done)]);
  assert.equal(started.length, 2 + 2 * SHORT_BEFORE_BULK);
});

test('a long solve waiting for its slot does not hold back a chunk behind it', async () => {
  const lanes = new ThreadLanes(3); // long work may hold 2
  const started: string[] = [];
  const l1 = held(lanes, 'long', 'long1', started);
  const l2 = held(lanes, 'long', 'long2', started);
  const l3 = held(lanes, 'long', 'long3', started); // waits for a long slot, a thread is free
  const c = held(lanes, 'bulk', 'chunk', started);
  await new Promise((r) => setImmediate(r)); // the chunk's turn to start
  assert.deepEqual(started, ['long1', 'long2', 'chunk']);
  l1.open();
  await l1.done;
  c.open();
  await c.done;
  assert.deepEqual(started, ['long1', 'long2', 'chunk', 'long3']);
  l2.open();
  l3.open();
  await Promise.all([l2.done, l3.done]);
});

test('while short work is recent, study chunks leave a thread free; after SHORT_RECENT_MS they take it again', async () => {
  let clock = 0;
  const lanes = new ThreadLanes(2, () => clock);
  const started: string[] = [];
  const c1 = held(lanes, 'bulk', 'chunk1', started);
  const c2 = held(lanes, 'bulk', 'chunk2', started); // no short work yet: both threads
  assert.deepEqual(started, ['chunk1', 'chunk2']);
  const pf = held(lanes, 'short', 'pf', started);
  c1.open();
  await c1.done;
  pf.open();
  await pf.done;
  const c3 = held(lanes, 'bulk', 'chunk3', started); // a thread is free, but short work came just now
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['chunk1', 'chunk2', 'pf'], 'the free thread is kept for the next short task');
  const pf2 = held(lanes, 'short', 'pf2', started);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['chunk1', 'chunk2', 'pf', 'pf2'], 'which starts at once');
  pf2.open();
  await pf2.done;
  clock += SHORT_RECENT_MS + 1;
  c2.open(); // a thread ends: the reservation has lapsed, so the waiting chunk goes
  await c2.done;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['chunk1', 'chunk2', 'pf', 'pf2', 'chunk3']);
  c3.open();
  await c3.done;

  const single = new ThreadLanes(1, () => clock);
  const s = held(single, 'short', 'pf', []);
  s.open();
  await s.done;
  assert.equal(await single.run('bulk', undefined, async () => 'chunk'), 'chunk', 'one thread keeps nothing back');
});

test('a chunk kept back only by the reservation starts when it ends, without other work ending', async () => {
  const lanes = new ThreadLanes(2); // the real clock: the wake-up is a timer
  const started: string[] = [];
  await lanes.run('short', undefined, async () => {});
  const c = held(lanes, 'bulk', 'chunk', started);
  const c2 = held(lanes, 'bulk', 'chunk2', started);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['chunk']);
  for (let i = 0; i < 100 && started.length < 2; i++) await new Promise((r) => setTimeout(r, SHORT_RECENT_MS / 10));
  assert.deepEqual(started, ['chunk', 'chunk2']);
  c.open();
  c2.open();
  await Promise.all([c.done, c2.done]);
});
