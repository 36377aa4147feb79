// `gridops se CASE.m --measurements FILE.json` (CONTRACT "State estimation"): the reference files are measurement
// files as they are; --json prints the service's result object (removals and J as the reference), a summary
// otherwise; an unobservable set exits 0 naming its buses; a bad file or element exits 1 with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, ROOT, SHARED_DIR } from '../src/paths.js';

const BIN = join(ROOT, 'bin', 'gridops.js');
const REF = join(SHARED_DIR, 'reference', 'state-estimation');
const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });

test('gridops se --json equals the lnr reference', () => {
  const file = join(REF, 'a_case14_test_se_14bus.json');
  const ref = JSON.parse(readFileSync(file, 'utf8'));
  const r = run('se', join(CASES_DIR, 'case14.m'), '--measurements', file, '--json');
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.status, 'converged');
  assert.deepEqual(
    out.bad_data.map((b: { measurement: number }) => b.measurement),
    ref.bad_data_lnr.removed.map((b: { measurement: number }) => b.measurement),
  );
  assert.ok(Math.abs(out.J - ref.bad_data_lnr.final.J) <= 1e-8 * ref.bad_data_lnr.final.J);
});

test('gridops se --no-bad-data is doSE alone; the summary names J and the test', () => {
  const file = join(REF, 'a_case14_test_se_14bus.json');
  const r = run('se', join(CASES_DIR, 'case14.m'), '--measurements', file, '--no-bad-data');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /converged \(7 iterations, 1 pass\)/);
  assert.match(r.stdout, /J = 200\.0945, dof 13/);
  assert.match(r.stdout, /failed/);
});

test('gridops se names the unobservable buses', () => {
  const r = run('se', join(CASES_DIR, 'case14.m'), '--measurements', join(REF, 'b_case14_test_se_14bus_err.json'));
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /unobservable buses: 8, 10, 14/);
});

test('gridops se refuses a missing file, a bad element and a missing --measurements with exit 1', () => {
  let r = run('se', join(CASES_DIR, 'case14.m'), '--measurements', join(REF, 'nope.json'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /nope\.json/);
  r = run('se', join(CASES_DIR, 'case9.m'), '--measurements', join(REF, 'a_case14_test_se_14bus.json'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /measurement \d+: there is no (branch|generator|bus)/);
  r = run('se', join(CASES_DIR, 'case14.m'));
  assert.equal(r.status, 1);
  assert.match(r.stderr, /--measurements/);
});
