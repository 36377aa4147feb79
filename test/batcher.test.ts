// Group commit (src/lib/batcher.ts) on its own, and where the service relies on it:
// concurrent submissions keep their FIFO order, concurrent audit entries all land.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createBatcher } from '../src/lib/batcher.js';
import { systemCaller, type Caller } from '../src/domain/caller.js';
import { recordAudit } from '../src/security/audit.js';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';

describe('batcher', () => {
  it('stores the items that arrive together in one flush, and later ones in the next', async () => {
    const flushes: number[][] = [];
    const b = createBatcher(async (items: number[]) => {
      flushes.push(items);
      await new Promise((r) => setTimeout(r, 20));
      return items.map((i) => i * 10);
    });
    const first = [1, 2, 3].map((i) => b.add(i));
    await new Promise((r) => setTimeout(r, 5)); // the first flush is running
    const second = [4, 5].map((i) => b.add(i));
    assert.deepEqual(await Promise.all([...first, ...second]), [10, 20, 30, 40, 50]);
    assert.deepEqual(flushes, [[1, 2, 3], [4, 5]]);
    await b.drain();
  });

  it('splits at maxBatch and keeps the order', async () => {
    const flushes: number[][] = [];
    const b = createBatcher(async (items: number[]) => {
      flushes.push(items);
      return items;
    }, 2);
    assert.deepEqual(await Promise.all([1, 2, 3, 4, 5].map((i) => b.add(i))), [1, 2, 3, 4, 5]);
    assert.deepEqual(flushes, [[1, 2], [3, 4], [5]]);
  });

  it('a failing batch is retried item by item, so only the bad item fails', async () => {
    let calls = 0;
    const b = createBatcher(async (items: number[]) => {
      calls++;
      if (items.includes(13)) throw new Error(`bad item in [${items}]`);
      return items.map((i) => -i);
    });
    const out = await Promise.allSettled([1, 13, 2].map((i) => b.add(i)));
    assert.deepEqual(out.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.deepEqual(out.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)), [-1, 'bad item in [13]', -2]);
    assert.equal(calls, 4); // the batch, then each alone
  });
});

for (const mode of MODES) {
  describe(`group commit in the service (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('submissions made together are queued in the order they were made, each with its task.queued event', async () => {
      const created = await app.app!.inject({ method: 'POST', url: '/api/v1/networks', headers: h, payload: {
        name: 'gc', buses: [{ id: 1, type: 'slack', v: 1.0 }, { id: 2, type: 'pq' }], branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
        generators: [{ bus: 1, mw: 0, vg: 1.0 }], loads: [{ bus: 2, mw: 5, mvar: 1 }],
      } });
      assert.equal(created.statusCode, 201, created.body);
      const net = json(created).data;
      const caller: Caller = { ...systemCaller('default'), tenantId: 'default' };
      const rows = await Promise.all(Array.from({ length: 25 }, () => app.services.tasks.submit(caller, net.id, 1, { method: 'newton_raphson', tolerance: 1e-8, maxIterations: 10, flatStart: false, enforceQLimits: false, timeoutMs: 30_000 })));
      const seqs = rows.map((r) => Number(r.seq));
      assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'seq follows the order of the calls');
      assert.equal(new Set(rows.map((r) => r.id)).size, 25);
      const { rows: events } = await app.services.db.query<{ task_id: string }>(
        `SELECT payload->>'task_id' AS task_id FROM events WHERE kind = 'task.queued' AND network_id = $1 ORDER BY seq`, [net.id]);
      assert.deepEqual(events.map((e) => e.task_id), rows.map((r) => r.id));
    });

    it('audit entries written together all land, in order, each with its mirror event', async () => {
      const caller: Caller = { ...systemCaller('default'), tenantId: 'default' };
      const entries = await Promise.all(Array.from({ length: 30 }, (_, i) => recordAudit(app.services, { actor: caller.actor, tenantId: 'default', action: `gc.test.${i}`, result: 'success', status: 200 })));
      assert.deepEqual(entries.map((e) => e.action), Array.from({ length: 30 }, (_, i) => `gc.test.${i}`));
      const { rows } = await app.services.db.query<{ action: string }>(`SELECT action FROM audit_log WHERE action LIKE 'gc.test.%' ORDER BY seq`);
      assert.deepEqual(rows.map((r) => r.action), entries.map((e) => e.action));
      const { rows: mirrors } = await app.services.db.query<{ id: string }>(`SELECT payload->>'audit_id' AS id FROM events WHERE topic = 'audit' AND payload->>'action' LIKE 'gc.test.%' ORDER BY seq`);
      assert.deepEqual(mirrors.map((m) => m.id), entries.map((e) => e.id));
    });
  });
}
