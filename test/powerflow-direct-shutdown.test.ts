// Synchronous power flows answered before they are stored (write-behind, src/queue/direct.ts): closing the
// application stores them first (TaskScheduler.close drains Services.pendingTasks before the database closes),
// so PGlite opened again on the same data directory has every answered task with its result and events.
// SYNC_POWERFLOW_STORE=before stores the task before the answer, and so does any answer while MAX_PENDING_ANSWERS wait.
import { test } from 'node:test';
import { holdTaskStore } from './helpers/storeGate.js';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { MAX_PENDING_ANSWERS } from '../src/queue/direct.js';
import type { TaskRow } from '../src/domain/tasks.js';

async function importCase(app: TestApp, h: Record<string, string>, name: string): Promise<string> {
  const r = await app.app!.inject({
    method: 'POST', url: '/api/v1/networks/import?format=matpower', headers: { ...h, 'content-type': 'text/plain' },
    payload: readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'),
  });
  assert.equal(r.statusCode, 201, r.body);
  return json(r).data.id as string;
}

test('embedded: answered synchronous power flows are stored when the application closes right after', { timeout: 180_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gridops-writebehind-'));
  try {
    let app = await startTestApp('embedded', { config: { dataDir } });
    let ids: string[] = [];
    let net = '';
    try {
      const h = (await adminHeaders(app)) as Record<string, string>;
      net = await importCase(app, h, 'case118');
      // The gate holds the direct runs' store until the close has begun: every answer goes out before its commit.
      const db = app.services.db;
      const query = db.query;
      let open!: () => void;
      const opened = new Promise<void>((r) => (open = r));
      (db as { query: typeof db.query }).query = (async (sql: string, params?: unknown[]) => {
        if (sql.includes('INSERT INTO tasks') && typeof params?.[0] === 'string' && params[0].includes(net)) await opened;
        return query.call(db, sql, params as never);
      }) as typeof db.query;
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => app.app!.inject({ method: 'POST', url: `/api/v1/networks/${net}/powerflow`, headers: h, payload: {} })),
      );
      for (const a of answers) assert.equal(a.statusCode, 200, a.body);
      ids = answers.map((a) => json(a).data.task_id as string);
      assert.ok(app.services.pendingTasks.size > 0, 'answered before stored');
      const closing = app.close();
      setImmediate(open);
      await closing;
    } catch (e) {
      await app.close().catch(() => {});
      throw e;
    }

    app = await startTestApp('embedded', { config: { dataDir } });
    try {
      const { rows } = await app.services.db.query<{ id: string; status: string; has_values: boolean }>(
        'SELECT id, status, result_values IS NOT NULL AS has_values FROM tasks WHERE id = ANY($1::text[])', [ids]);
      assert.equal(rows.length, ids.length, `stored: ${rows.map((r) => r.id)} of ${ids}`);
      for (const r of rows) {
        assert.equal(r.status, 'completed');
        assert.ok(r.has_values);
      }
      const ev = await app.services.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM events WHERE kind = 'task.completed' AND payload->>'task_id' = ANY($1::text[])`, [ids]);
      assert.equal(ev.rows[0]!.n, ids.length);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('embedded, SYNC_POWERFLOW_STORE=before: the task is stored before the answer', { timeout: 120_000 }, async () => {
  const app = await startTestApp('embedded', { config: { syncPowerflowStore: 'before' } });
  try {
    const h = (await adminHeaders(app)) as Record<string, string>;
    const net = await importCase(app, h, 'case9');
    const r = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${net}/powerflow`, headers: h, payload: {} });
    assert.equal(r.statusCode, 200, r.body);
    const id = json(r).data.task_id as string;
    assert.equal(app.services.pendingTasks.size, 0);
    assert.equal((await app.services.db.query('SELECT 1 FROM tasks WHERE id = $1', [id])).rows.length, 1);
  } finally {
    await app.close();
  }
});

test('embedded: with MAX_PENDING_ANSWERS answered runs waiting to be stored, the next answer waits for its store', { timeout: 120_000 }, async () => {
  const app = await startTestApp('embedded');
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  try {
    const h = (await adminHeaders(app)) as Record<string, string>;
    const net = await importCase(app, h, 'case9');
    // Stand-ins for answers whose stores are stuck (a database outage being ridden out).
    const pending = app.services.pendingTasks;
    for (let i = 0; i < MAX_PENDING_ANSWERS; i++) {
      pending.add({ id: `task_standin_${i}`, tenant_id: 'nobody' } as TaskRow, released);
    }
    const db = app.services.db;
    const gate = holdTaskStore(db, net);
    const posted = app.app!.inject({ method: 'POST', url: `/api/v1/networks/${net}/powerflow`, headers: h, payload: {} });
    await gate.holding;
    assert.equal(pending.size, MAX_PENDING_ANSWERS, 'the run is not kept in memory: its answer waits for the store');
    gate.restore();
    const r = await posted;
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((await db.query('SELECT 1 FROM tasks WHERE id = $1', [json(r).data.task_id])).rows.length, 1);
  } finally {
    release();
    await app.close();
  }
});
