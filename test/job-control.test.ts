// The one stop protocol of every solver-thread job (src/engine/jobControl.ts): stopped by timeout_ms or the
// caller's signal, answered at once; a job still queued is withdrawn, a running one gets STOP_GRACE_MS to reach
// its next iteration before its thread is ended; a run that ends first answers with its value or its error.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { JOB, JobControl, jobStarting, runStoppable, STOP_CODE } from '../src/engine/jobControl.js';

/** A run that never ends by itself: it resolves when the test says so. */
function pending<T>() {
  let finish!: (v: T) => void, fail!: (e: Error) => void;
  const done = new Promise<T>((resolve, reject) => { finish = resolve; fail = reject; });
  return { done, finish, fail };
}

it('a queued job stopped by the caller is withdrawn at once and answered cancelled', async () => {
  const ac = new AbortController();
  const run = pending<number>();
  let control: JobControl | undefined;
  const answer = runStoppable({ timeoutMs: 60_000, signal: ac.signal }, (job) => { control = job; return run.done; });
  ac.abort();
  assert.deepEqual(await answer, { stopped: 'cancelled' });
  assert.equal(Atomics.load(control!.flags, JOB.STOP), STOP_CODE.CANCEL);
  assert.equal(control!.threadSignal.aborted, true, 'not started: withdrawn from the queue');
  run.finish(1); // a late value changes nothing
});

it('a running job past timeout_ms is answered timeout, and its thread is ended only after the grace', async () => {
  const run = pending<number>();
  const job = new JobControl();
  assert.equal(jobStarting(job.flags), false); // the thread took it
  const answer = await runStoppable({ timeoutMs: 1 }, () => run.done, job);
  assert.deepEqual(answer, { stopped: 'timeout' });
  assert.equal(Atomics.load(job.flags, JOB.STOP), STOP_CODE.TIMEOUT);
  assert.equal(job.threadSignal.aborted, false, 'running: it gets the grace to stop at its next iteration');
  const alive = setInterval(() => {}, 1000); // the grace timer is unref'd: keep this test's process up for it
  await once(job.threadSignal, 'abort'); // it never stopped: the thread is ended
  clearInterval(alive);
});

it('a run that ends first answers its value or its error; a stop after that changes nothing', async () => {
  const ac = new AbortController();
  assert.deepEqual(await runStoppable({ timeoutMs: 60_000, signal: ac.signal }, async () => 42), { stopped: false, value: 42 });
  ac.abort();
  await assert.rejects(runStoppable({ timeoutMs: 60_000 }, async () => { throw new Error('core failed'); }), /core failed/);
  const before = new AbortController();
  before.abort();
  let ran = false;
  assert.deepEqual(await runStoppable({ signal: before.signal }, async () => { ran = true; return 1; }), { stopped: 'cancelled' });
  assert.equal(ran, false, 'a job stopped before it started is not run');
});

it('the thread side: a job stopped before it started says so, and reports progress in its slot', () => {
  const job = new JobControl();
  job.stop('cancelled');
  assert.equal(jobStarting(job.flags), true);
  Atomics.store(job.flags, JOB.PROGRESS, 5);
  assert.equal(job.progress, 5);
  assert.equal(job.stopped, true);
});
