// State estimates against MATPOWER Extras' doSE with the lnr loop around it (shared/reference/state-estimation,
// and test/reference/state-estimation for the ones made here): status, iterations, J, the state (Vm to 1e-9 p.u.,
// Va to 1e-7°), flows and generator outputs (1e-6 MW / MVAr), normalized residuals (1e-6 relative), the removed
// measurements in their order, and the unobservable buses. Both modes: bad data off (doSE alone, the `dose` block)
// and lnr (the `bad_data_lnr` block).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, ROOT, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { solveStateEstimation } from '../src/stateEstimation/solve.js';
import type { StateEstimationResult } from '../src/stateEstimation/types.js';

const pool = createSolverPool({ threads: 1 });
after(() => pool.close());

const DIRS = [join(SHARED_DIR, 'reference', 'state-estimation'), join(ROOT, 'test', 'reference', 'state-estimation')];
const files = DIRS.filter((d) => existsSync(d)).flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(d, f)),
);

function caseText(dir: string, name: string): string {
  // a case of this repository's reference folder first (case3bus_P6_6 in case format version 2), then the JSON's own
  // folder, then shared/cases
  for (const d of [DIRS[1]!, dir, CASES_DIR]) if (existsSync(join(d, `${name}.m`))) return readFileSync(join(d, `${name}.m`), 'utf8');
  throw new Error(`case ${name} not found`);
}

function near(a: number, b: number, tol: number, what: string): void {
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b} (tolerance ${tol})`);
}

function sameEstimate(r: StateEstimationResult, ref: any, what: string): void {
  assert.equal(r.status, 'converged', `${what}: ${r.message}`);
  assert.equal(r.iterations, ref.iterations, `${what}: Gauss–Newton iterations as doSE`);
  near(r.J!, ref.J, 1e-8 * Math.max(1, ref.J), `${what}: J`);
  assert.equal(r.dof, ref.dof, `${what}: dof`);
  near(r.chi_square.quantile_99!, ref.chi2_99, 1e-8 * ref.chi2_99, `${what}: chi2 99 % quantile`);
  assert.equal(r.chi_square.passed, ref.chi2_pass, `${what}: chi-square test`);
  for (const b of ref.buses) {
    const e = r.buses.find((x) => x.id === b.id)!;
    near(e.v, b.vm, 1e-9, `${what}: bus ${b.id} Vm`);
    near((e.theta * 180) / Math.PI, b.va_deg, 1e-7, `${what}: bus ${b.id} Va (degrees)`);
  }
  for (const b of ref.branches) {
    const e = r.branches[b.index]!;
    for (const k of ['p_from', 'q_from', 'p_to', 'q_to'] as const) near(e[k], b[k], 1e-6, `${what}: branch ${b.index} ${k}`);
  }
  for (const g of ref.gens) {
    near(r.generators[g.index]!.p_mw, g.p, 1e-6, `${what}: generator ${g.index} p`);
    near(r.generators[g.index]!.q_mvar, g.q, 1e-6, `${what}: generator ${g.index} q`);
  }
  assert.equal(r.residuals.length, ref.residuals.length, `${what}: residuals of the measurements in the estimate`);
  for (const x of ref.residuals) {
    const e = r.residuals.find((y) => y.measurement === x.measurement)!;
    assert.ok(e, `${what}: residual of measurement ${x.measurement}`);
    near(e.residual, x.residual, 1e-6 * Math.max(1, Math.abs(x.residual)), `${what}: measurement ${x.measurement} residual`);
    assert.equal(e.critical, x.critical, `${what}: measurement ${x.measurement} critical`);
    if (x.normalized_residual === null) assert.equal(e.normalized_residual, null);
    else
      near(
        e.normalized_residual!,
        x.normalized_residual,
        1e-6 * Math.max(1, Math.abs(x.normalized_residual)),
        `${what}: measurement ${x.measurement} r_N`,
      );
  }
}

for (const file of files) {
  const ref = JSON.parse(readFileSync(file, 'utf8'));
  const dir = file.slice(0, file.lastIndexOf('/'));
  const net = () => parseMatpower(caseText(dir, ref.case), `${ref.case}.m`);

  test(`${ref.scenario}: doSE alone (bad data off)`, async () => {
    const r = await solveStateEstimation(pool, net(), ref.measurements, { badDataThreshold: null });
    if (ref.dose.status === 'unobservable') {
      assert.equal(r.status, 'unobservable');
      assert.equal(r.observability.observable, false);
      assert.deepEqual(r.observability.unobservable_buses, ref.observability.unobservable_buses);
      return;
    }
    assert.equal(r.observability.observable, true);
    sameEstimate(r, ref.dose, 'doSE');
    assert.deepEqual(r.bad_data, []);
  });

  if (ref.bad_data_lnr) {
    test(`${ref.scenario}: doSE with lnr bad-data removal`, async () => {
      const r = await solveStateEstimation(pool, net(), ref.measurements, { badDataThreshold: ref.bad_data_lnr.threshold });
      assert.deepEqual(
        r.bad_data.map((d) => d.measurement),
        ref.bad_data_lnr.removed.map((d: any) => d.measurement),
        'removed, in order',
      );
      ref.bad_data_lnr.removed.forEach((d: any, k: number) => {
        near(
          Math.abs(r.bad_data[k]!.normalized_residual),
          d.normalized_residual,
          1e-6 * Math.abs(d.normalized_residual),
          `removal ${k} r_N`,
        );
      });
      assert.equal(r.passes, ref.bad_data_lnr.passes.length);
      sameEstimate(r, ref.bad_data_lnr.final, 'lnr final');
    });
  }
}

test('assembly/se/abi.ts and src/stateEstimation/abi.ts name the same columns', async () => {
  const abi = await import('../src/stateEstimation/abi.js');
  const text = readFileSync(join(ROOT, 'assembly', 'se', 'abi.ts'), 'utf8');
  const tables: Record<string, Record<string, number>> = {
    SE_IN_: abi.IN,
    SE_BUS_: abi.BUS,
    SE_BR_: abi.BR,
    SE_GEN_: abi.GEN,
    SE_MEAS_: abi.MEAS,
    SE_OUT_BUS_: abi.OUT_BUS,
    SE_OUT_MEAS_: abi.OUT_MEAS,
    SE_OUT_: abi.OUT,
    SE_STATUS_: abi.STATUS,
  };
  const kinds = Object.fromEntries(Object.entries(abi.KIND).map(([k, v]) => [k.toUpperCase(), v]));
  const diffs: string[] = [];
  let n = 0;
  for (const m of text.matchAll(/^export const (\w+): i32 = (-?\d+);/gm)) {
    n++;
    const [name, value] = [m[1]!, Number(m[2])];
    let ts: number | undefined;
    if (name === 'SE_ABI_VERSION') ts = abi.SE_ABI_VERSION;
    else if (name.startsWith('SE_KIND_')) ts = kinds[name.slice(8)];
    else {
      const prefix = Object.keys(tables)
        .filter((p) => name.startsWith(p))
        .sort((a, b) => b.length - a.length)[0];
      ts = prefix ? tables[prefix]![name.slice(prefix.length)] : undefined;
    }
    if (ts !== value) diffs.push(`${name}: assembly ${value}, TypeScript ${ts}`);
  }
  assert.ok(n > 40);
  assert.deepEqual(diffs, []);
});
