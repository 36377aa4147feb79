// The embedded database runs on a thread of its own (src/db/pgliteThread.ts, workers/pglite.ts):
// a long statement leaves the event loop free, and what comes back is what the `pg` driver gives
// (bytea as Buffer, errors with their SQLSTATE), with transactions that commit or roll back whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../src/db/database.js';

test('a long statement of the embedded database leaves the event loop turning', async () => {
  const db = await openDatabase({ schema: 'thread_loop' });
  try {
    let turns = 0;
    let running = true;
    const spin = () => {
      if (!running) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    // A few hundred milliseconds of work inside PGlite; on the main thread this would be one synchronous call.
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM generate_series(1, 3000000) g WHERE g % 7 = 0');
    running = false;
    assert.equal(rows[0]!.n, Math.floor(3000000 / 7));
    // Every turn is an event-loop iteration that happened while the statement ran elsewhere.
    assert.ok(turns > 50, `the event loop turned only ${turns} times during the statement`);
  } finally {
    await db.close();
  }
});

test('bytea comes back as a Buffer, a refused value keeps its SQLSTATE, a transaction is all or nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-pglite-thread-'));
  let db = await openDatabase({ schema: 'thread_types', dataDir: dir });
  try {
    await db.exec('CREATE TABLE blobs (id int PRIMARY KEY, b bytea, t text)');
    // a view into a larger buffer (as a Buffer slice is): only its own bytes are stored
    const big = Buffer.alloc(64, 7);
    await db.query('INSERT INTO blobs (id, b, t) VALUES ($1, $2, $3)', [1, big.subarray(8, 12), 'x']);
    const { rows } = await db.query<{ b: Buffer }>('SELECT b FROM blobs WHERE id = 1');
    assert.ok(Buffer.isBuffer(rows[0]!.b));
    assert.deepEqual([...rows[0]!.b], [7, 7, 7, 7]);

    await assert.rejects(db.query('INSERT INTO blobs (id, t) VALUES ($1, $2)', [2, 'a\u0000b']), (e: Error & { code?: string }) => {
      assert.equal(e.code?.slice(0, 2), '22', `SQLSTATE ${e.code}`);
      return true;
    });
    await assert.rejects(db.query('INSERT INTO blobs (id) VALUES (1)'), (e: Error & { code?: string }) => e.code === '23505');

    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO blobs (id, t) VALUES (3, $1)', ['kept?']);
        throw new Error('caller gives up');
      }),
      /caller gives up/,
    );
    const out = await db.transaction(async (tx) => {
      await tx.query('INSERT INTO blobs (id, t) VALUES (4, $1)', ['kept']);
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM blobs')).rows[0]!.n;
    });
    assert.equal(out, 2);
    // what was committed is on disk: a new thread on the same directory reads it
    await db.close();
    db = await openDatabase({ schema: 'thread_types', dataDir: dir });
    const ids = (await db.query<{ id: number }>('SELECT id FROM blobs ORDER BY id')).rows.map((r) => r.id);
    assert.deepEqual(ids, [1, 4]);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
