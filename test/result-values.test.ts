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
