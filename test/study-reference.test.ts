// The study engine against MATPOWER's own N-1 loop (shared/reference/n1, README there):
// case30 and case118 branch outages, case118 generator outages, contingency by
// contingency: status (islanded / slack lost / converged), Newton iterations within
// one, voltage extremes to 1e-5 p.u. (and their buses), max loading to 1e-3 % (and its
// branch), the same violation sets; MATPOWER's options (tolerance 1e-8, 10 iterations).
// Chunks of different sizes give identical rows (a chunk needs nothing from another).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyBase, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyPlan } from '../src/studies/index.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

interface RefViolationBranch { branch: number; loading_pct: number }
interface RefViolationBus { bus: number; vm: number; limit: number; type: 'low' | 'high' }
interface RefMetrics {
  max_loading_pct: number | null; max_loading_branch: number | null;
  min_vm: number; min_vm_bus: number; max_vm: number; max_vm_bus: number;
  branch_violations: RefViolationBranch[]; bus_violations: RefViolationBus[];
}
interface RefContingency extends Partial<RefMetrics> {
  branch?: number; gen?: number;
  status: 'solved' | 'islanded' | 'slack_lost';
  converged?: boolean; iterations?: number;
  islands?: number[][];
}
interface Reference { base: RefMetrics & { iterations: number }; contingencies: RefContingency[] }

const load = (c: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
const reference = (file: string): Reference => JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'n1', file), 'utf8')) as Reference;

let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

async function allRows(net: NetworkModel, plan: StudyPlan, chunkSize: number): Promise<StudyCaseRow[]> {
  const rows: StudyCaseRow[] = [];
  const jobs = [];
  for (let s = 0; s < plan.caseCount; s += chunkSize) jobs.push(solveStudyChunk(pool, net, plan, s, Math.min(s + chunkSize, plan.caseCount)));
  for (const chunk of await Promise.all(jobs)) {
    assert.equal(chunk.cancelled, false);
    rows.push(...studyChunkRows(plan, chunk));
  }
  return rows;
}

