// A power flow reads its network's status and version from a memo (src/cache/networkVersions.ts):
// every write of the network (PUT, archive, delete; control commands' new versions take the same hook) must reach it,
// in this process at once and, distributed, in the other API processes through the notice channel.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, json, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { threeBusNetwork } from './helpers/networks.js';

const tiny = threeBusNetwork;

type Inject = (method: string, url: string, body?: unknown) => Promise<{ statusCode: number; body: string }>;

const injector = (app: TestApp, headers: Record<string, string>): Inject => (method, url, body) =>
  app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body as string }) });

/** A synchronous power flow's task version (from the stored task, which every path writes). */
async function solvedVersion(call: Inject, id: string): Promise<number> {
  const res = await call('POST', `/api/v1/networks/${id}/powerflow`, {});
  assert.equal(res.statusCode, 200, res.body);
  const task = await call('GET', `/api/v1/tasks/${json(res as never).data.task_id}`);
  assert.equal(task.statusCode, 200, task.body);
  return json(task as never).data.network_version as number;
}

for (const mode of MODES) {
  describe(`network version memo (${mode})`, () => {
    let app: TestApp;
    let call: Inject;
    before(async () => {
      app = await startTestApp(mode);
      call = injector(app, (await adminHeaders(app)) as Record<string, string>);
    });
    after(async () => {
      await app?.close();
    });

    it('a power flow after a write of its network uses the written version and status', async () => {
      const created = await call('POST', '/api/v1/networks', tiny('memo-1'));
      assert.equal(created.statusCode, 201, created.body);
      const id = json(created as never).data.id as string;
      assert.equal(await solvedVersion(call, id), 1);
      assert.ok(app.services.networkStates.size() > 0, 'the first power flow keeps the version');
      const upd = await call('PUT', `/api/v1/networks/${id}`, tiny('memo-1', { description: 'second' }));
      assert.equal(upd.statusCode, 200, upd.body);
      assert.equal(await solvedVersion(call, id), 2);
      const arch = await call('PUT', `/api/v1/networks/${id}`, { ...tiny('memo-1'), status: 'archived' });
      assert.equal(arch.statusCode, 200, arch.body);
      const refused = await call('POST', `/api/v1/networks/${id}/powerflow`, {});
      assert.equal(refused.statusCode, 409, refused.body);
      const back = await call('PUT', `/api/v1/networks/${id}`, { ...tiny('memo-1'), status: 'ready' });
      assert.equal(back.statusCode, 200, back.body);
      await solvedVersion(call, id);
      const del = await call('DELETE', `/api/v1/networks/${id}`);
      assert.equal(del.statusCode, 200, del.body);
      const gone = await call('POST', `/api/v1/networks/${id}/powerflow`, {});
      assert.equal(gone.statusCode, 404, gone.body);
    });

    if (mode === 'distributed') {
      it("another API process's write reaches this process's memo (the notice channel)", async () => {
        const b = await startTestApp('distributed', { shared: { schema: app.schema!, prefix: app.prefix! }, keepData: true });
        try {
          const callB = injector(b, (await adminHeaders(b)) as Record<string, string>);
          const created = await call('POST', '/api/v1/networks', tiny('memo-2'));
          const id = json(created as never).data.id as string;
          assert.equal(await solvedVersion(callB, id), 1);
          // B's notice arrives after the PUT's answer: wait for it (B's own listener, bootstrap's, runs first).
          const noticed = new Promise<void>((resolve) => {
            b.services.security.noticeListeners.push((n) => {
              if (n.kind === 'network_changed' && n.network === id) resolve();
            });
          });
          const upd = await call('PUT', `/api/v1/networks/${id}`, tiny('memo-2', { description: 'second' }));
          assert.equal(upd.statusCode, 200, upd.body);
          await noticed;
          // Well within the entries' 5 s age limit: only the notice can have dropped B's entry.
          const v = await solvedVersion(callB, id);
          assert.equal(v, 2, "process B still solves the version it had before A's write");
        } finally {
          await b.close();
        }
      });
    }
  });
}
