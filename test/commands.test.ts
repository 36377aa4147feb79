// Agent commands beyond the basics of test/agents.test.ts, in both modes: the four-eyes
// confirmation of control commands (#11 finding 6), safe answers to internal failures
// (finding 9a), and the narrow rate-limit bypass of emergency_shutdown (finding 4).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync, inflateSync } from 'node:zlib';
import { MODES, startTestApp, testConfig, json, type TestApp } from './helpers/app.js';
import WebSocket from 'ws';
import { adminHeaders, createUser, loginAs, tokenFor } from './helpers/auth.js';
import { agentsClient, sleep } from './helpers/agents.js';

type Headers = Record<string, string>;

for (const mode of MODES) {
  describe(`agent commands: four eyes and internal errors (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let second: Headers;
    const { ok, err, importCase, agent, cmd, confirmed, network, actions, bodyOf } = agentsClient(() => ({ app, h, second }));
    let free30: string; // case30 with every rate_a 0 (unlimited)

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      second = await tokenFor(app, 'operator');
      const d = await network(await importCase('case30'));
      free30 = (await ok('POST', '/api/v1/networks', bodyOf(d, 'case30-free', d.branches.map((b: Record<string, unknown>) => ({ ...b, rate_a: 0 }))), 201)).id;
    });
    after(async () => app?.close());

    it('four-eyes: the requester cannot confirm its own control command (403); a second operator can; both are recorded', async () => {
      const a = await agent({ network_id: free30 });
      const before = await network(free30);
      const p = json(await cmd(a.id, { command: 'switch_branch', params: { from: 10, to: 21, state: 'open' } })).data;
      assert.equal(p.status, 'confirmation_required');
      assert.equal(p.requested_by.type, 'user');
      assert.equal(p.confirmed_by, null);
      const params = { from: 10, to: 21, state: 'open', confirmation_token: p.result.confirmation_token };
      await sleep(110);
      const self = err(await cmd(a.id, { command: 'switch_branch', params }), 403, 'FORBIDDEN');
      assert.equal(self.details.reason, 'four_eyes');
      assert.equal(self.details.command_id, p.command_id);
      assert.deepEqual(self.details.requested_by, p.requested_by);
      assert.match(self.message, /second, different operator or admin/);
      assert.equal((await network(free30)).version, before.version, 'nothing changed');
      // a viewer of the tenant may not confirm either (no command permission)
      err(await cmd(a.id, { command: 'switch_branch', params }, await tokenFor(app, 'viewer')), 403, 'FORBIDDEN');
      // the token is still good for a second operator
      const go = await cmd(a.id, { command: 'switch_branch', params }, second);
      assert.equal(go.statusCode, 200, go.body);
      const d = json(go).data;
      assert.equal(d.command_id, p.command_id);
      assert.equal(d.status, 'completed');
      assert.deepEqual(d.requested_by, p.requested_by);
      assert.equal(d.confirmed_by.type, 'user');
      assert.notEqual(d.confirmed_by.id, p.requested_by.id);
      const act = (await actions(a.id)).find((x: { command_id: string }) => x.command_id === p.command_id);
      assert.deepEqual(act.requested_by, p.requested_by);
      assert.deepEqual(act.confirmed_by, d.confirmed_by);
      // an ordinary command records who sent it and no confirmer
      const st = json(await cmd(a.id, { command: 'status' }, second)).data;
      assert.deepEqual(st.requested_by, d.confirmed_by);
      assert.equal(st.confirmed_by, null);
      // the command.completed event carries both people
      const ev = await ok('GET', `/api/v1/events?topic=agent&agent_id=${a.id}&page_size=100`);
      const done = ev.find((x: { kind: string; payload: { command_id: string } }) => x.kind === 'command.completed' && x.payload.command_id === p.command_id);
      assert.deepEqual([done.payload.requested_by, done.payload.confirmed_by], [p.requested_by, d.confirmed_by]);
      await sleep(110);
      assert.equal((await confirmed(a.id, 'switch_branch', { index: 26, state: 'closed' })).statusCode, 200);
    });

    it('answers an internal failure of a command with a stable code and a safe message (the cause stays in the log)', async () => {
      const net = (await ok('POST', '/api/v1/networks', bodyOf(await network(free30), 'case30-broken'), 201)).id;
      const a = await agent({ network_id: net });
      const p = json(await cmd(a.id, { command: 'switch_branch', params: { index: 3, state: 'open' } })).data;
      // The stored model breaks between the two steps (as a faulty migration or a disk error could do it).
      const { rows: [v] } = await app.services.db.query<{ model_z: Uint8Array }>('SELECT model_z FROM network_versions WHERE network_id = $1', [net]);
      const broken = { ...JSON.parse(inflateSync(v.model_z).toString()), branches: null };
      await app.services.db.query('UPDATE network_versions SET model_z = $2 WHERE network_id = $1', [net, deflateSync(JSON.stringify(broken))]);
      await sleep(110);
      const r = await cmd(a.id, { command: 'switch_branch', params: { index: 3, state: 'open', confirmation_token: p.result.confirmation_token } }, second);
      const e = err(r, 500, 'INTERNAL_ERROR');
      assert.equal(e.details.reason, 'internal_error');
      assert.equal(e.details.command_id, p.command_id);
      assert.doesNotMatch(r.body, /Cannot read|TypeError|properties of|at [\w.]+ \(/, 'no exception text reaches the client');
      assert.match(e.message, new RegExp(`command_id ${p.command_id}`));
      const act = (await actions(a.id)).find((x: { command_id: string }) => x.command_id === p.command_id);
      assert.equal(act.status, 'failed');
      assert.equal(act.error.message, e.message);
      assert.equal((await ok('GET', `/api/v1/agents/${a.id}`)).status, 'error');
    });
  });

  describe(`agents: emergency_shutdown bypasses the REST rate limiter (${mode})`, () => {
    let app: TestApp;
    before(async () => {
      const base = testConfig(mode);
      app = await startTestApp(mode, {
        listen: true,
        config: { security: { ...base.security, rateLimits: { endpoint: { 'POST /agents/:id/command': { rate: 6, burst: 3 } }, ip: { authenticated: { rate: 60, burst: 40 } }, user: { rate: 60, burst: 60 } } } },
      });
    });
    after(async () => app?.close());

    it('answers 429 on the endpoint layer, but lets emergency_shutdown through', async () => {
      const h = await adminHeaders(app);
      const call = (url: string, body: object) => app.app!.inject({ method: 'POST', url, headers: h, payload: body });
      const a = json(await call('/api/v1/agents', { name: 'limited', type: 'dispatch', auto_start: true })).data;
      const codes: number[] = [];
      for (let i = 0; i < 5; i++) codes.push((await call(`/api/v1/agents/${a.id}/command`, { command: 'status' })).statusCode);
      assert.ok(codes.includes(429), codes.join(','));
      const limited = await call(`/api/v1/agents/${a.id}/command`, { command: 'status' });
      assert.equal(limited.statusCode, 429);
      assert.equal(json(limited).error.details.scope, 'endpoint');
      const s = await call(`/api/v1/agents/${a.id}/command`, { command: 'emergency_shutdown' });
      assert.equal(s.statusCode, 200, s.body);
      assert.equal(json(s).data.result.new_status, 'stopped');
      assert.equal(s.headers['retry-after'], undefined);
    });

    it('refuses a flood of emergency_shutdown to an agent that does not exist: 429, no admission and no audit entry each', async () => {
      const h = await tokenFor(app, 'operator');
      const ghost = 'agent_ffffffffffffffffffff';
      const statuses: number[] = [];
      const scopes = new Set<string>();
      for (let i = 0; i < 160; i++) {
        const r = await app.app!.inject({ method: 'POST', url: `/api/v1/agents/${ghost}/command`, headers: h, payload: { command: 'emergency_shutdown' }, remoteAddress: '10.9.0.1' });
        statuses.push(r.statusCode);
        if (r.statusCode === 429) scopes.add(json(r).error.details.scope);
      }
      const admitted = statuses.filter((c) => c === 404).length;
      assert.ok(statuses.every((c) => c === 404 || c === 429), statuses.join(','));
      assert.ok(admitted <= 10, `only the endpoint burst reaches the agent lookup of the command, got ${admitted} answers 404`);
      assert.ok(scopes.has('endpoint') && (scopes.has('ip') || scopes.has('user')), [...scopes].join(','));
      // the REST audit of the admitted ones (failure 404): a handful, not 160
      const admin = await adminHeaders(app);
      const audit = json(await app.app!.inject({ method: 'GET', url: `/api/v1/audit?resource_id=${ghost}&page_size=100`, headers: admin }));
      const failures = audit.data.filter((e: { result: string }) => e.result === 'failure').length;
      assert.ok(failures <= 10, `${failures} failure audit entries`);
      // GraphQL: the same rule (the endpoint layer's refusal stands for an agent that is not the caller's)
      const gq = await app.app!.inject({
        method: 'POST', url: '/graphql', headers: h, remoteAddress: '10.9.0.2',
        payload: { query: 'mutation($id: ID!) { sendCommand(agentId: $id, command: {command: "emergency_shutdown"}) { status } }', variables: { id: ghost } },
      });
      assert.equal(json(gq).errors?.[0]?.extensions?.code, 'RATE_LIMITED', gq.body);
    });

    it('WebSocket command frames: the same rule (a ghost agent stays limited, a real emergency passes the endpoint layer)', async () => {
      const u = await createUser(app, { username: `ws-op-${mode}`, role: 'operator' });
      const h = await loginAs(app, u.username, u.password);
      const a = json(await app.app!.inject({ method: 'POST', url: '/api/v1/agents', headers: h, payload: { name: 'ws-limited', type: 'dispatch', auto_start: true }, remoteAddress: '10.9.4.1' })).data;
      // the tenant's endpoint bucket is empty (the flood above)
      const limited = await app.app!.inject({ method: 'POST', url: `/api/v1/agents/${a.id}/command`, headers: h, payload: { command: 'status' }, remoteAddress: '10.9.4.2' });
      assert.equal(json(limited).error.details.scope, 'endpoint', limited.body);
      const socket = new WebSocket(`${app.url!.replace(/^http/, 'ws')}/ws`, ['gridops.v1'], { headers: h });
      const answers = new Map<string, Record<string, unknown>>();
      socket.on('message', (data) => {
        const m = JSON.parse(String(data)) as Record<string, unknown>;
        if (typeof m.id === 'string') answers.set(m.id, m);
      });
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const answer = async (id: string) => {
        const end = Date.now() + 30_000;
        while (!answers.has(id)) {
          if (Date.now() > end) assert.fail(`no answer to WebSocket frame ${id}`);
          await sleep(10);
        }
        return answers.get(id)!;
      };
      try {
        socket.send(JSON.stringify({ type: 'command', id: 'ghost', agent_id: 'agent_ffffffffffffffffffff', command: 'emergency_shutdown' }));
        assert.equal((await answer('ghost')).code, 'RATE_LIMITED');
        socket.send(JSON.stringify({ type: 'command', id: 'real', agent_id: a.id, command: 'emergency_shutdown' }));
        const real = await answer('real');
        assert.equal(real.type, 'command_result', JSON.stringify(real));
        assert.equal((real.result as { result: { new_status: string } }).result.new_status, 'stopped');
      } finally {
        socket.close();
      }
    });

    it('lets a real emergency pass the endpoint layer, but not the user layer', async () => {
      const h = await tokenFor(app, 'admin');
      const a = json(await app.app!.inject({ method: 'POST', url: '/api/v1/agents', headers: h, payload: { name: 'user-limited', type: 'dispatch', auto_start: true }, remoteAddress: '10.9.1.1' })).data;
      // The tenant's endpoint bucket is empty (the test above); the emergency passes it.
      const limited = await app.app!.inject({ method: 'POST', url: `/api/v1/agents/${a.id}/command`, headers: h, payload: { command: 'status' }, remoteAddress: '10.9.1.2' });
      assert.equal(json(limited).error.details.scope, 'endpoint', limited.body);
      const gq = await app.app!.inject({
        method: 'POST', url: '/graphql', headers: h, remoteAddress: '10.9.1.3',
        payload: { query: 'mutation($id: ID!) { sendCommand(agentId: $id, command: {command: "emergency_shutdown"}) { status result } }', variables: { id: a.id } },
      });
      assert.equal(json(gq).data?.sendCommand?.result?.new_status, 'stopped', gq.body);
      // Empty this user's own bucket (60) from many addresses; then even an emergency waits for it.
      for (let i = 0; i < 70; i++) await app.app!.inject({ method: 'GET', url: '/api/v1/agents?page_size=1', headers: h, remoteAddress: `10.9.2.${i}` });
      const r = await app.app!.inject({ method: 'POST', url: `/api/v1/agents/${a.id}/command`, headers: h, payload: { command: 'emergency_shutdown' }, remoteAddress: '10.9.3.1' });
      assert.equal(r.statusCode, 429, r.body);
      assert.equal(json(r).error.details.scope, 'user');
    });
  });
}
