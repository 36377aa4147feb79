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
  });
}
