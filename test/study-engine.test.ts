// The study engine beyond the MATPOWER N-1 reference (study-reference.test.ts):
// scenario sweeps equal separate power flows of the changed models (to 1e-9), scenarios
// × contingencies (order, ids, warm start from the scenario), islanding reports of N-k
// outages, monitored values, cancellation, and bad requests as 400 INVALID_FIELD.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { AppError } from '../src/lib/errors.js';
import {
  planStudy, solveStudyBase, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyPlan, type StudyRequest,
} from '../src/studies/index.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import type { SolveOutcome } from '../src/powerflow/types.js';
import { solveDiagnostics, solvePowerFlow } from '../src/powerflow/solve.js';
import { PowerFlowEngine } from '../src/engine/solverInstance.js';
import { studyChunkTask } from '../src/studies/solve.js';
import { REC, VIOL_FIELDS } from '../src/studies/abi.js';
import { CASE_CODE } from '../src/studies/types.js';
import { acLinearEstimate } from '../src/studies/screening.js';
import { baseSolution } from '../src/studies/baseCase.js';
import { packNetwork } from '../src/powerflow/pack.js';
import { DEFAULT_SOLVE_OPTIONS } from '../src/powerflow/types.js';
import { OUT, STATUS } from '../src/powerflow/abi.js';

const load = (c: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);

let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

async function rows(net: NetworkModel, plan: StudyPlan, size = 7): Promise<StudyCaseRow[]> {
  const out: StudyCaseRow[] = [];
  for (let s = 0; s < plan.caseCount; s += size) out.push(...studyChunkRows(plan, await solveStudyChunk(pool, net, plan, s, Math.min(s + size, plan.caseCount))));
  return out;
}

const near = (a: number, b: number, tol: number, what: string) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

/** The row's extremes, loading and monitored values against a power flow of the same model. */
function sameAsPowerFlow(label: string, row: StudyCaseRow, pf: SolveOutcome, net: NetworkModel): void {
  assert.equal(row.status, 'converged', label);
  assert.equal(pf.status, 'converged', label);
  assert.equal(row.iterations, pf.iterations, `${label} iterations`);
  const vs = pf.buses.filter((_, k) => net.buses[k]!.type !== 'isolated').map((b) => b.v);
  near(row.min_v!, Math.min(...vs), 1e-9, `${label} min_v`);
  near(row.max_v!, Math.max(...vs), 1e-9, `${label} max_v`);
  const loadings = pf.branches.filter((_, k) => net.branches[k]!.rate_a > 0).map((b) => b.loading);
  if (loadings.length === 0) assert.equal(row.max_loading_percent, null, `${label}: no rated branch, no loading`);
  else near(row.max_loading_percent!, Math.max(...loadings), 1e-9, `${label} max loading`);
  for (const b of row.monitored!.buses) {
    const r = pf.buses.find((x) => x.id === b.id)!;
    near(b.v, r.v, 1e-9, `${label} v of bus ${b.id}`);
    near(b.theta, r.theta, 1e-9, `${label} theta of bus ${b.id}`);
  }
  for (const b of row.monitored!.branches) {
    const r = pf.branches[b.index]!;
    near(b.p_from, r.p_from, 1e-9, `${label} p_from of branch ${b.index}`);
    near(b.q_to, r.q_to, 1e-9, `${label} q_to of branch ${b.index}`);
    near(b.loading, r.loading, 1e-9, `${label} loading of branch ${b.index}`);
  }
}

test('a scenario sweep equals separate power flows of the changed models (load scale, one load, one generator)', async () => {
  const net = load('case30');
  const scale = [0.8, 1, 1.15, 0.95];
  const load7 = [30, 25, 40, 22.8];
  const gen1 = [50, 60.97, 70, 40];
  const request: StudyRequest = {
    kind: 'scenarios', tolerance: 1e-8, max_iterations: 20,
    scenarios: { count: 4, load_scale: scale, loads: { 7: { p_mw: load7 } }, generators: { 1: { p_mw: gen1 } } },
    monitor: { branches: [0, 5, 9], buses: 'all' },
  };
  const plan = planStudy(net, request);
  assert.equal(plan.caseCount, 4);
  const got = await rows(net, plan, 3);
  assert.deepEqual(got.map((r) => r.case_id), ['scenario:0', 'scenario:1', 'scenario:2', 'scenario:3']);
  for (let s = 0; s < 4; s++) {
    const changed: NetworkModel = structuredClone(net);
    changed.loads.forEach((l, k) => {
      l.mvar = l.mvar * scale[s]!;
      l.mw = k === 7 ? load7[s]! : l.mw * scale[s]!;
    });
    changed.generators[1]!.mw = gen1[s]!;
    const pf = await solvePowerFlow(pool, changed, { tolerance: 1e-8, maxIterations: 20 });
    assert.equal(got[s]!.scenario, s);
    sameAsPowerFlow(`scenario ${s}`, got[s]!, pf, net);
  }
});

