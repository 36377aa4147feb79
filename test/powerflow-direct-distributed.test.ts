// Synchronous power flows solved at once by two API processes (ROLE=all, distributed: PostgreSQL,
// Redis, BullMQ) sharing one database and one Redis prefix (src/queue/direct.ts, src/queue/directSlots.ts):
// the concurrent_powerflow quota holds across both processes under concurrent synchronous and
// asynchronous submissions, a queued task goes first (FIFO), and a crashed process's slot comes back.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { REDIS_URL, json, startTestApp, type TestApp } from './helpers/app.js';
import { SLOW_POWERFLOW, waitUntil } from './helpers/wait.js';
import { directClient, injector, type Call } from './helpers/directPowerflow.js';
import { adminHeaders } from './helpers/auth.js';
import { DirectSlots } from '../src/queue/directSlots.js';

const SLOW = SLOW_POWERFLOW;

describe('synchronous power flows solved at once by two API processes (distributed)', () => {
  let a: TestApp;
  let b: TestApp;
  let callA: Call;
  let callB: Call;
  let small: string;
  let large: string;

  const { importCase, setQuota, submitVia: submit, taskRows, releaseInOrder } = directClient(() => a, () => callA, 'powerflow-direct-distributed test');
  /** The tasks among ids that were queued (a task.queued event): the others were solved at once. */
  const queuedOf = async (ids: string[]) => new Set((await a.services.db.query<{ id: string }>(
    `SELECT payload->>'task_id' AS id FROM events WHERE kind = 'task.queued' AND payload->>'task_id' = ANY($1)`, [ids])).rows.map((r) => r.id));
  /** Stored, once answered (write-behind in the process that answered). */
  const storedAll = async (app: TestApp, ids: string[]) => Promise.all(ids.map((id) => app.services.pendingTasks.stored(id)));

  before(async () => {
    a = await startTestApp('distributed');
    b = await startTestApp('distributed', { shared: { schema: a.schema!, prefix: a.prefix! }, keepData: true });
    callA = injector(a, (await adminHeaders(a)) as Record<string, string>);
    callB = injector(b, (await adminHeaders(b)) as Record<string, string>);
    small = await importCase('case118');
    large = await importCase('case2869pegase');
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  it('is solved at once in either process (never queued), a task with its result and events', async () => {
    for (const [app, call] of [[a, callA], [b, callB]] as const) {
      const res = await call('POST', `/api/v1/networks/${small}/powerflow`, {});
      assert.equal(res.statusCode, 200, res.body);
      const answer = json(res).data;
      assert.equal(answer.status, 'converged');
      const got = await call('GET', `/api/v1/tasks/${answer.task_id}?include=result`);
      assert.equal(got.statusCode, 200, got.body);
      assert.deepEqual(json(got).data.result.buses, answer.buses);
      await app.services.pendingTasks.stored(answer.task_id);
      const kinds = (await a.services.db.query<{ kind: string }>(`SELECT kind FROM events WHERE payload->>'task_id' = $1 ORDER BY seq`, [answer.task_id]))
        .rows.map((r) => r.kind);
      assert.ok(kinds.includes('task.completed') && kinds.includes('powerflow.finished'), `${kinds}`);
      assert.ok(!kinds.includes('task.queued'), `solved at once, not queued: ${kinds}`);
      // Stored: the other process finds it too.
      const other = app === a ? callB : callA;
      assert.equal(json(await other('GET', `/api/v1/tasks/${answer.task_id}`)).data.status, 'completed');
    }
  });

  it('keeps the quota (2) across both processes under concurrent synchronous and asynchronous submissions', { timeout: 180_000 }, async () => {
    await setQuota(2);
    try {
      // Known off the queue under the new quota (a run at once records the read; again if the quota's notice came after it).
      const atOnce = async (app: TestApp, call: Call) => {
        const r = await call('POST', `/api/v1/networks/${small}/powerflow`, {});
        assert.equal(r.statusCode, 200, r.body);
        const id = json(r).data.task_id as string;
        await app.services.pendingTasks.stored(id);
        return !(await queuedOf([id])).has(id);
      };
      await waitUntil('a run at once', () => atOnce(a, callA));
      const wave = () => [...Array.from({ length: 8 }, () => callA), ...Array.from({ length: 8 }, () => callB)]
        .map((call) => call('POST', `/api/v1/networks/${small}/powerflow`, {}));
      // A wave of synchronous power flows; once the first is answered (the others solving at once or queued),
      // asynchronous submissions and a second wave from both processes, while the first wave's runs hold slots.
      const first = wave();
      await Promise.race(first);
      const asyncs = [...Array.from({ length: 6 }, () => submit(callA, small)), ...Array.from({ length: 6 }, () => submit(callB, small))];
      const syncs = [...first, ...wave()];
      const answers = await Promise.all(syncs);
      for (const r of answers) assert.equal(r.statusCode, 200, r.body);
      const syncIds = answers.map((r) => json(r).data.task_id as string);
      const asyncIds = await Promise.all(asyncs);
      await storedAll(a, syncIds);
      await storedAll(b, syncIds);
      const ids = [...syncIds, ...asyncIds];
      await waitUntil('every task finished', async () => {
        const { rows } = await a.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND status = 'completed'`, [ids]);
        return rows[0]!.n === ids.length;
      });
      const { rows } = await a.services.db.query<{ started_at: Date; completed_at: Date }>(
        'SELECT started_at, completed_at FROM tasks WHERE id = ANY($1)', [ids]);
      assert.equal(rows.length, ids.length);
      // Each task solved within [started_at, completed_at], inside the time it held its slot.
      const points: [number, number][] = rows.flatMap((r) => [[new Date(r.started_at).getTime(), 1], [new Date(r.completed_at).getTime(), -1]] as [number, number][]);
      points.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      let cur = 0;
      let max = 0;
      for (const [, d] of points) max = Math.max(max, (cur += d));
      assert.ok(max <= 2, `${max} power flows solved at once under quota 2`);
      const queued = await queuedOf(syncIds);
      assert.ok(queued.size < syncIds.length, 'some synchronous power flows were solved at once');
    } finally {
      await setQuota(100);
    }
  });

  it('a synchronous power flow waits behind a queued task of its tenant (FIFO), from the other process', { timeout: 180_000 }, async () => {
    await setQuota(1);
    try {
      // The one slot is taken by a long solve (process A), a task is queued behind it (process B).
      const slow = await submit(callA, large, SLOW);
      await waitUntil('the long solve to run', async () => (await taskRows(large)).find((t) => t.id === slow && t.status === 'running'));
      const queued = await submit(callB, small);
      const before = (await taskRows(small)).length;
      const sync = callA('POST', `/api/v1/networks/${small}/powerflow`, { timeout_ms: 60_000 });
      const waiting = await waitUntil('the synchronous power flow to be queued', async () => {
        const rows = await taskRows(small);
        return rows.length > before ? rows[rows.length - 1] : undefined;
      });
      assert.ok((await queuedOf([waiting.id])).has(waiting.id), 'behind a queued task the synchronous power flow is a queued task');
      await releaseInOrder(callB, slow, sync, waiting.id, queued, small);
    } finally {
      await setQuota(100);
    }
  });

  it('a submission being stored by another process keeps synchronous power flows off the direct path until it is stored', async () => {
    // Another API process between the marker and the insert of a queued task (src/queue/scheduler.ts queueing).
    const other = new DirectSlots(REDIS_URL, a.prefix!);
    try {
      const stored = await other.queueing('default');
      const res = await callB('POST', `/api/v1/networks/${small}/powerflow`, {});
      assert.equal(res.statusCode, 200, res.body);
      const id = json(res).data.task_id as string;
      assert.ok((await queuedOf([id])).has(id), 'a submission in progress: the synchronous power flow takes the queue');
      stored();
      // Once it is stored (and nothing is queued) the next one is solved at once again.
      const after = await waitUntil('a synchronous power flow solved at once again', async () => {
        const r = await callB('POST', `/api/v1/networks/${small}/powerflow`, {});
        assert.equal(r.statusCode, 200, r.body);
        const next = json(r).data.task_id as string;
        await b.services.pendingTasks.stored(next);
        return (await queuedOf([next])).has(next) ? undefined : next;
      });
      assert.ok(after);
    } finally {
      await other.close();
    }
  });

  it("a crashed process's reservation holds its slot until its lease ends, then the slot comes back", { timeout: 180_000 }, async () => {
    await setQuota(1);
    try {
      // A third process reserves the one slot and dies (no release, no renewal). It can once the tenant is known
      // off the queue with quota 1: a run at once records that read (again if the quota's notice came after it).
      const crashed = new DirectSlots(REDIS_URL, a.prefix!, 3_000);
      await waitUntil('the slot reserved', async () => {
        const r = await callA('POST', `/api/v1/networks/${small}/powerflow`, {});
        assert.equal(r.statusCode, 200, r.body);
        return (await crashed.reserve('default', 'task_crashed')) === 'ok';
      });
      assert.equal(await crashed.reserve('default', 'task_crashed_2'), 'full', 'one slot only');
      await crashed.close();
      // Neither process runs at once nor dispatches while the lease lives: the task waits, queued.
      const task = await submit(callB, small);
      const seen = await waitUntil('the task seen', async () => (await taskRows(small)).find((t) => t.id === task));
      assert.equal(seen.status, 'queued', 'the crashed reservation holds the slot');
      // The lease ends: the slot comes back and the task runs.
      await waitUntil('the task to complete once the lease ended', async () => (await taskRows(small)).find((t) => t.id === task && t.status === 'completed'));
    } finally {
      await setQuota(100);
    }
  });
});
