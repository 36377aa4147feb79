// POST /api/v1/networks/{id}/opf (CONTRACT "Optimal power flow") in both modes: the DC OPF
// through the service matches MATPOWER's rundcopf (shared/reference/opf), synchronously and as a
// task (kind opf) with progress events; infeasible -> 409 OPF_INFEASIBLE naming the binding
// limit; AC (the default) against MATPOWER's runopf; bad input -> 400 / 422; roles as power flow.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { CASES_DIR, ROOT, SHARED_DIR } from '../src/paths.js';
import { code, gql, ok } from './graphql-helpers.js';

type Headers = Record<string, string>;
interface Ref { f: number; bus: { lam_p: number; vm?: number; lam_q?: number | null; mu_vmax?: number }[]; gen: { pg: number; qg?: number | null }[] }
const ref = (c: string, method: 'dc' | 'ac' = 'dc'): Ref => JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'opf', `${c}.${method}opf.json`), 'utf8'));

for (const mode of MODES) {
  describe(`OPF over REST (${mode})`, { timeout: 180_000 }, () => {
    let app: TestApp;
    let admin: Headers;
    const ids: Record<string, string> = {};
    const call = (method: string, url: string, payload?: unknown, headers: Headers = admin) =>
      app.app!.inject({ method: method as 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

    before(async () => {
      app = await startTestApp(mode);
      admin = await adminHeaders(app);
      for (const c of ['case9', 'case30']) {
        const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), { ...admin, 'content-type': 'text/plain' });
        assert.equal(r.statusCode, 201, r.body);
        ids[c] = json(r).data.id;
      }
    });
    after(async () => app?.close());

    it('answers a DC OPF synchronously with MATPOWER\'s dispatch, prices and objective', async () => {
      for (const c of ['case9', 'case30']) {
        const r = await call('POST', `/api/v1/networks/${ids[c]}/opf`, { method: 'dc' });
        assert.equal(r.statusCode, 200, r.body);
        const d = json(r).data;
        const m = ref(c);
        assert.equal(d.status, 'converged');
        assert.equal(d.method, 'dc');
        assert.ok(Math.abs(d.objective - m.f) <= 1e-6 * Math.abs(m.f), `${c} objective ${d.objective} vs ${m.f}`);
        assert.equal(d.generators.length, m.gen.length);
        d.generators.forEach((g: { p_mw: number }, i: number) => assert.ok(Math.abs(g.p_mw - m.gen[i]!.pg) <= 1e-3, `${c} Pg ${i}`));
        d.buses.forEach((b: { lmp_p: number; v: number }, i: number) => {
          assert.ok(Math.abs(b.lmp_p - m.bus[i]!.lam_p) <= 1e-3, `${c} LMP ${i}: ${b.lmp_p} vs ${m.bus[i]!.lam_p}`);
          assert.equal(b.v, 1);
        });
        assert.ok(d.task_id?.startsWith('task_'));
      }
    });

    it('queues an OPF with "async": true: task kind opf, progress and opf.finished events, the result on the task', async () => {
      const r = await call('POST', `/api/v1/networks/${ids.case9}/opf`, { method: 'dc', async: true });
      assert.equal(r.statusCode, 202, r.body);
      const taskId = json(r).data.task_id as string;
      assert.equal(await waitForTaskStatus(app, admin, taskId, 'completed', 6000), 'completed');
      const t = json(await call('GET', `/api/v1/tasks/${taskId}?include=result`)).data;
      assert.equal(t.kind, 'opf');
      assert.ok(Math.abs(t.result.objective - ref('case9').f) <= 1e-6 * ref('case9').f);
      const events = json(await call('GET', `/api/v1/events?topic=powerflow&page_size=100`)).data as { kind: string; payload: Record<string, unknown> }[];
      const fin = events.find((e) => e.kind === 'opf.finished' && e.payload.task_id === taskId);
      assert.ok(fin, 'an opf.finished event');
      assert.equal(fin.payload.status, 'completed');
    });

    it('answers an infeasible OPF with 409 OPF_INFEASIBLE naming the binding limit', async () => {
      const detail = json(await call('GET', `/api/v1/networks/${ids.case9}`)).data;
      const heavy = {
        name: 'case9-overloaded', buses: detail.buses, branches: detail.branches, generators: detail.generators,
        loads: detail.loads.map((l: { mw: number }) => ({ ...l, mw: l.mw * 4 })), status: 'ready',
      };
      const created = await call('POST', '/api/v1/networks', heavy);
      assert.equal(created.statusCode, 201, created.body);
      const r = await call('POST', `/api/v1/networks/${json(created).data.id}/opf`, { method: 'dc' });
      assert.equal(r.statusCode, 409, r.body);
      const e = json(r).error;
      assert.equal(e.code, 'OPF_INFEASIBLE');
      assert.match(e.message, /no dispatch meets the limits/);
      assert.ok(Array.isArray(e.details.binding) && e.details.binding.length > 0, JSON.stringify(e.details));
      assert.ok(e.details.task_id);
    });

    it('answers an AC OPF (the default method) with MATPOWER\'s runopf dispatch, voltages and prices', async () => {
      for (const c of ['case9', 'case30']) {
        const r = await call('POST', `/api/v1/networks/${ids[c]}/opf`, {});
        assert.equal(r.statusCode, 200, r.body);
        const d = json(r).data, m = ref(c, 'ac');
        assert.deepEqual([d.status, d.method], ['converged', 'ac']);
        assert.ok(Math.abs(d.objective - m.f) <= 1e-6 * Math.abs(m.f), `${d.objective} vs ${m.f}`);
        d.generators.forEach((g: { p_mw: number; q_mvar: number }, i: number) => {
          assert.ok(Math.abs(g.p_mw - m.gen[i]!.pg) <= 1e-3);
          assert.ok(Math.abs(g.q_mvar - m.gen[i]!.qg!) <= 1e-3);
        });
        d.buses.forEach((b: { v: number; lmp_p: number; lmp_q: number }, i: number) => {
          assert.ok(Math.abs(b.v - m.bus[i]!.vm!) <= 1e-5);
          assert.ok(Math.abs(b.lmp_p - m.bus[i]!.lam_p) <= 1e-3);
          assert.ok(Math.abs(b.lmp_q - m.bus[i]!.lam_q!) <= 1e-3);
        });
      }
    });

    it('refuses bad input with 400 / 422, before any task exists', async () => {
      const before = json(await call('GET', '/api/v1/tasks?kind=opf&page_size=100')).meta.total;
      // The service's rule for every body: an unknown value or field is 400, a number out of its range 422 PARAM_OUT_OF_RANGE.
      for (const [body, status] of [[{ method: 'newton' }, 400], [{ method: 'dc', extra: 1 }, 400], [{ method: 'dc', tolerance: -1 }, 422], [{ method: 'dc', max_iterations: 0 }, 422]] as const) {
        const r = await call('POST', `/api/v1/networks/${ids.case9}/opf`, body);
        assert.equal(r.statusCode, status, `${JSON.stringify(body)}: ${r.body}`);
        assert.ok(json(r).error.message.length > 0);
      }
      assert.equal((await call('POST', '/api/v1/networks/net_doesnotexist/opf', { method: 'dc' })).statusCode, 404);
      assert.equal(json(await call('GET', '/api/v1/tasks?kind=opf&page_size=100')).meta.total, before, 'no task was created');
    });

    it('starts the interior point where asked (start: default, case, powerflow) through REST and GraphQL; refuses an unknown start', async () => {
      const ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'opf', 'case9.acopf.json'), 'utf8')) as { f: number; iterations: number };
      for (const start of ['default', 'case', 'powerflow'] as const) {
        const r = await call('POST', `/api/v1/networks/${ids.case9}/opf`, { start });
        assert.equal(r.statusCode, 200, r.body);
        const d = json(r).data;
        assert.equal(d.status, 'converged');
        assert.equal(d.start, start);
        assert.ok(Math.abs(d.objective - ref.f) <= 1e-6 * ref.f, `${start}: ${d.objective}`);
        if (start === 'default') assert.equal(d.iterations, ref.iterations);
        assert.equal(d.earlier_runs, undefined, 'a converged run is not repeated');
      }
      const bad = await call('POST', `/api/v1/networks/${ids.case9}/opf`, { start: 'flat' });
      assert.equal(bad.statusCode, 400, bad.body);
      assert.match(json(bad).error.message, /start/);
      const g = ok(await gql(app, `mutation($id: ID!) { runOpf(id: $id, start: CASE) { status start earlierRuns { start } objective } }`, { id: ids.case9 }, admin)).runOpf;
      assert.deepEqual([g.status, g.start, g.earlierRuns], ['CONVERGED', 'CASE', null]);
      assert.ok(Math.abs(g.objective - ref.f) <= 1e-6 * ref.f);
    });

    it('runs the same OPF through GraphQL runOpf', async () => {
      const r = ok(await gql(app, `mutation($id: ID!) { runOpf(id: $id, method: DC) { taskId status method objective iterations
        buses { id v lmpP } generators { index bus pMw muPmax } branches { index from to pFrom loading muSf } } }`, { id: ids.case30 }, admin)).runOpf;
      const m = ref('case30');
      assert.deepEqual([r.status, r.method], ['CONVERGED', 'DC']);
      assert.ok(Math.abs(r.objective - m.f) <= 1e-6 * Math.abs(m.f));
      r.generators.forEach((g: { pMw: number }, i: number) => assert.ok(Math.abs(g.pMw - m.gen[i]!.pg) <= 1e-3));
      r.buses.forEach((b: { lmpP: number }, i: number) => assert.ok(Math.abs(b.lmpP - m.bus[i]!.lam_p) <= 1e-3));
      const queued = ok(await gql(app, `mutation($id: ID!) { runOpf(id: $id, method: DC, async: true) { taskId status buses { id } } }`, { id: ids.case9 }, admin)).runOpf;
      assert.deepEqual([queued.status, queued.buses], ['QUEUED', []]);
      assert.equal(await waitForTaskStatus(app, admin, queued.taskId, 'completed', 6000), 'completed');
      const ac = ok(await gql(app, `mutation($id: ID!) { runOpf(id: $id) { status method objective buses { v lmpQ muVmax } generators { qMvar muQmax } } }`, { id: ids.case9 }, admin)).runOpf;
      const mac = ref('case9', 'ac');
      assert.deepEqual([ac.status, ac.method], ['CONVERGED', 'AC']);
      assert.ok(Math.abs(ac.objective - mac.f) <= 1e-6 * Math.abs(mac.f));
      ac.buses.forEach((b: { v: number; muVmax: number }, i: number) => {
        assert.ok(Math.abs(b.v - mac.bus[i]!.vm!) <= 1e-5);
        assert.ok(Math.abs(b.muVmax - mac.bus[i]!.mu_vmax!) <= 1e-3);
      });
      assert.equal(code(await gql(app, `mutation($id: ID!) { runOpf(id: $id, method: DC) { taskId } }`, { id: ids.case9 }, await tokenFor(app, 'viewer'))), 'FORBIDDEN');
    });

    it('carries the OPF fields of the model (costs, angle limits) through REST, GraphQL and /api/v2', async () => {
      const rest = json(await call('GET', `/api/v1/networks/${ids.case9}`)).data;
      const g = ok(await gql(app, `query($id: ID!) { network(id: $id) { generators { cost { model startup shutdown coefficients } } branches { angmin angmax } } }`, { id: ids.case9 }, admin)).network;
      assert.deepEqual(g.generators.map((x: any) => x.cost), rest.generators.map((x: any) => ({ ...x.cost, model: x.cost.model.toUpperCase() })));
      assert.deepEqual(g.branches.map((b: any) => [b.angmin, b.angmax]), rest.branches.map((b: any) => [b.angmin, b.angmax]));
      const v2 = json(await call('GET', `/api/v2/networks/${ids.case9}`)).data;
      assert.deepEqual(v2.topology.generators.items.map((x: any) => x.cost), rest.generators.map((x: any) => x.cost));
      // Written through GraphQL, read through REST.
      const made = ok(await gql(app, `mutation($input: NetworkInput!) { createNetwork(input: $input) { id } }`, { input: {
        name: 'opf-fields', buses: [{ id: 1, type: 'SLACK' }, { id: 2, type: 'PQ' }],
        branches: [{ from: 1, to: 2, r: 0.01, x: 0.1, rateA: 50, angmin: -30, angmax: 30 }],
        generators: [{ bus: 1, mw: 0, pmin: 0, pmax: 100, cost: { model: 'POLYNOMIAL', coefficients: [0.01, 20, 0] } }],
        loads: [{ bus: 2, mw: 40 }],
      } }, admin)).createNetwork;
      const back = json(await call('GET', `/api/v1/networks/${made.id}`)).data;
      assert.deepEqual(back.generators[0].cost, { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [0.01, 20, 0] });
      assert.deepEqual([back.branches[0].angmin, back.branches[0].angmax], [-30, 30]);
      // A cost the OPF cannot use is refused by every door with the same code.
      const bad = { model: 'piecewise_linear', coefficients: [0, 0, 10, 100, 20, 150] }; // slopes 10 then 5: not convex
      const r = await call('POST', '/api/v1/networks', { name: 'bad-cost', buses: [{ id: 1, type: 'slack' }], generators: [{ bus: 1, mw: 0, cost: bad }] });
      const viaGql = await gql(app, `mutation($input: NetworkInput!) { createNetwork(input: $input) { id } }`, { input: { name: 'bad-cost', buses: [{ id: 1, type: 'SLACK' }], generators: [{ bus: 1, mw: 0, cost: { ...bad, model: 'PIECEWISE_LINEAR' } }] } }, admin);
      assert.ok(r.statusCode === 400 || r.statusCode === 422, r.body);
      assert.match(json(r).error.message, /convex/i);
      assert.match(viaGql.body.errors![0]!.message, /convex/i);
    });

    it('imports reactive-power costs (gencost with 2·ng rows) and minimises them in the AC-OPF through REST and GraphQL', async () => {
      const dir = join(ROOT, 'test', 'reference', 'reactive-costs');
      const want = JSON.parse(readFileSync(join(dir, 'case9Q.acopf.json'), 'utf8')) as Ref;
      const imp = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(dir, 'case9Q.m'), 'utf8'), { ...admin, 'content-type': 'text/plain' });
      assert.equal(imp.statusCode, 201, imp.body);
      const id = json(imp).data.id as string;
      const rest = json(await call('GET', `/api/v1/networks/${id}`)).data;
      assert.deepEqual(rest.generators.map((g: any) => g.reactive_cost.coefficients), [[0.2, 0, 0], [0.05, 0, 0], [0.3, 0, 0]]);
      const ac = await call('POST', `/api/v1/networks/${id}/opf`, { method: 'ac' });
      assert.equal(ac.statusCode, 200, ac.body);
      assert.ok(Math.abs(json(ac).data.objective - want.f) <= 1e-6 * want.f, `${json(ac).data.objective} vs ${want.f}`);
      const g = ok(await gql(app, `query($id: ID!) { network(id: $id) { generators { reactiveCost { model coefficients } } } }`, { id }, admin)).network;
      assert.deepEqual(g.generators[2].reactiveCost, { model: 'POLYNOMIAL', coefficients: [0.3, 0, 0] });
      const viaGql = ok(await gql(app, `mutation($id: ID!) { runOpf(id: $id) { status objective } }`, { id }, admin)).runOpf;
      assert.ok(Math.abs(viaGql.objective - want.f) <= 1e-6 * want.f);
      // exported as MATPOWER with its 2·ng gencost rows
      const text = (await call('GET', `/api/v1/networks/${id}/export?format=matpower`)).body;
      assert.equal(/mpc\.gencost = \[([^\]]*)\]/.exec(text)![1]!.trim().split('\n').length, 6);
      // written through GraphQL, read through REST; a bad one refused by both doors, naming the field
      const made = ok(await gql(app, `mutation($input: NetworkInput!) { createNetwork(input: $input) { id } }`, { input: {
        name: 'q-cost', buses: [{ id: 1, type: 'SLACK' }], generators: [{ bus: 1, mw: 0, cost: { model: 'POLYNOMIAL', coefficients: [1, 0] }, reactiveCost: { model: 'POLYNOMIAL', coefficients: [0.1, 0, 0] } }],
      } }, admin)).createNetwork;
      assert.deepEqual(json(await call('GET', `/api/v1/networks/${made.id}`)).data.generators[0].reactive_cost, { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [0.1, 0, 0] });
      const bad = { model: 'piecewise_linear', coefficients: [-10, 5, 0, 0, 10, 2] }; // slopes -0.5 then 0.2: convex; then not
      assert.equal((await call('POST', '/api/v1/networks', { name: 'q-ok', buses: [{ id: 1, type: 'slack' }], generators: [{ bus: 1, mw: 0, reactive_cost: bad }] })).statusCode, 201);
      const worse = { model: 'piecewise_linear', coefficients: [-10, 0, 0, 5, 10, 6] }; // slopes 0.5 then 0.1
      const r = await call('POST', '/api/v1/networks', { name: 'q-bad', buses: [{ id: 1, type: 'slack' }], generators: [{ bus: 1, mw: 0, reactive_cost: worse }] });
      assert.ok(r.statusCode === 400 || r.statusCode === 422, r.body);
      assert.match(json(r).error.message, /reactive_cost.*not convex/);
      const rg = await gql(app, `mutation($input: NetworkInput!) { createNetwork(input: $input) { id } }`, { input: { name: 'q-bad', buses: [{ id: 1, type: 'SLACK' }], generators: [{ bus: 1, mw: 0, reactiveCost: { ...worse, model: 'PIECEWISE_LINEAR' } }] } }, admin);
      assert.match(rg.body.errors![0]!.message, /reactive_cost.*not convex/);
    });

    it('lets operators run an OPF and refuses viewers (compute permission)', async () => {
      const op = await call('POST', `/api/v1/networks/${ids.case9}/opf`, { method: 'dc' }, await tokenFor(app, 'operator'));
      assert.equal(op.statusCode, 200, op.body);
      const viewer = await call('POST', `/api/v1/networks/${ids.case9}/opf`, { method: 'dc' }, await tokenFor(app, 'viewer'));
      assert.equal(viewer.statusCode, 403, viewer.body);
    });
  });
}