test('scenarios × contingencies: scenario-major order, ids, each outage warm-started from its scenario', async () => {
  const net = load('case30');
  const plan = planStudy(net, {
    kind: 'scenarios', scenarios: { count: 2, load_scale: [0.9, 1.1] },
    contingencies: [{ id: 'line 1-2', branches: [0] }, { branches: [12] }, { generators: [1] }],
    monitor: { buses: [30] },
  });
  assert.equal(plan.caseCount, 6);
  const got = await rows(net, plan, 4);
  assert.deepEqual(got.map((r) => r.case_id), [
    'scenario:0/line 1-2', 'scenario:0/contingency:1', 'scenario:0/contingency:2',
    'scenario:1/line 1-2', 'scenario:1/contingency:1', 'scenario:1/contingency:2',
  ]);
  // the splitting outage of branch 12 (bus 11 cut off) is solved under each scenario too (islanding isolate, the default)
  assert.deepEqual(got.map((r) => r.status), ['converged', 'converged', 'converged', 'converged', 'converged', 'converged']);
  // the outage of branch 0 in scenario 1 equals a power flow of the scaled model without the branch,
  // started from the scaled model's own solution
  const changed: NetworkModel = structuredClone(net);
  changed.loads.forEach((l) => { l.mw *= 1.1; l.mvar *= 1.1; });
  const intact = await solvePowerFlow(pool, changed, { tolerance: 1e-8, maxIterations: 50 });
  changed.buses.forEach((b, k) => { b.v = intact.buses[k]!.v; b.theta = intact.buses[k]!.theta; });
  changed.branches[0]!.status = 'open';
  const pf = await solvePowerFlow(pool, changed, { tolerance: 1e-8, maxIterations: 50 });
  near(got[3]!.monitored!.buses[0]!.v, pf.buses[29]!.v, 1e-9, 'v of bus 30');
  near(got[3]!.min_v!, Math.min(...pf.buses.map((b) => b.v)), 1e-9, 'min v');
  assert.equal(got[3]!.iterations, pf.iterations);
  // scenario × splitting outage: what was cut off (bus 11 has no load in case30), and the energized part
  // equals the power flow of the scaled model without branch 12 under islanding isolate
  assert.deepEqual(got[4]!.islanded, { buses: [11], load_mw: 0, generation_mw: 0 });
  changed.branches[0]!.status = 'closed';
  changed.branches[12]!.status = 'open';
  const split = await solvePowerFlow(pool, changed, { tolerance: 1e-8, maxIterations: 50, islanding: 'isolate' });
  assert.equal(got[4]!.iterations, split.iterations);
  near(got[4]!.monitored!.buses[0]!.v, split.buses[29]!.v, 1e-9, 'v of bus 30 (split)');
  near(got[4]!.min_v!, Math.min(...split.buses.filter((b) => b.energized !== false).map((b) => b.v)), 1e-9, 'min v of the energized buses');
});

test('an N-k outage that cuts buses off reports them with their load and generation, not solved', async () => {
  const net = load('case30');
  // branches 15 (12-13) and 11 (6-9)? find them by their ends to keep the test readable
  const idx = (f: number, t: number) => net.branches.findIndex((b) => b.from === f && b.to === t);
  const plan = planStudy(net, { kind: 'contingency', contingencies: [{ id: 'bus 13 cut', branches: [idx(12, 13)] }, { branches: [idx(25, 26)], generators: [5] }], islanding: 'skip' });
  const [a, b] = await rows(net, plan);
  assert.equal(a!.status, 'islanded');
  assert.equal(a!.iterations, 0);
  assert.deepEqual(a!.islanded, { buses: [13], load_mw: 0, generation_mw: 37 });
  assert.equal(a!.min_v, null);
  assert.equal(b!.status, 'islanded');
  const load26 = net.loads.filter((l) => l.bus === 26).reduce((s, l) => s + l.mw, 0);
  assert.deepEqual(b!.islanded, { buses: [26], load_mw: load26, generation_mw: 0 });
});

