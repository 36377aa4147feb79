// The task queue: per-tenant FIFO under a live concurrent_powerflow quota,
// cancellation, and the distributed mode's BullMQ workers as separate
// processes (several sharing one queue; one killed in the middle of a solve).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, Worker as BullWorker } from 'bullmq';
import { Redis } from 'ioredis';
import { spawnGridops, type GridopsProcess as Worker } from './helpers/process.js';
import { MODES, PG_URL, QUICK, REDIS_URL, json, startTestApp, type TestApp } from './helpers/app.js';
import { SLOW_POWERFLOW, sleep, waitUntil } from './helpers/wait.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { JOBS_PER_PASS, QUEUE_NAME, groupIntoJobs, type BullTransport, type JobData } from '../src/queue/bullmq.js';

interface Row {
  id: string;
  seq: number;
  status: string;
  attempts: number;
  started_at: Date | null;
  completed_at: Date | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  result: { status?: string } | null;
}

/** Requests through the in-process API with the test's credentials. */
function client(app: TestApp) {
  let headers: Record<string, string> | undefined;
  const call = async (method: string, url: string, body?: unknown, extra: Record<string, string> = {}) => {
    headers ??= await adminHeaders(app);
    return app.app!.inject({ method: method as 'GET', url, headers: { ...headers, ...extra }, ...(body === undefined ? {} : { payload: body as string }) });
  };
  return {
    call,
    async importCase(name: string): Promise<string> {
      const res = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'), { 'content-type': 'text/plain' });
      assert.equal(res.statusCode, 201, res.body);
      return json(res).data.id as string;
    },
    async submit(networkId: string, options: Record<string, unknown> = {}): Promise<string> {
      const res = await call('POST', `/api/v1/networks/${networkId}/powerflow`, { async: true, ...options });
      assert.equal(res.statusCode, 202, res.body);
      const d = json(res).data;
      assert.equal(d.status, 'queued');
      return d.task_id as string;
    },
    async task(id: string) {
      const res = await call('GET', `/api/v1/tasks/${id}`);
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data;
    },
    async cancel(id: string) {
      return call('DELETE', `/api/v1/tasks/${id}`);
    },
  };
}

async function setQuota(app: TestApp, n: number): Promise<void> {
  await app.services.db.query(`UPDATE tenants SET quotas = jsonb_set(coalesce(quotas, '{}'::jsonb), '{concurrent_powerflow}', $1::jsonb) WHERE id = 'default'`, [String(n)]);
}

async function rows(app: TestApp, ids: string[]): Promise<Row[]> {
  const { rows } = await app.services.db.query<Row>('SELECT id, seq, status, attempts, started_at, completed_at, error, result FROM tasks WHERE id = ANY($1) ORDER BY seq', [ids]);
  return rows;
}

const FINISHED = ['completed', 'failed', 'cancelled'];

async function waitFinished(app: TestApp, ids: string[], timeoutMs = 60_000): Promise<Row[]> {
  return waitUntil(`${ids.length} task(s) to finish`, async () => {
    const r = await rows(app, ids);
    return r.length === ids.length && r.every((t) => FINISHED.includes(t.status)) ? r : undefined;
  }, timeoutMs, 100);
}

/** Largest number of [started_at, completed_at] intervals that overlap. */
function maxOverlap(rs: Row[]): number {
  const points: [number, number][] = [];
  for (const r of rs) {
    if (!r.started_at || !r.completed_at) continue;
    points.push([new Date(r.started_at).getTime(), 1], [new Date(r.completed_at).getTime(), -1]);
  }
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]); // an end before a start at the same instant
  let cur = 0;
  let max = 0;
  for (const [, d] of points) max = Math.max(max, (cur += d));
  return max;
}

const SLOW = SLOW_POWERFLOW;

