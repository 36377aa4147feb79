// Studies through REST (CONTRACT "Studies", docs/studies.md), in both modes: an N-1 of
// case30 end to end whose rows match the engine's own, bad input (clear 400s), roles,
// paging / filters / sort, CSV, cancel, and the endpoint's rate limit.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, json, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { assertSameRows, engineRows, studyClient, tenantWithQuota } from './helpers/studies.js';
import { STUDY_CSV_COLUMNS, type StudyRequest } from '../src/studies/index.js';
import { loadSecurityConfig } from '../src/security/settings.js';
import { classifyRoute } from '../src/security/ratelimit.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const N1: StudyRequest = { kind: 'contingency', contingencies: 'n-1-branches' };

for (const mode of MODES) {
  describe(`studies API (${mode})`, () => {
    let app: TestApp;
    let api: ReturnType<typeof studyClient>;
    let net30: string;
    let n1: { study_id: string; task_id: string };

    before(async () => {
      app = await startTestApp(mode);
      api = studyClient(app, () => adminHeaders(app));
      net30 = await api.importCase('case30');
      n1 = await api.submit(net30, N1);
    });
    after(async () => app?.close());

    it('N-1 of case30: 202 with poll_url, then completed with rows identical to the engine\'s', { timeout: 240_000 }, async () => {
      assert.match(n1.study_id, /^study_/);
      const r = await api.call('POST', `/api/v1/networks/${net30}/studies`, N1);
      const d = json(r).data;
      assert.deepEqual(Object.keys(d).sort(), ['network_id', 'poll_url', 'status', 'study_id', 'task_id']);
      assert.equal(d.status, 'queued');
      assert.equal(d.network_id, net30);
      assert.equal(d.poll_url, `/api/v1/studies/${d.study_id}`);

      const st = await api.waitFor(n1.study_id);
      assert.equal(st.status, 'completed', JSON.stringify(st.error));
      assert.equal(st.kind, 'contingency');
      assert.equal(st.progress.total, 41, 'case30 has 41 in-service branches');
      assert.equal(st.progress.done, 41);
      assert.equal(st.base.status, 'converged');
      const c = st.counts;
      assert.equal(c.by_status.converged + c.by_status.diverged + c.by_status.islanded, 41);
      // Islanding isolate (the default): the radial outages are solved on what stays energized.
      assert.equal(c.by_status.islanded, 0, 'no case left unsolved');
      assert.equal(c.cases_with_lost_load, 1, 'case30: only branch 33 (bus 26, 3.5 MW) cuts off load');
      assert.ok(st.timings.started_at && st.timings.completed_at && st.timings.wall_ms >= 0);

      const rows = await api.allCases(n1.study_id);
      assertSameRows(rows, await engineRows(app, net30, N1, st.chunks.size));
      assert.deepEqual(rows.map((x) => x.case_id), rows.map((x) => `branch:${x.contingency!.branches[0]}`));
      const islanded = rows.filter((x) => x.islanded);
      assert.deepEqual(islanded.map((x) => [x.case_id, x.status, x.islanded!.buses, x.islanded!.load_mw]), [['branch:12', 'converged', [11], 0], ['branch:15', 'converged', [13], 0], ['branch:33', 'converged', [26], 3.5]]);

      // The study was a task of kind study on the queue.
      const t = json(await api.call('GET', `/api/v1/tasks/${n1.task_id}`)).data;
      assert.equal(t.kind, 'study');
      assert.equal(t.status, 'completed');
      await api.waitFor(d.study_id);
    });

    it('monitored values, scenario sweeps and DC studies come back exactly as the engine gives them', { timeout: 240_000 }, async () => {
      const monitored: StudyRequest = { kind: 'contingency', contingencies: [{ branches: [0] }, { branches: [12] }, { generators: [1], id: 'g1' }], monitor: { branches: [0, 5, 9], buses: [1, 8, 30] } };
      const sweep: StudyRequest = { kind: 'scenarios', scenarios: { count: 3, load_scale: [0.9, 1, 1.1], loads: { 2: { p_mw: [5, 6, 7] } } }, contingencies: [{ branches: [9] }], monitor: { buses: 'all' } };
      const dc: StudyRequest = { kind: 'contingency', method: 'dc', contingencies: [{ branches: [0] }, { branches: [5] }], monitor: { branches: [0, 1] } };
      const fdq: StudyRequest = { kind: 'contingency', method: 'fast_decoupled', enforce_q_limits: true, contingencies: [{ branches: [0] }, { branches: [5] }, { generators: [2] }], monitor: { buses: 'all' } };
      // warm_start previous: each scenario from the one before it in its chunk (the engine's rows, same chunks)
      const warm: StudyRequest = { kind: 'scenarios', scenarios: { count: 6, load_scale: [0.8, 0.85, 0.9, 1, 1.1, 1.05] }, warm_start: 'previous', monitor: { buses: 'all' } };
      for (const request of [monitored, sweep, dc, fdq, warm]) {
        const sub = await api.submit(net30, request);
        const st = await api.waitFor(sub.study_id);
        assert.equal(st.status, 'completed', JSON.stringify(st.error));
        const rows = await api.allCases(sub.study_id);
        assertSameRows(rows, await engineRows(app, net30, request, st.chunks.size));
        assert.ok(rows.some((r) => r.monitored && r.monitored.buses.length + r.monitored.branches.length > 0), 'monitored values are stored');
      }
    });

    it('paging, filters and sort of GET /studies/{id}/cases', { timeout: 240_000 }, async () => {
      await api.waitFor(n1.study_id);
      const page2 = json(await api.call('GET', `/api/v1/studies/${n1.study_id}/cases?page=2&page_size=5`));
      assert.deepEqual({ page: page2.meta.page, page_size: page2.meta.page_size, total: page2.meta.total, total_pages: page2.meta.total_pages }, { page: 2, page_size: 5, total: 41, total_pages: 9 });
      assert.equal(page2.data.length, 5);
      const all = await api.allCases(n1.study_id);
      assert.deepEqual(page2.data, all.slice(5, 10));
      assert.equal(json(await api.call('GET', `/api/v1/studies/${n1.study_id}/cases`)).data.length, 20, 'page_size defaults to 20');

      const byLoading = await api.allCases(n1.study_id, '&sort=-max_loading_percent');
      const loads = byLoading.map((x) => x.max_loading_percent);
      const solved = loads.filter((x): x is number => x !== null);
      assert.deepEqual(solved, [...solved].sort((a, b) => b - a), 'descending');
      assert.deepEqual(loads.slice(solved.length), loads.slice(solved.length).map(() => null), 'cases without a value come last');
      const minV = (await api.allCases(n1.study_id, '&sort=min_v')).map((x) => x.min_v).filter((x): x is number => x !== null);
      assert.deepEqual(minV, [...minV].sort((a, b) => a - b));

      const islanded = await api.allCases(n1.study_id, '&status=islanded');
      assert.equal(islanded.length, all.filter((x) => x.status === 'islanded').length);
      assert.ok(islanded.every((x) => x.status === 'islanded'));
      const two = await api.allCases(n1.study_id, '&status=islanded,converged');
      assert.equal(two.length, all.filter((x) => x.status !== 'diverged').length);

      for (const v of ['branch_overload', 'low_voltage', 'high_voltage']) {
        const got = await api.allCases(n1.study_id, `&violation=${v}`);
        assert.deepEqual(got.map((x) => x.case_id), all.filter((x) => x.violations.some((y) => y.type === v)).map((x) => x.case_id), v);
      }
      assert.deepEqual((await api.allCases(n1.study_id, '&violation=none')).map((x) => x.case_id), all.filter((x) => x.violations.length === 0).map((x) => x.case_id));
      // case30's ratings are low: some outages overload other branches.
      assert.ok(all.some((x) => x.violations.some((y) => y.type === 'branch_overload')));

      for (const [q, field] of [['sort=name', 'sort'], ['status=solved', 'status'], ['violation=thermal', 'violation']] as const) {
        const r = await api.call('GET', `/api/v1/studies/${n1.study_id}/cases?${q}`);
        assert.equal(r.statusCode, 400, `${q}: ${r.body}`);
        assert.equal(json(r).error.code, 'INVALID_FIELD');
        assert.equal(json(r).error.details.field, field);
      }
      assert.equal((await api.call('GET', `/api/v1/studies/${n1.study_id}/cases?page_size=101`)).statusCode, 422, 'PARAM_OUT_OF_RANGE as every list');
      const missing = await api.call('GET', '/api/v1/studies/study_00000000000000000000/cases');
      assert.equal(missing.statusCode, 404);
      assert.equal(json(missing).error.code, 'NOT_FOUND');
    });

    it('CSV: every case, one line each, streamed with the same filters', { timeout: 240_000 }, async () => {
      await api.waitFor(n1.study_id);
      const r = await api.call('GET', `/api/v1/studies/${n1.study_id}/cases.csv`);
      assert.equal(r.statusCode, 200, r.body);
      assert.match(String(r.headers['content-type']), /^text\/csv/);
      const lines = r.body.trimEnd().split('\n');
      const header = lines[0]!.split(',');
      assert.deepEqual(header, [...STUDY_CSV_COLUMNS], 'the columns of gridops study --csv');
      assert.equal(lines.length, 42);
      const all = await api.allCases(n1.study_id);
      lines.slice(1).forEach((line, i) => {
        const cells = line.split(',');
        const row = all[i]!;
        assert.equal(cells[0], row.case_id);
        assert.equal(cells[5], row.status);
        assert.equal(cells[header.indexOf('max_loading_percent')], row.max_loading_percent === null ? '' : String(row.max_loading_percent));
        assert.equal(Number(cells[header.indexOf('violation_count')]), row.violations.length);
      });
      const sorted = (await api.call('GET', `/api/v1/studies/${n1.study_id}/cases.csv?sort=-max_loading_percent&status=converged`)).body.trimEnd().split('\n').slice(1);
      const expect = (await api.allCases(n1.study_id, '&sort=-max_loading_percent&status=converged')).map((x) => x.case_id);
      assert.deepEqual(sorted.map((l) => l.split(',')[0]), expect);
      assert.equal((await api.call('GET', '/api/v1/studies/study_00000000000000000000/cases.csv')).statusCode, 404);
    });

    it('bad input: clear 400s naming the field (unknown indexes, empty lists, wrong scenario length, too many cases)', { timeout: 120_000 }, async () => {
      const bad = async (body: unknown, field: string, text: RegExp) => {
        const r = await api.call('POST', `/api/v1/networks/${net30}/studies`, body);
        assert.equal(r.statusCode, 400, `${JSON.stringify(body)}: ${r.body}`);
        const e = json(r).error;
        assert.ok(['INVALID_FIELD', 'INVALID_REQUEST'].includes(e.code), e.code);
        assert.match(e.message, text);
        if (field) assert.equal(e.details?.field, field, e.message);
      };
      await bad({ kind: 'contingency', contingencies: [{ branches: [41] }] }, 'contingencies[0].branches[0]', /branch index 41 does not exist/);
      await bad({ kind: 'contingency', contingencies: [{ generators: [99] }] }, 'contingencies[0].generators[0]', /generator index 99/);
      await bad({ kind: 'contingency', contingencies: [] }, 'contingencies', /empty/);
      await bad({ kind: 'contingency', contingencies: [{ branches: [] }] }, 'contingencies[0]', /at least one/);
      await bad({ kind: 'scenarios', scenarios: { count: 3, load_scale: [1, 1.1] } }, 'scenarios.load_scale', /has 2 values, but scenarios.count is 3/);
      await bad({ kind: 'scenarios', scenarios: { count: 2, loads: { 0: { p_mw: [1, 2, 3] } } } }, 'scenarios.loads.0.p_mw', /has 3 values/);
      await bad({ kind: 'scenarios' }, 'scenarios', /needs scenarios/);
      await bad({ kind: 'contingency', warm_start: 'previous' }, 'warm_start', /applies to kind 'scenarios'/);
      await bad({ kind: 'contingency', monitor: { buses: [999] } }, 'monitor.buses[0]', /bus 999 does not exist/);
      await bad({ kind: 'n-2' }, '', /kind/);
      await bad({ kind: 'contingency', extra: 1 }, '', /extra|additional/i);

      // The tenant's study_cases quota: 41 cases > 10.
      const tenant = 'studies-quota';
      await tenantWithQuota(app, tenant, { study_cases: 10 });
      const op = studyClient(app, () => tokenFor(app, 'operator', tenant));
      const net = await op.importCase('case30');
      const r = await op.call('POST', `/api/v1/networks/${net}/studies`, N1);
      assert.equal(r.statusCode, 400, r.body);
      const e = json(r).error;
      assert.equal(e.code, 'INVALID_FIELD');
      assert.match(e.message, /41 cases, more than tenant studies-quota may run in one study \(quota study_cases = 10\)/);
      assert.deepEqual({ cases: e.details.cases, limit: e.details.limit, quota: e.details.quota }, { cases: 41, limit: 10, quota: 'study_cases' });
      const ok = await op.call('POST', `/api/v1/networks/${net}/studies`, { kind: 'contingency', contingencies: [{ branches: [0] }, { branches: [1], id: 'line 1-3' }] });
      assert.equal(ok.statusCode, 202, ok.body);
      const quota = json(await op.call('GET', '/api/v1/tenant/quota')).data;
      assert.equal(quota.quotas.study_cases, 10);
      const st = await op.waitFor(json(ok).data.study_id);
      assert.equal(st.status, 'completed');
      assert.deepEqual((await op.allCases(st.study_id)).map((x) => x.case_id), ['contingency:0', 'line 1-3']);
      // Another tenant's study does not exist for tenant default.
      assert.equal((await api.call('GET', `/api/v1/studies/${st.study_id}`)).statusCode, 404);
    });

    it('roles: a viewer reads studies and their rows but cannot run or cancel one', { timeout: 120_000 }, async () => {
      const viewer = studyClient(app, () => tokenFor(app, 'viewer'));
      const run = await viewer.call('POST', `/api/v1/networks/${net30}/studies`, N1);
      assert.equal(run.statusCode, 403, run.body);
      assert.equal(json(run).error.code, 'FORBIDDEN');
      assert.equal((await viewer.call('GET', `/api/v1/studies/${n1.study_id}`)).statusCode, 200);
      assert.equal((await viewer.call('GET', `/api/v1/studies/${n1.study_id}/cases`)).statusCode, 200);
      assert.equal((await viewer.call('GET', `/api/v1/studies/${n1.study_id}/cases.csv`)).statusCode, 200);
      assert.equal((await viewer.call('DELETE', `/api/v1/studies/${n1.study_id}`)).statusCode, 403);
      const operator = studyClient(app, () => tokenFor(app, 'operator'));
      assert.equal((await operator.call('POST', `/api/v1/networks/${net30}/studies`, { kind: 'contingency', contingencies: 'n-1-generators' })).statusCode, 202);
    });

    it('quota: a study is one task against concurrent_powerflow, however many chunks run at once', { timeout: 240_000 }, async () => {
      const tenant = `studies-cp-${mode}`;
      await tenantWithQuota(app, tenant, { concurrent_powerflow: 1 });
      const op = studyClient(app, () => tokenFor(app, 'operator', tenant));
      const net = await op.importCase('case118');
      app.services.config.studyChunkCases = 2; // 120 chunks in flight on every solver thread
      let sub: { study_id: string; task_id: string };
      try {
        sub = await op.submit(net, { kind: 'contingency', contingencies: 'n-1' });
      } finally {
        app.services.config.studyChunkCases = 0;
      }
      const pf = json(await op.call('POST', `/api/v1/networks/${net}/powerflow`, { async: true }));
      const running = await op.waitFor(sub.study_id, ['running', 'completed', 'failed', 'cancelled']);
      const usage = json(await op.call('GET', '/api/v1/tenant/quota')).data.usage.concurrent_powerflow;
      const done = await op.waitFor(sub.study_id);
      assert.equal(done.status, 'completed');
      if (running.status === 'running') assert.equal(usage, 1, 'the running study holds one slot');
      const end = Date.now() + 120_000;
      let pfAfter: { status: string; started_at: string };
      do {
        pfAfter = json(await op.call('GET', `/api/v1/tasks/${pf.data.task_id}`)).data;
        if (pfAfter.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 50));
      } while (Date.now() < end);
      assert.equal(pfAfter.status, 'completed');
      assert.ok(new Date(pfAfter.started_at) >= new Date(done.timings.completed_at), 'the power flow started when the study had finished');
    });

    it('cancel: DELETE stops every chunk; finished cases stay readable; a finished study answers 409', { timeout: 240_000 }, async () => {
      const big = await api.importCase('case2383wp');
      // Small chunks, so the study is caught midway on any machine.
      app.services.config.studyChunkCases = 8;
      let sub: { study_id: string; task_id: string };
      try {
        sub = await api.submit(big, N1);
      } finally {
        app.services.config.studyChunkCases = 0;
      }
      const running = await api.waitFor(sub.study_id, ['running', 'completed', 'failed', 'cancelled']);
      assert.equal(running.status, 'running');
      const end = Date.now() + 120_000;
      while ((await api.study(sub.study_id)).progress.done === 0 && Date.now() < end) await sleep(20);
      const del = await api.call('DELETE', `/api/v1/studies/${sub.study_id}`);
      assert.equal(del.statusCode, 200, del.body);
      assert.equal(json(del).data.status, 'cancelled');
      // Chunks in flight stop at their next case and store what they finished; nothing more is solved.
      let last = -1;
      for (let i = 0; i < 100; i++) {
        const d = (await api.study(sub.study_id)).progress.done;
        if (d === last) break;
        last = d;
        await sleep(100);
      }
      const st = await api.study(sub.study_id);
      assert.equal(st.status, 'cancelled');
      assert.ok(st.progress.done > 0 && st.progress.done < st.progress.total, `done ${st.progress.done} of ${st.progress.total}`);
      const cases = await api.allCases(sub.study_id);
      assert.equal(cases.length, st.progress.done);
      assert.equal(st.counts.by_status.converged + st.counts.by_status.diverged + st.counts.by_status.islanded, cases.length);
      const again = await api.call('DELETE', `/api/v1/studies/${sub.study_id}`);
      assert.equal(again.statusCode, 409);
      assert.equal(json(again).error.code, 'CONFLICT');
      await sleep(300);
      assert.equal((await api.study(sub.study_id)).progress.done, st.progress.done, 'no chunk ran after the cancel');
    });
  });
}

