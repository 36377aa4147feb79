// Results stored in binary (src/powerflow/resultValues.ts, tasks.result_values): the
// encoding alone, then a stored task in both modes read back identical to a direct solve.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { decodeResultValues, encodeResultValues, type ResultValues } from '../src/powerflow/resultValues.js';
import { loadVersion } from '../src/domain/networks.js';
import { DEFAULT_SOLVE_OPTIONS } from '../src/powerflow/types.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';
import { createSolverPool } from '../src/engine/pool.js';
import { parseMatpower } from '../src/matpower/reader.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

describe('result values encoding', () => {
  const sample: ResultValues = {
    buses: [
      { id: 1, v: 1.0600000000000001, theta: 0, p_gen: 232.39327, q_gen: -16.549, p_load: 0, q_load: 0 },
      { id: 70002, v: 0.98, theta: -0.2174927, p_gen: -0, q_gen: 1e-300, p_load: 21.7, q_load: 12.7 },
    ],
    branches: [{ index: 0, from: 1, to: 70002, p_from: 156.88, q_from: -20.4, p_to: -152.59, q_to: 27.68, loading: 1.7976931348623157e308 }],
    generators: [{ bus: 1, p_gen: 232.39327, q_gen: -16.549 }],
  };

  it('decodes to exactly what was encoded, element ids included', () => {
    const back = decodeResultValues(encodeResultValues(sample));
    assert.deepEqual(back, sample);
    assert.ok(Object.is(back.buses[1]!.p_gen, -0), 'the sign of zero survives');
  });

  it('decodes bytes that are not 8-byte aligned (as a driver may hand them over)', () => {
    const bin = encodeResultValues(sample);
    const shifted = Buffer.alloc(bin.length + 3);
    bin.copy(shifted, 3);
    assert.deepEqual(decodeResultValues(shifted.subarray(3)), sample);
  });

  it('encodes an empty result', () => {
    assert.deepEqual(decodeResultValues(encodeResultValues({ buses: [], branches: [], generators: [] })), { buses: [], branches: [], generators: [] });
  });

  it('rejects bytes that are not an encoded result, saying why', () => {
    const bin = encodeResultValues(sample);
    assert.throws(() => decodeResultValues(bin.subarray(0, bin.length - 8)), /corrupt or of an unknown format/);
    assert.throws(() => decodeResultValues(bin.subarray(0, 13)), /corrupt: 13 bytes/);
    const other = Buffer.from(bin);
    other.writeDoubleLE(2, 0);
    assert.throws(() => decodeResultValues(other), /format 2/);
  });
});