test('the base summary and a pre-cancelled or cancelled chunk', async () => {
  const net = load('case2383wp');
  const plan = planStudy(net, { kind: 'contingency' });
  const base = await solveStudyBase(pool, net, plan);
  assert.equal(base.status, 'converged');
  assert.ok(base.min_v! > 0.8 && base.max_v! < 1.2);

  const ac = new AbortController();
  ac.abort();
  const none = await solveStudyChunk(pool, net, plan, 10, 20, { signal: ac.signal });
  assert.equal(none.cancelled, true);
  assert.equal(none.end, 10);
  assert.deepEqual(studyChunkRows(plan, none), []);

  // cancelled at its first progress report: the finished cases stay, in order
  const stop = new AbortController();
  let reports = 0;
  const chunk = await solveStudyChunk(pool, net, plan, 0, 1500, { signal: stop.signal, onProgress: (done, total) => {
    assert.equal(total, 1500);
    assert.ok(done >= 0 && done <= total);
    if (reports++ === 0) stop.abort();
  } });
  assert.ok(reports > 0, 'progress is reported');
  if (chunk.end < 1500) {
    assert.equal(chunk.cancelled, true);
    const r = studyChunkRows(plan, chunk);
    assert.equal(r.length, chunk.end);
    assert.deepEqual(r.map((x) => x.case_id), plan.contingencies.slice(0, chunk.end).map((c) => c.id));
  } else {
    assert.equal(chunk.cancelled, false); // the machine finished it between two progress reports
  }
});

test('bad requests are 400 INVALID_FIELD naming the field and the fix', () => {
  const net = load('case30');
  const bad = (request: unknown, field: string, text: RegExp) => {
    assert.throws(() => planStudy(net, request as StudyRequest), (e: unknown) => {
      assert.ok(e instanceof AppError, String(e));
      assert.equal(e.code, 'INVALID_FIELD');
      assert.equal(e.statusCode, 400);
      assert.equal(e.details?.field, field, e.message);
      assert.match(e.message, text);
      return true;
    });
  };
  bad({ kind: 'contingency', contingencies: [{ branches: [41] }] }, 'contingencies[0].branches[0]', /branch index 41 does not exist.*indexes 0 to 40/);
  bad({ kind: 'contingency', contingencies: [{ generators: [6] }] }, 'contingencies[0].generators[0]', /generator index 6 does not exist/);
  bad({ kind: 'contingency', contingencies: [] }, 'contingencies', /empty/);
  bad({ kind: 'contingency', contingencies: [{}] }, 'contingencies[0]', /at least one branch or generator/);
  bad({ kind: 'contingency', contingencies: [{ id: 'x', branches: [1] }, { id: 'x', branches: [2] }] }, 'contingencies[1].id', /used twice/);
  bad({ kind: 'contingency', contingencies: [{ branches: [3, 3] }] }, 'contingencies[0].branches[1]', /listed twice/);
  bad({ kind: 'contingency', monitor: { buses: [31] } }, 'monitor.buses[0]', /bus 31 does not exist/);
  bad({ kind: 'contingency', monitor: { branches: [99] } }, 'monitor.branches[0]', /branch index 99/);
  bad({ kind: 'scenarios', scenarios: { count: 3, load_scale: [1, 1] } }, 'scenarios.load_scale', /has 2 values, but scenarios.count is 3/);
  bad({ kind: 'scenarios', scenarios: { count: 2, loads: { 50: { p_mw: [1, 2] } } } }, 'scenarios.loads.50', /load index 50 does not exist/);
  bad({ kind: 'scenarios', scenarios: { count: 2, generators: { 0: { p_mw: [1] } } } }, 'scenarios.generators.0.p_mw', /has 1 values/);
  bad({ kind: 'scenarios', scenarios: { count: 2, load_scale: [1, -1] } }, 'scenarios.load_scale[1]', /≥ 0/);
  bad({ kind: 'scenarios' }, 'scenarios', /needs scenarios/);
  bad({ kind: 'contingency', scenarios: { count: 1 } }, 'scenarios', /kind 'scenarios'/);

  bad({ kind: 'maybe' }, 'kind', /./);
  bad({ kind: 'contingency', loading_limit_percent: 0 }, 'loading_limit_percent', /./);
  const open: NetworkModel = structuredClone(net);
  open.branches[4]!.status = 'open';
  assert.throws(() => planStudy(open, { kind: 'contingency', contingencies: [{ branches: [4] }] }), /branch 4 is already out of service/);
  assert.equal(planStudy(open, { kind: 'contingency' }).caseCount, 40, 'n-1 shorthands skip elements already out');
});

