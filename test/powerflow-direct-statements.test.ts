// A synchronous power flow solved at once (src/queue/direct.ts, embedded: the distributed path goes
// through the queue) costs at most two statements: its task, events and (for a result that violates nothing)
// alarm judgement in one, its audit entry in the other. Its network's version comes from the memo
// (src/cache/networkVersions.ts). A quiet result still clears the network's open alarms. The answer waits for
// the audit entry only; the task statement follows it (write-behind), and may carry several answers' tasks.
import { describe, it, before, after } from 'node:test';
import { AsyncLocalStorage } from 'node:async_hooks';
import assert from 'node:assert/strict';
import { json, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';

const net = (rateA: number) => ({
  name: 'direct-statements',
  buses: [
    { id: 1, type: 'slack', v: 1.02 },
    { id: 2, type: 'pq' },
    { id: 3, type: 'pv', v: 1.01 },
  ],
  branches: [
    { from: 1, to: 2, r: 0.01, x: 0.1, b: 0.02, rate_a: rateA },
    { from: 2, to: 3, r: 0.02, x: 0.2 },
    { from: 1, to: 3, r: 0.01, x: 0.15 },
  ],
  generators: [{ bus: 1, mw: 0, vg: 1.02 }, { bus: 3, mw: 40, vg: 1.01 }],
  loads: [{ bus: 2, mw: 80, mvar: 20 }],
});

describe('direct synchronous power flow: statements and alarms (embedded)', () => {
  let app: TestApp;
  let headers: Record<string, string>;
  const call = (method: string, url: string, body?: unknown) =>
    app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body as string }) });
  const openAlarms = async (id: string) =>
    (json(await call('GET', `/api/v1/alarms?network_id=${id}&page_size=100`)).data as { status: string; type: string }[])
      .filter((a) => a.status !== 'cleared');

  before(async () => {
    app = await startTestApp('embedded');
    headers = (await adminHeaders(app)) as Record<string, string>;
  });
  after(async () => {
    await app?.close();
  });

  it('two statements per sequential request on a quiet network, its evaluation recorded', async () => {
    const created = await call('POST', '/api/v1/networks', net(1000));
    assert.equal(created.statusCode, 201, created.body);
    const id = json(created).data.id as string;
    assert.equal((await call('POST', `/api/v1/networks/${id}/powerflow`, {})).statusCode, 200);
    await app.services.pendingTasks.drain(); // stored apart from the counted requests'
    const db = app.services.db;
    const seen: string[] = [];
    const query = db.query.bind(db);
    const transaction = db.transaction.bind(db);
    // Only what the requests cause is counted: the periodic jobs (quota overrides, retention, sweeper) run from
    // timers set at start, outside the requests' async context, and may fire during them.
    const request = new AsyncLocalStorage<true>();
    db.query = ((sql: string, p?: unknown[]) => {
      if (request.getStore()) seen.push(sql);
      return query(sql, p);
    }) as typeof db.query;
    db.transaction = ((f: never) => {
      if (request.getStore()) seen.push('transaction');
      return transaction(f);
    }) as typeof db.transaction;
    const n = 10;
    let last = '';
    try {
      for (let i = 0; i < n; i++) {
        const res = await request.run(true, async () => await call('POST', `/api/v1/networks/${id}/powerflow`, {}));
        assert.equal(res.statusCode, 200, res.body);
        last = json(res).data.task_id;
      }
      // Answers go before their task's statement (write-behind): the last one's is counted once stored.
      await app.services.pendingTasks.drain();
    } finally {
      db.query = query;
      db.transaction = transaction;
    }
    // The direct path opens no transaction. Each request's audit entry is a statement before its answer; the
    // task statements come after the answers (write-behind), one each or fewer when two answers' stores
    // start together (group commit).
    const statements = seen;
    const shown = statements.map((q) => q.replace(/\s+/g, ' ').slice(0, 80)).join('\n');
    const audits = statements.filter((q) => q.includes('INSERT INTO audit_log')).length;
    const stores = statements.filter((q) => q.includes('INSERT INTO tasks')).length;
    assert.equal(audits, n, shown);
    assert.ok(stores >= 1 && stores <= n, shown);
    assert.equal(statements.length, audits + stores, shown);
    const { rows } = await db.query<{ judged: boolean }>(
      `SELECT e.task_seq = t.seq AS judged FROM alarm_evaluations e JOIN tasks t ON t.network_id = e.network_id WHERE t.id = $1`, [last]);
    assert.equal(rows[0]?.judged, true, 'the last quiet result is the judged one');
  });

  it('a quiet result solved at once clears the open alarms a violating one raised', async () => {
    const created = await call('POST', '/api/v1/networks', net(10));
    const id = json(created).data.id as string;
    assert.equal((await call('POST', `/api/v1/networks/${id}/powerflow`, {})).statusCode, 200);
    const raised = await openAlarms(id);
    assert.ok(raised.some((a) => a.type === 'overload'), JSON.stringify(raised));
    const upd = await call('PUT', `/api/v1/networks/${id}`, net(1000));
    assert.equal(upd.statusCode, 200, upd.body);
    const res = await call('POST', `/api/v1/networks/${id}/powerflow`, {});
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(await openAlarms(id), [], 'cleared before the answer');
  });
});
