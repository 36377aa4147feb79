// What the direct-path tests (powerflow-direct.test.ts, powerflow-direct-distributed.test.ts) do through a
// process's doors: import a shared case, set the tenant's power-flow quota, submit an asynchronous power flow, and
// read the network's task rows in submission order.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, type TestApp } from './app.js';
import { CASES_DIR } from '../../src/paths.js';
import { assertCompletedInOrder, type StartedRow } from './taskOrder.js';

export type Call = (method: string, url: string, body?: unknown) => Promise<{ statusCode: number; body: string }>;

/** Requests injected into `app` with `headers` (a string body goes as text/plain, a case file). */
export const injector = (app: TestApp, headers: Record<string, string>): Call => (method, url, body) =>
  app.app!.inject({
    method: method as 'GET',
    url,
    headers: { ...headers, ...(typeof body === 'string' ? { 'content-type': 'text/plain' } : {}) },
    ...(body === undefined ? {} : { payload: body as string }),
  });

/** The calls, on the process `app()` answers through `call()` (read when called: both are set in `before`). */
export function directClient(app: () => TestApp, call: () => Call, reason: string) {
  const submitVia = async (via: Call, network: string, options: Record<string, unknown> = {}) => {
    const res = await via('POST', `/api/v1/networks/${network}/powerflow`, { async: true, ...options });
    assert.equal(res.statusCode, 202, res.body);
    return json(res).data.task_id as string;
  };
  const taskRows = async (network: string) => (await app().services.db.query<StartedRow>(
    'SELECT id, status, started_at FROM tasks WHERE network_id = $1 ORDER BY seq', [network])).rows;
  return {
    importCase: async (name: string) => {
      const res = await call()('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'));
      assert.equal(res.statusCode, 201, res.body);
      return json(res).data.id as string;
    },
    /** Through the admin API, as an operator changes it: its quota_changed notice reaches the direct runs' kept quota. */
    setQuota: async (n: number) => {
      const res = await call()('PUT', '/api/v1/admin/tenants/default/quota', { concurrent_powerflow: n, reason });
      assert.equal(res.statusCode, 200, res.body);
    },
    submit: (network: string, options: Record<string, unknown> = {}) => submitVia(call(), network, options),
    submitVia,
    taskRows,
    /** The long solve `slow` cancelled through `via`: the pending synchronous power flow `sync` answers as task
     *  `waiting`, which ran after `queued` (per-tenant FIFO) on `network`. */
    releaseInOrder: async (via: Call, slow: string, sync: ReturnType<Call>, waiting: string, queued: string, network: string) => {
      assert.equal((await via('DELETE', `/api/v1/tasks/${slow}`)).statusCode, 200);
      const res = await sync;
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.task_id, waiting);
      assertCompletedInOrder(await taskRows(network), queued, waiting);
    },
  };
}
