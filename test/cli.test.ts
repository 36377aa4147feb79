// The `gridops` command, run as a child process the way a user runs it (bin/gridops.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASES_DIR, REFERENCE_DIR, ROOT, SHARED_DIR } from '../src/paths.js';

const BIN = join(ROOT, 'bin', 'gridops.js');
const CASE9 = join(CASES_DIR, 'case9.m');

function gridops(args: string[], input?: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', input, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function assertNoStack(stderr: string): void {
  assert.doesNotMatch(stderr, /^\s+at /m, `stack trace on stderr:\n${stderr}`);
}

interface Result {
  status: string; method: string; iterations: number; duration_ms: number; tolerance: number; mismatch: number;
  buses: { id: number; v: number; theta: number; p_gen: number; q_gen: number; p_load: number; q_load: number }[];
  branches: { from: number; to: number; p_from: number; q_from: number; p_to: number; q_to: number; loading: number }[];
  generators: { bus: number; p_gen: number; q_gen: number }[];
  losses: { p_mw: number; q_mvar: number };
}

test('solve case9 --json prints only the result object, matching MATPOWER', () => {
  const r = gridops(['solve', CASE9, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Result; // the whole stdout is one JSON document
  const ref = JSON.parse(readFileSync(join(REFERENCE_DIR, 'case9.nr.json'), 'utf8')) as {
    iterations: number; losses: { p_mw: number; q_mvar: number };
    bus: { id: number; vm: number; va: number }[]; branch: { from: number; to: number; pf: number; qf: number; pt: number; qt: number }[];
  };
  assert.equal(res.status, 'converged');
  assert.equal(res.method, 'newton_raphson');
  assert.equal(res.iterations, 4);
  assert.equal(res.iterations, ref.iterations);
  assert.equal(res.tolerance, 1e-8);
  assert.ok(res.mismatch <= 1e-8);
  assert.ok(Number.isInteger(res.duration_ms));
  assert.deepEqual(Object.keys(res).sort(), ['branches', 'buses', 'duration_ms', 'generators', 'iterations', 'losses', 'method', 'mismatch', 'status', 'tolerance']);
  assert.equal(res.buses.length, 9);
  assert.equal(res.branches.length, 9);
  assert.equal(res.generators.length, 3);
  assert.equal(res.buses[0]!.id, 1);
  assert.ok(Math.abs(res.buses[0]!.v - 1.04) < 1e-12, `bus 1 v ${res.buses[0]!.v}`);
  for (let i = 0; i < 9; i++) {
    assert.equal(res.buses[i]!.id, ref.bus[i]!.id);
    assert.ok(Math.abs(res.buses[i]!.v - ref.bus[i]!.vm) < 1e-6, `bus ${ref.bus[i]!.id} v`);
    assert.ok(Math.abs(res.buses[i]!.theta - ref.bus[i]!.va) < 1e-6, `bus ${ref.bus[i]!.id} theta`);
  }
  for (let i = 0; i < 9; i++) {
    const [a, b] = [res.branches[i]!, ref.branch[i]!];
    assert.deepEqual([a.from, a.to], [b.from, b.to], 'branches in case order');
    assert.ok(Math.abs(a.p_from - b.pf) < 1e-4 && Math.abs(a.q_to - b.qt) < 1e-4, `branch ${i + 1} flows`);
  }
  assert.ok(Math.abs(res.losses.p_mw - ref.losses.p_mw) < 1e-4);
  assert.ok(Math.abs(res.losses.q_mvar - ref.losses.q_mvar) < 1e-4);
});

test('solve case9 without --json prints a human summary', () => {
  const r = gridops(['solve', CASE9]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /converged in 4 iterations/);
  assert.match(r.stdout, /Losses: 4\.64\d MW/);
  assert.match(r.stdout, /Lowest bus voltages/);
  assert.match(r.stdout, /Highest bus voltages:\n {2}bus 1 +1\.0400 p\.u\./);
  assert.match(r.stdout, /Most loaded branches:\n {2}#\d+ /);
  assert.equal(r.stderr, '');
});

test('solve --method dc: v = 1, converged', () => {
  const r = gridops(['solve', CASE9, '--method', 'dc', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Result;
  assert.equal(res.status, 'converged');
  assert.equal(res.method, 'dc');
  assert.equal(res.buses.length, 9);
  for (const b of res.buses) assert.equal(b.v, 1);
  const ref = JSON.parse(readFileSync(join(REFERENCE_DIR, 'case9.dc.json'), 'utf8')) as { bus: { va: number }[] };
  res.buses.forEach((b, i) => assert.ok(Math.abs(b.theta - ref.bus[i]!.va) < 1e-9));
});

test('solve --method fast_decoupled and case files read from standard input', () => {
  const r = gridops(['solve', '-', '--method', 'fast_decoupled', '--json'], readFileSync(CASE9, 'utf8'));
  assert.equal(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as Result;
  assert.equal(res.method, 'fast_decoupled');
  assert.equal(res.status, 'converged');
});

test('not converged within --max-iterations: exit 2, status diverged', () => {
  const r = gridops(['solve', CASE9, '--max-iterations', '1', '--json']);
  assert.equal(r.code, 2, r.stderr);
  const res = JSON.parse(r.stdout) as Result;
  assert.equal(res.status, 'diverged');
  const h = gridops(['solve', CASE9, '--max-iterations', '1']);
  assert.equal(h.code, 2);
  assert.match(h.stdout, /did NOT converge/);
});

test('a malformed case file: exit 1, the line on stderr, no stack trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-cli-'));
  try {
    const lines = readFileSync(CASE9, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.startsWith('\t4\t5\t0.017'));
    lines[i] = '\t4\t5\t0.017\t0.092';
    const bad = join(dir, 'bad.m');
    writeFileSync(bad, lines.join('\n'));
    const r = gridops(['solve', bad, '--json']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, new RegExp(`bad\\.m line ${i + 1}: expected 13 numeric columns in mpc\\.branch row, found 4`));
    assertNoStack(r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an input the solver refuses (an island without a slack): exit 1, the reason on stderr', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-cli-'));
  try {
    // open both branches to bus 9 of case9 (BR_STATUS 0)
    const text = readFileSync(CASE9, 'utf8')
      .replace(/^(\t8\t9\t.*\t)1(\t-360\t360;)$/m, '$10$2')
      .replace(/^(\t9\t4\t.*\t)1(\t-360\t360;)$/m, '$10$2');
    assert.equal((text.match(/\t0\t-360\t360;/g) ?? []).length, 2);
    const file = join(dir, 'island.m');
    writeFileSync(file, text);
    const r = gridops(['solve', file, '--json']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^gridops: .*island.*bus 9/);
    assertNoStack(r.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--timeout-ms exceeded: exit 2, status timeout', () => {
  const r = gridops(['solve', join(CASES_DIR, 'case13659pegase.m'), '--timeout-ms', '1', '--json']);
  assert.equal(r.code, 2, r.stderr);
  const res = JSON.parse(r.stdout) as Result;
  assert.equal(res.status, 'timeout');
  assert.deepEqual(res.buses, []);
});

test('usage errors: exit 1 with the usage on stderr', () => {
  for (const args of [['solve', CASE9, '--bogus'], ['solve'], ['solve', CASE9, '--method', 'gauss'], ['solve', CASE9, '--max-iterations', '2.5'], ['frobnicate'], []]) {
    const r = gridops(args);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, /Usage:\n {2}gridops solve CASE\.m/, args.join(' '));
    assert.equal(r.stdout, '');
    assertNoStack(r.stderr);
  }
  assert.match(gridops(['solve', CASE9, '--bogus']).stderr, /^gridops: unknown option '--bogus'/);
});

test('a missing file: exit 1, a one-line message', () => {
  const r = gridops(['solve', join(CASES_DIR, 'no-such-case.m')]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^gridops: cannot read .*no-such-case\.m: no such file\n$/);
});

test('without a build the shim says to build first', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-nobuild-'));
  try {
    mkdirSync(join(dir, 'bin'));
    copyFileSync(BIN, join(dir, 'bin', 'gridops.js'));
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'gridops.js'), 'solve', CASE9], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /run npm run build first/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--help prints the usage and exits 0', () => {
  for (const args of [['--help'], ['solve', '--help']]) {
    const r = gridops(args);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /--max-iterations N/);
    assert.match(r.stdout, /Exit codes: 0 converged, 1 usage or input error, 2 diverged or timed out/);
  }
});

// ---- gridops study (src/cliStudy.ts): the study engine offline
const N1_DIR = join(REFERENCE_DIR, '..', 'n1');

test('study case30 --json prints the base and one row per in-service branch, as MATPOWER\'s N-1', () => {
  const r = gridops(['study', join(CASES_DIR, 'case30.m'), '--json', '--threads', '2', '--islanding', 'skip']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { base: { status: string; iterations: number }; cases: { case_id: string; status: string; islanded?: { buses: number[] }; max_loading_percent: number | null }[] };
  const ref = JSON.parse(readFileSync(join(N1_DIR, 'case30.branches.json'), 'utf8')) as { contingencies: { branch: number; status: string; islands?: number[][]; max_loading_pct?: number }[] };
  assert.equal(out.base.status, 'converged');
  assert.equal(out.cases.length, ref.contingencies.length);
  out.cases.forEach((c, k) => {
    const rc = ref.contingencies[k]!;
    assert.equal(c.case_id, `branch:${rc.branch - 1}`);
    assert.equal(c.status, rc.status === 'islanded' ? 'islanded' : 'converged');
    if (rc.status === 'islanded') assert.deepEqual(c.islanded!.buses, rc.islands!.flat());
    else assert.ok(Math.abs(c.max_loading_percent! - rc.max_loading_pct!) < 1e-3);
  });
});

test('study --csv prints a header and one line per case; the summary names islanding outages', () => {
  const csv = gridops(['study', join(CASES_DIR, 'case118.m'), '--contingencies', 'n-1-generators', '--csv']);
  assert.equal(csv.code, 0, csv.stderr);
  const lines = csv.stdout.trimEnd().split('\n');
  assert.match(lines[0]!, /^case_id,scenario,contingency_id,/);
  assert.equal(lines.length, 1 + 54);
  assert.ok(lines.some((l) => /^generator:29,.*,diverged,slack_lost,0,/.test(l)), 'the slack generator\'s outage is slack_lost');
  const text = gridops(['study', join(CASES_DIR, 'case30.m'), '--islanding', 'skip']);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /41 contingencies \(n-1-branches\)/);
  assert.match(text.stdout, /38 converged, 0 diverged, 3 islanded/);
  assert.match(text.stdout, /branch:15 +cuts off bus 13 \(0\.0 MW load, 37\.0 MW generation\)/);
  // The default, isolate: every case solved; the outage that cuts off bus 26 lost its 3.5 MW.
  const isolated = gridops(['study', join(CASES_DIR, 'case30.m')]);
  assert.equal(isolated.code, 0, isolated.stderr);
  assert.match(isolated.stdout, /41 converged, 0 diverged, 0 islanded; \d+ with violations, \d+ new or worsened; 1 with lost load/);
  assert.match(isolated.stdout, /branch:33 +cuts off bus 26 \(3\.5 MW load, 0\.0 MW generation\)/);
  assert.match(gridops(['study', join(CASES_DIR, 'case30.m'), '--islanding', 'maybe']).stderr, /--islanding must be one of isolate, new_reference, skip/);
});

test('study: bad options are usage errors (exit 1, no stack)', () => {
  for (const args of [['--contingencies', 'n-2'], ['--json', '--csv'], ['--threads', '0'], ['--loading-limit', 'x'], ['--method', 'newton']]) {
    const r = gridops(['study', join(CASES_DIR, 'case30.m'), ...args]);
    assert.equal(r.code, 1, args.join(' '));
    assert.match(r.stderr, /^gridops: /);
    assert.match(r.stderr, /Usage: gridops study/);
    assertNoStack(r.stderr);
  }
  const none = gridops(['study']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /study needs a case file/);
});

test('opf case9 --method dc --json prints the OPF result matching MATPOWER rundcopf', () => {
  const r = gridops(['opf', CASE9, '--method', 'dc', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as { status: string; method: string; objective: number; generators: { p_mw: number }[]; buses: { lmp_p: number }[] };
  assert.equal(res.status, 'converged');
  assert.equal(res.method, 'dc');
  assert.ok(Math.abs(res.objective - 5216.0266077472725) < 1e-5 * 5216);
  assert.ok(Math.abs(res.generators[0]!.p_mw - 86.56449793365489) < 1e-3);
  assert.ok(Math.abs(res.buses[0]!.lmp_p - 24.044189544746) < 1e-3);
});

test('opf case9 (AC, the default) prints MATPOWER runopf\'s answer', () => {
  const ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'opf', 'case9.acopf.json'), 'utf8')) as { f: number; gen: { pg: number; qg: number }[]; bus: { vm: number }[] };
  const r = gridops(['opf', CASE9, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const res = JSON.parse(r.stdout) as { status: string; method: string; objective: number; generators: { p_mw: number; q_mvar: number }[]; buses: { v: number }[] };
  assert.deepEqual([res.status, res.method], ['converged', 'ac']);
  assert.ok(Math.abs(res.objective - ref.f) < 1e-6 * ref.f);
  res.generators.forEach((g, i) => { assert.ok(Math.abs(g.p_mw - ref.gen[i]!.pg) < 1e-3); assert.ok(Math.abs(g.q_mvar - ref.gen[i]!.qg) < 1e-3); });
  res.buses.forEach((b, i) => assert.ok(Math.abs(b.v - ref.bus[i]!.vm) < 1e-5));
  const text = gridops(['opf', CASE9]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /AC-OPF \(MIPS\): converged after 11 iterations/);
  assert.match(text.stdout, /Objective: 5296\.69 per hour/);
  assert.match(text.stdout, /Voltage: 1\.0\d+ \.\. 1\.1000 p\.u\./);
});

test('opf --start case / powerflow start the interior point there; an unknown start is a usage error', () => {
  for (const start of ['case', 'powerflow']) {
    const r = gridops(['opf', CASE9, '--start', start, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const res = JSON.parse(r.stdout) as { status: string; start: string; objective: number };
    assert.deepEqual([res.status, res.start], ['converged', start]);
    assert.ok(Math.abs(res.objective - 5296.686) < 1e-6 * 5296.686, `${start}: ${res.objective}`);
  }
  const bad = gridops(['opf', CASE9, '--start', 'flat']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--start must be one of default, case, powerflow/);
});

test('opf: summary, bad method and a case without costs fail with a message and exit 1', () => {
  const ok = gridops(['opf', CASE9, '--method', 'dc']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /DC-OPF \(MIPS\): converged after 8 iterations/);
  assert.match(ok.stdout, /Objective: 5216\.03 per hour/);
  const bad = gridops(['opf', CASE9, '--method', 'ac-ish']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--method must be dc or ac/);
  const noCost = gridops(['opf', '-', '--method', 'dc'], readFileSync(CASE9, 'utf8').replace(/mpc\.gencost = \[[^\]]*\];/, ''));
  assert.equal(noCost.code, 1);
  assert.match(noCost.stderr, /in service without a cost/);
  assertNoStack(noCost.stderr);
});