test('branch outages reuse the cached pattern and symbolic analysis, and leave the Ybus exactly as they found it', async () => {
  const one = createSolverPool({ threads: 1 });
  try {
    const net = load('case118');
    const before = await solvePowerFlow(one, net, { maxIterations: 10 });
    const analysesBefore = solveDiagnostics(before)!.analyses;
    const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', max_iterations: 10, islanding: 'skip' });
    const chunk = await solveStudyChunk(one, net, plan, 0, plan.caseCount);
    assert.equal(chunk.end, plan.caseCount);
    const after = await solvePowerFlow(one, net, { maxIterations: 10 });
    assert.equal(solveDiagnostics(after)!.analyses, analysesBefore, '186 outages, no new symbolic analysis');
    // bit for bit: the study restored the shared topology's Ybus values
    assert.deepEqual(after.buses, before.buses);
    assert.deepEqual(after.branches, before.branches);
    assert.equal(after.iterations, before.iterations);
  } finally {
    await one.close();
  }
});

test('a generator outage equals a power flow of the model without it, warm from the base (set point of the generator left)', async () => {
  const net = load('case30');
  // a second generator at bus 2, listed last, with its own set point: it holds bus 2's voltage in the base
  net.generators.push({ ...net.generators[1]!, mw: 20, vg: 1.03 });
  const last = net.generators.length - 1;
  const plan = planStudy(net, { kind: 'contingency', contingencies: [{ generators: [last] }, { generators: [1, last] }], monitor: { buses: 'all' } });
  const [keeps, loses] = await rows(net, plan);
  const base = await solvePowerFlow(pool, net, { maxIterations: 50 });
  const summary = await solveStudyBase(pool, net, plan);
  assert.equal(summary.monitored!.buses.length, 30, 'the base summary carries the monitored values');
  for (const b of summary.monitored!.buses) near(b.v, base.buses.find((x) => x.id === b.id)!.v, 1e-9, `base v of bus ${b.id}`);
  for (const [row, out] of [[keeps!, [last]], [loses!, [1, last]]] as const) {
    const changed: NetworkModel = structuredClone(net);
    for (const g of out) changed.generators[g]!.in_service = false;
    changed.buses.forEach((b, k) => { b.v = base.buses[k]!.v; b.theta = base.buses[k]!.theta; });
    const pf = await solvePowerFlow(pool, changed, { maxIterations: 50 });
    assert.equal(row.status, 'converged');
    assert.equal(row.iterations, pf.iterations, `${row.case_id} iterations`);
    for (const b of row.monitored!.buses) near(b.v, pf.buses.find((x) => x.id === b.id)!.v, 1e-9, `${row.case_id} v of bus ${b.id}`);
  }
  near(keeps!.monitored!.buses.find((b) => b.id === 2)!.v, net.generators[1]!.vg, 1e-12, 'bus 2 held at the remaining generator\'s set point');
  assert.notEqual(loses!.monitored!.buses.find((b) => b.id === 2)!.v, net.generators[1]!.vg, 'bus 2 is pq without generators');
});