// ---------------------------------------------------------------------------
// FIFO, quota and cancel: the same rules in both modes (they live in the
// scheduler; the transport is the in-process pool or BullMQ).
for (const mode of MODES) {
  describe(`task queue (${mode})`, () => {
    let app: TestApp;
    let api: ReturnType<typeof client>;
    let net: string;

    before(async () => {
      app = await startTestApp(mode);
      api = client(app);
      net = await api.importCase(QUICK ? 'case2869pegase' : 'case9241pegase');
    });
    after(async () => {
      await app?.close();
    });

    it('10 async power flows under quota 2 start in submission order, never more than 2 at once', { timeout: 120_000 }, async () => {
      await setQuota(app, 2);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await api.submit(net));
      // Sample the table while they run.
      let maxRunning = 0;
      let maxActive = 0;
      const done = await waitUntil('10 tasks to finish', async () => {
        const { rows: [c] } = await app.services.db.query<{ running: number; active: number; finished: number }>(
          `SELECT count(*) FILTER (WHERE status = 'running')::int AS running,
                  count(*) FILTER (WHERE status IN ('dispatched', 'running'))::int AS active,
                  count(*) FILTER (WHERE status IN ('completed', 'failed', 'cancelled'))::int AS finished
           FROM tasks WHERE id = ANY($1)`, [ids]);
        maxRunning = Math.max(maxRunning, c.running);
        maxActive = Math.max(maxActive, c.active);
        return c.finished === ids.length;
      }, 90_000, 10);
      assert.ok(done);
      assert.ok(maxActive <= 2, `${maxActive} tasks were dispatched or running at once under quota 2`);
      assert.ok(maxRunning <= 2, `${maxRunning} tasks were running at once under quota 2`);

      const rs = await rows(app, ids);
      for (const r of rs) {
        assert.equal(r.status, 'completed', `${r.id}: ${JSON.stringify(r.error)}`);
        assert.equal(r.result?.status, 'converged');
        assert.equal(r.attempts, 1);
      }
      const overlap = maxOverlap(rs);
      assert.ok(overlap <= 2, `${overlap} tasks ran at once under quota 2`);
      assert.equal(overlap, 2, 'two tasks should run side by side under quota 2');

      // Start order = submission order. Only tasks dispatched in the same pass
      // (the first two) may claim their start a few milliseconds apart.
      const bySeq = [...rs].sort((a, b) => a.seq - b.seq);
      const byStart = [...rs].sort((a, b) => new Date(a.started_at!).getTime() - new Date(b.started_at!).getTime());
      for (let i = 0; i < byStart.length; i++) {
        if (byStart[i].id === bySeq[i].id) continue;
        const gap = Math.abs(new Date(byStart[i].started_at!).getTime() - new Date(bySeq[i].started_at!).getTime());
        assert.ok(gap < 250, `task #${i + 1} by submission (${bySeq[i].id}) started out of order (${gap} ms away from its slot)`);
      }
      // And no task started before an earlier one was handed to a solver: the
      // third starts only after one of the first two finished, and so on.
      for (let i = 2; i < bySeq.length; i++) {
        const start = new Date(bySeq[i].started_at!).getTime();
        const finishedBefore = bySeq.slice(0, i).filter((r) => new Date(r.completed_at!).getTime() <= start).length;
        assert.ok(finishedBefore >= i - 1, `task #${i + 1} started while ${i - finishedBefore} earlier tasks were still running`);
      }
    });

    it('a quota change applies to queued tasks at once', { timeout: 120_000 }, async () => {
      await setQuota(app, 0);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(await api.submit(net));
      await sleep(1500); // several dispatcher passes
      for (const r of await rows(app, ids)) assert.equal(r.status, 'queued', 'quota 0: nothing may start');
      assert.equal((await api.task(ids[0])).queue_position, 1);
      assert.equal((await api.task(ids[3])).queue_position, 4);

      await setQuota(app, 1);
      const first = await waitUntil('the first task to start under quota 1', async () => {
        const r = await rows(app, ids);
        return r.find((t) => t.status !== 'queued');
      }, 10_000);
      assert.equal(first.id, ids[0], 'the oldest task starts first');
      const active = (await rows(app, ids)).filter((r) => r.status === 'dispatched' || r.status === 'running');
      assert.ok(active.length <= 1, `${active.length} tasks active under quota 1`);

      await setQuota(app, 4);
      const rs = await waitFinished(app, ids);
      for (const r of rs) assert.equal(r.status, 'completed', JSON.stringify(r.error));
      // The three that waited were released together by the raise, not one by one.
      assert.ok(maxOverlap(rs.slice(1)) >= 2, `after raising the quota to 4 the waiting tasks ran one at a time (overlap ${maxOverlap(rs.slice(1))})`);
      await setQuota(app, 100);
    });

    it('cancels a queued task and a running one (DELETE /tasks/{id})', { timeout: 120_000 }, async () => {
      await setQuota(app, 1);
      const slow = await api.submit(net, SLOW);
      const queued = await api.submit(net);
      await waitUntil('the slow task to iterate', async () => (await api.task(slow)).progress?.iteration >= 3, 30_000);
      assert.equal((await api.task(queued)).status, 'queued');

      // queued
      let res = await api.cancel(queued);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.status, 'cancelled');
      // running
      res = await api.cancel(slow);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.status, 'cancelled');
      // The solver really stopped (this process solves in both modes; in
      // distributed mode the cancel reached it through Redis pub/sub).
      await waitUntil('the cancelled solve to stop', async () => app.services.localRuns.size === 0, 10_000);
      const [s1, q1] = await rows(app, [slow, queued]);
      assert.equal(s1.status, 'cancelled');
      assert.equal(s1.error?.code, 'CANCELLED');
      assert.equal(s1.result, null);
      assert.equal(q1.status, 'cancelled');
      assert.equal(q1.started_at, null, 'a task cancelled while queued never starts');
      // DELETE of the finished (cancelled) task deletes it with its stored result (#35 item 4); then it is gone.
      res = await api.cancel(queued);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((await api.cancel(queued)).statusCode, 404);

      // The slot is free again: the next task runs at once.
      const next = await api.submit(net);
      const [n] = await waitFinished(app, [next], 30_000);
      assert.equal(n.status, 'completed');
      // Still cancelled afterwards (a late solver answer must not overwrite it).
      assert.equal((await api.task(slow)).status, 'cancelled');
      await setQuota(app, 100);
    });
  });
}

