// Violations relative to the base case and contingency screening (CONTRACT "Violations relative to the base
// case", "Contingency screening"): each violation's base value and kind equal what power flows of the changed
// model and of the base case give; the ac_linear screen at its defaults marks no case with a new or worsened AC
// overload as screened on the shared cases (the large ones in bench/screening.ts; QUICK=1 skips the middle ones);
// kept rows equal the unscreened study's; dc stays the wave-3 rule; REST, CSV and GraphQL carry the new fields.
import { describe, it, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyPlan, type StudyRequest } from '../src/studies/index.js';
import { acLinearEstimate, estimatePlanOf } from '../src/studies/screening.js';
import { baseSolution } from '../src/studies/baseCase.js';
import { CASE_CODE, VIOLATION_CODE } from '../src/studies/types.js';
import { MON_BR } from '../src/studies/abi.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { json, MODES, QUICK, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { assertSameRows, engineRows, studyClient } from './helpers/studies.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const PGLIB = join(import.meta.dirname, '..', '..', 'test', 'reference', 'pglib');
const load = (c: string): NetworkModel => {
  const file = c.startsWith('pglib_') ? join(PGLIB, `${c}.m`) : join(CASES_DIR, `${c}.m`);
  return parseMatpower(readFileSync(file, 'utf8'), `${c}.m`);
};
let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

async function rows(net: NetworkModel, plan: StudyPlan, size = 64): Promise<StudyCaseRow[]> {
  const jobs: Promise<StudyCaseRow[]>[] = [];
  for (let s = 0; s < plan.caseCount; s += size) {
    jobs.push(solveStudyChunk(pool, net, plan, s, Math.min(s + size, plan.caseCount)).then((c) => studyChunkRows(plan, c)));
  }
  return (await Promise.all(jobs)).flat();
}

const worseOverload = (r: StudyCaseRow) => r.violations.some((v) => v.type === 'branch_overload' && v.kind !== 'pre_existing');

test('case30 N-1: each violation\'s base value and kind equal power flows of the changed model and of the base case', async () => {
  const net = load('case30');
  const filter = { flow_increase_percent: 10, voltage_increase_pu: 0.01 };
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1', violation_filter: filter });
  const got = await rows(net, plan, 7);
  const base = await solvePowerFlow(pool, net, {});
  const kinds = new Set<string>();
  let checked = 0;
  for (const r of got.filter((x) => x.status === 'converged' && x.violations.length > 0)) {
    const c = r.contingency!;
    const model: NetworkModel = {
      ...net,
      buses: net.buses.map((b, i) => ({ ...b, v: base.buses[i]!.v, theta: base.buses[i]!.theta })),
      branches: net.branches.map((b, l) => (c.branches.includes(l) ? { ...b, status: 'open' as const } : b)),
      generators: net.generators.map((g, i) => (c.generators.includes(i) ? { ...g, in_service: false } : g)),
    };
    const o = await solvePowerFlow(pool, model, { islanding: 'isolate' });
    assert.equal(o.status, 'converged');
    let newCount = 0, maxNew: number | null = null;
    for (const v of r.violations) {
      kinds.add(v.kind);
      let value: number, baseValue: number, wasViolated: boolean, worsened: boolean;
      if (v.type === 'branch_overload') {
        value = o.branches[v.element]!.loading;
        baseValue = base.branches[v.element]!.loading;
        wasViolated = baseValue > 100;
        worsened = value >= baseValue * 1.1;
      } else {
        const k = net.buses.findIndex((b) => b.id === v.element);
        value = o.buses[k]!.v;
        baseValue = base.buses[k]!.v;
        wasViolated = v.type === 'low_voltage' ? baseValue < v.limit : baseValue > v.limit;
        worsened = v.type === 'low_voltage' ? baseValue - value >= 0.01 : value - baseValue >= 0.01;
      }
      assert.ok(Math.abs(v.value - value) < 1e-6, `${r.case_id} ${v.type} ${v.element}: ${v.value} vs the power flow's ${value}`);
      assert.ok(Math.abs(v.base_value! - baseValue) < 1e-9, `${r.case_id} ${v.element}: base ${v.base_value} vs ${baseValue}`);
      const kind = !wasViolated ? 'new' : worsened ? 'worsened' : 'pre_existing';
      assert.equal(v.kind, kind, `${r.case_id} ${v.type} ${v.element}`);
      if (kind !== 'pre_existing') {
        newCount++;
        if (v.type === 'branch_overload' && (maxNew === null || v.value > maxNew)) maxNew = v.value;
      }
      checked++;
    }
    assert.equal(r.new_violations, newCount, r.case_id);
    assert.equal(r.max_new_loading_percent, maxNew, r.case_id);
  }
  // case30's base case overloads branch 9 (6-8): every kind occurs
  assert.deepEqual([...kinds].sort(), ['new', 'pre_existing', 'worsened']);
  assert.ok(checked > 50);
  // a stricter filter turns worsened into pre_existing, never into new
  const strict = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', violation_filter: { flow_increase_percent: 1000, voltage_increase_pu: 1 } }), 7);
  got.forEach((r, k) => r.violations.forEach((v, j) => {
    assert.equal(strict[k]!.violations[j]!.kind, v.kind === 'worsened' ? 'pre_existing' : v.kind);
  }));
});