test('rows do not depend on what the solver thread solved before (a singular case makes the LU pivot)', async () => {
  // case2383wp: branch 465's outage makes Newton diverge through nearly singular Jacobians, where the 2×2
  // block pivots fail and the scalar LU falls back to pivoting and keeps that pivot order; the engine
  // returns to the analysed one before every case
  const net = load('case2383wp');
  const plan = planStudy(net, { kind: 'contingency', contingencies: [
    { id: 'singular', branches: [465] }, ...Array.from({ length: 20 }, (_, k) => ({ branches: [600 + k] })),
  ] });
  const fresh = createSolverPool({ threads: 1 });
  const used = createSolverPool({ threads: 1 });
  try {
    const a = studyChunkRows(plan, await solveStudyChunk(fresh, net, plan, 1, 21));
    const first = studyChunkRows(plan, await solveStudyChunk(used, net, plan, 0, 1))[0]!;
    assert.equal(first.status, 'diverged');
    const b = studyChunkRows(plan, await solveStudyChunk(used, net, plan, 1, 21));
    assert.deepEqual(b, a);
  } finally {
    await fresh.close();
    await used.close();
  }
});

test('DC studies: every outage equals a DC power flow of the model without it', async () => {
  const net = load('case30');
  const plan = planStudy(net, { kind: 'contingency', method: 'dc', contingencies: 'n-1', monitor: { branches: 'all' }, islanding: 'skip' });
  const one = createSolverPool({ threads: 1 });
  const before = await solvePowerFlow(one, net, { method: 'dc' });
  await solveStudyChunk(one, net, plan, 0, plan.caseCount);
  const after = await solvePowerFlow(one, net, { method: 'dc' });
  await one.close();
  assert.deepEqual(after.branches, before.branches, 'a DC power flow after a DC study (same cached topology) is unchanged');
  const got = await rows(net, plan, 20);
  assert.equal(got.length, 41 + 6);
  assert.deepEqual(got.filter((r) => r.status === 'islanded').map((r) => r.case_id), ['branch:12', 'branch:15', 'branch:33']);
  for (const row of got.filter((r) => r.status === 'converged')) {
    const changed: NetworkModel = structuredClone(net);
    for (const b of row.contingency!.branches) changed.branches[b]!.status = 'open';
    for (const g of row.contingency!.generators) changed.generators[g]!.in_service = false;
    const pf = await solvePowerFlow(pool, changed, { method: 'dc' });
    assert.equal(row.iterations, 1);
    assert.equal(row.min_v, 1);
    const loadings = pf.branches.filter((_, k) => net.branches[k]!.rate_a > 0).map((b) => b.loading);
    near(row.max_loading_percent!, Math.max(...loadings), 1e-9, `${row.case_id} max loading`);
    for (const b of row.monitored!.branches) near(b.p_from, pf.branches[b.index]!.p_from, 1e-9, `${row.case_id} p_from of branch ${b.index}`);
  }
  const slack = got.find((r) => r.case_id === 'generator:0')!;
  assert.equal(slack.reason, 'slack_lost');
  // a DC scenario sweep: each scenario equals a DC power flow of the scaled model
  const sweep = planStudy(net, { kind: 'scenarios', method: 'dc', scenarios: { count: 2, load_scale: [0.9, 1.2] }, monitor: { branches: [0, 9] } });
  const scen = await rows(net, sweep);
  for (const [s, scale] of [0.9, 1.2].entries()) {
    const changed: NetworkModel = structuredClone(net);
    changed.loads.forEach((l) => { l.mw *= scale; l.mvar *= scale; });
    const pf = await solvePowerFlow(pool, changed, { method: 'dc' });
    for (const b of scen[s]!.monitored!.branches) near(b.p_from, pf.branches[b.index]!.p_from, 1e-9, `scenario ${s} p_from of branch ${b.index}`);
  }
});

