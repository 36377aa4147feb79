// DC contingency screening (CONTRACT "Contingency screening"): the cases the screen keeps equal the
// unscreened study's rows exactly; screened cases
// carry their DC estimate (the DC post-contingency flow of a DC power flow without the branch);
// threshold 0 solves every case; scenarios refuse screening.
import { describe, it, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyPlan } from '../src/studies/index.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { assertSameRows, engineRows, studyClient } from './helpers/studies.js';

const load = (c: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

async function rows(net: NetworkModel, plan: StudyPlan, size = 10): Promise<StudyCaseRow[]> {
  const out: StudyCaseRow[] = [];
  for (let s = 0; s < plan.caseCount; s += size) out.push(...studyChunkRows(plan, await solveStudyChunk(pool, net, plan, s, Math.min(s + size, plan.caseCount))));
  return out;
}

for (const c of ['case30', 'case118']) {
  test(`${c} N-1 screened at 90 %: kept rows equal the AC study's, screened rows carry the DC estimate`, async (t) => {
    const net = c === 'case118' ? { ...load(c), branches: load(c).branches.map((b) => ({ ...b, rate_a: 600 })) } : load(c);
    const full = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1' }));
    const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1', screening: { method: 'dc', threshold_percent: 90 } });
    const got = await rows(net, plan, 7);
    assert.equal(got.length, full.length);
    const screened = got.filter((r) => r.status === 'screened');
    assert.ok(screened.length > 0, `${c}: the screen takes some cases out`);
    assert.ok(screened.length < got.length, `${c}: and keeps some`);
    got.forEach((r, k) => {
      if (r.status !== 'screened') assert.deepEqual(r, full[k], `${c} ${r.case_id}: a kept case is the AC case`);
      else {
        assert.ok(r.max_loading_percent! < 90 && r.contingency!.branches.length === 1 && r.contingency!.generators.length === 0);
        assert.equal(r.violations.length, 0);
      }
    });
    // How many AC-overloaded cases the screen kept is a figure (bench/README.md), not a law: DC flows carry
    // no reactive power, and case30's base overload of 6-8 is reactive.
    const overloaded = full.filter((r) => r.violations.some((v) => v.type === 'branch_overload'));
    t.diagnostic(`${c}: ${screened.length} of ${got.length} screened; ${overloaded.filter((r) => got.find((g) => g.case_id === r.case_id)!.status !== 'screened').length} of ${overloaded.length} AC-overloaded cases kept`);
    // the DC estimate is the DC power flow of the network without the branch
    for (const r of screened.slice(0, 5)) {
      const k = r.contingency!.branches[0]!;
      const dc = await pool.solve({ ...net, branches: net.branches.map((b, l) => (l === k ? { ...b, status: 'open' as const } : b)) }, { method: 'dc' });
      const worst = Math.max(...dc.branches.map((f, l) => (l !== k && net.branches[l]!.rate_a > 0 ? Math.abs(f.p_from) / net.branches[l]!.rate_a * 100 : 0)));
      assert.ok(Math.abs(r.max_loading_percent! - worst) < 1e-6, `${c} ${r.case_id}: DC estimate ${r.max_loading_percent} vs the DC power flow's ${worst}`);
    }
  });
}

test('threshold 0 solves every case; scenarios refuse screening; generator outages are never screened', async () => {
  const net = load('case30');
  const all = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', screening: { method: 'dc', threshold_percent: 0 } }));
  assert.equal(all.filter((r) => r.status === 'screened').length, 0);
  assert.throws(() => planStudy(net, { kind: 'scenarios', scenarios: { count: 1, load_scale: [1] }, screening: { method: 'dc', threshold_percent: 90 } }), /screening applies to kind 'contingency'/);
  const high = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', screening: { method: 'dc', threshold_percent: 1000 } }));
  assert.ok(high.filter((r) => r.contingency!.generators.length > 0).every((r) => r.status !== 'screened'));
  assert.ok(high.filter((r) => r.islanded).every((r) => r.status !== 'screened'), 'splitting outages are solved');
});

for (const mode of MODES) {
  describe(`screening through the doors (${mode})`, () => {
    let app: TestApp;
    let api: ReturnType<typeof studyClient>;
    before(async () => {
      app = await startTestApp(mode);
      api = studyClient(app, () => adminHeaders(app));
    });
    after(async () => { await app?.close(); });

    it('REST: screened cases counted in the summary and filtered by status, rows as the engine\'s; GraphQL takes the threshold', async () => {
      const net = await api.importCase('case30');
      const req = { kind: 'contingency', contingencies: 'n-1-branches', screening: { method: 'dc', threshold_percent: 90 } } as const;
      const { study_id } = await api.submit(net, req);
      const st = await api.waitFor(study_id);
      assert.equal(st.status, 'completed');
      assert.ok(st.counts.by_status.screened > 0);
      assert.equal(st.counts.by_status.converged + st.counts.by_status.diverged + st.counts.by_status.islanded + st.counts.by_status.screened, 41);
      const all = await api.allCases(study_id);
      assertSameRows(all, await engineRows(app, net, req, st.chunks.size));
      const only = await api.allCases(study_id, '&status=screened');
      assert.equal(only.length, st.counts.by_status.screened);
      const g = await app.app!.inject({ method: 'POST', url: '/graphql', headers: await adminHeaders(app), payload: { query: 'mutation($id: ID!) { runStudy(id: $id, kind: CONTINGENCY, options: { screeningThresholdPercent: 90 }) { id } }', variables: { id: net } } });
      assert.equal(json(g).errors, undefined, g.body);
      const gs = await api.waitFor(json(g).data.runStudy.id);
      assert.equal(gs.counts.by_status.screened, st.counts.by_status.screened);
    });
  });
}