describe('studies: the rate limit of POST /networks/{id}/studies', () => {
  it('is a compute endpoint with its own endpoint layer: 10 per minute, burst 2', async () => {
    assert.deepEqual(classifyRoute('POST', '/api/v1/networks/:id/studies', false), { ipClass: 'compute', endpoint: 'POST /networks/:id/studies' });
    const app = await startTestApp('embedded', { config: { security: { ...loadSecurityConfig({}, 'test'), rateLimitScale: 1, rateLimits: {} } } });
    try {
      const api = studyClient(app, () => adminHeaders(app));
      const net = await api.importCase('case9');
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) codes.push((await api.call('POST', `/api/v1/networks/${net}/studies`, { kind: 'contingency', contingencies: [{ branches: [i] }] })).statusCode);
      assert.deepEqual(codes.slice(0, 2), [202, 202]);
      assert.equal(codes[2], 429);
      const r = await api.call('POST', `/api/v1/networks/${net}/studies`, N1);
      const e = json(r).error;
      assert.equal(e.code, 'RATE_LIMITED');
      assert.equal(e.details.scope, 'endpoint');
      assert.equal(e.details.endpoint, 'POST /networks/:id/studies');
      assert.equal(e.details.limit, 10);
      assert.equal(r.headers['x-ratelimit-policy'], '10;w=60');
    } finally {
      await app.close();
    }
  });
});