test('fast-decoupled studies: every outage and scenario equals a fast-decoupled power flow of the changed model', async () => {
  const net = load('case30');
  const FD = { method: 'fast_decoupled' as const, maxIterations: 50 };
  const plan = planStudy(net, { kind: 'contingency', method: 'fast_decoupled', contingencies: 'n-1', monitor: { buses: [3, 8, 30], branches: [0, 5, 20] }, islanding: 'skip' });
  const one = createSolverPool({ threads: 1 });
  const before = await solvePowerFlow(one, net, FD);
  await solveStudyChunk(one, net, plan, 0, plan.caseCount);
  const after = await solvePowerFlow(one, net, FD);
  await one.close();
  assert.deepEqual(after.buses, before.buses, 'a fast-decoupled power flow after the study (same cached topology) is unchanged');
  const base = await solvePowerFlow(pool, net, FD);
  const got = await rows(net, plan, 9);
  const converged = got.filter((r) => r.status === 'converged');
  assert.ok(converged.length >= 40, `${converged.length} converged`);
  for (const row of converged) {
    const changed: NetworkModel = structuredClone(net);
    for (const b of row.contingency!.branches) changed.branches[b]!.status = 'open';
    for (const g of row.contingency!.generators) changed.generators[g]!.in_service = false;
    changed.buses.forEach((b, k) => { b.v = base.buses[k]!.v; b.theta = base.buses[k]!.theta; });
    sameAsPowerFlow(row.case_id, row, await solvePowerFlow(pool, changed, FD), changed);
  }
  const sweep = planStudy(net, { kind: 'scenarios', method: 'fast_decoupled', scenarios: { count: 2, load_scale: [0.9, 1.2] }, monitor: { buses: 'all' } });
  const scen = await rows(net, sweep);
  for (const [s, scale] of [0.9, 1.2].entries()) {
    const changed: NetworkModel = structuredClone(net);
    changed.loads.forEach((l) => { l.mw *= scale; l.mvar *= scale; });
    sameAsPowerFlow(`scenario ${s}`, scen[s]!, await solvePowerFlow(pool, changed, FD), changed);
  }
});

test('studies under generator Q limits: every case equals a power flow with enforce_q_limits of the changed model', async () => {
  for (const [c, method] of [['case14', 'newton_raphson'], ['case118', 'newton_raphson'], ['case14', 'fast_decoupled']] as const) {
    const net = load(c);
    const opts = { method, enforceQLimits: true, maxIterations: 50 };
    const plan = planStudy(net, { kind: 'contingency', method, enforce_q_limits: true, contingencies: 'n-1', monitor: { buses: 'all' }, islanding: 'skip' });
    const base = await solvePowerFlow(pool, net, opts);
    assert.equal(base.status, 'converged');
    assert.ok(solveDiagnostics(base)!.runs > 1, `${c}: the base case hits Q limits`);
    const summary = await solveStudyBase(pool, net, plan);
    for (const b of summary.monitored!.buses) near(b.v, base.buses.find((x) => x.id === b.id)!.v, 1e-9, `${c} base v of bus ${b.id}`);
    assert.equal(summary.iterations, base.iterations, `${c} base iterations summed over the runs`);
    const got = await rows(net, plan, 13);
    let limited = 0;
    for (const row of got) {
      if (row.status === 'islanded' || row.reason === 'slack_lost') continue;
      const changed: NetworkModel = structuredClone(net);
      for (const b of row.contingency!.branches) changed.branches[b]!.status = 'open';
      for (const g of row.contingency!.generators) changed.generators[g]!.in_service = false;
      changed.buses.forEach((b, k) => { b.v = base.buses[k]!.v; b.theta = base.buses[k]!.theta; });
      const pf = await solvePowerFlow(pool, changed, opts);
      if (solveDiagnostics(pf)!.runs > 1) limited++;
      if (pf.status !== 'converged') { assert.notEqual(row.status, 'converged', `${c} ${row.case_id}`); continue; }
      sameAsPowerFlow(`${c} ${method} ${row.case_id}`, row, pf, changed);
    }
    assert.ok(limited > 5, `${c}: ${limited} cases re-solved under Q limits`);
  }
});