// The ac_linear screen at its defaults loses no case: none with a new or worsened AC overload is screened.
const SCREEN_CASES = QUICK ? ['case9', 'case14', 'case30', 'case57', 'case118', 'case300'] :
  ['case9', 'case14', 'case30', 'case57', 'case118', 'case300', 'pglib_opf_case588_sdet', 'case1354pegase'];
for (const c of SCREEN_CASES) {
  test(`${c} N-1: the default screen loses no case with a new or worsened overload; kept rows equal the AC study's`, async (t) => {
    const net = load(c);
    const req: StudyRequest = { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip' };
    const full = await rows(net, planStudy(net, req));
    const got = await rows(net, planStudy(net, { ...req, screening: {} }), 50);
    assert.equal(got.length, full.length);
    const lost = got.filter((r, k) => r.status === 'screened' && worseOverload(full[k]!));
    assert.deepEqual(lost.map((r) => r.case_id), [], `${c}: screened cases with a new or worsened AC overload`);
    got.forEach((r, k) => {
      if (r.status !== 'screened') assert.deepEqual(r, full[k], `${c} ${r.case_id}: a kept case is the AC case`);
      else {
        assert.equal(r.violations.length, 0);
        assert.equal(r.new_violations, 0);
        assert.equal(full[k]!.status === 'islanded', false, 'a splitting outage is never screened');
      }
    });
    const screened = got.filter((r) => r.status === 'screened').length;
    const voltage = got.filter((r, k) => r.status === 'screened' && full[k]!.violations.some((v) => v.type !== 'branch_overload' && v.kind !== 'pre_existing'));
    t.diagnostic(`${c}: ${screened} of ${got.length} screened, 0 lost; ${voltage.length} screened cases had a new voltage violation`);
  });
}

// The estimate of a branch outage updates the intact B' / B'' factors (assembly/study/compensation.ts) instead of
// refactorising per outage: every monitored flow and voltage of the estimate equals the refactorised one to round-off
// (measured: at most 5e-9 relative, on case588_sdet; a wrong update differs by 1e-3 and more).
const UPDATE_CASES: [string, number][] = QUICK ? [['case300', 1]] :
  [['case300', 1], ['pglib_opf_case588_sdet', 1], ['case1354pegase', 4], ['case_ACTIVSg2000', 16]];
for (const [c, every] of UPDATE_CASES) {
  const which = every === 1 ? 'every outage' : `every ${every}th outage`;
  test(`${c}: the estimate on the intact factors equals the refactorised estimate (${which})`, async (t) => {
    const net = load(c);
    const outages = net.branches.map((_, l) => l).filter((l) => l % every === 0).map((l) => ({ branches: [l] }));
    const monitor = { branches: 'all', buses: 'all' } as const;
    const plan = planStudy(net, { kind: 'contingency', contingencies: outages, islanding: 'skip', monitor });
    const estimate: StudyPlan = { ...estimatePlanOf(plan, 0), monitor: plan.monitor };
    const updated = await solveStudyChunk(pool, net, estimate, 0, plan.caseCount);
    const refactorised = await solveStudyChunk(pool, net, { ...estimate, estimateRefactor: true }, 0, plan.caseCount);
    assert.deepEqual(updated.code, refactorised.code);
    const nBr = 5 * plan.monitor.branches.length, nBus = 2 * plan.monitor.buses.length;
    let compared = 0, worst = 0;
    for (let k = 0; k < plan.caseCount; k++) {
      if (updated.code[k] !== CASE_CODE.MAX_ITERATIONS && updated.code[k] !== CASE_CODE.CONVERGED) continue;
      compared++;
      const close = (a: number, b: number, scale: number, what: string) => {
        worst = Math.max(worst, Math.abs(a - b) / scale);
        assert.ok(Math.abs(a - b) <= 1e-7 * scale, `${c} outage of branch ${outages[k]!.branches[0]}: ${what} ${a} vs ${b}`);
      };
      for (let j = k * nBr; j < (k + 1) * nBr; j++) {
        const a = updated.monitoredBranches[j]!, b = refactorised.monitoredBranches[j]!;
        if (Number.isNaN(b)) assert.ok(Number.isNaN(a));
        else close(a, b, Math.max(1, Math.abs(b)), `branch value ${j - k * nBr}`);
      }
      for (let j = k * nBus; j < (k + 1) * nBus; j++) {
        close(updated.monitoredBuses[j]!, refactorised.monitoredBuses[j]!, 1, `bus value ${j - k * nBus}`);
      }
    }
    assert.ok(compared > 0.5 * plan.caseCount, `${c}: ${compared} of ${plan.caseCount} outages estimated`);
    t.diagnostic(`${c}: ${compared} outages compared, largest difference ${worst.toExponential(1)} (relative, or p.u.)`);
    assert.ok(worst > 0, 'two different computations (an update that fell back to refactorising everywhere would be equal bit for bit)');
  });
}

// An estimate whose first iteration comes within the margin of a trigger iterates on (assembly/study/loop.ts sharpen()):
// its state is that many fast-decoupled iterations of the outage from the base state, on the same factors and update.
const SHARPEN_CASES = QUICK ? ['case30'] : ['case30', 'pglib_opf_case588_sdet', 'case1354pegase'];
for (const c of SHARPEN_CASES) {
  test(`${c}: an estimate near its trigger iterates on; its state is that many decoupled iterations, its last step contracted`, async (t) => {
    const net = load(c);
    const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip', screening: {} });
    const { estimatePlan } = acLinearEstimate(net, plan, await baseSolution(pool, net, plan));
    const est = await solveStudyChunk(pool, net, estimatePlan, 0, plan.caseCount);
    assert.ok(est.estimateStep, 'the estimate reports its last step');
    const sharpened = new Map<number, number[]>(); // iterations -> cases
    let noContraction = 0;
    for (let k = 0; k < plan.caseCount; k++) {
      const step = est.estimateStep[k]!;
      if (step === Infinity) noContraction++;
      if (!(step >= 0 && step < Infinity)) continue;
      if (!sharpened.has(est.iterations[k]!)) sharpened.set(est.iterations[k]!, []);
      sharpened.get(est.iterations[k]!)!.push(k);
    }
    const count = [...sharpened.values()].reduce((a, l) => a + l.length, 0);
    assert.ok(count > 0 && [...sharpened.keys()].some((its) => its >= 2), `${c}: some estimates iterate on`);
    let worst = 0;
    for (const [its, cases] of sharpened) {
      // the same outages estimated with that many iterations from the start, B' / B'' refactorised
      const sub = planStudy(net, { kind: 'contingency', contingencies: cases.map((k) => ({ branches: plan.contingencies[k]!.branches })), islanding: 'skip' });
      const plain = await solveStudyChunk(pool, net, { ...estimatePlanOf(sub, 0), estimateIterations: its, estimateRefactor: true }, 0, sub.caseCount);
      cases.forEach((k, j) => {
        assert.equal(plain.iterations[j], its, `${c} branch ${plan.contingencies[k]!.branches[0]}`);
        const a = est.maxLoading[k]!, b = plain.maxLoading[j]!;
        worst = Math.max(worst, Math.abs(a - b) / Math.max(1, b));
        assert.ok(Math.abs(a - b) <= 1e-7 * Math.max(1, b), `${c} branch ${plan.contingencies[k]!.branches[0]} after ${its} iterations: ${a} vs ${b}`);
      });
    }
    t.diagnostic(`${c}: ${count} estimates iterated on (${[...sharpened].map(([i, l]) => `${l.length} × ${i}`).join(', ')}), `
      + `${noContraction} did not contract; largest difference ${worst.toExponential(1)}`);
  });
}

// An estimate whose first iterate is at or over some branch's trigger already is kept at once (assembly/study/loop.ts
// nearTrigger AT_TRIGGER): one iteration, its step Infinity (the rule's "keep"), no further iteration; the others that
// come within their margin still iterate on. Checked against the one-iteration estimate's own listing.
for (const c of QUICK ? ['case30'] : ['case30', 'pglib_opf_case588_sdet']) {
  test(`${c}: an estimate already at its trigger after one iteration is kept without iterating on`, async (t) => {
    const net = load(c);
    const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip', screening: {} });
    const { estimatePlan, trigger } = acLinearEstimate(net, plan, await baseSolution(pool, net, plan));
    const est = await solveStudyChunk(pool, net, estimatePlan, 0, plan.caseCount);
    const once = await solveStudyChunk(pool, net, { ...estimatePlan, estimateSharpen: { ...estimatePlan.estimateSharpen!, iterations: 1 } },
      0, plan.caseCount);
    let atTrigger = 0, iteratedOn = 0;
    for (let k = 0; k < plan.caseCount; k++) {
      if (est.code[k] !== CASE_CODE.CONVERGED && est.code[k] !== CASE_CODE.MAX_ITERATIONS) continue;
      let at = false;
      for (let v = once.violationStart[k]!; v < once.violationStart[k + 1]!; v++) {
        if (once.violationType[v] === VIOLATION_CODE.branch_overload && !(once.violationValue[v]! < trigger[once.violationElement[v]!]!)) at = true;
      }
      const label = `${c} branch ${plan.contingencies[k]!.branches[0]}`;
      if (at) {
        atTrigger++;
        assert.equal(est.iterations[k], 1, `${label}: no further iteration`);
        assert.equal(est.estimateStep![k], Infinity, `${label}: kept`);
      } else if (est.iterations[k]! > 1) iteratedOn++;
    }
    assert.ok(atTrigger > 0 && iteratedOn > 0, `${c}: outages at their trigger (${atTrigger}) and outages iterating on (${iteratedOn})`);
    t.diagnostic(`${c}: ${atTrigger} outages kept at once, ${iteratedOn} iterated on`);
  });
}

test('a network without rated branches screens nothing (case13659pegase has none): every row is the AC study\'s', async () => {
  const rated = load('case30');
  const net: NetworkModel = { ...rated, branches: rated.branches.map((b) => ({ ...b, rate_a: 0 })) };
  const req: StudyRequest = { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip' };
  const full = await rows(net, planStudy(net, req));
  assert.deepEqual(await rows(net, planStudy(net, { ...req, screening: {} })), full);
  const ratedRows = await rows(rated, planStudy(rated, { ...req, screening: {} }));
  assert.ok(ratedRows.some((r) => r.status === 'screened'), 'rated case30 screens some');
});

test('dc keeps the wave-3 rule; threshold 0 solves every case; scenarios refuse screening; generator outages are solved', async () => {
  const net = load('case30');
  const dc = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', screening: { method: 'dc', threshold_percent: 90 } }), 7);
  const screened = dc.filter((r) => r.status === 'screened');
  assert.ok(screened.length > 0);
  for (const r of screened.slice(0, 5)) {
    // the estimate is the DC power flow of the network without the branch
    const k = r.contingency!.branches[0]!;
    const o = await solvePowerFlow(pool, { ...net, branches: net.branches.map((b, l) => (l === k ? { ...b, status: 'open' as const } : b)) }, { method: 'dc' });
    const worst = Math.max(...o.branches.map((f, l) => (l !== k && net.branches[l]!.rate_a > 0 ? Math.abs(f.p_from) / net.branches[l]!.rate_a * 100 : 0)));
    assert.ok(Math.abs(r.max_loading_percent! - worst) < 1e-6 && worst < 90, `${r.case_id}: ${r.max_loading_percent} vs ${worst}`);
  }
  for (const method of ['ac_linear', 'dc'] as const) {
    const all = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', screening: { method, threshold_percent: 0 } }));
    assert.equal(all.filter((r) => r.status === 'screened').length, 0, `${method} at 0`);
    const high = await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', screening: { method, threshold_percent: 1000 } }));
    assert.ok(high.filter((r) => r.contingency!.generators.length > 0).every((r) => r.status !== 'screened'));
  }
  assert.throws(() => planStudy(net, { kind: 'scenarios', scenarios: { count: 1, load_scale: [1] }, screening: {} }), /screening applies to kind 'contingency'/);
  // the estimate's base case is solved in full whatever the study's iteration limit (the CLI's default is 10)
  const screenedWith = async (max_iterations: number) =>
    (await rows(net, planStudy(net, { kind: 'contingency', contingencies: 'n-1', max_iterations, screening: {} }))).filter((r) => r.status === 'screened').length;
  const at50 = await screenedWith(50);
  assert.ok(at50 > 0);
  assert.equal(await screenedWith(10), at50);
});

for (const mode of MODES) {
  describe(`new violations and screening through the doors (${mode})`, () => {
    let app: TestApp;
    let api: ReturnType<typeof studyClient>;
    before(async () => {
      app = await startTestApp(mode);
      api = studyClient(app, () => adminHeaders(app));
    });
    after(async () => { await app?.close(); });

    it('REST: rows as the engine\'s, ?violation=new, sort=-max_new_loading_percent, the CSV columns, the summary; GraphQL the same', async () => {
      const net = await api.importCase('case30');
      const req = { kind: 'contingency', contingencies: 'n-1-branches', screening: { threshold_percent: 90 } } as const;
      const { study_id } = await api.submit(net, req);
      const st = await api.waitFor(study_id);
      assert.equal(st.status, 'completed');
      const all = await api.allCases(study_id);
      assertSameRows(all, await engineRows(app, net, req, st.chunks.size));
      assert.ok(st.counts.by_status.screened > 0);
      const withNew = all.filter((r) => r.new_violations > 0);
      assert.ok(withNew.length > 0 && withNew.length < all.length);
      assert.equal(st.counts.cases_with_new_violations, withNew.length);
      assert.deepEqual(st.base.violations.map((v: { kind: string }) => v.kind), ['pre_existing'], 'the base case overloads branch 9');
      assert.deepEqual((await api.allCases(study_id, '&violation=new')).map((r) => r.case_id), withNew.map((r) => r.case_id));
      const sorted = await api.allCases(study_id, '&sort=-max_new_loading_percent');
      const expected = [...all].sort((a, b) => (b.max_new_loading_percent ?? -Infinity) - (a.max_new_loading_percent ?? -Infinity)
        || all.indexOf(a) - all.indexOf(b));
      assert.deepEqual(sorted.map((r) => r.case_id), expected.map((r) => r.case_id));
      const csv = await api.call('GET', `/api/v1/studies/${study_id}/cases.csv?violation=new&sort=-max_new_loading_percent`);
      assert.equal(csv.statusCode, 200);
      const lines = csv.body.trim().split('\n');
      const header = lines[0]!.split(',');
      assert.deepEqual(header.slice(-2), ['new_violations', 'max_new_loading_percent']);
      assert.equal(lines.length - 1, withNew.length);
      const first = lines[1]!.split(',');
      assert.equal(first[0], sorted[0]!.case_id);
      assert.equal(Number(first[header.indexOf('new_violations')]), sorted[0]!.new_violations);
      assert.equal(Number(first[header.indexOf('max_new_loading_percent')]), sorted[0]!.max_new_loading_percent);

      const g = await app.app!.inject({ method: 'POST', url: '/graphql', headers: await adminHeaders(app), payload: {
        query: `query($id: ID!) { study(id: $id) { counts { screened casesWithNewViolations }
          cases(newViolations: true, sort: "-max_new_loading_percent", pageSize: 5) { total items { caseId newViolations maxNewLoadingPercent
            violations { type element value baseValue kind } } } } }`,
        variables: { id: study_id },
      } });
      const gd = json(g);
      assert.equal(gd.errors, undefined, g.body);
      assert.equal(gd.data.study.counts.casesWithNewViolations, withNew.length);
      assert.equal(gd.data.study.cases.total, withNew.length);
      const top = gd.data.study.cases.items[0];
      assert.equal(top.caseId, sorted[0]!.case_id);
      assert.equal(top.maxNewLoadingPercent, sorted[0]!.max_new_loading_percent);
      assert.deepEqual(top.violations.map((v: { kind: string; baseValue: number }) => [v.kind, v.baseValue]),
        sorted[0]!.violations.map((v) => [v.kind.toUpperCase(), v.base_value]));
      // runStudy takes the screening method and the violation filter
      const run = await app.app!.inject({ method: 'POST', url: '/graphql', headers: await adminHeaders(app), payload: {
        query: 'mutation($id: ID!) { runStudy(id: $id, kind: CONTINGENCY, options: { screeningMethod: AC_LINEAR, flowIncreasePercent: 10 }) { id } }',
        variables: { id: net },
      } });
      assert.equal(json(run).errors, undefined, run.body);
      const gs = await api.waitFor(json(run).data.runStudy.id);
      assert.equal(gs.counts.by_status.screened, st.counts.by_status.screened);
      assert.deepEqual(gs.request.screening, { method: 'ac_linear' });
    });
  });
}

// What an estimate does not compute (docs/studies.md "What it costs"): its screen reads the listed branches and
// whether an outage splits the network, nothing else, so the core lists no voltage violation of an estimate and, for
// a single branch that splits the network (a bridge), marks it islanded without searching what it cuts off.
test('pglib_opf_case588_sdet: an estimate lists no voltage violation and no cut-off bus; its islanded cases are the AC study\'s', async () => {
  const net = load('pglib_opf_case588_sdet');
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip', screening: {} });
  const { estimatePlan } = acLinearEstimate(net, plan, await baseSolution(pool, net, plan));
  const est = await solveStudyChunk(pool, net, estimatePlan, 0, plan.caseCount);
  const ac = await solveStudyChunk(pool, net, { ...plan, screening: null }, 0, plan.caseCount);
  const isVoltage = (t: number) => t !== VIOLATION_CODE.branch_overload;
  assert.ok(Array.from(ac.violationType).some(isVoltage), 'the AC study has voltage violations (the check can fail)');
  assert.equal(Array.from(est.violationType).filter(isVoltage).length, 0, 'no voltage violation listed by the estimate');
  const islanded = (c: typeof est) => Array.from(c.code).flatMap((code, k) => (code === CASE_CODE.ISLANDED ? [k] : []));
  assert.ok(islanded(ac).length > 0);
  assert.deepEqual(islanded(est), islanded(ac));
  assert.ok(ac.islandBuses.length > 0);
  assert.equal(est.islandBuses.length, 0, 'no cut-off bus searched for by the estimate');
  // the screen's verdicts stand: every kept row is the AC study's
  const screenedRows = await rows(net, plan, 256);
  const full = await rows(net, { ...plan, screening: null }, 256);
  screenedRows.forEach((r, k) => { if (r.status !== 'screened') assert.deepEqual(r, full[k]); else assert.ok(!worseOverload(full[k]!)); });
});

// The core lists, of an estimate, only the branches that could keep its case (assembly/study/metrics.ts ScreenListing):
// every rated branch whose estimated loading comes within the screen's margin of its trigger must be among them, or
// the screen would drop a case it should solve. The loadings of every branch come from monitoring all of them.
for (const c of QUICK ? ['case30'] : ['case30', 'pglib_opf_case588_sdet', 'case1354pegase']) {
  test(`${c}: an estimate lists every branch that comes within its margin of the trigger`, async (t) => {
    const net = load(c);
    const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip', screening: {} });
    const { estimatePlan, baseLoading, trigger, change, points } = acLinearEstimate(net, plan, await baseSolution(pool, net, plan));
    const all = net.branches.map((_, pos) => pos);
    const monitoredPlan: StudyPlan = { ...estimatePlan, monitor: { branches: all, buses: [] } };
    let checked = 0, listedAtMost = 0;
    for (let s = 0; s < plan.caseCount; s += 128) {
      const est = await solveStudyChunk(pool, net, monitoredPlan, s, Math.min(s + 128, plan.caseCount));
      for (let i = 0; i < est.end - est.start; i++) {
        if (est.code[i] !== CASE_CODE.CONVERGED && est.code[i] !== CASE_CODE.MAX_ITERATIONS) continue;
        const step = est.estimateStep![i]!;
        if (!(step < Infinity)) continue; // solved whatever is listed
        const listed = new Set<number>();
        for (let v = est.violationStart[i]!; v < est.violationStart[i + 1]!; v++) {
          if (est.violationType[v] === VIOLATION_CODE.branch_overload) listed.add(est.violationElement[v]!);
        }
        listedAtMost = Math.max(listedAtMost, listed.size);
        for (const pos of all) {
          if (!(net.branches[pos]!.rate_a > 0) || net.branches[pos]!.status !== 'closed') continue;
          const loading = est.monitoredBranches[(i * all.length + pos) * MON_BR.FIELDS + MON_BR.LOADING]!;
          if (loading === 0 && plan.contingencies[s + i]!.branches.includes(pos)) continue; // the outaged branch
          // the margin without the change term for an estimate that iterated on (its "from" is the iterate before)
          const margin = step >= 0 ? step + points : change * Math.abs(loading - baseLoading[pos]!) + points;
          if (loading < trigger[pos]! - margin) continue;
          checked++;
          assert.ok(listed.has(pos), `${c} case ${s + i}: branch ${pos} at ${loading} % (trigger ${trigger[pos]}, margin ${margin}) is listed`);
        }
      }
    }
    assert.ok(checked > 0, `${c}: some branches come within their margin (${checked})`);
    t.diagnostic(`${c}: ${checked} branch estimates within their margin, all listed; at most ${listedAtMost} listed for a case`);
  });
}
