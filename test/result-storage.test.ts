// Stored results count against a tenant's storage quota (issue #35 item 4, docs/security.md "Storage quota and
// retention"), both modes: a matrix or a study that would pass result_storage_mb is refused with the quota named;
// GET /tenant/quota shows what is stored; DELETE /tasks/{id} of a finished task deletes it with its rows and gives
// its bytes back; the retention sweep removes tasks finished longer ago than RESULT_RETENTION_DAYS.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, MODES, startTestApp, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders, createUser, loginAs } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { studyClient } from './helpers/studies.js';
import { CASES_DIR } from '../src/paths.js';
import { purgeExpiredResults } from '../src/domain/resultStorage.js';

for (const mode of MODES) {
  describe(`stored results: quota, deletion, retention (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let admin: Headers;
    const tenant = `store-${mode}`;
    const { call, ok, err } = restClient(() => ({ app, h }));
    const importCase = async (name: string) => {
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'), {
        'content-type': 'text/plain',
      });
      assert.equal(r.statusCode, 201, r.body);
      return json(r).data.id as string;
    };
    const setStorageQuota = async (mb: number) => {
      const r = await call('PUT', `/api/v1/admin/tenants/${tenant}/quota`, { result_storage_mb: mb, reason: 'test' }, admin);
      assert.equal(r.statusCode, 200, r.body);
    };
    const usage = async () => (await ok('GET', '/api/v1/tenant/quota')).usage.result_storage_bytes as number;
    const rowsOf = async (taskId: string) =>
      Number(
        (await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sensitivity_rows WHERE task_id = $1', [taskId]))
          .rows[0]!.n,
      );
    const submitPtdf = (net: string) => call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', async: true });

    before(async () => {
      app = await startTestApp(mode);
      admin = await adminHeaders(app);
      const u = await createUser(app, { username: `storer-${mode}`, role: 'operator', tenant_id: tenant });
      h = await loginAs(app, u.username, u.password);
    });
    after(async () => {
      await app?.close();
    });

    it('a matrix that would pass the quota is refused; the quota shows what is stored; DELETE gives it back', {
      timeout: 120_000,
    }, async () => {
      const net = await importCase('case300'); // PTDF 411 × 300 float64 = 986,400 bytes: one fits in 1 MB, two do not
      await setStorageQuota(1);
      const quota = await ok('GET', '/api/v1/tenant/quota');
      assert.equal(quota.quotas.result_storage_mb, 1);
      assert.equal(quota.usage.result_storage_bytes, 0);

      const first = json(await submitPtdf(net)).data.task_id as string;
      assert.equal(await waitForTaskStatus(app, h, first, 'completed', 3000), 'completed');
      const stored = await usage();
      assert.ok(stored >= 411 * 300 * 8, `stored ${stored} bytes`);
      assert.equal((await ok('GET', '/api/v1/tenant/quota')).usage.result_storage_mb, Math.round((stored / 1048576) * 1000) / 1000);

      const e = err(await submitPtdf(net), 409, 'CONFLICT');
      assert.equal(e.details.quota, 'result_storage_mb');
      assert.equal(e.details.limit_mb, 1);
      assert.equal(e.details.used_bytes, stored);
      assert.match(e.message, /DELETE \/api\/v1\/tasks\/\{id\}/);
      // a study is refused the same way once nothing fits (0 MB)
      await setStorageQuota(0);
      const se = err(
        await call('POST', `/api/v1/networks/${net}/studies`, { kind: 'contingency', contingencies: [{ id: 'a', branches: [0] }] }),
        409,
        'CONFLICT',
      );
      assert.equal(se.details.quota, 'result_storage_mb');
      await setStorageQuota(1);

      // DELETE of the finished task: the task, its rows and its bytes are gone
      const del = json(await call('DELETE', `/api/v1/tasks/${first}`));
      assert.equal(del.data.deleted, true, JSON.stringify(del));
      err(await call('GET', `/api/v1/tasks/${first}`), 404, 'NOT_FOUND');
      assert.equal(await rowsOf(first), 0);
      assert.equal(await usage(), 0);
      // and the next matrix fits again
      const second = json(await submitPtdf(net)).data.task_id as string;
      assert.equal(await waitForTaskStatus(app, h, second, 'completed', 3000), 'completed');
      assert.equal(await rowsOf(second), 411);
      await call('DELETE', `/api/v1/tasks/${second}`);
    });

    it("a study's case rows count, and DELETE of its task removes the study and its rows", { timeout: 120_000 }, async () => {
      await setStorageQuota(100);
      const api = studyClient(app, async () => h);
      const net = await importCase('case9');
      const st = await api.submit(net, { kind: 'contingency', contingencies: 'n-1-branches' });
      await api.waitFor(st.study_id);
      const stored = await usage();
      assert.ok(stored > 0, "the study's rows are counted");
      assert.equal(json(await call('DELETE', `/api/v1/tasks/${st.task_id}`)).data.deleted, true);
      err(await call('GET', `/api/v1/studies/${st.study_id}`), 404, 'NOT_FOUND');
      const { rows } = await app.services.db.query<{ n: number }>('SELECT count(*)::int AS n FROM study_cases WHERE study_id = $1', [
        st.study_id,
      ]);
      assert.equal(rows[0]!.n, 0);
      assert.equal(await usage(), 0);
    });

    it('the runners check again before they store: what no longer fits fails, keeps no rows, says why', { timeout: 120_000 }, async () => {
      const quota = async (q: Record<string, number>) =>
        assert.equal((await call('PUT', `/api/v1/admin/tenants/${tenant}/quota`, { ...q, reason: 'test' }, admin)).statusCode, 200);
      const net = await importCase('case300');
      const api = studyClient(app, async () => h);
      await quota({ result_storage_mb: 1, concurrent_powerflow: 0 }); // both fit when submitted, and wait in the queue
      const matrix = json(await submitPtdf(net)).data.task_id as string;
      const study = await api.submit(net, {
        kind: 'contingency',
        contingencies: [
          { id: 'a', branches: [0] },
          { id: 'b', branches: [1] },
        ],
      });
      // meanwhile another task of the tenant stored results that leave no room for either
      const filler = `task_filler${mode.slice(0, 3)}${Date.now()}`;
      await app.services.db.query(
        `INSERT INTO tasks (id, tenant_id, network_id, network_version, kind, status, options, completed_at, result_bytes)
         VALUES ($1, $2, $3, 1, 'powerflow', 'completed', '{}', now(), $4)`,
        [filler, tenant, net, 1048576 - 16],
      );
      await quota({ concurrent_powerflow: 100 });
      assert.equal(await waitForTaskStatus(app, h, matrix, 'failed', 3000), 'failed');
      const t = await ok('GET', `/api/v1/tasks/${matrix}`);
      assert.equal(t.error.code, 'CONFLICT');
      assert.equal(t.error.details.quota, 'result_storage_mb');
      assert.equal(await rowsOf(matrix), 0);
      const st = await api.waitFor(study.study_id);
      assert.equal(st.status, 'failed');
      assert.equal(st.error.code, 'CONFLICT', JSON.stringify(st.error));
      assert.equal(await usage(), 1048576 - 16);
      for (const id of [filler, matrix, study.task_id]) assert.equal(json(await call('DELETE', `/api/v1/tasks/${id}`)).data.deleted, true);
      assert.equal(await usage(), 0);
    });

    it('the retention sweep removes tasks finished longer ago than the retention, with their results', { timeout: 120_000 }, async () => {
      await setStorageQuota(100);
      const net = await importCase('case118');
      const old = json(await submitPtdf(net)).data.task_id as string;
      const recent = json(await submitPtdf(net)).data.task_id as string;
      for (const id of [old, recent]) assert.equal(await waitForTaskStatus(app, h, id, 'completed', 3000), 'completed');
      await app.services.db.query(`UPDATE tasks SET completed_at = now() - interval '31 days' WHERE id = $1`, [old]);
      const before = await usage();
      assert.ok((await purgeExpiredResults(app.services, 30)) >= 1);
      err(await call('GET', `/api/v1/tasks/${old}`), 404, 'NOT_FOUND');
      assert.equal(await rowsOf(old), 0);
      assert.equal((await ok('GET', `/api/v1/tasks/${recent}`)).status, 'completed');
      assert.ok((await rowsOf(recent)) > 0);
      assert.ok((await usage()) < before && (await usage()) > 0);
    });
  });
}
