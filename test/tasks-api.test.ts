// GET /api/v1/tasks (list), GET /tasks/{id} (summary by default, include=result), snake_case
// options and branch indexes, REST and GraphQL, through the real service in both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { code, gql, ok } from './graphql-helpers.js';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';

for (const mode of MODES) {
  describe(`tasks API (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    let case9: string;
    let case30: string;
    const done: string[] = [];
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = h) =>
      app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    const importCase = async (c: string, headers = h) => {
      const res = await app.app!.inject({ method: 'POST', url: '/api/v1/networks/import', headers: { ...headers, 'content-type': 'text/plain' }, payload: readFileSync(join(CASES_DIR, `${c}.m`), 'utf8') });
      assert.equal(res.statusCode, 201, res.body);
      return json(res).data.id as string;
    };
    const submit = async (net: string, body: Record<string, unknown> = {}, headers = h) => {
      const res = await call('POST', `/api/v1/networks/${net}/powerflow`, { async: true, ...body }, headers);
      assert.equal(res.statusCode, 202, res.body);
      return json(res).data.task_id as string;
    };

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      case9 = await importCase('case9');
      case30 = await importCase('case30');
      done.push(await submit(case9, { flat_start: true, timeout_ms: 20000, max_iterations: 25 }));
      done.push(await submit(case30));
      done.push(await submit(case9, { method: 'dc' }));
      for (const id of done) assert.equal(await waitForTaskStatus(app, h, id, 'completed', 3000), 'completed');
    });
    after(async () => app?.close());

    it('polls a finished task as status and summary; the whole result only with include=result', async () => {
      const res = await call('GET', `/api/v1/tasks/${done[0]}`);
      assert.equal(res.statusCode, 200, res.body);
      const t = json(res).data;
      assert.equal(t.status, 'completed');
      assert.equal('result' in t, false, 'no per-element values by default');
      assert.equal(t.result_url, `/api/v1/tasks/${done[0]}?include=result`);
      assert.equal(t.summary.status, 'converged');
      assert.equal(t.summary.method, 'newton_raphson');
      assert.deepEqual([t.summary.bus_count, t.summary.branch_count, t.summary.generator_count], [9, 9, 3]);
      assert.ok(t.summary.iterations >= 2 && t.summary.losses.p_mw > 0);
      assert.ok(res.body.length < 2000, `a poll is small (${res.body.length} bytes)`);

      const full = json(await call('GET', t.result_url)).data;
      assert.equal(full.result.buses.length, 9);
      assert.deepEqual(full.summary, t.summary);
      assert.equal(full.result.losses.p_mw, t.summary.losses.p_mw);

      const bad = await call('GET', `/api/v1/tasks/${done[0]}?include=everything`);
      assert.equal(bad.statusCode, 400, bad.body);
      assert.equal(json(bad).error.code, 'INVALID_FIELD');
      assert.match(json(bad).error.message, /include may be result/);
    });

    it('shows options snake_case, as they were sent', async () => {
      const t = json(await call('GET', `/api/v1/tasks/${done[0]}`)).data;
      assert.deepEqual(t.options, { method: 'newton_raphson', tolerance: 1e-8, max_iterations: 25, flat_start: true, enforce_q_limits: false, timeout_ms: 20000 });
      assert.equal(Object.keys(t.options).some((k) => /[A-Z]/.test(k)), false);
    });

    it('gives every branch result its 0-based index (REST sync, task result, GraphQL)', async () => {
      const sync = json(await call('POST', `/api/v1/networks/${case30}/powerflow`, {})).data;
      assert.equal(sync.branches.length, 41);
      sync.branches.forEach((b: { index: number }, k: number) => assert.equal(b.index, k));
      const stored = json(await call('GET', `/api/v1/tasks/${done[1]}?include=result`)).data.result;
      stored.branches.forEach((b: { index: number }, k: number) => assert.equal(b.index, k));
      const g = ok(await gql(app, `query($id: ID!) { task(id: $id) { branches { index from to } } }`, { id: done[1] }, h)).task;
      assert.deepEqual(g.branches.map((b: { index: number }) => b.index), Array.from({ length: 41 }, (_, k) => k));
    });

    it('lists the tenant\'s tasks newest first, with filters, paging and sort', async () => {
      const res = await call('GET', '/api/v1/tasks');
      assert.equal(res.statusCode, 200, res.body);
      let body = json(res);
      const ours = body.data.filter((t: { task_id: string }) => done.includes(t.task_id));
      assert.equal(ours.length, 3);
      assert.deepEqual(ours.map((t: { task_id: string }) => t.task_id), [...done].reverse(), 'newest first');
      assert.equal('result' in body.data[0], false);
      assert.equal(body.data.find((t: { task_id: string }) => t.task_id === done[1]).summary.bus_count, 30);
      assert.equal(body.meta.page, 1);
      assert.equal(body.meta.page_size, 20);

      body = json(await call('GET', `/api/v1/tasks?network_id=${case9}&status=completed&kind=powerflow&sort=created_at`));
      assert.deepEqual(body.data.map((t: { task_id: string }) => t.task_id).filter((id: string) => done.includes(id)), [done[0], done[2]]);
      assert.ok(body.data.every((t: { network_id: string; status: string }) => t.network_id === case9 && t.status === 'completed'));

      body = json(await call('GET', '/api/v1/tasks?kind=study'));
      assert.equal(body.meta.total, 0);
      body = json(await call('GET', '/api/v1/tasks?status=failed,cancelled'));
      assert.ok(body.data.every((t: { status: string }) => t.status === 'failed' || t.status === 'cancelled'));

      const all = json(await call('GET', '/api/v1/tasks?page_size=100')).data;
      const p1 = json(await call('GET', '/api/v1/tasks?page_size=2'));
      assert.equal(p1.data.length, 2);
      assert.equal(p1.meta.total, all.length);
      const p2 = json(await call('GET', `/api/v1/tasks?page_size=2&cursor=${p1.meta.next_cursor}`));
      assert.deepEqual([...p1.data, ...p2.data].map((t: { task_id: string }) => t.task_id), all.slice(0, 4).map((t: { task_id: string }) => t.task_id));

      const created = Date.parse(all.find((t: { task_id: string }) => t.task_id === done[1]).created_at);
      // created_at is stored to the microsecond and shown to the millisecond: to = the next millisecond.
      body = json(await call('GET', `/api/v1/tasks?from=${new Date(created).toISOString()}&to=${new Date(created + 1).toISOString()}`));
      assert.deepEqual(body.data.map((t: { task_id: string }) => t.task_id), [done[1]]);
      body = json(await call('GET', `/api/v1/tasks?from=${new Date(created + 3_600_000).toISOString()}`));
      assert.equal(body.meta.total, 0);
    });

    it('refuses bad filters with the values that exist', async () => {
      let res = await call('GET', '/api/v1/tasks?status=done');
      assert.equal(res.statusCode, 400, res.body);
      assert.match(json(res).error.message, /status must be one of queued, running, completed, failed, cancelled/);
      res = await call('GET', '/api/v1/tasks?sort=colour');
      assert.equal(res.statusCode, 400, res.body);
      assert.match(json(res).error.message, /sortable fields: created_at/);
      res = await call('GET', '/api/v1/tasks?from=yesterday');
      assert.equal(res.statusCode, 400, res.body);
      res = await call('GET', '/api/v1/tasks?page_size=500');
      assert.ok([400, 422].includes(res.statusCode), res.body);
    });

    it('shows queued tasks with their queue position, and only to their tenant', async () => {
      const tenant = `tq${mode.slice(0, 1)}${process.pid}`;
      const op = await tokenFor(app, 'operator', tenant);
      const net = await importCase('case9', op);
      // No power-flow slot for this tenant: what it submits waits in its queue.
      const q = await call('PUT', `/api/v1/admin/tenants/${tenant}/quota`, { concurrent_powerflow: 0, reason: 'hold the queue for the test' });
      assert.equal(q.statusCode, 200, q.body);
      const a = await submit(net, {}, op);
      const b = await submit(net, {}, op);
      const listed = json(await call('GET', '/api/v1/tasks?status=queued', undefined, op));
      assert.deepEqual(listed.data.map((t: { task_id: string; queue_position: number }) => [t.task_id, t.queue_position]), [[b, 2], [a, 1]]);
      assert.equal(listed.data[0].summary, null);
      // The default tenant sees none of them.
      const other = json(await call('GET', '/api/v1/tasks?page_size=100')).data.map((t: { task_id: string }) => t.task_id);
      assert.equal(other.includes(a) || other.includes(b), false);
      // GraphQL: the same list.
      const g = ok(await gql(app, `{ tasks(status: [QUEUED]) { total items { id status kind queuePosition options summary { busCount } } } }`, {}, op)).tasks;
      assert.equal(g.total, 2);
      assert.deepEqual(g.items.map((t: { id: string; queuePosition: number }) => [t.id, t.queuePosition]), [[b, 2], [a, 1]]);
      assert.equal(g.items[0].status, 'QUEUED');
      assert.equal(g.items[0].kind, 'powerflow');
      assert.equal(g.items[0].options.flatStart, false);
      for (const id of [a, b]) assert.equal((await call('DELETE', `/api/v1/tasks/${id}`, undefined, op)).statusCode, 200);
      // A cancelled task has no solved case.
      const ex = await call('GET', `/api/v1/tasks/${a}/export?format=csv&table=buses`, undefined, op);
      assert.equal(ex.statusCode, 409, ex.body);
      assert.match(json(ex).error.message, /is cancelled; only a converged power flow has a solved case to export/);
    });

    it('exports the solved case as MATPOWER (savecase: VM/VA, PG/QG, PF/QF/PT/QT) that re-solves at once', async () => {
      const res = await call('GET', `/api/v1/tasks/${done[1]}/export?format=matpower`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      assert.match(String(res.headers['content-disposition']), new RegExp(`filename="${done[1]}.m"`));
      const r = json(await call('GET', `/api/v1/tasks/${done[1]}?include=result`)).data.result;
      const solved = parseMatpower(res.body);
      solved.buses.forEach((b, k) => {
        assert.equal(b.v, r.buses[k].v, `bus ${b.id} VM`);
        assert.ok(Math.abs(b.theta - r.buses[k].theta) < 1e-12, `bus ${b.id} VA`);
      });
      solved.generators.forEach((g, k) => assert.deepEqual([g.mw, g.mvar], [r.generators[k].p_gen, r.generators[k].q_gen]));
      // Branch rows carry PF QF PT QT as columns 14-17.
      const rows = res.body.slice(res.body.indexOf('mpc.branch = [')).split('\n').slice(1, 42).map((l) => l.trim().replace(/;$/, '').split('\t').map(Number));
      assert.match(res.body, /angmax\tPf\tQf\tPt\tQt/);
      // (+ 0: JSON has no -0, the .m file keeps it)
      rows.forEach((row, k) => assert.deepEqual(row.slice(13).map((x) => x + 0), [r.branches[k].p_from, r.branches[k].q_from, r.branches[k].p_to, r.branches[k].q_to], `branch ${k}`));
      // The solved case is a power-flow solution: imported again, it solves without a step.
      const again = await app.app!.inject({ method: 'POST', url: '/api/v1/networks/import?name=case30-solved', headers: { ...h, 'content-type': 'text/plain' }, payload: res.body });
      assert.equal(again.statusCode, 201, again.body);
      const re = json(await call('POST', `/api/v1/networks/${json(again).data.id}/powerflow`, {})).data;
      assert.equal(re.status, 'converged');
      assert.ok(re.iterations <= 1, `re-solved in ${re.iterations} iterations`);
      assert.ok(Math.abs(re.losses.p_mw - r.losses.p_mw) < 1e-6);
    });

    it('exports the result tables as CSV, and says which formats and tables exist', async () => {
      const r = json(await call('GET', `/api/v1/tasks/${done[0]}?include=result`)).data.result;
      let res = await call('GET', `/api/v1/tasks/${done[0]}/export?format=csv&table=branches`);
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      const lines = res.body.trim().split('\r\n');
      assert.equal(lines[0], 'index,from,to,p_from,q_from,p_to,q_to,loading');
      assert.equal(lines.length, 10);
      assert.deepEqual(lines[3]!.split(',').map(Number), [2, r.branches[2].from, r.branches[2].to, r.branches[2].p_from, r.branches[2].q_from, r.branches[2].p_to, r.branches[2].q_to, r.branches[2].loading]);
      res = await call('GET', `/api/v1/tasks/${done[0]}/export?format=csv&table=buses`);
      assert.equal(res.body.split('\r\n')[0], 'id,v,theta,p_gen,q_gen,p_load,q_load');
      assert.equal(Number(res.body.split('\r\n')[1]!.split(',')[1]), r.buses[0].v);
      res = await call('GET', `/api/v1/tasks/${done[0]}/export?format=csv&table=generators`);
      assert.equal(res.body.split('\r\n')[0], 'index,bus,p_gen,q_gen');

      for (const [q, status, re] of [
        ['', 400, /format is required: matpower or csv/],
        ['?format=xlsx', 400, /format must be one of matpower, csv, got "xlsx"/],
        ['?format=csv', 400, /table must be one of buses, branches, generators/],
        ['?format=csv&table=loads', 400, /table must be one of buses, branches, generators, got "loads"/],
      ] as const) {
        res = await call('GET', `/api/v1/tasks/${done[0]}/export${q}`);
        assert.equal(res.statusCode, status, `${q}: ${res.body}`);
        assert.match(json(res).error.message, re);
      }
      assert.equal((await call('GET', '/api/v1/tasks/task_nothere0000/export?format=csv&table=buses')).statusCode, 404);
    });

    it('lists tasks in GraphQL with filters, paging, sort and the whole result on demand', async () => {
      const g = ok(await gql(app, `query($n: ID!) { tasks(networkId: $n, status: [COMPLETED], pageSize: 1, sort: "createdAt") {
        total page pageSize totalPages items { id networkId status summary { status method busCount branchCount } powerFlow { branches { index } } } } }`, { n: case9 }, h)).tasks;
      assert.ok(g.total >= 2);
      assert.equal(g.pageSize, 1);
      assert.equal(g.items[0].id, done[0]);
      assert.deepEqual(g.items[0].summary, { status: 'converged', method: 'NEWTON_RAPHSON', busCount: 9, branchCount: 9 });
      assert.equal(g.items[0].powerFlow.branches[8].index, 8);
      const bad = await gql(app, `{ tasks(sort: "colour") { total } }`, {}, h);
      assert.equal(code(bad), 'VALIDATION_FAILED', JSON.stringify(bad.body));
      assert.match(bad.body.errors![0]!.message, /sortable fields/);
    });
  });
}