test('warm_start previous: each scenario equals the power flow of its model started from the scenario before it; a chunk\'s first starts as the default', async () => {
  const net = load('case30');
  const scale = Array.from({ length: 12 }, (_, h) => 0.8 + 0.3 * Math.sin((h / 12) * Math.PI));
  const base: StudyRequest = { kind: 'scenarios', tolerance: 1e-8, max_iterations: 20, scenarios: { count: 12, load_scale: scale }, monitor: { branches: [0, 5], buses: 'all' } };
  const warmPlan = planStudy(net, { ...base, warm_start: 'previous' });
  assert.equal(warmPlan.warmStart, 'previous');
  const chunk = 5;
  const warm = await rows(net, warmPlan, chunk);
  const cold = await rows(net, planStudy(net, base), chunk);
  let warmIterations = 0, coldIterations = 0;
  for (let s = 0; s < scale.length; s++) {
    const changed: NetworkModel = structuredClone(net);
    changed.loads.forEach((l) => { l.mw *= scale[s]!; l.mvar *= scale[s]!; });
    if (s % chunk === 0) {
      assert.equal(warm[s]!.iterations, cold[s]!.iterations, `scenario ${s} opens a chunk: the default start`);
    } else {
      // started from the previous scenario's solution (all buses monitored: its voltages)
      const prev = new Map(warm[s - 1]!.monitored!.buses.map((b) => [b.id, b]));
      changed.buses.forEach((b) => { b.v = prev.get(b.id)!.v; b.theta = prev.get(b.id)!.theta; });
    }
    const pf = await solvePowerFlow(pool, changed, { tolerance: 1e-8, maxIterations: 20 });
    sameAsPowerFlow(`warm scenario ${s}`, warm[s]!, pf, net);
    // the same operating point as the default start (both converged to 1e-8)
    warm[s]!.monitored!.buses.forEach((b, k) => near(b.v, cold[s]!.monitored!.buses[k]!.v, 1e-7, `scenario ${s} bus ${b.id} v`));
    warmIterations += warm[s]!.iterations; coldIterations += cold[s]!.iterations;
  }
  assert.ok(warmIterations < coldIterations, `fewer Newton iterations in all: ${warmIterations} vs ${coldIterations}`);
  assert.throws(() => planStudy(net, { kind: 'contingency', warm_start: 'previous' }), /warm_start 'previous' applies to kind 'scenarios'/);
});

// A Newton run that diverges keeps changing its Jacobian; after one pivoting factorisation its scalar fallback
// refactorises on the adopted pivot sequence while the pivots stay above ADOPTED_PIVOT_TOL (assembly/sparse/
// tolerances.ts) instead of pivoting anew at every iteration (52 pivoting factorisations for these two outages
// before). The statuses stay diverged; converged cases are unchanged (the N-1 references).
test('case2383wp: the two outages whose Newton runs diverge pivot a few times, not at every iteration', () => {
  const net = load('case2383wp');
  const plan = planStudy(net, { kind: 'contingency', contingencies: [{ branches: [465] }, { branches: [468] }], islanding: 'skip' });
  const engine = new PowerFlowEngine();
  const t = studyChunkTask(net, plan, 0, plan.caseCount);
  const before = engine.pivotings;
  const r = engine.runStudy(t.input, t.study, REC.FIELDS, VIOL_FIELDS, t.monitorPerCase);
  const at = (c: number, field: number) => r.records[REC.FIELDS * (c + 1) + field]!; // record 0: the base case
  for (const c of [0, 1]) assert.ok(at(c, REC.CODE) !== CASE_CODE.CONVERGED && at(c, REC.CODE) !== CASE_CODE.ISLANDED, `case ${c} diverges`);
  const iterations = at(0, REC.ITER) + at(1, REC.ITER);
  const pivotings = engine.pivotings - before;
  assert.ok(iterations >= 90, `${iterations} Newton iterations`);
  assert.ok(pivotings > 0 && pivotings <= 20, `${pivotings} pivoting factorisations in ${iterations} iterations`);
});

// A study's next chunk on the same thread and network keeps the last chunk's intact B' / B'' factors (assembly/study/
// loop.ts); a fast-decoupled power flow of another network with the same structure shares the cached topology and
// factorises its own B' / B'' into it, and the next chunk must see that (DecoupledSystem.generation).
test('an estimate chunk after another network\'s fast-decoupled power flow on the same topology equals one on a fresh engine', async () => {
  const net = load('case30'); // rated branches: the estimate's records depend on its factors (case118 has none)
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip', screening: {} });
  const { estimatePlan } = acLinearEstimate(net, plan, await baseSolution(pool, net, plan));
  const runOn = (engine: PowerFlowEngine) => {
    const t = studyChunkTask(net, estimatePlan, 0, plan.caseCount);
    return engine.runStudy(t.input, t.study, REC.FIELDS, VIOL_FIELDS, t.monitorPerCase);
  };
  const fresh = runOn(new PowerFlowEngine());
  const engine = new PowerFlowEngine();
  runOn(engine);
  // the same buses and branches, other reactances: the same cached topology, other B' and B''
  const other: NetworkModel = { ...net, branches: net.branches.map((b) => ({ ...b, x: b.x * 1.7 })) };
  const pf = engine.solve(packNetwork(other, { ...DEFAULT_SOLVE_OPTIONS, method: 'fast_decoupled' }).input);
  assert.equal(pf[OUT.STATUS], STATUS.CONVERGED, 'the other network solves fast-decoupled');
  const after = runOn(engine);
  assert.deepEqual(after.records, fresh.records);
  assert.deepEqual(after.violations, fresh.violations);
  assert.deepEqual(runOn(engine).records, fresh.records, 'and the chunk after it, on the factors it kept');
});

