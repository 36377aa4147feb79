// `gridops solve|study|opf FILE.raw|FILE.rawx`: PSS/E files by extension on the command line, the
// answer equal to MATPOWER's runpf of psse2mpc (shared/reference/psse/solutions), warnings on
// standard error, a malformed file named by line and record with exit code 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, SHARED_DIR } from '../src/paths.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const BIN = join(ROOT, 'bin', 'gridops.js');
const PSSE = join(SHARED_DIR, 'reference', 'psse');

function gridops(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('gridops solve FILE.raw equals MATPOWER (DC lines included) and names what it left out', () => {
  const r = gridops(['solve', join(PSSE, 'cases', 'matpower', 't_psse_case3.raw'), '--json', '--max-iterations', '10']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  const ref = JSON.parse(readFileSync(join(PSSE, 'solutions', 't_psse_case3.json'), 'utf8'));
  for (const [id, , vm, va] of ref.pf.bus as number[][]) {
    const b = out.buses.find((x: { id: number }) => x.id === id);
    assert.ok(b && Math.abs(b.v - vm!) <= 1e-6 && Math.abs(b.theta - (va! * Math.PI) / 180) <= 1e-6, `bus ${id}`);
  }
  assert.match(r.stderr, /VSC_DC_NOT_MODELLED/);
  assert.match(r.stderr, /FACTS_NOT_MODELLED/);
});

test('gridops solve FILE.rawx and a revision-35 FILE.raw equal the revision-33 twin', () => {
  const ref = JSON.parse(readFileSync(join(PSSE, 'solutions', 'IEEE_14_bus.json'), 'utf8'));
  for (const f of ['IEEE_14_bus_rev35.rawx', 'IEEE_14_bus_rev35.raw']) {
    const r = gridops(['solve', join(PSSE, 'cases', 'powsybl', f), '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    out.buses.forEach((b: { v: number }, k: number) => assert.ok(Math.abs(b.v - ref.pf.bus[k][2]) <= 1e-6, `${f} bus ${k + 1}`));
  }
});

test('gridops study and opf read FILE.raw; a malformed one is named by line and record', () => {
  const study = gridops(['study', join(PSSE, 'cases', 'powsybl', 'IEEE_14_bus.raw')]);
  assert.equal(study.code, 0, study.stderr);
  assert.match(study.stdout, /20 contingencies/);
  const opf = gridops(['opf', join(PSSE, 'cases', 'powsybl', 'IEEE_14_bus.raw')]);
  // RAW files carry no costs: the OPF refuses them with its own words, not a parse error
  assert.equal(opf.code, 1);
  assert.match(opf.stderr, /cost/i);
  const dir = mkdtempSync(join(tmpdir(), 'gridops-psse-'));
  try {
    const bad = join(dir, 'bad.raw');
    writeFileSync(bad, "0, 100, 33\n\n\n 1,'A', abc\n");
    const r = gridops(['solve', bad]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.raw line 4 \(bus record\): expected a number for BASKV, found 'abc'/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('gridops study of a file with DC lines: each contingency equals the power flow of the network without that branch', async () => {
  const file = join(PSSE, 'cases', 'matpower', 't_case9_save2psse.raw');
  const r = gridops(['study', file, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const study = JSON.parse(r.stdout) as { cases: { case_id: string; status: string; min_v: number; max_v: number }[] };
  const { parsePsse } = await import('../src/psse/reader.js');
  const { createSolverPool } = await import('../src/engine/pool.js');
  const pool = createSolverPool({ threads: 1 });
  try {
    const model = parsePsse(readFileSync(file, 'utf8')).model;
    assert.equal(model.dc_lines?.length, 2);
    for (const k of [2, 5]) {
      const c = study.cases.find((x) => x.case_id === `branch:${k}`)!;
      const cut = { ...model, branches: model.branches.map((b, i) => (i === k ? { ...b, status: 'open' as const } : b)) };
      const pf = await solvePowerFlow(pool, cut, { method: 'newton_raphson', tolerance: 1e-8 });
      const vs = pf.buses.map((b) => b.v);
      assert.ok(Math.abs(Math.min(...vs) - c.min_v) <= 1e-6 && Math.abs(Math.max(...vs) - c.max_v) <= 1e-6, `case branch:${k}: ${c.min_v} / ${Math.min(...vs)}`);
    }
  } finally {
    await pool.close();
  }
});
