// #40 item 1: one engine contract. pool.run(kind, payload, hooks) runs every kind of src/engine/kinds.ts by its name
// on a solver thread (workers/solver.ts exports the table of kinds), hands the payload's buffers to the thread
// (transferred, not copied; what the caller reads again stays), and stops a job the same way whatever its kind.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import type { Kind, Payload } from '../src/engine/kinds.js';
import { packNetwork } from '../src/powerflow/pack.js';
import { DEFAULT_SOLVE_OPTIONS } from '../src/powerflow/types.js';
import { OUT, STATUS } from '../src/powerflow/abi.js';
import { packOpf } from '../src/opf/pack.js';
import { opfCallOptions } from '../src/opf/solve.js';
import { OUT as OPF_OUT, STATUS as OPF_STATUS } from '../src/opf/abi.js';

const pool = createSolverPool({ threads: 1 });
after(() => pool.close());
const case9 = parseMatpower(readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), 'case9.m');

function payloads(): { [K in Kind]: Payload<K> } {
  const dc = packNetwork(case9, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' });
  const opf = packOpf(case9, opfCallOptions({ method: 'dc' }));
  return {
    powerflow: { input: packNetwork(case9, DEFAULT_SOLVE_OPTIONS).input, qlim: false },
    // a buffer of the wrong ABI: the study core answers done -1, the estimate BAD_INPUT (their domains say so)
    study: { input: new Float64Array(64), study: new Float64Array(64), monitorPerCase: 0 },
    opf: { input: opf.input },
    sensitivity: { input: dc.input, kind: 0, items: Float64Array.of(0) },
    stateEstimation: { input: new Float64Array(64) },
    layout: { n: 3, edges: Int32Array.of(0, 1, 1, 2), pinned: null },
    scopf: {
      opf: packOpf(case9, opfCallOptions({ method: 'dc' })).input, dc: packNetwork(case9, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' }).input,
      dcBranches: dc.nl, sens: Int32Array.from({ length: dc.nl }, (_, l) => l), limit: new Float64Array(dc.nl),
      outageStart: Int32Array.of(0), outageBranches: new Int32Array(0), bridge: new Uint8Array(0), timeLimitMs: 60_000,
    },
    release: {},
  };
}

test('every kind is run by its name; the buffers it hands the thread are transferred, the ones read again stay', async () => {
  const p = payloads();
  const pf = await pool.run('powerflow', p.powerflow);
  assert.ok(!pf.stopped && pf.value[OUT.STATUS] === STATUS.CONVERGED);
  assert.equal(p.powerflow.input.byteLength, 0, 'transferred');
  const study = await pool.run('study', p.study);
  assert.ok(!study.stopped && study.value.done === -1);
  assert.equal(p.study.input.byteLength + p.study.study.byteLength, 0);
  const opf = await pool.run('opf', p.opf);
  assert.ok(!opf.stopped && opf.value[OPF_OUT.STATUS] === OPF_STATUS.CONVERGED);
  assert.equal(p.opf.input.byteLength, 0);
  const ptdf = await pool.run('sensitivity', p.sensitivity);
  assert.ok(!ptdf.stopped && ptdf.value !== null && ptdf.value.length === case9.buses.length);
  assert.equal(p.sensitivity.input.byteLength + p.sensitivity.items.byteLength, 0);
  const se = await pool.run('stateEstimation', p.stateEstimation);
  assert.ok(!se.stopped && se.value.length > 0);
  assert.equal(p.stateEstimation.input.byteLength, 0);
  const xy = await pool.run('layout', p.layout);
  assert.ok(!xy.stopped && xy.value.length === 6 && xy.value.every(Number.isFinite));
  assert.equal(p.layout.edges.byteLength, 0);
  const scopf = await pool.run('scopf', p.scopf);
  assert.ok(!scopf.stopped && scopf.value.end === 'done' && scopf.value.rounds === 1, JSON.stringify(!scopf.stopped && scopf.value.end));
  assert.equal(p.scopf.opf.byteLength + p.scopf.dc.byteLength, 0);
  assert.equal(p.scopf.limit.length, case9.branches.length, 'the small arrays the caller reads again are copied');
  const released = await pool.run('release', p.release);
  assert.ok(!released.stopped && released.value > 0, 'release answers the instance memory it kept');
});

test('a job stopped before it reached a thread is answered stopped, whatever its kind and stop mode', async () => {
  const ac = new AbortController();
  ac.abort();
  const p = payloads();
  for (const kind of Object.keys(p) as Kind[]) {
    assert.deepEqual(await pool.run(kind, p[kind] as never, { signal: ac.signal }), { stopped: 'cancelled' }, kind);
    assert.deepEqual(await pool.run(kind, p[kind] as never, { signal: ac.signal, answerWhenStopped: true }), { stopped: 'cancelled' }, kind);
  }
  const pf = await pool.run('powerflow', p.powerflow, { timeoutMs: 60_000 });
  assert.ok(!pf.stopped, 'the thread answers the next job');
});
