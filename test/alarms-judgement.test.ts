// The order in which power-flow results are judged for alarms (src/domain/alarms.ts): a result that
// violates nothing is judged in one statement, and still never overrides a newer result's judgement,
// never judges a deleted network, and clears what is open.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, startTestApp, type TestApp } from './helpers/app.js';
import { evaluatePowerFlowAlarms } from '../src/domain/alarms.js';
import { createNetwork, deleteNetwork, loadVersion } from '../src/domain/networks.js';
import { systemCaller } from '../src/domain/caller.js';
import type { TaskRow } from '../src/domain/tasks.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

for (const mode of MODES) {
  describe(`alarm judgement order (${mode})`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(mode);
    });
    after(() => app.close());

    const caller = systemCaller('default');
    const network = {
      name: 'judged',
      buses: [
        { id: 1, type: 'slack' as const },
        { id: 2, type: 'pq' as const, vmin: 0.95, vmax: 1.05 },
      ],
      branches: [{ from: 1, to: 2, r: 0.01, x: 0.1, rate_a: 100 }],
    };
    const task = (networkId: string, seq: number, loading: number, v = 1): TaskRow => ({
      id: `task_judged_${seq}`,
      seq,
      tenant_id: 'default',
      network_id: networkId,
      network_version: 1,
      kind: 'powerflow',
      status: 'completed',
      options: {},
      progress: null,
      error: null,
      attempts: 1,
      created_at: new Date(),
      started_at: new Date(),
      completed_at: new Date(),
      result: {
        status: 'converged',
        buses: [
          { id: 1, v: 1 },
          { id: 2, v },
        ],
        branches: [{ from: 1, to: 2, loading, p_from: 0, q_from: 0, p_to: 0, q_to: 0 }],
      },
    });
    const openAlarms = async (networkId: string) =>
      (
        await app.services.db.query<{ type: string }>(
          `SELECT type FROM alarms WHERE network_id = $1 AND status <> 'cleared' ORDER BY type`,
          [networkId],
        )
      ).rows.map((r) => r.type);

    it('judges quiet and violating results in task order, clears on a quiet one, skips older and deleted', async () => {
      const s = app.services;
      const net = await createNetwork(s, caller, network);
      const model: NetworkModel = await loadVersion(s.db, net.id, 1);

      // a quiet result first: judged, nothing raised
      assert.deepEqual(await evaluatePowerFlowAlarms(s, task(net.id, 10, 50), undefined, model), { raised: 0, cleared: 0 });
      // an older violating result finishing late changes nothing
      const late = await evaluatePowerFlowAlarms(s, task(net.id, 9, 130, 0.9), undefined, model);
      assert.equal(late.skipped, 'a newer result was already judged');
      assert.deepEqual(await openAlarms(net.id), []);
      // a newer violating result raises
      assert.deepEqual(await evaluatePowerFlowAlarms(s, task(net.id, 11, 130, 0.9), undefined, model), { raised: 2, cleared: 0 });
      assert.deepEqual(await openAlarms(net.id), ['overload', 'voltage']);
      // an older quiet result does not clear them
      const older = await evaluatePowerFlowAlarms(s, task(net.id, 10, 50), undefined, model);
      assert.equal(older.skipped, 'a newer result was already judged');
      assert.deepEqual(await openAlarms(net.id), ['overload', 'voltage']);
      // a newer quiet result clears both
      assert.deepEqual(await evaluatePowerFlowAlarms(s, task(net.id, 12, 50), undefined, model), { raised: 0, cleared: 2 });
      assert.deepEqual(await openAlarms(net.id), []);
      const { rows } = await s.db.query<{ task_seq: number }>('SELECT task_seq FROM alarm_evaluations WHERE network_id = $1', [net.id]);
      assert.equal(Number(rows[0]!.task_seq), 12);
      // a deleted network is not judged
      await deleteNetwork(s, caller, net.id);
      assert.equal((await evaluatePowerFlowAlarms(s, task(net.id, 13, 50), undefined, model)).skipped, 'network deleted');
    });
  });
}
