// A synchronous power flow answered at once when its tenant has a free slot (src/queue/direct.ts;
// distributed with two API processes: powerflow-direct-distributed.test.ts), or through the queue (at
// capacity, behind queued tasks): either way it
// is a task that GET /tasks/{id} finds with its result and events, and the FIFO and the quota hold.
import { describe, it, before, after } from 'node:test';
import { holdTaskStore } from './helpers/storeGate.js';
import assert from 'node:assert/strict';
import { MODES, json, startTestApp, type TestApp } from './helpers/app.js';
import { SLOW_POWERFLOW, waitUntil } from './helpers/wait.js';
import { directClient, injector, type Call } from './helpers/directPowerflow.js';
import { adminHeaders } from './helpers/auth.js';

const SLOW = SLOW_POWERFLOW;

for (const mode of MODES) {
  describe(`synchronous power flow as a task (${mode})`, () => {
    let app: TestApp;
    let headers: Record<string, string>;
    let small: string;
    let large: string;
    const call: Call = (method, url, body) => injector(app, headers)(method, url, body);
    const { importCase, setQuota, submit, taskRows, releaseInOrder } = directClient(() => app, () => call, 'powerflow-direct test');

    before(async () => {
      app = await startTestApp(mode);
      headers = { ...(await adminHeaders(app)) } as Record<string, string>;
      small = await importCase('case118');
      large = await importCase('case2869pegase');
    });
    after(async () => {
      await app?.close();
    });

    it('is a task GET /tasks/{id} finds, completed, with its result and events, once answered', async () => {
      const seen: { kind: string; payload: { task_id?: string } }[] = [];
      const off = app.services.bus.subscribe<{ kind: string; payload: { task_id?: string } }>('event', (e) => seen.push(e));
      try {
        const res = await call('POST', `/api/v1/networks/${small}/powerflow`, {});
        assert.equal(res.statusCode, 200, res.body);
        const answer = json(res).data;
        assert.equal(answer.status, 'converged');
        const id = answer.task_id as string;
        assert.match(id, /^task/);

        const got = await call('GET', `/api/v1/tasks/${id}?include=result`);
        assert.equal(got.statusCode, 200, got.body);
        const task = json(got).data;
        assert.equal(task.status, 'completed');
        assert.equal(task.kind, 'powerflow');
        assert.equal(task.result.iterations, answer.iterations);
        assert.deepEqual(task.result.buses, answer.buses);
        assert.deepEqual(task.result.branches, answer.branches);
        assert.deepEqual(task.result.generators, answer.generators);
        assert.deepEqual(task.result.losses, answer.losses);

        await app.services.pendingTasks.stored(id); // answered before its group commit (write-behind): stored now
        const { rows } = await app.services.db.query<{ kind: string }>(`SELECT kind FROM events WHERE payload->>'task_id' = $1 ORDER BY seq`, [id]);
        const kinds = rows.map((r) => r.kind);
        for (const k of ['task.completed', 'powerflow.finished']) assert.ok(kinds.includes(k), `event ${k} of ${id} stored: ${kinds}`);
        // A tenant with free slots has it solved at once (distributed too: the test process is ROLE=all): never queued.
        assert.ok(!kinds.includes('task.queued'), `solved at once, not queued: ${kinds}`);
        await waitUntil('the events published', async () => ['task.completed', 'powerflow.finished'].every((k) => seen.some((e) => e.kind === k && e.payload.task_id === id)), 10_000);

        // Listed too, and DELETE of the finished task deletes it with its result, as for any finished task.
        const list = json(await call('GET', `/api/v1/tasks?network_id=${small}`)).data as { task_id: string }[];
        assert.ok(list.some((t) => t.task_id === id));
        assert.equal((await call('DELETE', `/api/v1/tasks/${id}`)).statusCode, 200);
        assert.equal((await call('GET', `/api/v1/tasks/${id}`)).statusCode, 404);
      } finally {
        off();
      }
    });

    if (mode === 'embedded') {
      it('answers before its group commit: GET /tasks/{id}, the list, alarms, DELETE and GraphQL find the task meanwhile', { timeout: 120_000 }, async () => {
        // The gate: the statement storing this network's direct runs waits until opened.
        const db = app.services.db;
        const gate = holdTaskStore(db, small);
        const seen: { kind: string; payload: { task_id?: string } }[] = [];
        const off = app.services.bus.subscribe<{ kind: string; payload: { task_id?: string } }>('event', (e) => seen.push(e));
        try {
          const posted = call('POST', `/api/v1/networks/${small}/powerflow`, {});
          await gate.holding;
          let deadline: NodeJS.Timeout | undefined;
          const res = await Promise.race([posted, new Promise<'stuck'>((r) => (deadline = setTimeout(() => r('stuck'), 60_000)))]);
          clearTimeout(deadline);
          assert.notEqual(res, 'stuck', 'the answer waited for its group commit');
          const r = res as Awaited<typeof posted>;
          assert.equal(r.statusCode, 200, r.body);
          const answer = json(r).data;
          const id = answer.task_id as string;
          assert.equal((await db.query('SELECT 1 FROM tasks WHERE id = $1', [id])).rows.length, 0, 'not stored yet');

          // Read from the answered tasks while the store is held.
          const summary = json(await call('GET', `/api/v1/tasks/${id}`)).data;
          assert.equal(summary.status, 'completed');
          assert.equal(summary.summary.bus_count, 118);
          assert.equal(summary.summary.iterations, answer.iterations);
          assert.equal(summary.result, undefined);
          const whole = json(await call('GET', `/api/v1/tasks/${id}?include=result`)).data;
          assert.equal(whole.status, 'completed');
          assert.deepEqual(whole.result.buses, answer.buses);
          assert.deepEqual(whole.result.branches, answer.branches);
          const gql = await call('POST', '/graphql', { query: `query($id: ID!) { task(id: $id) { status iterations buses { id } } }`, variables: { id } });
          const gt = json(gql).data.task;
          assert.equal(gt.status, 'CONVERGED');
          assert.equal(gt.buses.length, 118);
          // Another tenant's caller does not find it (the map is per tenant): the tenant check is findTask's.
          assert.equal(app.services.pendingTasks.get('another-tenant', id), undefined);
          assert.ok(app.services.pendingTasks.get('default', id));

          // The list, the alarms and the event log wait for the store; so does DELETE (it deletes the stored row).
          const list = call('GET', `/api/v1/tasks?network_id=${small}&page_size=100`);
          const events = call('GET', `/api/v1/events?topic=task&page_size=100`);
          const alarms = call('GET', `/api/v1/alarms?network_id=${small}`);
          const deleted = call('DELETE', `/api/v1/tasks/${id}`);
          await new Promise((r) => setImmediate(r));
          gate.open();
          const listed = json(await list).data as { task_id: string }[];
          assert.ok(listed.some((t) => t.task_id === id), 'listed once stored');
          const logged = json(await events).data as { payload: { task_id?: string } }[];
          assert.ok(logged.some((e) => e.payload.task_id === id), 'its events in the log once stored');
          assert.equal((await alarms).statusCode, 200);
          const del = await deleted;
          assert.equal(del.statusCode, 200, del.body);
          assert.equal(json(del).data.deleted, true);
          assert.equal((await call('GET', `/api/v1/tasks/${id}`)).statusCode, 404);
          assert.equal(app.services.pendingTasks.get('default', id), undefined);
          await waitUntil('the events published', async () => ['task.completed', 'powerflow.finished'].every((k) => seen.some((e) => e.kind === k && e.payload.task_id === id)), 10_000);
          // Audited, as every request.
          const audit = await db.query<{ status: number }>(`SELECT status FROM audit_log WHERE details::text LIKE $1 OR resource_id = $2`, [`%${id}%`, small]);
          assert.ok(audit.rows.some((a) => a.status === 200), JSON.stringify(audit.rows));
        } finally {
          gate.restore();
          off();
        }
      });
    }

    if (mode === 'embedded') {
      it('reads the same before and after its store (converged, and timed out with a NaN mismatch)', { timeout: 120_000 }, async () => {
        for (const body of [{}, { timeout_ms: 1, flat_start: true, max_iterations: 200, tolerance: 1e-15 }]) {
          const net = Object.keys(body).length === 0 ? small : large;
          const gate = holdTaskStore(app.services.db, net);
          try {
            const res = await call('POST', `/api/v1/networks/${net}/powerflow`, body);
            const id = (res.statusCode === 200 ? json(res).data.task_id : json(res).error.details.task_id) as string;
            assert.ok(app.services.pendingTasks.get('default', id), `${id} not stored yet`);
            const before = await Promise.all([call('GET', `/api/v1/tasks/${id}?include=result`), call('GET', `/api/v1/tasks/${id}`)]);
            gate.open();
            await app.services.pendingTasks.stored(id);
            assert.equal(app.services.pendingTasks.get('default', id), undefined);
            const after = await Promise.all([call('GET', `/api/v1/tasks/${id}?include=result`), call('GET', `/api/v1/tasks/${id}`)]);
            for (let i = 0; i < 2; i++) {
              assert.equal(before[i]!.statusCode, 200, before[i]!.body);
              assert.deepEqual(json(before[i]!).data, json(after[i]!).data);
            }
          } finally {
            gate.restore();
          }
        }
      });
    }

    it('waits in the queue when the tenant is at capacity, and behind a queued task (FIFO)', { timeout: 120_000 }, async () => {
      await setQuota(1);
      try {
        // The one slot is taken by a long solve.
        const slow = await submit(large, SLOW);
        await waitUntil('the long solve to run', async () => (await taskRows(large)).find((t) => t.id === slow && t.status === 'running'));
        // An asynchronous task queued behind it, then a synchronous one: both wait.
        const queued = await submit(small);
        const before = (await taskRows(small)).length;
        const sync = call('POST', `/api/v1/networks/${small}/powerflow`, { timeout_ms: 60_000 });
        const waiting = await waitUntil('the synchronous power flow to be queued', async () => {
          const rows = await taskRows(small);
          return rows.length > before ? rows[rows.length - 1] : undefined;
        });
        // While the long solve still holds the slot (one snapshot of the three tasks), neither waiting task has started:
        // at capacity a synchronous power flow is a queued task. (The long solve is a few hundred ms on an idle machine,
        // so the snapshot may come after it: then the order below is what is checked.)
        const { rows: snap } = await app.services.db.query<{ id: string; status: string }>(
          'SELECT id, status FROM tasks WHERE id = ANY($1::text[])', [[slow, queued, waiting.id]]);
        const status = new Map(snap.map((t) => [t.id, t.status]));
        if (status.get(slow) === 'running') {
          assert.equal(status.get(queued), 'queued');
          assert.equal(status.get(waiting.id), 'queued', 'at capacity a synchronous power flow is a queued task');
        }

        // The slot frees: the queued task runs first, then the synchronous one answers.
        await releaseInOrder(call, slow, sync, waiting.id, queued, small);
      } finally {
        await setQuota(100);
      }
    });

    it('12 concurrent synchronous power flows under quota 2: all answered, never more than 2 solving at once', { timeout: 120_000 }, async () => {
      await setQuota(2);
      try {
        const answers = await Promise.all(Array.from({ length: 12 }, () => call('POST', `/api/v1/networks/${small}/powerflow`, {})));
        for (const a of answers) assert.equal(a.statusCode, 200, a.body);
        const ids = answers.map((a) => json(a).data.task_id as string);
        assert.equal(new Set(ids).size, 12);
        const { rows } = await app.services.db.query<{ status: string; started_at: Date; completed_at: Date }>(
          'SELECT status, started_at, completed_at FROM tasks WHERE id = ANY($1)', [ids]);
        assert.equal(rows.length, 12);
        // Each task solved within [started_at, completed_at], inside the time it held its slot.
        const points: [number, number][] = [];
        for (const r of rows) {
          assert.equal(r.status, 'completed');
          points.push([new Date(r.started_at).getTime(), 1], [new Date(r.completed_at).getTime(), -1]);
        }
        points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
        let cur = 0;
        let max = 0;
        for (const [, d] of points) max = Math.max(max, (cur += d));
        assert.ok(max <= 2, `${max} power flows solved at once under quota 2`);
        if (mode === 'embedded') {
          // Of the burst, the free slots' worth were solved at once, the rest queued.
          const { rows: queued } = await app.services.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM events WHERE kind = 'task.queued' AND payload->>'task_id' = ANY($1)`, [ids]);
          assert.ok(queued[0]!.n < 12, 'some of the burst were solved at once');
        }
      } finally {
        await setQuota(100);
      }
    });

    if (mode === 'embedded') {
      it('skips the slot read only while the tenant has nothing on the queue, and keeps the quota exact at its edge', { timeout: 120_000 }, async () => {
        const direct = app.services.tasks.direct!;
        await setQuota(1);
        try {
          assert.equal(direct.knownOffQueue('default'), false, 'a changed quota is read again');
          // A synchronous power flow reads the slots once; with nothing on the queue the next one need not.
          assert.equal((await call('POST', `/api/v1/networks/${small}/powerflow`, {})).statusCode, 200);
          assert.equal(direct.knownOffQueue('default'), true, 'nothing queued, dispatched or running: the next run skips the read');
          // A task put on the queue takes the one slot: the next synchronous power flow must wait for it, not run beside it.
          const slow = await submit(large, SLOW);
          assert.equal(direct.knownOffQueue('default'), false, 'a queued task: the slots are read again');
          await waitUntil('the long solve to run', async () => (await taskRows(large)).find((t) => t.id === slow && t.status === 'running'));
          const before = (await taskRows(small)).length;
          const sync = call('POST', `/api/v1/networks/${small}/powerflow`, { timeout_ms: 60_000 });
          const waiting = await waitUntil('the synchronous power flow to be queued', async () => {
            const rows = await taskRows(small);
            return rows.length > before ? rows[rows.length - 1] : undefined;
          });
          const { rows: events } = await app.services.db.query<{ kind: string }>(`SELECT kind FROM events WHERE payload->>'task_id' = $1`, [waiting.id]);
          assert.ok(events.some((e) => e.kind === 'task.queued'), 'at the quota edge the synchronous power flow is a queued task');
          assert.equal((await call('DELETE', `/api/v1/tasks/${slow}`)).statusCode, 200);
          const res = await sync;
          assert.equal(res.statusCode, 200, res.body);
          assert.equal(json(res).data.task_id, waiting.id);
          // A quota raised while the read is skipped is read again.
          assert.equal((await call('POST', `/api/v1/networks/${small}/powerflow`, {})).statusCode, 200);
          assert.equal(direct.knownOffQueue('default'), true);
          await setQuota(2);
          assert.equal(direct.knownOffQueue('default'), false, 'quota_changed drops the kept quota');
        } finally {
          await setQuota(100);
        }
      });
    }

    it('runs beside a long solve when the tenant has a free slot', { timeout: 120_000 }, async () => {
      await setQuota(2);
      try {
        const slow = await submit(large, SLOW);
        await waitUntil('the long solve to run', async () => (await taskRows(large)).find((t) => t.id === slow && t.status === 'running'));
        const res = await call('POST', `/api/v1/networks/${small}/powerflow`, {});
        assert.equal(res.statusCode, 200, res.body);
        const id = json(res).data.task_id as string;
        assert.equal(json(await call('GET', `/api/v1/tasks/${id}`)).data.status, 'completed');
        assert.equal((await call('DELETE', `/api/v1/tasks/${slow}`)).statusCode, 200);
      } finally {
        await setQuota(100);
      }
    });
  });
}