// ---------------------------------------------------------------------------
// Distributed mode with real worker processes: an API process (ROLE=api) in
// the test, `node dist/src/server.js` children with ROLE=worker.
describe('distributed workers (separate processes)', () => {
  let app: TestApp;
  let api: ReturnType<typeof client>;
  let queue: Queue<JobData>;
  let conn: Redis;
  let net: string;
  let dataDir: string;
  const children = new Set<Worker>();
  const killAll = () => {
    for (const c of children) c.proc.kill('SIGKILL');
  };

  /** A ROLE=worker child on the test's schema and prefix, ready (test/helpers/process.ts). */
  async function startWorker(env: Record<string, string> = {}): Promise<Worker> {
    const w = await spawnGridops({
      NODE_ENV: 'test', ROLE: 'worker', DATABASE_URL: PG_URL, REDIS_URL, GRIDOPS_DB_SCHEMA: app.schema!, GRIDOPS_REDIS_PREFIX: app.prefix!,
      WORKERS: '1', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env,
    });
    children.add(w);
    void w.exited.then(() => children.delete(w));
    return w;
  }

  async function stopWorkers(): Promise<void> {
    for (const c of [...children]) {
      await c.stop(15_000);
    }
  }

  /** The worker that took a task's job: its own job (id = task id), or the shared job of its dispatch pass (tasks.job_id). */
  const processedBy = async (taskId: string) => {
    const { rows: t } = await app.services.db.query<{ job: string }>('SELECT COALESCE(job_id, id) AS job FROM tasks WHERE id = $1', [taskId]);
    return (await queue.getJob(t[0]?.job ?? taskId))?.processedBy;
  };

  /** Submits a converging large-case solve and SIGKILLs the worker as soon as it is solving it. */
  async function killMidSolve(workers: Worker[]): Promise<{ task: string; victim: Worker; survivor: Worker; killedAt: number }> {
    for (let attempt = 1; attempt <= 4; attempt++) {
      const task = await api.submit(net);
      const by = await waitUntil('a worker to take the task', async () => {
        const [r] = await rows(app, [task]);
        if (r && FINISHED.includes(r.status)) return { done: true as const };
        const name = await processedBy(task);
        return r?.status === 'running' && name ? { done: false as const, name } : undefined;
      }, 30_000, 5);
      if (by.done) continue; // solved before we could kill it: try again
      const victim = workers.find((w) => w.name === by.name);
      assert.ok(victim, `task taken by ${by.name}, not one of ${workers.map((w) => w.name).join(', ')}`);
      const killedAt = Date.now();
      await victim.kill();
      const [r] = await rows(app, [task]);
      if (r.status === 'completed' && r.attempts === 1) continue; // finished in the same instant
      return { task, victim, survivor: workers.find((w) => w !== victim)!, killedAt };
    }
    throw new Error('could not catch a worker in the middle of a solve in 4 tries');
  }

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gridops-queue-'));
    app = await startTestApp('distributed', { config: { role: 'api' } });
    api = client(app);
    conn = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    queue = new Queue<JobData>(QUEUE_NAME, { connection: conn, prefix: app.prefix });
    net = await api.importCase('case13659pegase');
  });
  after(async () => {
    killAll();
    await Promise.all([...children].map((c) => c.exited));
    await queue?.close().catch(() => {});
    conn?.disconnect();
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('the API process (ROLE=api) solves nothing itself; health shows the queue', async () => {
    assert.equal(app.services.solver, undefined);
    assert.equal(app.services.tasks.transport.kind, 'bullmq');
    const h = json(await api.call('GET', '/api/v1/health')).data;
    assert.equal(h.checks.queue, 'ok');
  });

  it('two worker processes sharing one Redis queue both take jobs', { timeout: 120_000 }, async () => {
    try {
      const [a, b] = await Promise.all([startWorker(), startWorker()]);
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push(await api.submit(net));
      const rs = await waitFinished(app, ids, 90_000);
      for (const r of rs) assert.equal(r.status, 'completed', JSON.stringify(r.error));
      const by = await Promise.all(ids.map(processedBy));
      const counts = new Map<string, number>();
      for (const n of by) counts.set(n ?? '?', (counts.get(n ?? '?') ?? 0) + 1);
      assert.ok((counts.get(a.name) ?? 0) > 0 && (counts.get(b.name) ?? 0) > 0, `jobs per worker: ${JSON.stringify(Object.fromEntries(counts))}`);
      assert.equal((counts.get(a.name) ?? 0) + (counts.get(b.name) ?? 0), ids.length);
      // Events written by the workers reached the shared store.
      const { rows: ev } = await app.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events WHERE kind = 'task.running' AND payload->>'task_id' = ANY($1)`, [ids]);
      assert.equal(ev[0].n, ids.length);
    } finally {
      await stopWorkers();
    }
  });

  it('a worker killed mid-solve: the other worker retries the task to completion', { timeout: 120_000 }, async (t) => {
    try {
      const workers = await Promise.all([startWorker(), startWorker()]);
      const { task, survivor, killedAt } = await killMidSolve(workers);
      // The survivor takes the job back once the lock has expired (10 s) and
      // its stalled check (every 5 s) has seen it.
      await waitUntil('the task to be retried', async () => {
        const [r] = await rows(app, [task]);
        return r.attempts >= 2 || FINISHED.includes(r.status);
      }, 45_000, 100);
      const took = Date.now() - killedAt;
      t.diagnostic(`retried ${took} ms after the kill`);
      const [r] = await waitFinished(app, [task], 60_000);
      assert.equal(r.status, 'completed', `after the kill: ${r.status} ${JSON.stringify(r.error)}`);
      assert.equal(r.result?.status, 'converged');
      assert.equal(r.attempts, 2, 'claimed once by each worker');
      assert.equal(await processedBy(task), survivor.name);
      assert.ok(took < 25_000, `the retry started ${took} ms after the kill (lock 10 s + stalled check 5 s expected)`);
      assert.ok(survivor.log.some((l) => l.includes(task) && l.includes('stopped')), 'the survivor logged the stalled job');
    } finally {
      await stopWorkers();
    }
  });

  it('a worker killed mid-solve with no retries left: the task fails with a clear error, not stuck running', { timeout: 120_000 }, async () => {
    const env = { GRIDOPS_QUEUE_MAX_STALLED: '0' };
    try {
      const workers = await Promise.all([startWorker(env), startWorker(env)]);
      const { task } = await killMidSolve(workers);
      const [r] = await waitFinished(app, [task], 60_000);
      assert.equal(r.status, 'failed');
      assert.equal(r.error?.code, 'INTERNAL_ERROR');
      assert.match(r.error!.message, /the worker solving this task stopped \(attempt 1 of 1\)/);
      assert.equal(r.error?.details?.reason, 'worker_stopped');
      const t = await api.task(task);
      assert.equal(t.status, 'failed');
      assert.match(t.error.message, /worker solving this task stopped/);
      // The slot it held is free: the next task runs.
      const next = await api.submit(net);
      const [n] = await waitFinished(app, [next], 60_000);
      assert.equal(n.status, 'completed');
    } finally {
      await stopWorkers();
    }
  });

  it('sweeper: re-sends a dispatched task without a job, fails tasks whose job failed or vanished', { timeout: 120_000 }, async () => {
    assert.equal(children.size, 0);
    const transport = app.services.tasks.transport as BullTransport;
    await setQuota(app, 100);

    // 1. dispatched, job lost before a worker took it (e.g. Redis restarted empty)
    const t1 = await api.submit(net);
    await waitUntil('t1 dispatched', async () => (await rows(app, [t1]))[0]?.status === 'dispatched' && (await queue.getJobState(t1)) === 'waiting');
    assert.equal(await queue.remove(t1), 1);
    await transport.sweep(); // suspicious
    await transport.sweep(); // still: re-sent
    assert.equal(await queue.getJobState(t1), 'waiting');
    assert.equal((await rows(app, [t1]))[0].status, 'dispatched');

    // 2. running, job gone (its worker and the job both vanished)
    await app.services.db.query(`UPDATE tasks SET status = 'running', started_at = now(), attempts = 1 WHERE id = $1`, [t1]);
    assert.equal(await queue.remove(t1), 1);
    await transport.sweep();
    await transport.sweep();
    let [r] = await rows(app, [t1]);
    assert.equal(r.status, 'failed');
    assert.equal(r.error?.details?.reason, 'job_lost');

    // 3. a job that failed for good (its processor threw on every attempt)
    const t2 = await api.submit(net);
    await waitUntil('t2 waiting', async () => (await queue.getJobState(t2)) === 'waiting');
    const failingConn = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const failing = new BullWorker<JobData>(QUEUE_NAME, async () => {
      throw new Error('database unreachable');
    }, { connection: failingConn, prefix: app.prefix });
    try {
      await waitUntil('t2 job failed', async () => (await queue.getJobState(t2)) === 'failed', 20_000, 100);
    } finally {
      await failing.close();
      failingConn.disconnect();
    }
    await transport.sweep();
    [r] = await rows(app, [t2]);
    assert.equal(r.status, 'failed');
    assert.match(r.error!.message, /could not run this task: database unreachable \(attempt 2 of 2\)/);
  });

  it('a dispatch pass of many tasks shares jobs; the sweeper follows a task to its job; a worker runs them all', { timeout: 120_000 }, async () => {
    assert.equal(children.size, 0);
    const transport = app.services.tasks.transport as BullTransport;
    const small = await api.importCase('case9');
    await setQuota(app, 0);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await api.submit(small));
    await setQuota(app, 100); // the next pass dispatches all 40 at once
    await waitUntil('40 tasks dispatched', async () => (await rows(app, ids)).every((t) => t.status === 'dispatched'), 90_000);

    const jobOf = async () => new Map((await app.services.db.query<{ id: string; job_id: string | null }>('SELECT id, job_id FROM tasks WHERE id = ANY($1)', [ids])).rows.map((r) => [r.id, r.job_id]));
    const waiting = async () => (await queue.getJobs(['waiting'])).filter((j) => [j.data.taskId, ...(j.data.taskIds ?? [])].some((id) => id && ids.includes(id)));
    // A pass marks its tasks dispatched, then adds their jobs: wait until every task's job is in the queue.
    let jobs = await waitUntil('the 40 tasks in waiting jobs', async () => {
      const j = await waiting();
      return j.flatMap((x) => x.data.taskIds ?? [x.data.taskId!]).length >= ids.length ? j : undefined;
    }, 90_000);
    // Every task in exactly one job, in submission order; jobs of several tasks are named on the task.
    assert.deepEqual(jobs.flatMap((j) => j.data.taskIds ?? [j.data.taskId!]).sort(), [...ids].sort());
    assert.ok(jobs.length < ids.length && jobs.length >= JOBS_PER_PASS, `${jobs.length} jobs for 40 tasks`);
    const byTask = await jobOf();
    for (const j of jobs) {
      for (const id of j.data.taskIds ?? []) assert.equal(byTask.get(id), j.id, `task ${id} names its job`);
      assert.deepEqual(j.data.taskIds ?? [j.data.taskId], (j.data.taskIds ?? [j.data.taskId!]).slice().sort((a, b) => ids.indexOf(a!) - ids.indexOf(b!)));
    }

    // A shared job lost before a worker took it: the sweeper re-sends its tasks in new jobs,
    // and each task names the job that now carries it.
    const lost = jobs.find((j) => (j.data.taskIds?.length ?? 0) > 1)!;
    assert.equal(await queue.remove(lost.id!), 1);
    await transport.sweep();
    await transport.sweep();
    jobs = await waiting();
    const named = await jobOf();
    for (const id of lost.data.taskIds!) {
      const carrier = jobs.find((j) => (j.data.taskIds ?? [j.data.taskId]).includes(id));
      assert.ok(carrier, `task ${id} re-sent`);
      assert.notEqual(carrier.id, lost.id);
      assert.equal(named.get(id) ?? id, carrier.id, `task ${id} names the job that carries it`);
    }
    assert.deepEqual(jobs.flatMap((j) => j.data.taskIds ?? [j.data.taskId!]).sort(), [...ids].sort(), 'still each task in exactly one job');
    await transport.sweep(); // nothing more to do: no duplicates
    assert.equal((await waiting()).length, jobs.length);

    // One task of a shared job cancelled while it waits: the others run, it stays cancelled.
    const shared = jobs.find((j) => (j.data.taskIds?.length ?? 0) > 1)!;
    const victim = shared.data.taskIds![1]!;
    assert.equal((await api.cancel(victim)).statusCode, 200);
    try {
      await startWorker();
      const rs = await waitFinished(app, ids, 90_000);
      for (const r of rs) {
        if (r.id === victim) assert.equal(r.status, 'cancelled');
        else assert.equal(r.status, 'completed', `${r.id}: ${JSON.stringify(r.error)}`);
        assert.ok(r.attempts <= 1, `${r.id} ran ${r.attempts} times`);
      }
    } finally {
      await stopWorkers();
    }
  });
});

describe('grouping a dispatch pass into jobs', () => {
  const n = (k: number) => Array.from({ length: k }, (_, i) => i);
  it('one task per job while a pass hands over JOBS_PER_PASS or fewer', () => {
    assert.equal(JOBS_PER_PASS, 4);
    assert.deepEqual(groupIntoJobs(n(4), 16), n(4).map((i) => [i]));
    assert.deepEqual(groupIntoJobs([], 16), []);
  });
  it('more: at least JOBS_PER_PASS jobs, at most maxPerJob tasks each, nearly equal, order kept', () => {
    assert.deepEqual(groupIntoJobs(n(10), 16).map((j) => j.length), [3, 3, 2, 2]);
    for (const k of [5, 17, 40, 100, 256, 1000]) {
      const jobs = groupIntoJobs(n(k), 16);
      assert.deepEqual(jobs.flat(), n(k), `${k}: every task once, in order`);
      assert.ok(jobs.every((j) => j.length >= 1 && j.length <= 16), `${k}: job sizes ${jobs.map((j) => j.length)}`);
      assert.ok(jobs.length >= Math.min(JOBS_PER_PASS, k), `${k}: ${jobs.length} jobs`);
      assert.ok(Math.max(...jobs.map((j) => j.length)) - Math.min(...jobs.map((j) => j.length)) <= 1, `${k}: sizes differ by one at most`);
    }
    assert.equal(groupIntoJobs(n(1000), 16).length, 63);
  });
  it('maxPerJob 1 keeps one job per task', () => {
    assert.equal(groupIntoJobs(n(500), 1).length, 500);
  });
});
