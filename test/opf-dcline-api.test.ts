// The OPF door with DC lines, both modes: a MATPOWER file with mpc.dcline and mpc.dclinecost imported over REST
// optimises (no more 422) to MATPOWER's runopf with toggle_dcline (test/reference/dcline-opf), synchronously and as a
// task; apply: true stores the DC lines' flows with the dispatch, so a power flow of the new version runs both; a
// DC line cost that is not one is refused on write.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, MODES, startTestApp, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { ROOT } from '../src/paths.js';
import { gql, ok as gqlOk } from './graphql-helpers.js';

const DIR = join(ROOT, 'test', 'reference', 'dcline-opf');
const text = readFileSync(join(DIR, 't_case9_dcline.m'), 'utf8');
interface Ref {
  f: number;
  gen: { pg: number }[];
  dcline: { status: number; pf: number; pt: number; qf: number; qt: number; mu_pmax: number }[];
}
const ref = JSON.parse(readFileSync(join(DIR, 't_case9_dcline.acopf.json'), 'utf8')) as Ref;
type DcLineOut = { p_from: number; p_to: number; q_from: number; q_to: number; mu_pmax: number; in_service: boolean };

function assertAsMatpower(d: { status: string; objective: number; generators: { p_mw: number }[]; dc_lines: DcLineOut[] }): void {
  assert.equal(d.status, 'converged');
  assert.ok(Math.abs(d.objective - ref.f) <= 1e-6 * ref.f, `objective ${d.objective} vs ${ref.f}`);
  assert.equal(d.generators.length, 3, "the DC lines' terminals are not listed as generators");
  d.generators.forEach((g, i) => assert.ok(Math.abs(g.p_mw - ref.gen[i]!.pg) <= 1e-3, `generator ${i}`));
  assert.equal(d.dc_lines.length, 4);
  ref.dcline.forEach((x, k) => {
    const y = d.dc_lines[k]!;
    assert.equal(y.in_service, x.status === 1);
    if (x.status !== 1) return;
    for (const [a, b] of [
      [y.p_from, x.pf],
      [y.p_to, x.pt],
      [y.q_from, x.qf],
      [y.q_to, x.qt],
      [y.mu_pmax, x.mu_pmax],
    ] as const) {
      assert.ok(Math.abs(a - b) <= 1e-3, `DC line ${k}: ${a} vs ${b}`);
    }
  });
}

for (const mode of MODES) {
  describe(`OPF with DC lines over REST (${mode})`, { timeout: 120_000 }, () => {
    let app: TestApp;
    let h: Headers;
    let net: string;
    const { call, ok, err } = restClient(() => ({ app, h }));
    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const r = await call('POST', '/api/v1/networks/import?format=matpower', text, { 'content-type': 'text/plain' });
      assert.equal(r.statusCode, 201, r.body);
      net = json(r).data.id;
    });
    after(async () => {
      await app?.close();
    });

    it("stores the DC lines' costs and answers the AC-OPF as MATPOWER, synchronously and as a task", async () => {
      const detail = await ok('GET', `/api/v1/networks/${net}`);
      assert.deepEqual(detail.dc_lines[3].cost, { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [7.3, 0] });
      assertAsMatpower(await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'ac' }));
      const q = await call('POST', `/api/v1/networks/${net}/opf`, { method: 'ac', async: true });
      assert.equal(q.statusCode, 202, q.body);
      const taskId = json(q).data.task_id as string;
      assert.equal(await waitForTaskStatus(app, h, taskId, 'completed'), 'completed');
      assertAsMatpower((await ok('GET', `/api/v1/tasks/${taskId}?include=result`)).result);
    });

    it("GraphQL: the DC lines' costs on the network, and runOpf answers their flows as MATPOWER", async () => {
      const g = gqlOk(
        await gql(app, 'query($id: ID!) { network(id: $id) { dcLines { pFrom cost { model coefficients } } } }', { id: net }, h),
      );
      assert.deepEqual(g.network.dcLines[3].cost, { model: 'POLYNOMIAL', coefficients: [7.3, 0] });
      const q =
        'mutation($id: ID!) { runOpf(id: $id, method: AC) { status objective dcLines { index inService pFrom pTo qFrom qTo muPmax } } }';
      const r = gqlOk(await gql(app, q, { id: net }, h)).runOpf;
      assert.equal(r.status, 'CONVERGED');
      assert.ok(Math.abs(r.objective - ref.f) <= 1e-6 * ref.f);
      ref.dcline.forEach((x, k) => {
        if (x.status === 1)
          assert.ok(Math.abs(r.dcLines[k].pFrom - x.pf) <= 1e-3 && Math.abs(r.dcLines[k].qTo - x.qt) <= 1e-3, `DC line ${k}`);
      });
    });

    it("apply: true stores the DC lines' flows with the dispatch; a power flow of that version runs them", async () => {
      const r = await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'ac', apply: true });
      assert.equal(r.status, 'converged');
      const detail = await ok('GET', `/api/v1/networks/${net}`);
      assert.equal(detail.version, r.applied.network_version);
      detail.dc_lines.forEach((d: { p_from: number; in_service: boolean }, k: number) => {
        if (d.in_service) assert.ok(Math.abs(d.p_from - r.dc_lines[k].p_from) <= 1e-9, `DC line ${k} p_from stored`);
      });
      const pf = await ok('POST', `/api/v1/networks/${net}/powerflow`, { method: 'newton_raphson' });
      pf.dc_lines.forEach((d: { p_from: number; p_to: number }, k: number) => {
        assert.ok(Math.abs(d.p_from - r.dc_lines[k].p_from) <= 1e-6, `DC line ${k}: power flow ${d.p_from} vs OPF ${r.dc_lines[k].p_from}`);
        assert.ok(Math.abs(d.p_to - r.dc_lines[k].p_to) <= 1e-6, `DC line ${k} p_to`);
      });
      // every generator but the slack's (generator 0) produces its OPF output; the slack takes up the AC losses
      pf.generators.forEach((g: { p_gen: number }, k: number) =>
        assert.ok(
          Math.abs(g.p_gen - r.generators[k].p_mw) <= (k === 0 ? 1e-3 : 1e-6),
          `generator ${k}: ${g.p_gen} vs ${r.generators[k].p_mw}`,
        ),
      );
    });

    it('a DC line cost that is not a cost is refused when the network is written', async () => {
      const bad = {
        name: 'bad dc line cost',
        buses: [
          { id: 1, type: 'slack' },
          { id: 2, type: 'pq' },
        ],
        branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
        generators: [{ bus: 1, mw: 10, cost: { model: 'polynomial', coefficients: [1, 0] } }],
        dc_lines: [{ from: 1, to: 2, p_from: 5, cost: { model: 'piecewise_linear', coefficients: [10, 0, 0, 5] } }],
      };
      const e = err(await call('POST', '/api/v1/networks', bad), 422, 'VALIDATION_FAILED');
      assert.match(JSON.stringify(e), /DC line 0 \(1-2\)/);
    });
  });
}
