// POST /networks/{id}/powerflow and /tasks/{id} through the real service in both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR, REFERENCE_DIR } from '../src/paths.js';

const reference = (c: string, m: string) => JSON.parse(readFileSync(join(REFERENCE_DIR, `${c}.${m}.json`), 'utf8'));

for (const mode of MODES) {
  describe(`power flow API (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const ids: Record<string, string> = {};
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
      app.app!.inject({ method: method as 'GET', url, headers: { ...h, ...headers }, ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }) });
    const importCase = async (c: string) => {
      const res = await call('POST', `/api/v1/networks/import?format=matpower`, readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), { 'content-type': 'text/plain' });
      assert.equal(res.statusCode, 201, res.body);
      return json(res).data.id as string;
    };

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      for (const c of ['case9', 'case118', 'case2383wp']) ids[c] = await importCase(c);
    });
    after(async () => app?.close());

    it('solves synchronously and matches MATPOWER (case118, slack at 30°)', async () => {
      const res = await call('POST', `/api/v1/networks/${ids.case118}/powerflow`, { max_iterations: 10 });
      assert.equal(res.statusCode, 200, res.body);
      const r = json(res).data;
      const ref = reference('case118', 'nr');
      assert.equal(r.status, 'converged');
      assert.equal(r.method, 'newton_raphson');
      assert.ok(Math.abs(r.iterations - ref.iterations) <= 1);
      assert.equal(r.tolerance, 1e-8);
      assert.match(r.task_id, /^task_/);
      assert.equal(r.network_id, ids.case118);
      assert.equal(r.buses.length, 118);
      for (let i = 0; i < ref.bus.length; i++) {
        assert.ok(Math.abs(r.buses[i].v - ref.bus[i].vm) < 1e-6, `bus ${ref.bus[i].id} v`);
        assert.ok(Math.abs(r.buses[i].theta - ref.bus[i].va) < 1e-6, `bus ${ref.bus[i].id} theta`);
      }
      for (let i = 0; i < ref.branch.length; i++) assert.ok(Math.abs(r.branches[i].p_from - ref.branch[i].pf) < 1e-3);
      assert.ok(Math.abs(r.losses.p_mw - ref.losses.p_mw) < 1e-3);
      assert.ok(r.started_at && r.completed_at);
      // stored with the task
      const t = json(await call('GET', `/api/v1/tasks/${r.task_id}?include=result`)).data;
      assert.equal(t.status, 'completed');
      assert.equal(t.result.buses[0].v, r.buses[0].v);
    });

    it('runs dc and fast-decoupled', async () => {
      for (const [method, m] of [['dc', 'dc'], ['fast_decoupled', 'fdxb']] as const) {
        const r = json(await call('POST', `/api/v1/networks/${ids.case9}/powerflow`, { method, max_iterations: 30 })).data;
        const ref = reference('case9', m);
        assert.equal(r.status, 'converged');
        assert.equal(r.method, method);
        for (let i = 0; i < 9; i++) assert.ok(Math.abs(r.buses[i].theta - ref.bus[i].va) < 1e-6);
      }
    });

    it('rejects bad request fields', async () => {
      let res = await call('POST', `/api/v1/networks/${ids.case9}/powerflow`, { method: 'gauss_seidel' });
      assert.equal(res.statusCode, 400);
      assert.equal(json(res).error.code, 'INVALID_FIELD');
      res = await call('POST', `/api/v1/networks/${ids.case9}/powerflow`, { max_iterations: 0 });
      assert.equal(json(res).error.code, 'PARAM_OUT_OF_RANGE');
      res = await call('POST', `/api/v1/networks/${ids.case9}/powerflow`, { tolerance: -1 });
      assert.equal(json(res).error.code, 'PARAM_OUT_OF_RANGE');
      res = await call('POST', `/api/v1/networks/${ids.case9}/powerflow`, { colour: 'blue' });
      assert.equal(json(res).error.code, 'INVALID_REQUEST');
      res = await call('POST', `/api/v1/networks/net_unknown00000/powerflow`, {});
      assert.equal(res.statusCode, 404);
    });

    it('reports divergence as 409 POWERFLOW_DIVERGED with iterations and mismatch', async () => {
      const detail = json(await call('GET', `/api/v1/networks/${ids.case9}`)).data;
      const heavy = { name: 'case9-x10', buses: detail.buses, branches: detail.branches, generators: detail.generators, loads: detail.loads.map((l: { mw: number; mvar: number }) => ({ ...l, mw: l.mw * 10, mvar: l.mvar * 10 })) };
      const id = json(await call('POST', '/api/v1/networks', heavy)).data.id;
      const res = await call('POST', `/api/v1/networks/${id}/powerflow`, { max_iterations: 20 });
      assert.equal(res.statusCode, 409, res.body);
      const e = json(res).error;
      assert.equal(e.code, 'POWERFLOW_DIVERGED');
      assert.equal(typeof e.details.iterations, 'number');
      assert.ok(e.details.mismatch > 1e-8 || Number.isNaN(e.details.mismatch) || e.details.mismatch === null);
      const t = json(await call('GET', `/api/v1/tasks/${e.details.task_id}`)).data;
      assert.equal(t.status, 'failed');
      assert.equal(t.error.code, 'POWERFLOW_DIVERGED');
    });

    it('runs asynchronously: queued, then completed with the result', async () => {
      const res = await call('POST', `/api/v1/networks/${ids.case118}/powerflow`, { async: true });
      assert.equal(res.statusCode, 202, res.body);
      const d = json(res).data;
      assert.equal(d.status, 'queued');
      assert.equal(d.poll_url, `/api/v1/tasks/${d.task_id}`);
      let t;
      for (let i = 0; i < 200; i++) {
        t = json(await call('GET', d.poll_url)).data;
        if (t.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(t.status, 'completed');
      assert.equal(t.summary.status, 'converged');
      assert.ok(t.started_at && t.completed_at);
      assert.equal(t.progress === null || typeof t.progress.iteration === 'number', true);
    });

    it('answers 504 GATEWAY_TIMEOUT with the task id when timeout_ms is exceeded', async () => {
      const res = await call('POST', `/api/v1/networks/${ids.case2383wp}/powerflow`, { timeout_ms: 1, method: 'newton_raphson', flat_start: true, max_iterations: 200, tolerance: 1e-15 });
      assert.equal(res.statusCode, 504, res.body);
      const e = json(res).error;
      assert.equal(e.code, 'GATEWAY_TIMEOUT');
      assert.match(e.details.task_id, /^task_/);
      let t;
      for (let i = 0; i < 100; i++) {
        t = json(await call('GET', `/api/v1/tasks/${e.details.task_id}`)).data;
        if (['failed', 'cancelled'].includes(t.status)) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(['failed', 'cancelled'].includes(t.status), t.status);
    });

    it('cancels a task and refuses to cancel a finished one', async () => {
      const d = json(await call('POST', `/api/v1/networks/${ids.case2383wp}/powerflow`, { async: true, tolerance: 1e-15, max_iterations: 1000, flat_start: true })).data;
      const res = await call('DELETE', `/api/v1/tasks/${d.task_id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(json(res).data.status, 'cancelled');
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(json(await call('GET', `/api/v1/tasks/${d.task_id}`)).data.status, 'cancelled');
      // a finished task is deleted with its stored result (#35 item 4), then it is gone
      const again = await call('DELETE', `/api/v1/tasks/${d.task_id}`);
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(json(again).data.deleted, true);
      assert.equal((await call('DELETE', `/api/v1/tasks/${d.task_id}`)).statusCode, 404);
      assert.equal((await call('GET', '/api/v1/tasks/task_nope0000')).statusCode, 404);
    });

    it('locks the network while a task on it runs (PUT and DELETE answer 409 NETWORK_LOCKED)', async () => {
      const d = json(await call('POST', `/api/v1/networks/${ids.case2383wp}/powerflow`, { async: true, tolerance: 1e-15, max_iterations: 1000, flat_start: true, timeout_ms: 20000 })).data;
      assert.equal(await waitForTaskStatus(app, h, d.task_id, 'running', 200), 'running');
      const net = json(await call('GET', `/api/v1/networks/${ids.case2383wp}`)).data;
      assert.equal(net.status, 'locked');
      const del = await call('DELETE', `/api/v1/networks/${ids.case2383wp}`);
      assert.equal(del.statusCode, 409);
      assert.equal(json(del).error.code, 'NETWORK_LOCKED');
      const put = await call('PUT', `/api/v1/networks/${ids.case2383wp}`, { name: 'x', buses: net.buses, branches: net.branches, generators: net.generators, loads: net.loads });
      assert.equal(json(put).error.code, 'NETWORK_LOCKED');
      await call('DELETE', `/api/v1/tasks/${d.task_id}`);
      for (let i = 0; i < 200; i++) {
        if (json(await call('GET', `/api/v1/networks/${ids.case2383wp}`)).data.status === 'ready') break;
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(json(await call('GET', `/api/v1/networks/${ids.case2383wp}`)).data.status, 'ready');
    });
  });
}
