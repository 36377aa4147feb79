// Islands through every door (CONTRACT "Islands"), both modes: a MATPOWER case with open
// branches that split it is imported and validated (its islands listed); a power flow refuses it
// by default and solves it with islanding isolate / new_reference through REST (sync and async),
// GraphQL, the agents' run_powerflow and the CLI; de-energized buses raise no voltage alarm.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { writeMatpower } from '../src/matpower/writer.js';
import { parseSolveArgs, resultObject } from '../src/cli.js';
import { createSolverPool } from '../src/engine/pool.js';
import { powerFlowConditions } from '../src/domain/alarmRules.js';
import { solveOpf } from '../src/opf/solve.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

/** case118 with branch 6 (cuts off generator buses 9-10, 450 MW) and branch 183 (bus 117, 20 MW of load) open. */
function splitCase118(): string {
  const m = parseMatpower(readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), 'case118.m');
  return writeMatpower({ ...m, name: 'case118_split', branches: m.branches.map((b, k) => (k === 6 || k === 183 ? { ...b, status: 'open' as const } : b)) });
}

for (const mode of MODES) {
  describe(`islands through every door (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let net: string;
    const { call, ok, err } = restClient(() => ({ app, h }));
    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const r = await call('POST', '/api/v1/networks/import?format=matpower', splitCase118(), { 'content-type': 'text/plain' });
      assert.equal(r.statusCode, 201, `a split network is stored: ${r.body}`);
      net = json(r).data.id;
    });
    after(async () => {
      await app?.close();
    });

    it('validate lists the islands; a power flow refuses them by default', async () => {
      const v = await ok('POST', `/api/v1/networks/${net}/validate`);
      assert.equal(v.valid, false);
      assert.deepEqual(v.islands.map((i: { buses: number[]; slack_bus: number | null }) => [i.buses.length, i.slack_bus]), [[115, 69], [2, null], [1, null]]);
      err(await call('POST', `/api/v1/networks/${net}/powerflow`, {}), 422, 'ISLANDED_BUS');
      err(await call('POST', `/api/v1/networks/${net}/powerflow`, { islanding: 'refuse' }), 422, 'ISLANDED_BUS');
      err(await call('POST', `/api/v1/networks/${net}/powerflow`, { islanding: 'sometimes' }), 400, 'INVALID_FIELD');
    });

    it('REST isolate (sync) and new_reference (async, read back from the task) answer what was lost', async () => {
      const iso = await ok('POST', `/api/v1/networks/${net}/powerflow`, { islanding: 'isolate' });
      assert.equal(iso.status, 'converged');
      assert.equal(iso.lost_load_mw, 20);
      assert.equal(iso.lost_generation_mw, 450);
      assert.deepEqual(
        iso.islands
          .map((i: { buses: number[]; energized: boolean; reference_bus: number | null }) => [i.buses, i.energized, i.reference_bus])
          .slice(1),
        [
          [[9, 10], false, null],
          [[117], false, null],
        ],
      );
      for (const id of [9, 10, 117]) {
        const b = iso.buses.find((x: { id: number }) => x.id === id);
        assert.deepEqual([b.v, b.theta, b.energized], [0, 0, false]);
      }
      assert.equal(iso.buses.find((x: { id: number }) => x.id === 69).energized, true);

      const queued = await ok('POST', `/api/v1/networks/${net}/powerflow`, { islanding: 'new_reference', async: true }, 202);
      assert.ok(await app.services.tasks.waitFor(queued.task_id, 60_000), 'the task finished');
      const t = await ok('GET', `/api/v1/tasks/${queued.task_id}?include=result`);
      assert.equal(t.status, 'completed', JSON.stringify(t.error));
      assert.equal(t.result.lost_load_mw, 20);
      assert.equal(t.result.lost_generation_mw, 0);
      assert.equal(t.result.islands[1].reference_bus, 10);
      // The stored binary values keep the energized flag.
      assert.equal(t.result.buses.find((x: { id: number }) => x.id === 10).energized, true);
      assert.equal(t.result.buses.find((x: { id: number }) => x.id === 117).energized, false);
    });

    it('de-energized buses raise no voltage alarm (the conditions alarms are raised from)', async () => {
      const pf = await ok('POST', `/api/v1/networks/${net}/powerflow`, { islanding: 'isolate' });
      const model = parseMatpower(splitCase118(), 'split.m');
      const voltage = powerFlowConditions(model, pf)
        .filter((c) => c.sourceType === 'bus')
        .map((c) => c.sourceId);
      const unmarked = powerFlowConditions(model, { ...pf, buses: pf.buses.map((b: object) => ({ ...b, energized: undefined })) })
        .filter((c) => c.sourceType === 'bus')
        .map((c) => c.sourceId);
      for (const id of ['9', '10', '117']) {
        assert.ok(!voltage.includes(id), `no voltage condition for de-energized bus ${id}: ${voltage}`);
        assert.ok(unmarked.includes(id), `without the flag, v = 0 would be one (${id})`);
      }
    });

    it('GraphQL runPowerFlow takes options.islanding and answers islands and lost MW', async () => {
      const r = await app.app!.inject({
        method: 'POST',
        url: '/graphql',
        headers: h,
        payload: {
          query:
            'mutation($id: ID!) { runPowerFlow(id: $id, options: { islanding: ISOLATE }) { status lostLoadMw lostGenerationMw ' +
              'islands { buses referenceBus energized loadMw } buses { id v energized } } }',
          variables: { id: net },
        },
      });
      const d = json(r);
      assert.equal(d.errors, undefined, r.body);
      const pf = d.data.runPowerFlow;
      assert.equal(pf.status, 'CONVERGED');
      assert.equal(pf.lostLoadMw, 20);
      assert.deepEqual(pf.islands[2], { buses: [117], referenceBus: null, energized: false, loadMw: 20 });
      assert.deepEqual(pf.buses.find((b: { id: number }) => b.id === 117), { id: 117, v: 0, energized: false });
    });

    it('OPF refuses the islands by default and optimises what stays energized with islanding isolate (REST and GraphQL)', async () => {
      err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc' }), 422, 'ISLANDED_BUS');
      const r = await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', islanding: 'isolate' });
      assert.equal(r.status, 'converged');
      assert.equal(r.lost_load_mw, 20);
      assert.equal(r.lost_generation_mw, 450);
      assert.deepEqual(
        r.buses.find((b: { id: number }) => b.id === 117),
        { id: 117, v: 0, theta: 0, lmp_p: 0, lmp_q: 0, mu_vmin: 0, mu_vmax: 0, energized: false },
      );
      const g = await app.app!.inject({
        method: 'POST',
        url: '/graphql',
        headers: h,
        payload: {
          query: 'mutation($id: ID!) { runOpf(id: $id, method: DC, islanding: ISOLATE) { status lostLoadMw buses { id energized } } }',
          variables: { id: net },
        },
      });
      const d = json(g);
      assert.equal(d.errors, undefined, g.body);
      assert.equal(d.data.runOpf.lostLoadMw, 20);
    });

    it('the agents\' run_powerflow takes islanding', async () => {
      const a = await ok('POST', '/api/v1/agents', { name: `isl-${mode}`, type: 'dispatch', network_id: net, auto_start: true }, 201);
      err(await call('POST', `/api/v1/agents/${a.id}/command`, { command: 'run_powerflow' }), 422, 'ISLANDED_BUS');
      const r = await call('POST', `/api/v1/agents/${a.id}/command`, { command: 'run_powerflow', params: { islanding: 'isolate' } });
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(json(r).data.status, 'completed', r.body);
    });
  });
}

describe('OPF on a split network', () => {
  it('DC-OPF with isolate equals the DC-OPF of the model without the de-energized part; new_reference optimises the cut-off island on its own', async () => {
    const pool = createSolverPool({ threads: 1 });
    try {
      const m0 = () => parseMatpower(readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), 'case118.m');
      const m = parseMatpower(splitCase118(), 'split.m');
      const iso = await solveOpf(pool, m, { method: 'dc', islanding: 'isolate' });
      assert.equal(iso.status, 'converged', iso.message);
      // The same network with buses 9, 10 and 117 and everything on them removed.
      const gone = new Set([9, 10, 117]);
      const cut = { ...m, buses: m.buses.filter((b) => !gone.has(b.id)), branches: m.branches.filter((b) => !gone.has(b.from) && !gone.has(b.to)),
        generators: m.generators.filter((g) => !gone.has(g.bus)), loads: m.loads.filter((l) => !gone.has(l.bus)) };
      const ref = await solveOpf(pool, cut, { method: 'dc' });
      assert.equal(ref.status, 'converged');
      assert.ok(Math.abs(iso.objective - ref.objective) <= 1e-6 * Math.abs(ref.objective), `objective ${iso.objective} vs ${ref.objective}`);
      for (const b of ref.buses) {
        const x = iso.buses.find((y) => y.id === b.id)!;
        assert.ok(Math.abs(x.lmp_p - b.lmp_p) <= 1e-4, `bus ${b.id} LMP ${x.lmp_p} vs ${b.lmp_p}`);
      }
      // new_reference: buses 86-87 cut off (21 MW of load, generator 87) are dispatched on their own, with their own price.
      // (An island with generators and no load, as 9-10, has one feasible point at pmin = 0: MIPS stops numerically there; docs/opf.md.)
      const m86 = { ...m0(), branches: m0().branches.map((b, k) => (k === 132 ? { ...b, status: 'open' as const } : b)) };
      for (const method of ['dc', 'ac'] as const) {
        const nr = await solveOpf(pool, m86, { method, islanding: 'new_reference' });
        assert.equal(nr.status, 'converged', nr.message);
        assert.equal(nr.lost_load_mw, 0);
        assert.equal(nr.islands!.find((i) => i.buses.includes(87))!.reference_bus, 87);
        const g87 = m86.generators.findIndex((g) => g.bus === 87);
        const load = m86.loads.filter((l) => l.bus === 86 || l.bus === 87).reduce((s, l) => s + l.mw, 0);
        assert.ok(nr.generators[g87]!.p_mw >= load - 1e-6, `${method}: generator 87 serves its island's ${load} MW (${nr.generators[g87]!.p_mw})`);
      }
      await assert.rejects(solveOpf(pool, m, { method: 'dc' }), (e: { code?: string }) => e.code === 'ISLANDED_BUS');
    } finally {
      await pool.close();
    }
  });
});

describe('islands on the command line', () => {
  it('gridops solve --islanding parses, refuses an unknown rule, and its result object carries the islands', async () => {
    const cmd = parseSolveArgs(['x.m', '--islanding', 'new_reference']);
    assert.ok(cmd !== 'help');
    assert.equal(cmd.options.islanding, 'new_reference');
    assert.throws(() => parseSolveArgs(['x.m', '--islanding', 'maybe']), /--islanding must be one of refuse, isolate, new_reference/);
    const pool = createSolverPool({ threads: 1 });
    try {
      const out = resultObject(await solvePowerFlow(pool, parseMatpower(splitCase118(), 'split.m'), { ...cmd.options, islanding: 'isolate' }));
      assert.equal(out.lost_generation_mw, 450);
      assert.equal((out.islands as unknown[]).length, 3);
    } finally {
      await pool.close();
    }
  });
});