describe('result values written straight from the solver (the queue\'s runs)', () => {
  const pool = createSolverPool({ threads: 1 });
  after(() => pool.close());
  const read = (name: string) => parseMatpower(readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'), `${name}.m`);
  // case30 with an open branch, a generator out of service and a bus left without a branch: isolated buses, open
  // branches and generators that report 0 take the branches of the writer that the plain cases do not.
  const altered = (): NetworkModel => {
    const m = read('case30');
    const lone = m.buses.find((b) => b.type === 'pq' && m.branches.filter((br) => br.from === b.id || br.to === b.id).length === 1)!;
    return {
      ...m,
      buses: m.buses.map((b) => (b.id === lone.id ? { ...b, type: 'isolated' as const } : b)),
      branches: m.branches.map((br, k) => (k === 3 || br.from === lone.id || br.to === lone.id ? { ...br, status: 'open' as const } : br)),
      generators: m.generators.map((g, k) => (k === 2 ? { ...g, in_service: false } : g)),
    };
  };
  const cases: [string, () => NetworkModel, Record<string, unknown>][] = [
    ['case118, Newton-Raphson', () => read('case118'), {}],
    ['case118, DC', () => read('case118'), { method: 'dc' }],
    ['case118, fast decoupled, reactive limits', () => read('case118'), { method: 'fast_decoupled', enforceQLimits: true, maxIterations: 100 }],
    ['case30 with an isolated bus, an open branch and a generator out of service', altered, {}],
  ];
  for (const [name, model, options] of cases) {
    it(`gives the bytes encodeResultValues gives the unpacked result: ${name}`, async () => {
      const net = model();
      const objects = await solvePowerFlow(pool, net, options);
      const binary = await solvePowerFlow(pool, net, options, { binaryValues: true });
      assert.equal(objects.status, 'converged', objects.message);
      assert.ok(binary.values instanceof Buffer, 'the values come in binary');
      assert.deepEqual([binary.buses, binary.branches, binary.generators], [[], [], []], 'and no objects');
      assert.ok(binary.values.equals(encodeResultValues(objects)), 'the same bytes');
      const { buses, branches, generators, duration_ms: _a, ...header } = objects;
      const { buses: _b, branches: _c, generators: _d, values: _e, duration_ms: _f, ...binaryHeader } = binary;
      assert.deepEqual(binaryHeader, header);
      assert.deepEqual(decodeResultValues(binary.values), { buses, branches, generators });
    });
  }

  it('comes with the arrays when the result is not the solved model\'s (islands split off)', async () => {
    const outcome = await solvePowerFlow(pool, altered(), { islanding: 'isolate' }, { binaryValues: true });
    assert.equal(outcome.values, undefined);
    assert.ok(outcome.buses.length > 0);
  });
});

for (const mode of MODES) {
  describe(`stored power-flow results (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    let networkId: string;

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const res = await app.app!.inject({ method: 'POST', url: '/api/v1/networks/import?format=matpower', headers: { ...h, 'content-type': 'text/plain' }, payload: readFileSync(join(CASES_DIR, 'case118.m'), 'utf8') });
      assert.equal(res.statusCode, 201, res.body);
      networkId = json(res).data.id;
    });
    after(async () => app?.close());

    it('stores the values in binary beside a JSON header and reads back exactly the solver\'s numbers', async () => {
      const sub = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${networkId}/powerflow`, headers: h, payload: { async: true } });
      assert.equal(sub.statusCode, 202, sub.body);
      const taskId = json(sub).data.task_id;
      assert.equal(await waitForTaskStatus(app, h, taskId, 'completed'), 'completed');

      const { rows: [row] } = await app.services.db.query<{ result: Record<string, unknown>; result_values: Uint8Array | null }>('SELECT result, result_values FROM tasks WHERE id = $1', [taskId]);
      assert.ok(row!.result_values && row!.result_values.byteLength === 8 * (4 + 118 * 7 + 186 * 7 + 54 * 3), 'values stored in binary');
      assert.equal('buses' in row!.result, false, 'the JSON header carries no per-element arrays');
      assert.equal(row!.result.status, 'converged');

      const task = json(await app.app!.inject({ method: 'GET', url: `/api/v1/tasks/${taskId}?include=result`, headers: h })).data;
      assert.deepEqual(Object.keys(task.result), ['task_id', 'network_id', 'network_version', 'status', 'method', 'iterations', 'mismatch', 'duration_ms', 'tolerance', 'buses', 'branches', 'generators', 'losses', 'started_at', 'completed_at']);
      // A solve is deterministic: the same model and options give the same bits.
      const model = await loadVersion(app.services.db, networkId, task.network_version);
      const direct = await solvePowerFlow(app.services.solver!, model, DEFAULT_SOLVE_OPTIONS);
      assert.deepEqual(task.result.buses, JSON.parse(JSON.stringify(direct.buses)));
      assert.deepEqual(task.result.branches, JSON.parse(JSON.stringify(direct.branches)));
      assert.deepEqual(task.result.generators, JSON.parse(JSON.stringify(direct.generators)));
    });

    it('still reads a result stored whole in JSON (rows written before the binary column)', async () => {
      const sub = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${networkId}/powerflow`, headers: h, payload: {} });
      assert.equal(sub.statusCode, 200, sub.body);
      const solved = json(sub).data;
      await app.services.db.query('UPDATE tasks SET result = $2::json, result_values = NULL WHERE id = $1', [solved.task_id, JSON.stringify(solved)]);
      const task = json(await app.app!.inject({ method: 'GET', url: `/api/v1/tasks/${solved.task_id}?include=result`, headers: h })).data;
      assert.deepEqual(task.result, solved);
    });
  });
}