// The estimate keeps recent columns of B''⁻¹ (assembly/sparse/inverseColumns.ts) for the next outages: a study of
// another network with the same structure on the same thread must not see the last one's.
test('an estimate of another network with the same structure on the same engine equals one on a fresh engine', async () => {
  const net = load('case30');
  const other: NetworkModel = { ...net, branches: net.branches.map((b) => ({ ...b, x: b.x * 1.3, b: b.b * 0.5 })) };
  const estimateOf = async (model: NetworkModel) => {
    const plan = planStudy(model, { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip', screening: {} });
    const { estimatePlan } = acLinearEstimate(model, plan, await baseSolution(pool, model, plan));
    return studyChunkTask(model, estimatePlan, 0, plan.caseCount);
  };
  const [a, b] = [await estimateOf(net), await estimateOf(other)];
  const run = (engine: PowerFlowEngine, t: typeof a) => engine.runStudy(t.input.slice(), t.study.slice(), REC.FIELDS, VIOL_FIELDS, t.monitorPerCase);
  const engine = new PowerFlowEngine();
  run(engine, a);
  const after = run(engine, b), fresh = run(new PowerFlowEngine(), b);
  assert.deepEqual(after.records, fresh.records);
  assert.deepEqual(after.violations, fresh.violations);
});

// Each chunk solves the base case again (record 0, the outages' warm start); a run on the same topology and packed
// network takes the state the last one's Newton solve reached instead (assembly/study/loop.ts solveBase): the same
// records bit for bit, no iteration of the base; another network, or Q limits, solve it again.
test('a chunk on the same packed network reuses the last base solve bit for bit; a changed network solves it again', () => {
  const net = load('case118');
  const monitor = { branches: [0, 5], buses: [net.buses[3]!.id] };
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', monitor });
  let baseIterations = 0;
  const runOn = (engine: PowerFlowEngine, model: NetworkModel, p: StudyPlan, start: number, end: number) => {
    baseIterations = 0;
    engine.onProgress = (it) => { if (it >= 0 && end === start) baseIterations++; return 0; };
    const t = studyChunkTask(model, p, start, end);
    const r = engine.runStudy(t.input, t.study, REC.FIELDS, VIOL_FIELDS, t.monitorPerCase);
    return { ...r, baseIterations };
  };
  const engine = new PowerFlowEngine();
  const first = runOn(engine, net, plan, 0, 0);
  assert.ok(first.baseIterations > 0, 'the first run solves its base');
  const again = runOn(engine, net, plan, 0, 0);
  assert.equal(again.baseIterations, 0, 'the same network: the base state kept');
  assert.deepEqual(again.records, first.records);
  assert.deepEqual(again.violations, first.violations);
  assert.deepEqual(again.monitor, first.monitor);
  // the cases after a kept base equal those of a fresh engine, bit for bit
  const cases = runOn(engine, net, plan, 3, 40);
  const fresh = runOn(new PowerFlowEngine(), net, plan, 3, 40);
  assert.deepEqual(cases.records, fresh.records);
  assert.deepEqual(cases.violations, fresh.violations);
  assert.deepEqual(cases.monitor, fresh.monitor);
  // another load: solved again, to another state
  const heavier: NetworkModel = { ...net, loads: net.loads.map((l, k) => (k === 0 ? { ...l, mw: l.mw + 20 } : l)) };
  const other = runOn(engine, heavier, planStudy(heavier, { kind: 'contingency', contingencies: 'n-1-branches', monitor }), 0, 0);
  assert.ok(other.baseIterations > 0, 'a changed network solves its base');
  assert.notDeepEqual(other.monitor, first.monitor);
  // Q limits change bus types in the base solve: never kept
  const qlim = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', enforce_q_limits: true });
  runOn(engine, net, qlim, 0, 0);
  assert.ok(runOn(engine, net, qlim, 0, 0).baseIterations > 0, 'Q limits: solved again');
});