const near = (a: number, b: number, tol: number, what: string) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b} (tolerance ${tol})`);

/** Compares metrics; the extreme's bus is checked unless another bus ties it within 1e-9. */
function compareMetrics(label: string, row: StudyCaseRow, ref: RefMetrics): void {
  near(row.min_v!, ref.min_vm, 1e-5, `${label} min_v`);
  near(row.max_v!, ref.max_vm, 1e-5, `${label} max_v`);
  if (row.min_v_bus !== ref.min_vm_bus) near(row.min_v!, ref.min_vm, 1e-9, `${label} min_v_bus ${row.min_v_bus} vs ${ref.min_vm_bus} (only a tie may differ)`);
  if (row.max_v_bus !== ref.max_vm_bus) near(row.max_v!, ref.max_vm, 1e-9, `${label} max_v_bus ${row.max_v_bus} vs ${ref.max_vm_bus} (only a tie may differ)`);
  if (ref.max_loading_pct === null) {
    assert.equal(row.max_loading_percent, null, `${label}: no branch is rated, max loading is null`);
  } else {
    near(row.max_loading_percent!, ref.max_loading_pct, 1e-3, `${label} max loading`);
    assert.equal(row.max_loading_branch, ref.max_loading_branch! - 1, `${label} max loading branch`);
  }
  const overloads = row.violations.filter((v) => v.type === 'branch_overload');
  assert.deepEqual(overloads.map((v) => v.element), ref.branch_violations.map((v) => v.branch - 1), `${label} overloaded branches`);
  overloads.forEach((v, k) => near(v.value, ref.branch_violations[k]!.loading_pct, 1e-3, `${label} overload of branch ${v.element}`));
  // the same set (gridops lists them in bus order, the reference low ones first)
  const volts = row.violations.filter((v) => v.type !== 'branch_overload');
  const refVolts = [...ref.bus_violations].sort((a, b) => a.bus - b.bus);
  assert.deepEqual(volts.map((v) => `${v.element}:${v.type}`), refVolts.map((v) => `${v.bus}:${v.type}_voltage`), `${label} voltage violations`);
  volts.forEach((v, k) => {
    near(v.value, refVolts[k]!.vm, 1e-5, `${label} voltage of bus ${v.element}`);
    assert.equal(v.limit, refVolts[k]!.limit, `${label} limit of bus ${v.element}`);
  });
}

function compareAll(c: string, net: NetworkModel, rows: StudyCaseRow[], ref: Reference, what: 'branch' | 'gen'): void {
  assert.equal(rows.length, ref.contingencies.length, `${c}: one case per in-service ${what}`);
  rows.forEach((row, k) => {
    const rc = ref.contingencies[k]!;
    const index = (what === 'branch' ? rc.branch! : rc.gen!) - 1;
    const label = `${c} ${what} ${index}`;
    assert.equal(row.case_id, `${what === 'branch' ? 'branch' : 'generator'}:${index}`, `${label} case id`);
    if (rc.status === 'islanded') {
      assert.equal(row.status, 'islanded', label);
      assert.deepEqual(row.islanded!.buses, rc.islands!.flat().sort((a, b) => a - b), `${label} cut-off buses`);
      const cut = new Set(row.islanded!.buses);
      const loadMw = net.loads.filter((l) => l.in_service && cut.has(l.bus)).reduce((s, l) => s + l.mw, 0);
      const genMw = net.generators.filter((g) => g.in_service && cut.has(g.bus)).reduce((s, g) => s + g.mw, 0);
      near(row.islanded!.load_mw, loadMw, 1e-9, `${label} cut-off load`);
      near(row.islanded!.generation_mw, genMw, 1e-9, `${label} cut-off generation`);
      return;
    }
    if (rc.status === 'slack_lost') {
      assert.equal(row.status, 'diverged', label);
      assert.equal(row.reason, 'slack_lost', label);
      return;
    }
    assert.equal(row.status, rc.converged ? 'converged' : 'diverged', label);
    assert.ok(Math.abs(row.iterations - rc.iterations!) <= 1, `${label} iterations ${row.iterations} vs MATPOWER ${rc.iterations}`);
    if (rc.converged) compareMetrics(label, row, rc as RefMetrics);
  });
}

// islanding skip: MATPOWER's N-1 loop does not solve a split network (the islanding rules are tested in study-islands.test.ts).
const STUDY = { tolerance: 1e-8, max_iterations: 10, islanding: 'skip' as const };

test('case30: N-1 of every branch matches MATPOWER (islands, iterations, extremes, loading, violations)', async () => {
  const net = load('case30');
  const ref = reference('case30.branches.json');
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', ...STUDY });
  const base = await solveStudyBase(pool, net, plan);
  assert.equal(base.status, 'converged');
  assert.equal(base.iterations, ref.base.iterations);
  compareMetrics('case30 base', { ...base, case_id: 'base', status: 'converged', new_violations: 0, max_new_loading_percent: null } as StudyCaseRow, ref.base);
  const rows = await allRows(net, plan, 16);
  compareAll('case30', net, rows, ref, 'branch');
  assert.deepEqual(await allRows(net, plan, plan.caseCount), rows, 'one chunk gives the same rows as many');
});

test('case118: N-1 of every branch matches MATPOWER', async () => {
  const net = load('case118');
  const ref = reference('case118.branches.json');
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', ...STUDY });
  const rows = await allRows(net, plan, 50);
  compareAll('case118', net, rows, ref, 'branch');
});

test('case118: N-1 of every generator matches MATPOWER (pv -> pq, slack lost)', async () => {
  const net = load('case118');
  const ref = reference('case118.gens.json');
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-generators', ...STUDY });
  const rows = await allRows(net, plan, 20);
  compareAll('case118', net, rows, ref, 'gen');
});
