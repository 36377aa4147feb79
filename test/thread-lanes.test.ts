// Long solves leave a solver thread to short ones (src/engine/threadLanes.ts): with two threads, a
// second long solve waits for the first while short work starts at once; a waiting one can be withdrawn.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThreadLanes } from '../src/engine/threadLanes.js';

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
  const first = lanes.run(true, undefined, async () => {
    started.push('long A');
    await a.opened;
    return 'A';
  });
  const second = lanes.run(true, undefined, async () => {
    started.push('long B');
    return 'B';
  });
  const short = await lanes.run(false, undefined, async () => {
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
  const first = lanes.run(true, undefined, () => a.opened);
  const ac = new AbortController();
  let ran = false;
  const waiting = lanes.run(true, ac.signal, async () => {
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
    lanes.run(true, ac.signal, async () => 1),
    (e: Error) => e.name === 'AbortError',
  );

  const single = new ThreadLanes(1);
  assert.equal(single.longMax, 1);
  assert.equal(await single.run(true, undefined, async () => 7), 7);
});
