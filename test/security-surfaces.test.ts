// The new surfaces probed as an attacker would (issue #21 item 6), in both modes.
// CSV injection: a contingency id chosen by the caller lands in the studies CSV
// (GET /studies/{id}/cases.csv); a text cell beginning with = + - @ (or tab / CR) must be
// neutralised with a leading single quote (OWASP), while numeric cells such as -1.5 stay numbers.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, json, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { studyClient } from './helpers/studies.js';
import { STUDY_CSV_COLUMNS } from '../src/studies/index.js';

const HOSTILE = ["=cmd|' /C calc'!A0", '+1+1', '-2+3', '@SUM(1)'];

for (const mode of MODES) {
  describe(`security: new surfaces (${mode})`, () => {
    let app: TestApp;
    let api: ReturnType<typeof studyClient>;
    let net30: string;

    before(async () => {
      app = await startTestApp(mode);
      api = studyClient(app, () => adminHeaders(app));
      net30 = await api.importCase('case30');
    });
    after(async () => app?.close());

    it('studies CSV: caller-chosen contingency ids cannot become formulas', { timeout: 120_000 }, async () => {
      const st = await api.submit(net30, {
        kind: 'contingency',
        contingencies: HOSTILE.map((id, k) => ({ id, branches: [k] })),
      });
      await api.waitFor(st.study_id);
      const r = await api.call('GET', `/api/v1/studies/${st.study_id}/cases.csv`);
      assert.equal(r.statusCode, 200, r.body);
      const lines = r.body.trimEnd().split('\n');
      const header = lines[0]!.split(',');
      assert.deepEqual(header, [...STUDY_CSV_COLUMNS]);
      const rows = lines.slice(1);
      assert.equal(rows.length, HOSTILE.length);
      rows.forEach((line, k) => {
        const cells = line.split(',');
        for (const col of ['case_id', 'contingency_id'] as const) {
          const c: string = cells[header.indexOf(col)]!;
          assert.ok(!/^[=+\-@\t\r]/.test(c), `${col} starts with a formula character: ${c}`);
          assert.equal(c, `'${HOSTILE[k]}`, `${col} keeps the text behind a single quote`);
        }
        // Numbers stay numbers.
        const v: string = cells[header.indexOf('min_v')]!;
        if (v !== '') assert.ok(Number.isFinite(Number(v)), `min_v is a number: ${v}`);
      });
      // The JSON rows are untouched: the quote belongs to the CSV door only.
      const all = await api.allCases(st.study_id);
      assert.deepEqual(all.map((x) => x.case_id), HOSTILE);
      assert.equal(json(await api.call('GET', `/api/v1/studies/${st.study_id}`)).data.status, 'completed');
    });

    it('studies: a billion scenarios and 100,000 scenarios × N-1 are a 4xx naming the limit, not a stall', { timeout: 120_000 }, async () => {
      for (const body of [
        { kind: 'scenarios', scenarios: { count: 1_000_000_000 } },
        // 100,000 scenarios alone are within the default quota (250,000 cases); crossed with N-1 they are not.
        { kind: 'scenarios', contingencies: 'n-1-branches', scenarios: { count: 100_000, load_scale: new Array(100_000).fill(1) } },
      ]) {
        const r = await api.call('POST', `/api/v1/networks/${net30}/studies`, body);
        assert.ok(r.statusCode >= 400 && r.statusCode < 500, `${r.statusCode} ${r.body.slice(0, 300)}`);
        const e = json(r).error;
        assert.equal(e.code, 'INVALID_FIELD', r.body.slice(0, 300));
        assert.match(e.message, /quota study_cases = \d+\); split it into several studies/);
      }
      // 1e308 as a load scale is finite: the study runs and ends; the service still answers.
      const st = await api.submit(net30, { kind: 'scenarios', scenarios: { count: 2, load_scale: [1e308, 1] } });
      const done = await api.waitFor(st.study_id);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal((await api.call('GET', `/api/v1/networks/${net30}`)).statusCode, 200);
    });

    it('/metrics: 2,000 random URLs and ids do not grow the label sets', { timeout: 120_000 }, async () => {
      const series = async () => {
        const r = await api.call('GET', '/metrics');
        assert.equal(r.statusCode, 200, r.body.slice(0, 200));
        return r.body.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count{')).length;
      };
      await api.call('GET', '/nope/warmup');
      await api.call('GET', '/api/v1/networks/net_00000000000000000000');
      const before = await series();
      for (let i = 0; i < 1000; i++) {
        const rnd = Math.random().toString(36).slice(2);
        await api.call('GET', `/${rnd}/${i}`);
        await api.call('GET', `/api/v1/networks/net_${rnd}${i}`);
      }
      const after = await series();
      assert.ok(after - before <= 4, `series grew from ${before} to ${after}`);
    });

    it('admin rate-limit overrides: absurd values are a 4xx with advice, and the buckets still work', { timeout: 60_000 }, async () => {
      const url = '/api/v1/admin/tenants/default/rate-limits';
      const future = new Date(Date.now() + 100 * 365 * 86_400_000).toISOString();
      for (const body of [
        { factor: 1e308, reason: 'x' }, { factor: 'NaN', reason: 'x' }, { factor: -1, reason: 'x' }, { factor: 0, reason: 'x' },
        { factor: 2, expires_at: future, reason: 'x' }, { factor: 2, expires_at: '1970-01-01T00:00:00Z', reason: 'x' },
        { factor: 2, expires_in_seconds: 1e308, reason: 'x' }, { factor: 2, expires_in_seconds: -5, reason: 'x' },
        { factor: 2, expires_at: '+275760-09-13T00:00:00.001Z', reason: 'x' },
      ]) {
        const r = await api.call('PUT', url, body);
        assert.ok(r.statusCode >= 400 && r.statusCode < 500, `${JSON.stringify(body)}: ${r.statusCode} ${r.body}`);
        assert.ok(json(r).error.message.length > 10, r.body);
      }
      assert.equal(json(await api.call('GET', url)).data.active, false);
      assert.equal((await api.call('GET', `/api/v1/networks/${net30}`)).statusCode, 200);
    });

    it('OPF: infeasible or absurd generator data is a 4xx or OPF_INFEASIBLE, and the worker answers the next power flow', { timeout: 120_000 }, async () => {
      const net9 = await api.importCase('case9');
      const detail = json(await api.call('GET', `/api/v1/networks/${net9}`)).data;
      type G = { pmin: number | null; pmax: number | null; cost: { model: string; startup: number; shutdown: number; coefficients: number[] } | null };
      const variants: [string, (g: G) => G][] = [
        ['every pmax 0 with load', (g) => ({ ...g, pmin: 0, pmax: 0 })],
        ['pmin above pmax', (g) => ({ ...g, pmin: 200, pmax: 100 })],
        ['degree-1000 polynomial cost', (g) => ({ ...g, cost: { model: 'polynomial', startup: 0, shutdown: 0, coefficients: new Array(1001).fill(1) } })],
        ['1e308 cost coefficients', (g) => ({ ...g, cost: { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [1e308, 1e308, 1e308] } })],
      ];
      for (const [what, change] of variants) {
        const created = await api.call('POST', '/api/v1/networks', {
          name: `case9 ${what}`, buses: detail.buses, branches: detail.branches, generators: detail.generators.map(change), loads: detail.loads, status: 'ready',
        });
        let r = created;
        if (created.statusCode === 201) {
          for (const method of ['dc', 'ac']) {
            r = await api.call('POST', `/api/v1/networks/${json(created).data.id}/opf`, { method });
            assert.ok((r.statusCode >= 400 && r.statusCode < 500) || (r.statusCode === 200 && json(r).data.status !== 'converged'), `${what} (${method}): ${r.statusCode} ${r.body.slice(0, 300)}`);
          }
        } else {
          assert.ok(created.statusCode >= 400 && created.statusCode < 500, `${what}: ${created.statusCode} ${created.body.slice(0, 300)}`);
        }
        assert.ok(json(r).error === undefined || typeof json(r).error.message === 'string');
      }
      const pf = await api.call('POST', `/api/v1/networks/${net9}/opf`, { method: 'dc' });
      assert.equal(pf.statusCode, 200, pf.body.slice(0, 300));
      assert.equal(json(pf).data.status, 'converged');
    });
  });
}
