// Solver threads run below the main thread's priority (src/engine/threadPriority.ts): with every
// core busy, the event loop gets the CPU first. Linux only (/proc keeps each thread's nice value).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { createSolverPool } from '../src/engine/pool.js';
import { loadConfig } from '../src/config.js';
import { DEFAULT_WORKER_NICE } from '../src/engine/threadPriority.js';

const linux = existsSync('/proc/self/task');

/** Nice values of this process's threads, by thread id. */
function threadNices(): number[] {
  const nices: number[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      nices.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])); // field 19: nice
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return nices;
}

/** Waits (by condition, each turn of the event loop) until `count` threads run at `nice`. */
async function threadsAt(nice: number, count: number, deadlineMs = 60_000): Promise<number> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const n = threadNices().filter((v) => v === nice).length;
    if (n >= count || Date.now() > until) return n;
    await new Promise((r) => setImmediate(r));
  }
}

test('solver threads run WORKER_NICE below the main thread', { skip: !linux }, async () => {
  const own = getPriority();
  const lowered = Math.min(19, own + DEFAULT_WORKER_NICE);
  assert.notEqual(lowered, own, 'this test needs a process that is not already at nice 19');
  const before = threadNices().filter((v) => v === lowered).length;
  const pool = createSolverPool({ threads: 2 });
  try {
    assert.equal(await threadsAt(lowered, before + 2), before + 2, 'both solver threads lowered themselves');
    assert.equal(getPriority(), own, 'the main thread keeps its priority');
  } finally {
    await pool.close();
  }
});

test('WORKER_NICE=0 keeps solver threads at the main thread priority', { skip: !linux }, async () => {
  const own = getPriority();
  const saved = process.env.WORKER_NICE;
  process.env.WORKER_NICE = '0'; // worker threads start with a copy of this environment
  const pool = createSolverPool({ threads: 1 });
  try {
    // a task has run, so the thread's module (and its priority call) has run
    await pool.run('layout', { n: 2, edges: Int32Array.of(0, 1), pinned: null });
    assert.deepEqual(threadNices().filter((v) => v !== own), [], 'no thread lowered');
  } finally {
    await pool.close();
    if (saved === undefined) delete process.env.WORKER_NICE;
    else process.env.WORKER_NICE = saved;
  }
});

test('an invalid WORKER_NICE stops the start-up with advice', () => {
  for (const bad of ['-1', '20', 'low', '2.5']) {
    assert.throws(() => loadConfig({ WORKER_NICE: bad }), /WORKER_NICE must be an integer from 0 .* to 19/);
  }
  assert.equal(loadConfig({ WORKER_NICE: '5' }).workerNice, 5);
  assert.equal(loadConfig({}).workerNice, DEFAULT_WORKER_NICE);
});
