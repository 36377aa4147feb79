// POST /graphql through the real service in both modes: every resource's queries
// and mutations, nested fields without N+1 queries, the error codes of SPEC 7.3,
// limits (depth, complexity, aliases, timeout), partial success, persisted
// queries, introspection, schema-version negotiation.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { raiseAlarm } from '../src/domain/alarms.js';
import { code, countQueries, gql, ok, until } from './graphql-helpers.js';

const SMALL = {
  name: 'gql-small',
  description: 'two buses',
  baseKv: 20,
  buses: [{ id: 1, type: 'SLACK', v: 1.02, name: 'feeder' }, { id: 2, type: 'PQ', vmin: 0.95 }],
  branches: [{ from: 1, to: 2, r: 0.01, x: 0.1, b: 0.001, rateA: 50 }],
  generators: [{ bus: 1, mw: 10.1, vg: 1.02 }],
  loads: [{ bus: 2, mw: 0.1, mvar: 1 }, { bus: 2, mw: 0.2, mvar: 0.5 }],
  tags: { region: 'north', kind: 'test' },
};

const NETWORK_FIELDS = `id name description baseKv baseMva busCount branchCount generatorCount loadCount status tags version createdAt updatedAt`;

for (const mode of MODES) {
  describe(`GraphQL over HTTP (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const ids: Record<string, string> = {};
    const q = <T = any>(query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}) => gql<T>(app, query, variables, { ...h, ...headers });

    const importCase = async (c: string) => {
      const res = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/import?format=matpower&name=${c}`, headers: { ...h, 'content-type': 'text/plain' }, payload: readFileSync(join(CASES_DIR, `${c}.m`), 'utf8') });
      assert.equal(res.statusCode, 201, res.body);
      return json(res).data.id as string;
    };

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      for (const c of ['case9', 'case118']) ids[c] = await importCase(c);
    });
    after(async () => app?.close());

    it('creates, reads, updates and deletes a network with the REST domain functions', async () => {
      const created = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { ${NETWORK_FIELDS} } }`, { i: SMALL })).createNetwork;
      assert.match(created.id, /^net_/);
      assert.equal(created.name, 'gql-small');
      assert.equal(created.status, 'READY');
      assert.equal(created.busCount, 2);
      assert.equal(created.loadCount, 2);
      assert.equal(created.baseKv, 20);
      assert.equal(created.baseMva, 100);
      assert.deepEqual(created.tags, { region: 'north', kind: 'test' });
      assert.match(created.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      ids.small = created.id;

      // The same network through REST.
      const rest = json(await app.app!.inject({ method: 'GET', url: `/api/v1/networks/${created.id}`, headers: h })).data;
      assert.equal(rest.bus_count, 2);
      assert.equal(rest.buses[0].name, 'feeder');

      const detail = ok(await q(`query($id: ID!) { network(id: $id) {
        buses { id type voltage { magnitude angle } area name vmin vmax baseKv generators { mw vg inService } loads { mw mvar } }
        branches { index from to r x b status rateA ratio flow { pFrom } }
        generators { bus mw mvar pmin vg inService } loads { bus mw mvar inService }
        totalLoadMw totalGenerationMw } }`, { id: created.id })).network;
      assert.deepEqual(detail.buses[0].voltage, { magnitude: 1.02, angle: 0 });
      assert.equal(detail.buses[0].type, 'SLACK');
      assert.equal(detail.buses[0].baseKv, 20);
      assert.equal(detail.buses[1].vmin, 0.95);
      assert.deepEqual(detail.buses[0].generators, [{ mw: 10.1, vg: 1.02, inService: true }]);
      assert.equal(detail.buses[1].loads.length, 2);
      assert.equal(detail.branches[0].status, 'CLOSED');
      assert.equal(detail.branches[0].rateA, 50);
      assert.equal(detail.branches[0].flow, null, 'no power flow yet');
      assert.equal(detail.generators[0].pmin, null);
      // Decimal: exact sum (0.1 + 0.2 is 0.30000000000000004 in binary floating point).
      assert.equal(detail.totalLoadMw, '0.3');
      assert.equal(detail.totalGenerationMw, '10.1');

      const updated = ok(await q(`mutation($id: ID!, $i: NetworkInput!) { updateNetwork(id: $id, input: $i) { id name version status tags } }`,
        { id: created.id, i: { ...SMALL, name: 'gql-small-2', status: 'DRAFT' } })).updateNetwork;
      assert.equal(updated.name, 'gql-small-2');
      assert.equal(updated.version, 2);
      assert.equal(updated.status, 'DRAFT');
      ok(await q(`mutation($id: ID!, $i: NetworkInput!) { updateNetwork(id: $id, input: $i) { id } }`, { id: created.id, i: { ...SMALL, status: 'READY' } }));

      const tmp = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'to-delete' } })).createNetwork.id;
      assert.equal(ok(await q(`mutation($id: ID!) { deleteNetwork(id: $id) }`, { id: tmp })).deleteNetwork, true);
      const gone = await q(`query($id: ID!) { network(id: $id) { id } }`, { id: tmp });
      assert.equal(code(gone), 'NOT_FOUND');
      assert.deepEqual(gone.body.data, { network: null });
      assert.deepEqual(gone.body.errors![0].path, ['network']);
      assert.equal(code(await q(`mutation($id: ID!) { deleteNetwork(id: $id) }`, { id: tmp })), 'NOT_FOUND');
    });

    it('lists networks with filters and page info', async () => {
      const tagged = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id createdAt } }`, { i: { ...SMALL, name: 'filter-me', tags: { region: 'south', owner: 'x' } } })).createNetwork;
      let c = ok(await q(`{ networks(pageSize: 2) { total page pageSize totalPages items { id name busCount } } }`)).networks;
      assert.equal(c.page, 1);
      assert.equal(c.pageSize, 2);
      assert.equal(c.items.length, 2);
      assert.ok(c.total >= 4);
      assert.equal(c.totalPages, Math.ceil(c.total / 2));
      c = ok(await q(`{ networks(filter: { nameContains: "FILTER" }) { total items { id } } }`)).networks;
      assert.deepEqual(c.items.map((n: { id: string }) => n.id), [tagged.id]);
      c = ok(await q(`{ networks(filter: { tags: [{ key: "region", value: "south" }, { key: "owner" }] }) { items { id } } }`)).networks;
      assert.deepEqual(c.items.map((n: { id: string }) => n.id), [tagged.id]);
      c = ok(await q(`{ networks(filter: { tags: [{ key: "nobody-has-this" }] }) { total } }`)).networks;
      assert.equal(c.total, 0);
      c = ok(await q(`query($t: DateTime) { networks(filter: { createdAfter: $t }) { items { id } } }`, { t: new Date(Date.parse(tagged.createdAt) - 1).toISOString() })).networks;
      assert.ok(c.items.some((n: { id: string }) => n.id === tagged.id));
      c = ok(await q(`query($t: DateTime) { networks(filter: { createdBefore: $t, status: READY }) { items { id } } }`, { t: tagged.createdAt })).networks;
      assert.ok(!c.items.some((n: { id: string }) => n.id === tagged.id));
      c = ok(await q(`{ networks(filter: { status: ARCHIVED }) { total } }`)).networks;
      assert.equal(c.total, 0);
    });

    it('validates a network', async () => {
      const v = ok(await q(`mutation($id: ID!) { validateNetwork(id: $id) { valid errors { field message code } islands { buses slackBus } } }`, { id: ids.case9 })).validateNetwork;
      assert.deepEqual(v, { valid: true, errors: [], islands: [{ buses: [1, 2, 3, 4, 5, 6, 7, 8, 9], slackBus: 1 }] });
    });

    it('runs power flows synchronously and asynchronously; nested results; cancelTask', async () => {
      const r = ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id, method: NEWTON_RAPHSON, options: { maxIterations: 10 }) {
        taskId networkId status method iterations durationMs tolerance startedAt completedAt pollUrl
        buses { id v theta pGen qGen pLoad qLoad } branches { from to pFrom qFrom pTo qTo loading } losses { pMw qMvar } network { id name } } }`, { id: ids.case118 })).runPowerFlow;
      assert.equal(r.status, 'CONVERGED');
      assert.equal(r.method, 'NEWTON_RAPHSON');
      assert.equal(r.buses.length, 118);
      assert.equal(r.branches.length, 186);
      assert.equal(r.tolerance, 1e-8);
      assert.ok(r.iterations >= 2 && r.iterations <= 10);
      assert.equal(r.network.id, ids.case118);
      assert.equal(r.pollUrl, `/api/v1/tasks/${r.taskId}`);
      // The same result through REST.
      const t = json(await app.app!.inject({ method: 'GET', url: `/api/v1/tasks/${r.taskId}?include=result`, headers: h })).data;
      assert.equal(t.status, 'completed');
      assert.equal(t.result.buses[5].v, r.buses[5].v);
      assert.equal(t.result.losses.p_mw, r.losses.pMw);

      // Branch.flow and Network.powerFlow read the latest result of the network.
      const n = ok(await q(`query($id: ID!) { network(id: $id) { branches { flow { pFrom loading } } powerFlow { taskId status } dc: powerFlow(method: DC) { taskId } } }`, { id: ids.case118 })).network;
      assert.equal(n.branches[0].flow.pFrom, r.branches[0].pFrom);
      assert.equal(n.powerFlow.taskId, r.taskId);
      assert.equal(n.dc, null);

      const dc = ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id, method: DC) { status method buses { theta } } }`, { id: ids.case9 })).runPowerFlow;
      assert.equal(dc.method, 'DC');
      assert.equal(dc.status, 'CONVERGED');

      const queued = ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id, async: true, method: FAST_DECOUPLED, options: { maxIterations: 30 }) { taskId status method createdAt buses { id } } }`, { id: ids.case118 })).runPowerFlow;
      assert.ok(['QUEUED', 'RUNNING'].includes(queued.status), queued.status);
      assert.equal(queued.method, 'FAST_DECOUPLED');
      assert.deepEqual(queued.buses, []);
      const done = await until('the async task', async () => {
        const t2 = ok(await q(`query($id: ID!) { task(id: $id) { status iterations buses { id } } }`, { id: queued.taskId })).task;
        return t2.status === 'CONVERGED' ? t2 : undefined;
      });
      assert.equal(done.buses.length, 118);

      // Cancel: a queued or running task can be cancelled once.
      const big = ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id, async: true) { taskId } }`, { id: ids.case118 })).runPowerFlow;
      const cancelled = await q(`mutation($t: ID!) { cancelTask(taskId: $t) }`, { t: big.taskId });
      if (!cancelled.body.errors) {
        assert.equal(cancelled.body.data.cancelTask, true);
        const st = ok(await q(`query($id: ID!) { task(id: $id) { status } }`, { id: big.taskId })).task.status;
        assert.equal(st, 'CANCELLED');
      } else {
        // Finished before the cancel arrived: refused as a state conflict.
        assert.equal(code(cancelled), 'VALIDATION_FAILED');
        assert.equal(cancelled.body.errors![0].extensions.details.reason, 'CONFLICT');
      }
      const again = await q(`mutation($t: ID!) { cancelTask(taskId: $t) }`, { t: big.taskId });
      assert.equal(code(again), 'VALIDATION_FAILED');
      assert.equal(again.body.errors![0].extensions.details.reason, 'CONFLICT');
      assert.equal(code(await q(`mutation { cancelTask(taskId: "task_00000000000000000000") }`)), 'NOT_FOUND');
    });

    it('POWERFLOW_DIVERGED with the iterations and mismatch in details', async () => {
      const r = await q(`mutation($id: ID!) { runPowerFlow(id: $id, options: { maxIterations: 1 }) { status } }`, { id: ids.case118 });
      assert.equal(r.status, 200);
      assert.equal(code(r), 'POWERFLOW_DIVERGED');
      const d = r.body.errors![0].extensions.details;
      assert.equal(d.iterations, 1);
      assert.ok(d.mismatch > 1e-8);
      assert.match(d.task_id, /^task_/);
      assert.equal(r.body.data, null, 'runPowerFlow is non-null, so data is null');
    });

    it('resolves nested Network fields with a constant number of SQL statements (no N+1)', async () => {
      // Agents and alarms on every network, so every nested list has rows.
      const nets: string[] = [];
      for (let i = 0; i < 6; i++) {
        const id = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: `nplus1-${i}`, tags: { batch: 'nplus1' } } })).createNetwork.id;
        nets.push(id);
        ok(await q(`mutation($i: AgentInput!) { createAgent(input: $i) { id } }`, { i: { name: `agent-${i}`, type: 'DISPATCH', networkId: id } }));
        await raiseAlarm(app.services, 'default', { type: 'test', severity: 'warn', message: `alarm ${i}`, network_id: id, source: { type: 'network', id } });
        ok(await q(`mutation($id: ID!) { runPowerFlow(id: $id) { status } }`, { id }));
      }
      const query = `query($n: Int) { networks(pageSize: $n, filter: { tags: [{ key: "batch", value: "nplus1" }] }) { total items {
        id busCount buses { id } branches { from flow { pFrom } } generators { mw } loads { mw }
        powerFlow { status iterations } agents { id name network { id } } alarms(severity: WARN) { id severity } devices { id } } } }`;
      // The fewest of three runs: a per-process cache (tenant quota state, API keys) that
      // expires inside one run adds a statement of its own there, not one per network.
      const fewest = async (n: number) => {
        let best: { result: Awaited<ReturnType<typeof q<any>>>; count: number; sql: string[] } | undefined;
        for (let i = 0; i < 3; i++) {
          const r = await countQueries(app, () => q(query, { n }));
          if (!best || r.count < best.count) best = r;
        }
        return best!;
      };
      const small = await fewest(2);
      const large = await fewest(6);
      const data = ok(large.result).networks;
      assert.equal(data.items.length, 6);
      for (const n of data.items) {
        assert.equal(n.buses.length, 2);
        assert.equal(n.powerFlow.status, 'CONVERGED');
        assert.equal(typeof n.branches[0].flow.pFrom, 'number');
        assert.equal(n.agents.length, 1);
        assert.equal(n.agents[0].network.id, n.id);
        assert.equal(n.alarms.length, 1);
        assert.equal(n.alarms[0].severity, 'WARN');
      }
      assert.equal(large.count, small.count, `SQL statements: ${small.count} for 2 networks, ${large.count} for 6\n${large.sql.join('\n')}`);
      assert.ok(large.count <= 12, `${large.count} statements:\n${large.sql.join('\n')}`);
      // Bus.generators / Bus.loads come from the model already loaded (no statement of their own).
      const one = await countQueries(app, () => q(`query($id: ID!) { network(id: $id) { buses { id } } }`, { id: nets[0] }));
      const withGens = await countQueries(app, () => q(`query($id: ID!) { network(id: $id) { buses { id generators { mw } loads { mw } } } }`, { id: nets[0] }));
      assert.equal(withGens.count, one.count);
      assert.deepEqual(ok(withGens.result).network.buses[0].generators, [{ mw: 10.1 }]);
    });

    it('a page of 20 networks resolves every model (the batch answers from its own rows, whatever the model cache keeps)', async () => {
      for (let i = 0; i < 20; i++) ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: `many-${i}`, tags: { batch: 'many' } } }));
      const c = ok(await q(`{ networks(pageSize: 20, filter: { tags: [{ key: "batch", value: "many" }] }) { items { name buses { id } generators { mw } } } }`)).networks;
      assert.equal(c.items.length, 20);
      for (const n of c.items) assert.equal(n.buses.length, 2, n.name);
    });

    it('agents: create, list, read, update, pause, resume, command, actions, delete', async () => {
      const a = ok(await q(`mutation($i: AgentInput!) { createAgent(input: $i) { id name type status networkId network { id } config tools reasoningModel maxActionsPerMinute createdAt startedAt } }`,
        { i: { name: 'dispatcher', type: 'SELF_HEALING', networkId: ids.case9, config: { horizon: 4 }, tools: ['powerflow'], autoStart: true } })).createAgent;
      assert.match(a.id, /^agent_/);
      assert.equal(a.type, 'SELF_HEALING');
      assert.equal(a.status, 'RUNNING');
      assert.equal(a.network.id, ids.case9);
      assert.deepEqual(a.config, { horizon: 4 });
      assert.equal(a.reasoningModel, 'default');
      assert.equal(a.maxActionsPerMinute, 60);
      assert.ok(a.startedAt);
      const list = ok(await q(`{ agents(status: RUNNING, type: SELF_HEALING) { total items { id } } }`)).agents;
      assert.ok(list.items.some((x: { id: string }) => x.id === a.id));
      const upd = ok(await q(`mutation($id: ID!, $i: AgentInput!) { updateAgent(id: $id, input: $i) { name maxActionsPerMinute } }`, { id: a.id, i: { name: 'dispatcher-2', type: 'SELF_HEALING', maxActionsPerMinute: 30 } })).updateAgent;
      assert.deepEqual(upd, { name: 'dispatcher-2', maxActionsPerMinute: 30 });
      assert.equal(ok(await q(`mutation($id: ID!) { pauseAgent(id: $id) { status } }`, { id: a.id })).pauseAgent.status, 'PAUSED');
      assert.equal(ok(await q(`mutation($id: ID!) { resumeAgent(id: $id) { status } }`, { id: a.id })).resumeAgent.status, 'RUNNING');
      const cmd = ok(await q(`mutation($id: ID!, $c: CommandInput!) { sendCommand(agentId: $id, command: $c) { commandId agentId command status result durationMs executedAt requestedBy { type id tenant } confirmedBy { id } } }`,
        { id: a.id, c: { command: 'status', priority: 'HIGH' } })).sendCommand;
      assert.equal(cmd.agentId, a.id);
      assert.equal(cmd.command, 'status');
      assert.ok(cmd.commandId);
      assert.ok(cmd.executedAt);
      assert.equal(cmd.requestedBy.type, 'user');
      assert.equal(cmd.requestedBy.tenant, 'default');
      assert.equal(cmd.confirmedBy, null);
      const acts = ok(await q(`query($id: ID!) { agent(id: $id) { actions { id agentId command status executedAt requestedBy { id } confirmedBy { id } } } }`, { id: a.id })).agent.actions;
      assert.ok(acts.some((x: { command: string }) => x.command === 'status'));
      assert.ok(acts.every((x: { requestedBy: { id: string } }) => x.requestedBy.id === cmd.requestedBy.id));
      assert.equal(ok(await q(`mutation($id: ID!) { deleteAgent(id: $id) }`, { id: a.id })).deleteAgent, true);
      assert.equal(code(await q(`query($id: ID!) { agent(id: $id) { id } }`, { id: a.id })), 'NOT_FOUND');
    });

    it('CONSTRAINT_VIOLATION: a control command that would island the network is refused', async () => {
      const net = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'radial' } })).createNetwork.id;
      const agent = ok(await q(`mutation($i: AgentInput!) { createAgent(input: $i) { id } }`, { i: { name: 'switcher', type: 'SELF_HEALING', networkId: net, autoStart: true } })).createAgent.id;
      const first = ok(await q(`mutation($id: ID!, $c: CommandInput!) { sendCommand(agentId: $id, command: $c) { status result } }`,
        { id: agent, c: { command: 'switch_branch', params: { index: 0, state: 'open' } } })).sendCommand;
      assert.equal(first.status, 'confirmation_required');
      const token = first.result.confirmation_token;
      assert.equal(typeof token, 'string');
      const confirm = (headers: Record<string, string> = {}) => q(`mutation($id: ID!, $c: CommandInput!) { sendCommand(agentId: $id, command: $c) { status } }`,
        { id: agent, c: { command: 'switch_branch', params: { index: 0, state: 'open' }, confirmationToken: token } }, headers);
      // four-eyes: the requester cannot confirm its own control command; a second operator can
      const self = await confirm();
      assert.equal(code(self), 'FORBIDDEN', JSON.stringify(self.body));
      assert.equal(self.body.errors![0].extensions.details.reason, 'four_eyes');
      const r = await confirm(await tokenFor(app, 'operator'));
      assert.equal(code(r), 'CONSTRAINT_VIOLATION', JSON.stringify(r.body));
      assert.equal(r.body.errors![0].extensions.details.reason, 'islanding');
    });

    it('devices: list with filters, detail with its network', async () => {
      const res = await app.app!.inject({ method: 'POST', url: '/api/v1/devices', headers: h, payload: { name: 'pv-1', type: 'PV', status: 'online', network_id: ids.case9, bus: 2, capacity_mw: 5.5, metadata: { vendor: 'x' } } });
      assert.equal(res.statusCode, 201, res.body);
      const id = json(res).data.id;
      const d = ok(await q(`query($id: ID!) { device(id: $id) { id name type status online networkId network { id } bus capacityMw metadata lastSeenAt } }`, { id })).device;
      assert.equal(d.type, 'PV');
      assert.equal(d.online, true);
      assert.equal(d.network.id, ids.case9);
      assert.equal(d.capacityMw, 5.5);
      assert.deepEqual(d.metadata, { vendor: 'x' });
      const list = ok(await q(`{ devices(type: PV, online: true) { total items { id } } }`)).devices;
      assert.ok(list.items.some((x: { id: string }) => x.id === id));
      assert.equal(ok(await q(`{ devices(type: WIND) { total } }`)).devices.total, 0);
      const viaNet = ok(await q(`query($id: ID!) { network(id: $id) { devices { id } } }`, { id: ids.case9 })).network.devices;
      assert.ok(viaNet.some((x: { id: string }) => x.id === id));
    });

    it('alarms: list, detail, acknowledge (acknowledgedBy)', async () => {
      const a = await raiseAlarm(app.services, 'default', { type: 'overload', severity: 'critical', message: 'branch 1-2 at 130%', network_id: ids.case9, source: { type: 'branch', id: '1-2' }, details: { loading: 130 } });
      const list = ok(await q(`{ alarms(severity: CRITICAL, status: ACTIVE) { id severity status type message networkId source { type id } details raisedAt } }`)).alarms;
      const mine = list.find((x: { id: string }) => x.id === a.id);
      assert.ok(mine);
      assert.equal(mine.severity, 'CRITICAL');
      assert.deepEqual(mine.source, { type: 'branch', id: '1-2' });
      assert.equal(mine.details.loading, 130);
      const acked = ok(await q(`mutation($id: ID!) { acknowledgeAlarm(id: $id, note: "on it") { status acknowledgedBy acknowledgedAt note network { id } } }`, { id: a.id })).acknowledgeAlarm;
      assert.equal(acked.status, 'ACKNOWLEDGED');
      assert.equal(acked.acknowledgedBy, app.config.adminUsername);
      assert.equal(acked.note, 'on it');
      assert.ok(acked.acknowledgedAt);
      assert.equal(acked.network.id, ids.case9);
      const again = await q(`mutation($id: ID!) { acknowledgeAlarm(id: $id) { status } }`, { id: a.id });
      assert.equal(code(again), 'VALIDATION_FAILED');
      assert.equal(again.body.errors![0].extensions.details.reason, 'CONFLICT');
      assert.equal(ok(await q(`query($id: ID!) { alarm(id: $id) { status } }`, { id: a.id })).alarm.status, 'ACKNOWLEDGED');
    });

    it('time series: write, query raw and aggregated, several queries at once', { skip: !existsSync(new URL('../src/domain/timeseries.js', import.meta.url)) && 'src/domain/timeseries.ts has not landed' }, async () => {
      const t0 = Date.parse('2026-07-01T00:00:00Z');
      const points = Array.from({ length: 10 }, (_, i) => ({ metric: 'gql.load', timestamp: new Date(t0 + i * 60_000).toISOString(), value: i, tags: { site: 'a' } }));
      const w = ok(await q(`mutation($p: [TimeSeriesPointInput!]!) { writeTimeseries(points: $p) { accepted rejected errors { index message } } }`, { p: [...points, { metric: '', value: 1 }] })).writeTimeseries;
      assert.equal(w.accepted, 10);
      assert.equal(w.rejected, 1);
      assert.equal(w.errors[0].index, 10);
      const from = new Date(t0).toISOString();
      const to = new Date(t0 + 10 * 60_000).toISOString();
      const raw = ok(await q(`query($f: DateTime!, $t: DateTime!) { timeseries(query: { metric: "gql.load", tags: { site: "a" }, from: $f, to: $t }) { metric timestamp value tags } }`, { f: from, t: to })).timeseries;
      assert.equal(raw.length, 10);
      assert.equal(raw[3].value, 3);
      assert.deepEqual(raw[0].tags, { site: 'a' });
      const multi = ok(await q(`query($f: DateTime!, $t: DateTime!) { timeseriesMulti(queries: [
        { metric: "gql.load", from: $f, to: $t, aggregation: AVG, interval: "5m" },
        { metric: "gql.load", from: $f, to: $t, aggregation: MAX, interval: "10m" }]) { timestamp value } }`, { f: from, t: to })).timeseriesMulti;
      assert.deepEqual(multi[0].map((p: { value: number }) => p.value), [2, 7]);
      assert.deepEqual(multi[1].map((p: { value: number }) => p.value), [9]);
    });

    it('events and audit: mutations are audited with actor, action, resource and request id', async () => {
      const rid = `gql-audit-${mode}`;
      const id = ok(await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'audited' } }, { 'x-request-id': rid })).createNetwork.id;
      const ev = ok(await q(`{ events(topic: "topology", pageSize: 5) { total items { id sequence topic kind payload timestamp networkId } } }`)).events;
      const created = ev.items.find((e: { networkId: string }) => e.networkId === id);
      assert.ok(created);
      assert.equal(created.kind, 'network.created');
      assert.equal(typeof created.sequence, 'number');
      assert.equal(created.id, `evt_${String(created.sequence).padStart(16, '0')}`);
      const audit = ok(await q(`{ audit(action: "graphql createNetwork", pageSize: 10) { total items { id timestamp actorType actorId tenant action resourceType resourceId requestId result details } } }`)).audit;
      const entry = audit.items.find((e: { resourceId: string }) => e.resourceId === id);
      assert.ok(entry, JSON.stringify(audit.items));
      assert.equal(entry.action, 'graphql createNetwork');
      assert.equal(entry.resourceType, 'network');
      assert.equal(entry.requestId, rid);
      assert.equal(entry.actorId, app.config.adminUsername);
      assert.equal(entry.tenant, 'default');
      assert.equal(entry.result, 'success');
      assert.equal(entry.details.operation, 'createNetwork');
      // Failed and refused mutations are audited too.
      await q(`mutation { deleteNetwork(id: "net_doesnotexist0000") }`, {}, { 'x-request-id': `${rid}-fail` });
      const failed = ok(await q(`{ audit(action: "graphql deleteNetwork") { items { requestId result details } } }`)).audit.items.find((e: { requestId: string }) => e.requestId === `${rid}-fail`);
      assert.equal(failed.result, 'failure');
      assert.equal(failed.details.error_code, 'NOT_FOUND');
    });

    it('health', async () => {
      const r = await q(`{ health { status version uptimeSeconds checks schemaVersion } }`);
      const hh = ok(r).health;
      assert.equal(hh.status, 'ok');
      assert.equal(hh.checks.database, 'ok');
      assert.equal(hh.schemaVersion, '2026-07');
      assert.equal(r.headers['schema-version'], '2026-07');
    });

    it('UNAUTHENTICATED, FORBIDDEN and tenant isolation, with HTTP 200 and 7.3 extensions', async () => {
      let r = await gql(app, `{ networks { total } }`);
      assert.equal(r.status, 200);
      assert.equal(code(r), 'UNAUTHENTICATED');
      assert.match(r.body.errors![0].extensions.trace_id, /^[0-9a-f]{32}$/);
      assert.equal(r.body.errors![0].extensions.details.reason, 'UNAUTHORIZED');
      assert.equal(r.body.data, undefined);
      r = await gql(app, `{ networks { total } }`, undefined, { authorization: 'Bearer not-a-token' });
      assert.equal(code(r), 'UNAUTHENTICATED');

      const viewer = await tokenFor(app, 'viewer');
      r = await gql(app, `mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: SMALL }, viewer);
      assert.equal(code(r), 'FORBIDDEN');
      assert.equal(r.body.errors![0].extensions.details.permission, 'write');
      assert.equal(ok(await gql(app, `{ networks { total } }`, undefined, viewer)).networks.total > 0, true);
      r = await gql(app, `mutation($id: ID!) { runPowerFlow(id: $id) { status } }`, { id: ids.case9 }, viewer);
      assert.equal(code(r), 'FORBIDDEN');
      r = await gql(app, `{ audit { total } }`, undefined, await tokenFor(app, 'operator'));
      assert.equal(code(r), 'FORBIDDEN');
      assert.ok(ok(await gql(app, `{ audit { total } }`, undefined, await tokenFor(app, 'auditor'))).audit.total >= 0);

      // Another tenant sees none of tenant default's networks.
      const other = await tokenFor(app, 'operator', `gqlt-${mode}`);
      assert.equal(ok(await gql(app, `{ networks { total } }`, undefined, other)).networks.total, 0);
      r = await gql(app, `query($id: ID!) { network(id: $id) { id } }`, { id: ids.case9 }, other);
      assert.equal(code(r), 'NOT_FOUND');
      r = await gql(app, `{ networks { total } }`, undefined, { ...other, 'x-tenant-id': 'default' });
      assert.equal(code(r), 'FORBIDDEN');
      assert.equal(r.body.errors![0].extensions.details.reason, 'TENANT_MISMATCH');
    });

    it('VALIDATION_FAILED: syntax, unknown fields, bad variables, bad inputs (REST limits)', async () => {
      let r = await q(`{ networks { total `);
      assert.equal(code(r), 'VALIDATION_FAILED');
      assert.equal(r.body.errors![0].extensions.details.reason, 'GRAPHQL_PARSE_FAILED');
      assert.ok(r.body.errors![0].locations);
      r = await q(`{ networks { total colour } }`);
      assert.equal(code(r), 'VALIDATION_FAILED');
      assert.match(r.body.errors![0].message, /colour/);
      r = await q(`query($id: ID!) { network(id: $id) { id } }`, { id: 5.5 });
      assert.equal(code(r), 'VALIDATION_FAILED');
      r = await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, name: 'x'.repeat(65) } });
      assert.equal(code(r), 'VALIDATION_FAILED');
      assert.equal(r.body.errors![0].extensions.details.reason, 'INVALID_FIELD');
      assert.equal(r.body.errors![0].extensions.details.field, 'name');
      r = await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, branches: [{ from: 1, to: 7, r: 0.1, x: 0.1 }] } });
      assert.equal(code(r), 'VALIDATION_FAILED');
      assert.equal(r.body.errors![0].extensions.details.reason, 'BUS_NOT_FOUND');
      r = await q(`{ events(topic: "nonsense") { total } }`);
      assert.equal(code(r), 'VALIDATION_FAILED');
      assert.equal(r.body.errors![0].extensions.details.reason, 'INVALID_FIELD');
      r = await q(`{ networks(pageSize: 101) { total } }`);
      assert.equal(code(r), 'VALIDATION_FAILED');
      assert.equal(r.body.errors![0].extensions.details.reason, 'PARAM_OUT_OF_RANGE');
      r = await q(`subscription { eventStream { id } }`);
      assert.equal(code(r), 'VALIDATION_FAILED');
      assert.equal(r.body.errors![0].extensions.details.reason, 'OPERATION_NOT_ALLOWED');
      r = await q(`query A { health { status } } query B { health { version } }`);
      assert.equal(code(r), 'VALIDATION_FAILED');
      const raw = await app.app!.inject({ method: 'POST', url: '/graphql', headers: { ...h, 'content-type': 'application/json' }, payload: '{"query": ' });
      assert.equal(raw.statusCode, 200);
      assert.equal(json(raw).errors[0].extensions.code, 'VALIDATION_FAILED');
      assert.equal(json(raw).errors[0].extensions.details.reason, 'INVALID_REQUEST');
    });

    it('limits: depth 7, complexity 1000, 20 aliases', async () => {
      // 7 levels pass, 8 do not.
      const seven = await q(`query($id: ID!) { network(id: $id) { powerFlow { network { powerFlow { network { powerFlow { taskId } } } } } } }`, { id: ids.case118 });
      assert.ok(!seven.body.errors, JSON.stringify(seven.body.errors));
      assert.ok(seven.body.data.network.powerFlow.network.powerFlow.network.powerFlow.taskId);
      const deep = await q(`query($id: ID!) { network(id: $id) { powerFlow { network { powerFlow { network { powerFlow { network { id } } } } } } } }`, { id: ids.case118 });
      assert.equal(code(deep), 'QUERY_TOO_DEEP');
      assert.equal(deep.body.errors![0].extensions.details.depth, 8);
      assert.equal(deep.body.errors![0].extensions.details.limit, 7);
      assert.equal(deep.body.data, undefined, 'refused before execution');
      // Fragments count where they are spread.
      const frag = await q(`fragment P on PowerFlowResult { network { powerFlow { network { id } } } } query($id: ID!) { network(id: $id) { powerFlow { network { powerFlow { ...P } } } } }`, { id: ids.case118 });
      assert.equal(code(frag), 'QUERY_TOO_DEEP');

      const complex = await q(`{ networks(pageSize: 100) { items { buses { id type area } } } }`);
      assert.equal(code(complex), 'QUERY_TOO_COMPLEX');
      assert.ok(complex.body.errors![0].extensions.details.complexity > 1000);
      const fine = await q(`{ networks(pageSize: 5) { items { buses { id type area } } } }`);
      assert.ok(!fine.body.errors, JSON.stringify(fine.body.errors));
      // The page size may come from a variable.
      assert.equal(code(await q(`query($n: Int) { networks(pageSize: $n) { items { buses { id type area } } } }`, { n: 100 })), 'QUERY_TOO_COMPLEX');

      const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: health { status }`).join(' ')} }`;
      assert.ok(!(await q(aliases(20))).body.errors);
      const many = await q(aliases(21));
      assert.equal(code(many), 'QUERY_TOO_COMPLEX');
      assert.equal(many.body.errors![0].extensions.details.reason, 'TOO_MANY_ALIASES');
      assert.equal(many.body.errors![0].extensions.details.aliases, 21);
    });

    it('partial success: a failing field is null with its error, the others return', async () => {
      const r = await q(`query($id: ID!) { health { status } missing: network(id: "net_missing000000") { id } network(id: $id) { name } audit { total } }`, { id: ids.case9 });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.health.status, 'ok');
      assert.equal(r.body.data.missing, null);
      assert.equal(r.body.data.network.name, 'case9');
      assert.ok(r.body.data.audit.total >= 0);
      assert.equal(r.body.errors!.length, 1);
      assert.deepEqual(r.body.errors![0].path, ['missing']);
      assert.equal(code(r), 'NOT_FOUND');
      // A nullable field fails alone; a failing non-null root field (audit: AuditConnection!) nulls data, as GraphQL requires.
      const viewer = await tokenFor(app, 'viewer');
      const v = await gql(app, `{ health { status } agent(id: "agent_missing0000000") { id } }`, undefined, viewer);
      assert.equal(v.body.data.health.status, 'ok');
      assert.equal(v.body.data.agent, null);
      assert.equal(code(v), 'NOT_FOUND');
      const a = await gql(app, `{ health { status } audit { total } }`, undefined, viewer);
      assert.equal(a.body.data, null);
      assert.deepEqual(a.body.errors![0].path, ['audit']);
      assert.equal(code(a), 'FORBIDDEN');
    });

    it('persisted queries (APQ): unknown hash, register with hash + query, then hash only', async () => {
      const query = `{ networks(pageSize: 1) { total } health { status } }`;
      const sha = createHash('sha256').update(query).digest('hex');
      const pq = (hash: string, version = 1) => ({ extensions: { persistedQuery: { version, sha256Hash: hash } } });
      const call = (body: Record<string, unknown>) => app.app!.inject({ method: 'POST', url: '/graphql', headers: { ...h, 'content-type': 'application/json' }, payload: body });
      let r = await call(pq(sha));
      assert.equal(r.statusCode, 200);
      assert.equal(json(r).errors[0].extensions.code, 'PERSISTED_QUERY_NOT_FOUND');
      assert.equal(json(r).errors[0].message, 'PersistedQueryNotFound');
      r = await call({ query: `{ health { status } }`, ...pq(sha) });
      assert.equal(json(r).errors[0].extensions.code, 'VALIDATION_FAILED');
      assert.equal(json(r).errors[0].extensions.details.reason, 'PERSISTED_QUERY_HASH_MISMATCH');
      r = await call({ query, ...pq(sha, 2) });
      assert.equal(json(r).errors[0].extensions.code, 'PERSISTED_QUERY_NOT_SUPPORTED');
      r = await call({ query, ...pq(sha) });
      assert.equal(json(r).data.health.status, 'ok');
      r = await call(pq(sha));
      assert.equal(json(r).data.health.status, 'ok');
      assert.ok(json(r).data.networks.total > 0);
      // An invalid query is not stored.
      const bad = `{ nope }`;
      const badSha = createHash('sha256').update(bad).digest('hex');
      r = await call({ query: bad, ...pq(badSha) });
      assert.equal(json(r).errors[0].extensions.code, 'VALIDATION_FAILED');
      r = await call(pq(badSha));
      assert.equal(json(r).errors[0].extensions.code, 'PERSISTED_QUERY_NOT_FOUND');
      if (mode === 'distributed') {
        // Stored in Redis: another API process on the same Redis knows the hash.
        const second = await startTestApp('distributed', { shared: { schema: app.schema!, prefix: app.prefix! }, keepData: true });
        try {
          const r2 = await second.app!.inject({ method: 'POST', url: '/graphql', headers: { ...(await adminHeaders(second)), 'content-type': 'application/json' }, payload: pq(sha) });
          assert.equal(json(r2).data.health.status, 'ok', r2.body);
        } finally {
          await second.close();
        }
      }
    });

    it('introspection is on outside production; deprecated fields carry their reason', async () => {
      const r = ok(await q(`{ __type(name: "Bus") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } __schema { queryType { name } } }`));
      const f = Object.fromEntries(r.__type.fields.map((x: { name: string }) => [x.name, x]));
      assert.equal(f.v.isDeprecated, true);
      assert.match(f.v.deprecationReason, /voltage\.magnitude/);
      assert.equal(f.theta.isDeprecated, true);
      assert.equal(f.voltage.isDeprecated, false);
      assert.equal(r.__schema.queryType.name, 'Query');
      // The deprecated fields still answer.
      const b = ok(await q(`query($id: ID!) { network(id: $id) { buses { v theta voltage { magnitude angle } } } }`, { id: ids.case9 })).network.buses[0];
      assert.equal(b.v, b.voltage.magnitude);
      assert.equal(b.theta, b.voltage.angle);
    });

    it('schema versions: Schema-Version / Accept negotiation, deprecation headers, unknown and planned versions', async () => {
      let r = await q(`{ health { schemaVersion } }`);
      assert.equal(r.headers['schema-version'], '2026-07');
      assert.equal(r.headers.deprecation, undefined);
      r = await q(`{ health { schemaVersion } }`, undefined, { 'schema-version': '2026-01' });
      assert.equal(ok(r).health.schemaVersion, '2026-01');
      assert.equal(r.headers['schema-version'], '2026-01');
      assert.equal(r.headers.deprecation, 'true');
      assert.equal(r.headers.sunset, 'Fri, 31 Jul 2026 23:59:59 GMT');
      assert.match(String(r.headers.link), /rel="successor-version"/);
      r = await q(`{ health { schemaVersion } }`, undefined, { accept: 'application/graphql+json; version=2026-04' });
      assert.equal(r.headers['schema-version'], '2026-04');
      assert.equal(r.headers.sunset, 'Sat, 31 Oct 2026 23:59:59 GMT');
      r = await q(`{ health { schemaVersion } }`, undefined, { accept: 'application/graphql; version=2026-07' });
      assert.equal(r.headers['schema-version'], '2026-07');
      assert.equal(r.headers.deprecation, undefined);
      r = await q(`{ health { schemaVersion } }`, undefined, { accept: 'application/graphql-response+json' });
      assert.match(String(r.headers['content-type']), /^application\/graphql-response\+json/);
      for (const v of ['2026-10', '1999-01', 'latest']) {
        r = await q(`{ health { schemaVersion } }`, undefined, { 'schema-version': v });
        assert.equal(r.status, 200);
        assert.equal(code(r), 'VALIDATION_FAILED', v);
        assert.equal(r.body.errors![0].extensions.details.reason, 'UNSUPPORTED_SCHEMA_VERSION');
        assert.deepEqual(r.body.errors![0].extensions.details.supported, ['2026-01', '2026-04', '2026-07']);
        assert.equal(r.body.data, undefined);
      }
    });

    it('application/graphql bodies; GET /graphql without upgrade points to POST', async () => {
      const r = await app.app!.inject({ method: 'POST', url: '/graphql', headers: { ...h, 'content-type': 'application/graphql' }, payload: '{ health { status } }' });
      assert.equal(json(r).data.health.status, 'ok');
      const g = await app.app!.inject({ method: 'GET', url: '/graphql', headers: h });
      assert.equal(g.statusCode, 200);
      assert.equal(json(g).errors[0].extensions.details.reason, 'METHOD_NOT_ALLOWED');
    });

    it('custom scalars: DateTime, UInt64, Decimal, Float64 and JSON refuse what they cannot hold', async () => {
      let r = await q(`query($t: DateTime) { networks(filter: { createdAfter: $t }) { total } }`, { t: 'yesterday' });
      assert.equal(code(r), 'VALIDATION_FAILED');
      r = await q(`{ networks(filter: { createdAfter: "2026-01-01T00:00:00+02:00" }) { total } }`);
      assert.ok(!r.body.errors);
      const e = ok(await q(`{ events(pageSize: 1) { items { sequence } } }`)).events.items[0];
      assert.equal(typeof e.sequence, 'number');
      r = await q(`mutation($i: NetworkInput!) { createNetwork(input: $i) { id } }`, { i: { ...SMALL, tags: { n: 5 } } });
      assert.equal(code(r), 'VALIDATION_FAILED', 'tags must be strings (the REST schema)');
    });
  });
}

describe('GraphQL limits configured per deployment (embedded)', () => {
  let app: TestApp;
  let h: Record<string, string>;
  let net: string;
  before(async () => {
    const base = (await import('../src/config.js')).loadConfig({ NODE_ENV: 'test' });
    app = await startTestApp('embedded', {
      config: {
        introspection: false,
        graphqlTimeoutMs: 150,
        security: { ...base.security, rateLimits: { endpoint: { 'POST /networks/:id/validate': { rate: 1, burst: 1 } } } },
      },
    });
    h = await adminHeaders(app);
    const res = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/import?format=matpower`, headers: { ...h, 'content-type': 'text/plain' }, payload: readFileSync(join(CASES_DIR, 'case9.m'), 'utf8') });
    net = json(res).data.id;
  });
  after(async () => app?.close());

  it('introspection off: __schema and __type are refused, __typename is fine', async () => {
    const r = await gql(app, `{ __schema { types { name } } }`, undefined, h);
    assert.equal(code(r), 'VALIDATION_FAILED');
    assert.equal(r.body.errors![0].extensions.details.reason, 'INTROSPECTION_DISABLED');
    assert.equal(ok(await gql(app, `{ __typename health { status } }`, undefined, h)).__typename, 'Query');
  });

  it('RATE_LIMITED: the REST endpoint limit of validate applies to validateNetwork', async () => {
    const m = `mutation($id: ID!) { validateNetwork(id: $id) { valid } }`;
    assert.ok(ok(await gql(app, m, { id: net }, h)).validateNetwork.valid);
    const r = await gql(app, m, { id: net }, h);
    assert.equal(r.status, 200);
    assert.equal(code(r), 'RATE_LIMITED');
    const d = r.body.errors![0].extensions.details;
    assert.equal(d.scope, 'endpoint');
    assert.equal(d.limit, 1);
    assert.ok(d.retry_after >= 1);
    // The refusal is audited, in aggregate (one row per minute, caller and layer: docs/load-testing.md).
    const agg = json(await app.app!.inject({ method: 'GET', url: '/api/v1/audit/rate-limited?layer=endpoint', headers: h })).data;
    assert.ok(agg.some((a: { interface: string; count: number; actions: Record<string, number> }) => a.interface === 'graphql' && a.count >= 1 && a.actions['graphql validateNetwork'] >= 1), JSON.stringify(agg));
  });

  it('timeout: an operation over the limit answers INTERNAL_ERROR (QUERY_TIMEOUT) with data null', async () => {
    // No power-flow slot for the tenant: the synchronous run waits in the queue past the 150 ms limit.
    // through the admin API: its quota_changed notice is what the direct path's kept quota listens to
    const quota = await app.app!.inject({ method: 'PUT', url: '/api/v1/admin/tenants/default/quota', headers: await adminHeaders(app),
      payload: { concurrent_powerflow: 0, reason: 'graphql test: hold power flows in the queue' } });
    assert.equal(quota.statusCode, 200, quota.body);
    const r = await gql(app, `mutation($id: ID!) { runPowerFlow(id: $id, options: { timeoutMs: 500 }) { status } }`, { id: net }, h);
    assert.equal(r.status, 200);
    assert.equal(r.body.data, null);
    assert.equal(code(r), 'INTERNAL_ERROR');
    assert.equal(r.body.errors![0].extensions.details.reason, 'QUERY_TIMEOUT');
    assert.equal(r.body.errors![0].extensions.details.timeout_ms, 150);
    await new Promise((res) => setTimeout(res, 1000)); // the abandoned synchronous wait ends (500 ms) before the app closes
  });
});
