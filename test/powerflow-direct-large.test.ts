// A large synchronous power flow's finish is stored by a group commit of its own (src/queue/direct.ts): a case9
// run finishing while a 5,000-record result is being stored neither joins nor waits for that batch. The store of
// the large one is held at its statement here (a gate in front of the real database); the case9 answer must come,
// and, answers being written behind (SYNC_POWERFLOW_STORE=after), the case9 task must be stored meanwhile.
import { test } from 'node:test';
import { holdTaskStore } from './helpers/storeGate.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, startTestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { LARGE_FINISH_RECORDS } from '../src/queue/direct.js';

test('embedded: a case9 power flow is answered and stored while a large result is being stored', async () => {
  const app = await startTestApp('embedded');
  try {
    const h = (await adminHeaders(app)) as Record<string, string>;
    const importCase = async (name: string) => {
      const r = await app.app!.inject({
        method: 'POST', url: '/api/v1/networks/import?format=matpower', headers: { ...h, 'content-type': 'text/plain' },
        payload: readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'),
      });
      assert.equal(r.statusCode, 201, r.body);
      return json(r).data as { id: string; bus_count: number; branch_count: number; generator_count: number };
    };
    const large = await importCase('case2383wp');
    assert.ok(large.bus_count + large.branch_count + large.generator_count >= LARGE_FINISH_RECORDS);
    const small = await importCase('case9');

    // the gate: the statement storing the large run's task waits until opened
    const db = app.services.db;
    const gate = holdTaskStore(db, large.id);

    const pf = (id: string) => app.app!.inject({ method: 'POST', url: `/api/v1/networks/${id}/powerflow`, headers: h, payload: {} });
    const big = pf(large.id);
    await gate.holding;
    let deadline: NodeJS.Timeout | undefined;
    const answer = await Promise.race([
      pf(small.id),
      new Promise<'stuck'>((r) => (deadline = setTimeout(() => r('stuck'), 30_000))),
    ]);
    clearTimeout(deadline);
    assert.notEqual(answer, 'stuck', 'the case9 answer waited for the large batch');
    const small9 = answer as Awaited<ReturnType<typeof pf>>;
    assert.equal(small9.statusCode, 200, small9.body);
    const id = json(small9).data.task_id as string;
    // its own group commit, not the held one's
    const stored = await Promise.race([
      app.services.pendingTasks.stored(id).then(() => 'stored' as const),
      new Promise<'stuck'>((r) => (deadline = setTimeout(() => r('stuck'), 30_000))),
    ]);
    clearTimeout(deadline);
    gate.open();
    assert.equal(stored, 'stored', 'the case9 finish waited for the large batch');
    assert.equal((await db.query('SELECT status FROM tasks WHERE id = $1', [id])).rows.length, 1);
    assert.equal((await big).statusCode, 200);
  } finally {
    await app.close();
  }
});
