// POST /api/v1/networks/{id}/state-estimation (CONTRACT "State estimation") in both modes: inline measurements and
// the same set stored as device measures with time-series readings give doSE's answer with lnr removal
// (shared/reference/state-estimation a_case14_test_se_14bus), synchronously and as a task; an unobservable set is
// status unobservable naming its buses; bad input is 400 / 422 / 404 (a value out of range is 422
// PARAM_OUT_OF_RANGE, as everywhere in the service), never a 500; a viewer may not run one.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { CASES_DIR, SHARED_DIR } from '../src/paths.js';
import { gql, ok } from './graphql-helpers.js';

type Headers = Record<string, string>;
const REF_DIR = join(SHARED_DIR, 'reference', 'state-estimation');
const refA = JSON.parse(readFileSync(join(REF_DIR, 'a_case14_test_se_14bus.json'), 'utf8'));
const refB = JSON.parse(readFileSync(join(REF_DIR, 'b_case14_test_se_14bus_err.json'), 'utf8'));

/** The reference's lnr answer: removals in order, J, the state. */
function assertLnrAnswer(d: any): void {
  assert.equal(d.status, 'converged');
  assert.deepEqual(
    d.bad_data.map((b: any) => b.measurement),
    refA.bad_data_lnr.removed.map((b: any) => b.measurement),
  );
  const fin = refA.bad_data_lnr.final;
  assert.ok(Math.abs(d.J - fin.J) <= 1e-8 * fin.J, `J ${d.J} vs ${fin.J}`);
  assert.equal(d.iterations, fin.iterations);
  assert.equal(d.dof, fin.dof);
  assert.equal(d.chi_square.passed, fin.chi2_pass);
  for (const b of fin.buses) {
    const e = d.buses.find((x: any) => x.id === b.id);
    assert.ok(Math.abs(e.v - b.vm) <= 1e-9, `bus ${b.id} v`);
    assert.ok(Math.abs((e.theta * 180) / Math.PI - b.va_deg) <= 1e-7, `bus ${b.id} theta`);
  }
  assert.equal(d.residuals.length, fin.residuals.length);
}

