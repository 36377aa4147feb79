// Issue 35, engine level (the doors are tested in scopf-api.test.ts and sensitivities-api.test.ts, both modes):
// a failure inside a solver thread reaches callers as SolverCoreError, whose message names none of the core's
// internals, and the thread answers the next call; a solver instance whose memory grew past its bound is
// replaced, so the memory goes back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { PowerFlowEngine } from '../src/engine/solverInstance.js';
import { InstanceRecycling } from '../src/engine/instanceRecycling.js';
import { SolverCoreError } from '../src/engine/coreFailure.js';
import { packNetwork } from '../src/powerflow/pack.js';
import { DEFAULT_SOLVE_OPTIONS } from '../src/powerflow/types.js';
import { computeSensitivities } from '../src/sensitivities/compute.js';
import { publicError } from '../src/domain/sensitivities.js';
import { AppError } from '../src/lib/errors.js';
import type { Services } from '../src/services.js';

const load = (c: string) => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);

test('a core failure is a SolverCoreError without internals, answered as 500 INTERNAL_ERROR; the thread answers the next call', async () => {
  const pool = createSolverPool({ threads: 1 });
  try {
    const bad = new Float64Array(64); // ABI version 0: the core refuses the buffer
    let failure: unknown;
    await pool.run('sensitivity', { input: bad, kind: 0, items: Float64Array.of(0) }).catch((e: unknown) => {
      failure = e;
    });
    assert.ok(failure instanceof SolverCoreError, String(failure));
    assert.doesNotMatch(failure.message, /powerflow\.wasm|abort at|ABI/);
    assert.match(failure.detail, /ABI mismatch/, 'the internals stay for the log');
    const logged: unknown[] = [];
    const answer = publicError({ log: { error: (o: unknown) => logged.push(o) } } as unknown as Services, failure);
    assert.ok(answer instanceof AppError && answer.statusCode === 500 && answer.code === 'INTERNAL_ERROR');
    assert.doesNotMatch(answer.message, /powerflow\.wasm|ABI/);
    assert.equal(logged.length, 1);
    const r = await computeSensitivities(pool, load('case30'), { kind: 'ptdf', branches: [0] });
    assert.equal(r.values[0]!.length, 30, 'the next call is answered');
  } finally {
    await pool.close();
  }
});

test('a solver instance whose memory grew past its bound is replaced: the memory goes back, the instance still solves', () => {
  const engine = new PowerFlowEngine();
  const fresh = engine.memoryBytes;
  const net = load('case2383wp');
  const packed = packNetwork(net, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' });
  const items = Float64Array.from({ length: 1500 }, (_, k) => k);
  const out = engine.sensitivity(packed.input, 0, items);
  assert.ok(out && out.length === 1500 * packed.nb);
  const grown = engine.memoryBytes;
  assert.ok(grown > fresh + (16 << 20), `${grown} bytes after the rows, ${fresh} fresh`);
  assert.equal(engine.recycleAbove(grown), false, 'within its bound: kept (with its caches)');
  assert.equal(engine.recycleAbove(fresh), true);
  assert.equal(engine.memoryBytes, fresh);
  const again = engine.sensitivity(packed.input, 0, items.subarray(0, 10));
  assert.deepEqual(again, out.subarray(0, 10 * packed.nb), 'the new instance answers the same');
});

test('a large instance is replaced when released, a grown one right after its task; a small one keeps its caches', () => {
  const engine = new PowerFlowEngine();
  const fresh = engine.memoryBytes;
  const net = load('case2383wp');
  const packed = packNetwork(net, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' });
  const rows = Float64Array.from({ length: 1500 }, (_, k) => k);
  let collections = 0;
  const grow = () => assert.ok(engine.sensitivity(packed.input, 0, rows));
  const lenient = new InstanceRecycling(engine, { maxBytes: 1 << 30, idleBytes: 1 << 30 }, () => { collections++; });
  grow();
  lenient.taskEnded();
  const grown = engine.memoryBytes;
  assert.ok(grown > fresh, 'the rows grew the instance');
  assert.equal(lenient.release(), grown, 'below both bounds: kept, with its caches');
  const idle = new InstanceRecycling(engine, { maxBytes: 1 << 30, idleBytes: fresh }, () => { collections++; });
  idle.taskEnded();
  assert.equal(engine.memoryBytes, grown, 'within the task bound: kept after the task');
  assert.equal(idle.release(), fresh, 'above the idle bound: replaced when released');
  assert.equal(collections, 1);
  const strict = new InstanceRecycling(engine, { maxBytes: fresh, idleBytes: 1 << 30 }, () => { collections++; });
  grow();
  strict.taskEnded();
  assert.equal(engine.memoryBytes, fresh, 'grown past the task bound: replaced at once');
  assert.equal(collections, 2);
});

test('an idle pool has its threads release large instances; the memory goes back', { timeout: 120_000 }, async () => {
  const pool = createSolverPool({ threads: 1 });
  try {
    const before = (await pool.release())[0]!;
    const net = load('case9241pegase');
    const packed = packNetwork(net, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' });
    const ran = await pool.run('sensitivity', { input: packed.input, kind: 0, items: Float64Array.from({ length: 400 }, (_, k) => k) });
    assert.ok(!ran.stopped && ran.value);
    const releases = pool.idleReleases;
    // the pool's own idle release (at most a minute: a bound on the test, not a timing claim)
    for (let i = 0; i < 600 && pool.idleReleases === releases; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(pool.idleReleases, releases + 1, 'released once idle');
    const after = (await pool.release())[0]!;
    assert.ok(after <= before + (16 << 20), `the thread's instance back to ${after} bytes (was ${before} before the matrix)`);
  } finally {
    await pool.close();
  }
});