for (const mode of MODES) {
  describe(`state estimation over REST (${mode})`, { timeout: 180_000 }, () => {
    let app: TestApp;
    let admin: Headers;
    let net = '';
    const call = (method: string, url: string, payload?: unknown, headers: Headers = admin) =>
      app.app!.inject({ method: method as 'POST', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const se = (body: unknown, headers?: Headers) => call('POST', `/api/v1/networks/${net}/state-estimation`, body, headers);

    before(async () => {
      app = await startTestApp(mode);
      admin = await adminHeaders(app);
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case14.m'), 'utf8'), {
        ...admin,
        'content-type': 'text/plain',
      });
      assert.equal(r.statusCode, 201, r.body);
      net = json(r).data.id;
    });
    after(async () => app?.close());

    it('estimates from inline measurements with lnr removal, as the reference', async () => {
      const r = await se({ measurements: refA.measurements });
      assert.equal(r.statusCode, 200, r.body);
      assertLnrAnswer(json(r).data);
    });

    it('bad_data false is doSE alone', async () => {
      const r = await se({ measurements: refA.measurements, bad_data: false });
      assert.equal(r.statusCode, 200, r.body);
      const d = json(r).data;
      assert.deepEqual(d.bad_data, []);
      assert.ok(Math.abs(d.J - refA.dose.J) <= 1e-8 * refA.dose.J);
      assert.equal(d.chi_square.passed, false);
    });

    it('runs as a task with "async": true', async () => {
      const r = await se({ measurements: refA.measurements, async: true });
      assert.equal(r.statusCode, 202, r.body);
      const taskId = json(r).data.task_id;
      assert.equal(await waitForTaskStatus(app, admin, taskId, 'completed'), 'completed');
      const t = json(await call('GET', `/api/v1/tasks/${taskId}?include=result`)).data;
      assert.equal(t.kind, 'state_estimation');
      assertLnrAnswer(t.result);
    });

    it('names the unobservable buses (status unobservable, not an error)', async () => {
      const r = await se({ measurements: refB.measurements });
      assert.equal(r.statusCode, 200, r.body);
      const d = json(r).data;
      assert.equal(d.status, 'unobservable');
      assert.deepEqual(d.observability, { observable: false, unobservable_buses: refB.observability.unobservable_buses });
    });

    it("reads stored measures: each one's latest reading within max_age_s", async () => {
      const measures = refA.measurements.map((m: any, k: number) => {
        const element =
          (m.kind.startsWith('p_') && m.kind !== 'p_inj' && m.kind !== 'p_gen') ||
          (m.kind.startsWith('q_') && m.kind !== 'q_inj' && m.kind !== 'q_gen')
            ? { type: 'branch', index: m.element, end: m.kind.endsWith('from') ? 'from' : 'to' }
            : m.kind.endsWith('_gen')
              ? { type: 'generator', index: m.element }
              : { type: 'bus', id: m.element };
        const quantity = element.type === 'bus' ? m.kind : m.kind[0];
        return { element, quantity, sigma: m.sigma, metric: `meter.${k}`, tags: { site: 'se-test' } };
      });
      const dev = await call('POST', '/api/v1/devices', { name: 'scada', type: 'TRANSFORMER', network_id: net, metadata: { measures } });
      assert.equal(dev.statusCode, 201, dev.body);
      const at = Date.parse('2026-03-01T12:00:00Z');
      const points = refA.measurements.flatMap((m: any, k: number) => [
        // an older reading that the latest one replaces, and one after `at` that is not read
        { metric: `meter.${k}`, timestamp: new Date(at - 120_000).toISOString(), value: m.value + 50, tags: { site: 'se-test' } },
        { metric: `meter.${k}`, timestamp: new Date(at - 10_000).toISOString(), value: m.value, tags: { site: 'se-test' } },
        { metric: `meter.${k}`, timestamp: new Date(at + 10_000).toISOString(), value: m.value - 50, tags: { site: 'se-test' } },
      ]);
      const w = await call('POST', '/api/v1/timeseries/batch', { points });
      assert.ok(w.statusCode < 300, w.body);
      const r = await se({ at: new Date(at).toISOString() });
      assert.equal(r.statusCode, 200, r.body);
      const d = json(r).data;
      assertLnrAnswer(d);
      assert.equal(d.sources.length, refA.measurements.length);
      assert.equal(d.sources[0].ts, new Date(at - 10_000).toISOString());
      // nothing recent enough: 422 naming the measures it could not read
      const stale = await se({ at: new Date(at).toISOString(), max_age_s: 5 });
      assert.equal(stale.statusCode, 422, stale.body);
      assert.equal(json(stale).error.code, 'VALIDATION_FAILED');
      assert.equal(json(stale).error.details.unread.length, refA.measurements.length);
    });

    it('refuses bad input with 400 / 422 / 404, never a 500', async () => {
      const m = refA.measurements;
      const cases: [unknown, number, string][] = [
        [{ measurements: [{ ...m[0], sigma: -1 }] }, 422, 'negative sigma'],
        [{ measurements: [{ ...m[0], kind: 'p_sideways' }] }, 400, 'unknown kind'],
        [{ measurements: [{ ...m[0], element: 99 }] }, 422, 'unknown branch'],
        [{ measurements: [{ kind: 'v_mag', element: 999, value: 1, sigma: 0.01 }] }, 422, 'unknown bus'],
        [{ measurements: [{ kind: 'p_gen', element: 7, value: 1, sigma: 1 }] }, 422, 'unknown generator'],
        [{ measurements: m, bad_data: { threshold: -3 } }, 422, 'negative threshold'],
        [{ at: 'yesterday' }, 400, 'bad at'],
      ];
      for (const [body, status, what] of cases) {
        const r = await se(body);
        assert.equal(r.statusCode, status, `${what}: ${r.body}`);
        assert.equal(typeof json(r).error.code, 'string', `${what}: the error body`);
      }
      const missing = await call('POST', '/api/v1/networks/net_nope/state-estimation', { measurements: m });
      assert.equal(missing.statusCode, 404, missing.body);
    });

    it('GraphQL runStateEstimation answers as REST', async () => {
      const q = `mutation($id: ID!, $m: [StateMeasurementInput!]) { runStateEstimation(id: $id, measurements: $m) {
        taskId status iterations J dof chiSquare { passed } badData { measurement kind normalizedResidual }
        buses { id v theta } residuals { measurement normalizedResidual critical } observability { observable unobservableBuses } } }`;
      const toGql = (ms: any[]) => ms.map((m) => ({ ...m, kind: m.kind.toUpperCase() }));
      const d = ok(await gql(app, q, { id: net, m: toGql(refA.measurements) }, admin)).runStateEstimation;
      assert.equal(d.status, 'CONVERGED');
      assert.deepEqual(
        d.badData.map((b: any) => b.measurement),
        refA.bad_data_lnr.removed.map((b: any) => b.measurement),
      );
      assert.equal(d.badData[0].kind, 'Q_FROM');
      assert.ok(Math.abs(d.J - refA.bad_data_lnr.final.J) <= 1e-8 * refA.bad_data_lnr.final.J);
      const u = ok(await gql(app, q, { id: net, m: toGql(refB.measurements) }, admin)).runStateEstimation;
      assert.equal(u.status, 'UNOBSERVABLE');
      assert.deepEqual(u.observability.unobservableBuses, refB.observability.unobservable_buses);
    });

    it('a study with base {state_estimation} solves N-1 from the estimated state', async () => {
      const est = json(await se({ measurements: refA.measurements })).data;
      const study = async (body: Record<string, unknown>) => {
        const r = await call('POST', `/api/v1/networks/${net}/studies`, { ...body, base: { state_estimation: est.task_id } });
        assert.equal(r.statusCode, 202, r.body);
        const st = json(r).data;
        assert.equal(await waitForTaskStatus(app, admin, st.task_id, 'completed'), 'completed');
        return json(await call('GET', `/api/v1/studies/${st.study_id}/cases?page_size=50`)).data as any[];
      };
      // one scenario with no change is the base: the power flow of the substituted model returns the estimated voltages
      const [same] = await study({ kind: 'scenarios', scenarios: { count: 1 }, monitor: { buses: 'all' } });
      assert.equal(same.status, 'converged');
      const buses = same.monitored.buses as { id: number; v: number }[];
      assert.equal(buses.length, est.buses.length);
      for (const b of est.buses) {
        const m = buses.find((x) => x.id === b.id)!;
        assert.ok(Math.abs(m.v - b.v) <= 1e-6, `bus ${b.id}: study ${m.v} vs estimate ${b.v}`);
      }
      // N-1 of every branch from that state
      // N-1 of every branch from that state: a row per branch (one outage of the estimated case14 does not converge)
      const n1 = await study({ kind: 'contingency', contingencies: 'n-1-branches' });
      assert.equal(n1.length, 20);
      assert.ok(n1.filter((c) => c.status === 'converged').length >= 18, JSON.stringify(n1.map((c) => c.status)));
      // an unknown task is a 404, a task of another kind a 422
      const unknown = await call('POST', `/api/v1/networks/${net}/studies`, {
        kind: 'contingency',
        base: { state_estimation: 'task_nope' },
      });
      assert.equal(unknown.statusCode, 404, unknown.body);
      const pf = json(await call('POST', `/api/v1/networks/${net}/powerflow`, {})).data;
      const wrong = await call('POST', `/api/v1/networks/${net}/studies`, { kind: 'contingency', base: { state_estimation: pf.task_id } });
      assert.equal(wrong.statusCode, 422, wrong.body);
    });

    it('a viewer may not run an estimate', async () => {
      const viewer = await tokenFor(app, 'viewer');
      const r = await se({ measurements: refA.measurements }, viewer);
      assert.equal(r.statusCode, 403, r.body);
    });
  });
}
