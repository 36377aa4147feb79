// Agents, their state machine and their commands through the real service, in
// both modes: CRUD and errors, transitions, per-agent limits, the two-factor
// confirmation of control commands, constraint checks on case30 (refused and
// accepted switches), busy agents, emergency shutdown, history, roles, tenants.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { agentsClient, sleep } from './helpers/agents.js';

type Headers = Record<string, string>;
const mva = (f: { p_from: number; q_from: number; p_to: number; q_to: number }) => Math.max(Math.hypot(f.p_from, f.q_from), Math.hypot(f.p_to, f.q_to));

for (const mode of MODES) {
  describe(`agents API (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let second: Headers; // another operator of the tenant: confirms control commands (four-eyes)
    const { call, ok, err, importCase, agent, cmd, confirmed, network, actions, waitAction, bodyOf } = agentsClient(() => ({ app, h, second }));

    let case30: string;          // case30 as MATPOWER has it (branch 6-8 already at ~109% of rate_a 32)
    let free30: string;          // case30 with every rate_a 0 (unlimited)
    let tight30: string;         // case30 where opening branch 26 (10-21) overloads branch `studied`
    let studied: number;
    let rateStudied: number;

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      second = await tokenFor(app, 'operator');
      case30 = await importCase('case30');
      const d = await network(case30);
      const unlimited = d.branches.map((b: Record<string, unknown>) => ({ ...b, rate_a: 0 }));
      free30 = (await ok('POST', '/api/v1/networks', bodyOf(d, 'case30-free', unlimited), 201)).id;
      // Where does the flow go when branch 26 (10-21) opens? Solve both and rate the branch that gains most in between.
      const pfBefore = await ok('POST', `/api/v1/networks/${free30}/powerflow`, {});
      const opened = unlimited.map((b: Record<string, unknown>, i: number) => (i === 26 ? { ...b, status: 'open' } : b));
      const tmp = (await ok('POST', '/api/v1/networks', bodyOf(d, 'case30-open26', opened), 201)).id;
      const pfAfter = await ok('POST', `/api/v1/networks/${tmp}/powerflow`, {});
      let best = -1;
      let gain = 0;
      pfBefore.branches.forEach((f: Parameters<typeof mva>[0], i: number) => {
        const a = mva(pfAfter.branches[i]);
        const b = mva(f);
        if (i !== 26 && b > 1 && a / b > gain) {
          gain = a / b;
          best = i;
        }
      });
      assert.ok(gain > 1.1, `opening 10-21 should shift flow (gain ${gain})`);
      studied = best;
      rateStudied = Math.round(((mva(pfBefore.branches[best]) + mva(pfAfter.branches[best])) / 2) * 100) / 100;
      const rated = unlimited.map((b: Record<string, unknown>, i: number) => (i === studied ? { ...b, rate_a: rateStudied } : b));
      tight30 = (await ok('POST', '/api/v1/networks', bodyOf(d, 'case30-tight', rated), 201)).id;
    });
    after(async () => app?.close());

    // ------------------------------------------------------------------ CRUD

    it('creates an agent with every default of SPEC 2, and with auto_start running', async () => {
      const a = await ok('POST', '/api/v1/agents', { name: 'dispatcher', type: 'dispatch' }, 201);
      assert.match(a.id, /^agent_[0-9a-f]+$/);
      assert.equal(a.name, 'dispatcher');
      assert.equal(a.type, 'dispatch');
      assert.equal(a.network_id, null);
      assert.equal(a.status, 'idle');
      assert.deepEqual(a.config, {});
      assert.deepEqual(a.tools, []);
      assert.equal(a.reasoning_model, 'default');
      assert.equal(a.max_actions_per_minute, 60);
      assert.equal(a.started_at, null);
      assert.equal(a.last_active_at, null);
      assert.ok(a.created_at);
      assert.equal(a.auto_start, undefined, 'auto_start is input only');
      const b = await ok('POST', '/api/v1/agents', { name: 'healer', type: 'self_healing', network_id: case30, config: { k: 1 }, tools: ['switch'], reasoning_model: 'big', max_actions_per_minute: 5, auto_start: true }, 201);
      assert.equal(b.status, 'running');
      assert.ok(b.started_at);
      assert.equal(b.network_id, case30);
      assert.deepEqual(b.config, { k: 1 });
      assert.deepEqual(b.tools, ['switch']);
      assert.equal(b.max_actions_per_minute, 5);
      assert.deepEqual(await ok('GET', `/api/v1/agents/${b.id}`), b);
      // the creation is an agent event
      const ev = await ok('GET', `/api/v1/events?topic=agent&agent_id=${b.id}`);
      assert.ok(ev.some((e: { kind: string; payload: Record<string, unknown> }) => e.kind === 'agent.created' && e.payload.agent_id === b.id && e.payload.old_status === null && e.payload.new_status === 'running' && e.payload.timestamp));
    });

    it('refuses bad agent input with the codes of 7.2', async () => {
      err(await call('POST', '/api/v1/agents', { type: 'dispatch' }), 400, 'INVALID_REQUEST');
      err(await call('POST', '/api/v1/agents', { name: 'x' }), 400, 'INVALID_REQUEST');
      err(await call('POST', '/api/v1/agents', { name: 'x', type: 'robot' }), 400, 'INVALID_FIELD');
      err(await call('POST', '/api/v1/agents', { name: '', type: 'dispatch' }), 400, 'INVALID_FIELD');
      err(await call('POST', '/api/v1/agents', { name: 'x', type: 'dispatch', max_actions_per_minute: 0 }), 422, 'PARAM_OUT_OF_RANGE');
      err(await call('POST', '/api/v1/agents', { name: 'x', type: 'dispatch', colour: 'red' }), 400, 'INVALID_REQUEST');
      err(await call('POST', '/api/v1/agents', { name: 'x', type: 'dispatch', tools: [{ all: true }] }), 400, 'INVALID_FIELD');
      const e = err(await call('POST', '/api/v1/agents', { name: 'x', type: 'dispatch', network_id: 'net_doesnotexist0' }), 422, 'VALIDATION_FAILED');
      assert.equal(e.details.field, 'network_id');
      assert.match(e.message, /net_doesnotexist0/);
      err(await call('GET', '/api/v1/agents/agent_nope00000'), 404, 'NOT_FOUND');
      err(await call('GET', '/api/v1/agents/not-an-id'), 400, 'INVALID_FIELD');
      err(await call('PATCH', '/api/v1/agents/agent_nope00000'), 405, 'METHOD_NOT_ALLOWED');
    });

    it('lists with filters, paging, cursor and sort', async () => {
      const tag = Math.random().toString(36).slice(2, 7);
      for (const [i, type] of (['trading', 'trading', 'planning'] as const).entries()) await ok('POST', '/api/v1/agents', { name: `${tag}-${i}`, type, auto_start: i === 0 }, 201);
      const all = await call('GET', '/api/v1/agents?page_size=2&sort=name');
      assert.equal(all.statusCode, 200);
      const b = json(all);
      assert.equal(b.data.length, 2);
      assert.equal(b.meta.page_size, 2);
      assert.ok(b.meta.total >= 3);
      assert.equal(b.meta.total_pages, Math.ceil(b.meta.total / 2));
      assert.ok(b.data[0].name <= b.data[1].name);
      const next = json(await call('GET', `/api/v1/agents?page_size=2&sort=name&cursor=${b.meta.next_cursor}`));
      assert.ok(next.data[0].name >= b.data[1].name);
      const trading = await ok('GET', '/api/v1/agents?type=trading&page_size=100');
      assert.ok(trading.length >= 2 && trading.every((a: { type: string }) => a.type === 'trading'));
      const running = await ok('GET', '/api/v1/agents?status=running&type=trading&page_size=100');
      assert.ok(running.some((a: { name: string }) => a.name === `${tag}-0`));
      assert.ok(running.every((a: { status: string }) => a.status === 'running'));
      const desc = await ok('GET', '/api/v1/agents?sort=-created_at&page_size=3');
      assert.ok(desc[0].created_at >= desc[1].created_at);
      err(await call('GET', '/api/v1/agents?sort=colour'), 400, 'INVALID_FIELD');
      err(await call('GET', '/api/v1/agents?status=sleeping'), 400, 'INVALID_FIELD');
      err(await call('GET', '/api/v1/agents?page_size=101'), 422, 'PARAM_OUT_OF_RANGE');
    });

    it('updates the configuration (PUT) and deletes', async () => {
      const a = await agent({ auto_start: false });
      const u = await ok('PUT', `/api/v1/agents/${a.id}`, { name: 'renamed', network_id: case30, config: { horizon: 4 }, max_actions_per_minute: 30 });
      assert.equal(u.name, 'renamed');
      assert.equal(u.network_id, case30);
      assert.deepEqual(u.config, { horizon: 4 });
      assert.equal(u.type, a.type);
      assert.equal(u.status, 'idle');
      assert.equal((await ok('PUT', `/api/v1/agents/${a.id}`, { network_id: null })).network_id, null);
      err(await call('PUT', `/api/v1/agents/${a.id}`, { status: 'running' }), 400, 'INVALID_REQUEST');
      err(await call('PUT', `/api/v1/agents/${a.id}`, {}), 400, 'INVALID_FIELD');
      err(await call('PUT', `/api/v1/agents/${a.id}`, { network_id: 'net_missing00' }), 422, 'VALIDATION_FAILED');
      err(await call('PUT', `/api/v1/agents/${a.id}`, { max_actions_per_minute: 601 }), 422, 'PARAM_OUT_OF_RANGE');
      err(await call('PUT', '/api/v1/agents/agent_nope00000', { name: 'x' }), 404, 'NOT_FOUND');
      assert.deepEqual(await ok('DELETE', `/api/v1/agents/${a.id}`), { id: a.id, deleted: true });
      err(await call('GET', `/api/v1/agents/${a.id}`), 404, 'NOT_FOUND');
      err(await call('DELETE', `/api/v1/agents/${a.id}`), 404, 'NOT_FOUND');
      const ev = await ok('GET', `/api/v1/events?topic=agent&agent_id=${a.id}`);
      assert.ok(ev.some((e: { kind: string }) => e.kind === 'agent.deleted'));
    });

    it('batch-creates up to 50 agents judging each entry alone', async () => {
      const r = await ok('POST', '/api/v1/agents/batch', { agents: [{ name: 'b0', type: 'maintenance' }, { name: 'b1', type: 'nope' }, { name: 'b2', type: 'planning', network_id: 'net_missing00' }, { name: 'b3', type: 'trading', auto_start: true }] });
      assert.deepEqual(r.succeeded.map((x: { index: number }) => x.index), [0, 3]);
      assert.match(r.succeeded[0].id, /^agent_/);
      assert.deepEqual(r.failed.map((x: { index: number }) => x.index), [1, 2]);
      assert.equal(r.failed[0].error.code, 'INVALID_FIELD');
      assert.equal(r.failed[1].error.code, 'VALIDATION_FAILED');
      assert.equal((await ok('GET', `/api/v1/agents/${r.succeeded[1].id}`)).status, 'running');
      const many = Array.from({ length: 51 }, (_, i) => ({ name: `m${i}`, type: 'dispatch' }));
      err(await call('POST', '/api/v1/agents/batch', { agents: many }), 422, 'VALIDATION_FAILED');
      err(await call('POST', '/api/v1/agents/batch', { agents: [] }), 422, 'VALIDATION_FAILED');
    });

    it('enforces the agent_count quota of the tenant', async () => {
      const tenant = `qa${mode.slice(0, 1)}${Math.random().toString(36).slice(2, 7)}`;
      const op = await tokenFor(app, 'operator', tenant);
      await ok('PUT', `/api/v1/admin/tenants/${tenant}/quota`, { agent_count: 2, reason: 'agents test' });
      for (let i = 0; i < 2; i++) assert.equal((await call('POST', '/api/v1/agents', { name: `q${i}`, type: 'dispatch' }, op)).statusCode, 201);
      const e = err(await call('POST', '/api/v1/agents', { name: 'q2', type: 'dispatch' }, op), 409, 'CONFLICT');
      assert.equal(e.details.quota, 'agent_count');
      assert.equal(e.details.limit, 2);
    });

    // ------------------------------------------------------------------ states

    it('moves through the state machine and refuses every illegal transition with 409 naming from and to', async () => {
      const a = await agent({ auto_start: false });
      const op = (name: string) => call('POST', `/api/v1/agents/${a.id}/${name}`);
      const illegal = async (name: string, from: string, to: string) => {
        const e = err(await op(name), 409, 'CONFLICT');
        assert.equal(e.details.from, from);
        assert.equal(e.details.to, to);
        assert.match(e.message, new RegExp(`${from} → ${to}`));
      };
      await illegal('pause', 'idle', 'paused');
      assert.equal((await ok('POST', `/api/v1/agents/${a.id}/resume`)).status, 'running'); // an idle agent resumes = starts
      await illegal('resume', 'running', 'running');
      await illegal('start', 'running', 'running');
      const p = await ok('POST', `/api/v1/agents/${a.id}/pause`, { reason: 'maintenance window' });
      assert.equal(p.status, 'paused');
      assert.equal(p.status_reason, 'maintenance window');
      await illegal('pause', 'paused', 'paused');
      await illegal('start', 'paused', 'running');
      assert.equal((await ok('POST', `/api/v1/agents/${a.id}/resume`)).status, 'running');
      assert.equal((await ok('POST', `/api/v1/agents/${a.id}/stop`)).status, 'stopped');
      await illegal('pause', 'stopped', 'paused');
      await illegal('resume', 'stopped', 'running');
      await illegal('stop', 'stopped', 'stopped');
      const s = await ok('POST', `/api/v1/agents/${a.id}/start`);
      assert.equal(s.status, 'running');
      assert.ok(s.started_at);
      err(await call('POST', '/api/v1/agents/agent_nope00000/pause'), 404, 'NOT_FOUND');
      // every change is an agent event with old and new status
      const ev = (await ok('GET', `/api/v1/events?topic=agent&agent_id=${a.id}&page_size=100`)).filter((e: { kind: string }) => e.kind === 'agent.status_changed');
      const seen = ev.map((e: { payload: { old_status: string; new_status: string } }) => `${e.payload.old_status}>${e.payload.new_status}`).reverse();
      assert.deepEqual(seen, ['idle>running', 'running>paused', 'paused>running', 'running>stopped', 'stopped>running']);
      assert.ok(ev.every((e: { payload: Record<string, unknown> }) => e.payload.agent_id === a.id && typeof e.payload.reason === 'string' && e.payload.timestamp));
    });

    it('moves an agent whose network was deleted to error, refuses work there, recovers with resume', async () => {
      const d = await network(free30);
      const net = (await ok('POST', '/api/v1/networks', bodyOf(d, 'doomed'), 201)).id;
      const a = await agent({ network_id: net });
      await ok('DELETE', `/api/v1/networks/${net}`);
      const e = err(await cmd(a.id, { command: 'run_powerflow' }), 422, 'VALIDATION_FAILED');
      assert.equal(e.details.network_id, net);
      const g = await ok('GET', `/api/v1/agents/${a.id}`);
      assert.equal(g.status, 'error');
      assert.match(g.status_reason, /no longer exists/);
      const c = err(await cmd(a.id, { command: 'run_powerflow' }), 409, 'CONFLICT');
      assert.equal(c.details.status, 'error');
      const pe = err(await call('POST', `/api/v1/agents/${a.id}/pause`), 409, 'CONFLICT');
      assert.deepEqual([pe.details.from, pe.details.to], ['error', 'paused']);
      assert.equal((await cmd(a.id, { command: 'status' })).statusCode, 200, 'status is answered in every state');
      await ok('PUT', `/api/v1/agents/${a.id}`, { network_id: free30 });
      assert.equal((await ok('POST', `/api/v1/agents/${a.id}/resume`)).status, 'running');
      assert.equal((await cmd(a.id, { command: 'run_powerflow' })).statusCode, 200);
    });

    // ------------------------------------------------------------------ commands

    it('answers status with the agent, its network and its last actions', async () => {
      const a = await agent({ network_id: case30 });
      const r = await cmd(a.id, { command: 'status' });
      assert.equal(r.statusCode, 200, r.body);
      const d = json(r).data;
      assert.match(d.command_id, /^cmd_/);
      assert.match(d.action_id, /^act_/);
      assert.equal(d.agent_id, a.id);
      assert.equal(d.command, 'status');
      assert.equal(d.status, 'completed');
      assert.equal(d.priority, 'normal');
      assert.equal(typeof d.duration_ms, 'number');
      assert.ok(d.executed_at);
      assert.equal(d.result.agent.id, a.id);
      assert.equal(d.result.network.id, case30);
      assert.equal(d.result.network.bus_count, 30);
      assert.deepEqual(d.result.last_actions, []);
      assert.equal(d.result.constraint_checked, false);
      assert.match(d.result.audit_id, /^aud_/);
      const again = json(await cmd(a.id, { command: 'status', priority: 'high' })).data;
      assert.equal(again.result.last_actions[0].command_id, d.command_id);
      // the audit entry the result names
      const audit = await ok('GET', `/api/v1/audit?resource_type=agent&resource_id=${a.id}&page_size=100`);
      assert.ok(audit.some((x: { id: string; action: string }) => x.id === d.result.audit_id && x.action === 'agent.command.status'), JSON.stringify(audit.map((x: { id: string }) => x.id)));
    });

    it('validates commands: unknown command, bad fields, bad params, unknown agent', async () => {
      const a = await agent({ network_id: case30 });
      const e = err(await cmd(a.id, { command: 'self_destruct' }), 422, 'VALIDATION_FAILED');
      assert.ok(e.details.known.includes('switch_branch') && e.details.known.includes('emergency_shutdown'));
      assert.match(e.message, /status, run_powerflow, switch_branch/);
      err(await cmd(a.id, {}), 400, 'INVALID_REQUEST');
      err(await cmd(a.id, { command: 'status', priority: 'urgent' }), 400, 'INVALID_FIELD');
      err(await cmd(a.id, { command: 'status', timeout_ms: 0 }), 422, 'PARAM_OUT_OF_RANGE');
      err(await cmd(a.id, { command: 'status', params: { colour: 1 } }), 400, 'INVALID_REQUEST');
      err(await cmd(a.id, { command: 'run_powerflow', params: { method: 'gauss' } }), 400, 'INVALID_FIELD');
      err(await cmd(a.id, { command: 'run_powerflow', params: { max_iterations: 0 } }), 422, 'PARAM_OUT_OF_RANGE');
      err(await cmd(a.id, { command: 'switch_branch', params: { from: 1, to: 2 } }), 422, 'VALIDATION_FAILED');
      err(await cmd(a.id, { command: 'switch_branch', params: { state: 'open' } }), 422, 'VALIDATION_FAILED');
      err(await cmd(a.id, { command: 'switch_branch', params: { from: 1, to: 30, state: 'open' } }), 422, 'BRANCH_NOT_FOUND');
      err(await cmd(a.id, { command: 'switch_branch', params: { index: 999, state: 'open' } }), 422, 'BRANCH_NOT_FOUND');
      err(await cmd(a.id, { command: 'switch_branch', params: { from: 1, to: 2, state: 'closed' } }), 409, 'CONFLICT'); // already closed
      err(await cmd(a.id, { command: 'set_generation', params: { bus: 2 } }), 422, 'VALIDATION_FAILED');
      err(await cmd(a.id, { command: 'set_generation', params: { bus: 99, mw: 1 } }), 422, 'BUS_NOT_FOUND');
      err(await cmd(a.id, { command: 'set_generation', params: { bus: 2, mw: 500 } }), 422, 'PARAM_OUT_OF_RANGE');
      err(await cmd(a.id, { command: 'set_generation', params: { bus: 2, vg: 3 } }), 422, 'PARAM_OUT_OF_RANGE');
      err(await cmd('agent_nope00000', { command: 'status' }), 404, 'NOT_FOUND');
      const lonely = await agent();
      const n = err(await cmd(lonely.id, { command: 'run_powerflow' }), 422, 'VALIDATION_FAILED');
      assert.equal(n.details.field, 'network_id');
    });

    it('runs a power flow through the queue and summarises it', async () => {
      const a = await agent({ network_id: case30 });
      const r = await cmd(a.id, { command: 'run_powerflow', params: { method: 'newton_raphson', tolerance: 1e-9, max_iterations: 20 } });
      assert.equal(r.statusCode, 200, r.body);
      const res = json(r).data.result;
      assert.equal(res.status, 'converged');
      assert.match(res.task_id, /^task_/);
      assert.ok(res.iterations >= 1);
      assert.ok(res.losses.p_mw > 0);
      assert.equal(res.max_loading.branch_id, '6-8'); // case30: 6-8 runs at ~109% of 32 MVA
      assert.ok(res.max_loading.loading > 100);
      assert.equal(res.violations.overload, 1);
      assert.equal(typeof res.worst_voltage.v, 'number');
      assert.equal((await ok('GET', `/api/v1/tasks/${res.task_id}`)).status, 'completed');
    });

    it('refuses paused/stopped agents except status, lifecycle commands and emergency_shutdown', async () => {
      const a = await agent({ network_id: case30 });
      await ok('POST', `/api/v1/agents/${a.id}/pause`);
      const e = err(await cmd(a.id, { command: 'run_powerflow' }), 409, 'CONFLICT');
      assert.equal(e.details.status, 'paused');
      err(await cmd(a.id, { command: 'switch_branch', params: { from: 1, to: 2, state: 'open' } }), 409, 'CONFLICT');
      assert.equal((await cmd(a.id, { command: 'status' })).statusCode, 200);
      const r = json(await cmd(a.id, { command: 'resume' })).data;
      assert.deepEqual([r.result.old_status, r.result.new_status], ['paused', 'running']);
      err(await cmd(a.id, { command: 'resume' }), 409, 'CONFLICT');
      assert.equal(json(await cmd(a.id, { command: 'stop' })).data.result.new_status, 'stopped');
      err(await cmd(a.id, { command: 'run_powerflow' }), 409, 'CONFLICT');
      assert.equal(json(await cmd(a.id, { command: 'start' })).data.result.new_status, 'running');
    });

    // ------------------------------------------------------------------ control commands

    it('asks for confirmation and refuses missing, wrong, mismatched, reused and expired tokens', async () => {
      const a = await agent({ network_id: free30, config: { confirmation_ttl_ms: 400 } });
      const before = await network(free30);
      const p = await cmd(a.id, { command: 'switch_branch', params: { from: 10, to: 21, state: 'open' } });
      assert.equal(p.statusCode, 200, p.body);
      const d = json(p).data;
      assert.equal(d.status, 'confirmation_required');
      assert.equal(typeof d.result.confirmation_token, 'string');
      assert.ok(d.result.confirmation_token.length >= 20);
      assert.ok(Date.parse(d.result.expires_at) > Date.now() - 1000);
      assert.deepEqual(d.result.confirm_with.params, { from: 10, to: 21, state: 'open', confirmation_token: d.result.confirmation_token });
      assert.equal((await network(free30)).version, before.version, 'nothing changes before confirmation');
      const refused = async (token: string, params: Record<string, unknown>, reason: string, command = 'switch_branch', agentId = a.id) => {
        const e = err(await cmd(agentId, { command, params: { ...params, confirmation_token: token } }), 422, 'VALIDATION_FAILED');
        assert.equal(e.details.reason, reason, JSON.stringify(e));
        assert.equal(e.details.field, 'params.confirmation_token');
      };
      await refused('x'.repeat(32), { from: 10, to: 21, state: 'open' }, 'unknown');
      await refused(d.result.confirmation_token, { from: 10, to: 21, state: 'closed' }, 'mismatch');
      await refused(d.result.confirmation_token, { index: 26, state: 'open' }, 'mismatch');
      await refused(d.result.confirmation_token, { bus: 2, mw: 50 }, 'mismatch', 'set_generation');
      const other = await agent({ network_id: free30 });
      await refused(d.result.confirmation_token, { from: 10, to: 21, state: 'open' }, 'unknown', 'switch_branch', other.id);
      // expired (this agent's tokens live 400 ms)
      await sleep(500);
      await refused(d.result.confirmation_token, { from: 10, to: 21, state: 'open' }, 'expired');
      const expired = (await actions(a.id)).find((x: { command_id: string }) => x.command_id === d.command_id);
      assert.equal(expired.status, 'expired');
      // a fresh token works once
      const p2 = json(await cmd(a.id, { command: 'switch_branch', params: { from: 10, to: 21, state: 'open' } })).data;
      const go = await cmd(a.id, { command: 'switch_branch', params: { from: 10, to: 21, state: 'open', confirmation_token: p2.result.confirmation_token } }, second);
      assert.equal(go.statusCode, 200, go.body);
      assert.equal(json(go).data.command_id, p2.command_id, 'one command id through both steps');
      await sleep(110); // control commands are 100 ms apart, checked before the token
      await refused(p2.result.confirmation_token, { from: 10, to: 21, state: 'open' }, 'used');
      // and back
      assert.equal((await confirmed(a.id, 'switch_branch', { from: 10, to: 21, state: 'closed' })).statusCode, 200);
    });

    it('refuses a switch that overloads a branch with 409 CONSTRAINT_VIOLATION and leaves the network unchanged', async () => {
      const a = await agent({ network_id: tight30 });
      const before = await network(tight30);
      assert.equal(before.branches[26].status, 'closed');
      const r = await confirmed(a.id, 'switch_branch', { from: 10, to: 21, state: 'open' });
      const e = err(r, 409, 'CONSTRAINT_VIOLATION');
      assert.equal(e.details.reason, 'overload');
      assert.equal(e.details.branch.index, studied);
      assert.equal(e.details.branch.from, before.branches[studied].from);
      assert.equal(e.details.branch.to, before.branches[studied].to);
      assert.equal(e.details.branch_id, `${before.branches[studied].from}-${before.branches[studied].to}`);
      assert.ok(e.details.loading > 100, `loading ${e.details.loading}`);
      assert.equal(e.details.limit, 100);
      assert.equal(e.details.rate_a, rateStudied);
      assert.ok(e.details.loading_before < 100);
      assert.equal(e.details.constraint_checked, true);
      assert.match(e.details.command_id, /^cmd_/);
      assert.match(e.details.audit_id, /^aud_/);
      const after = await network(tight30);
      assert.equal(after.version, before.version);
      assert.equal(after.branches[26].status, 'closed');
      const act = (await actions(a.id)).find((x: { command_id: string }) => x.command_id === e.details.command_id);
      assert.equal(act.status, 'refused');
      assert.equal(act.error.code, 'CONSTRAINT_VIOLATION');
      // case30 with MATPOWER's own ratings: opening 8-28 pushes the already overloaded 6-8 much further
      const b = await agent({ network_id: case30 });
      const v0 = (await network(case30)).version;
      const e2 = err(await confirmed(b.id, 'switch_branch', { from: 8, to: 28, state: 'open' }), 409, 'CONSTRAINT_VIOLATION');
      assert.equal(e2.details.branch_id, '6-8');
      assert.ok(e2.details.loading > e2.details.loading_before + 1);
      assert.equal((await network(case30)).version, v0);
    });

    it('refuses islanding switches and voltage violations', async () => {
      const a = await agent({ network_id: free30 });
      const v0 = (await network(free30)).version;
      const e = err(await confirmed(a.id, 'switch_branch', { from: 9, to: 11, state: 'open' }), 409, 'CONSTRAINT_VIOLATION');
      assert.equal(e.details.reason, 'islanding');
      assert.deepEqual(e.details.buses, [11]);
      const v = err(await confirmed(a.id, 'set_generation', { bus: 2, vg: 1.15 }), 409, 'CONSTRAINT_VIOLATION');
      assert.equal(v.details.reason, 'voltage');
      const bus2 = v.details.violations.find((x: { bus?: number }) => x.bus === 2);
      assert.ok(bus2, JSON.stringify(v.details));
      assert.ok(Math.abs(bus2.voltage - 1.15) < 1e-6);
      assert.equal(bus2.vmax, 1.1);
      assert.equal((await network(free30)).version, v0);
    });

    it('applies an accepted switch as a new network version with a topology event', async () => {
      const a = await agent({ network_id: free30 });
      const before = await network(free30);
      const r = await confirmed(a.id, 'switch_branch', { from: 10, to: 21, state: 'open' });
      assert.equal(r.statusCode, 200, r.body);
      const d = json(r).data;
      assert.equal(d.status, 'completed');
      assert.equal(d.result.constraint_checked, true);
      assert.match(d.result.audit_id, /^aud_/);
      assert.equal(d.result.version, before.version + 1);
      assert.equal(d.result.previous_version, before.version);
      assert.deepEqual(d.result.change.branch, { index: 26, from: 10, to: 21, id: '10-21' });
      assert.equal(d.result.checks.status, 'converged');
      const after = await network(free30);
      assert.equal(after.version, before.version + 1);
      assert.equal(after.branches[26].status, 'open');
      const ev = await ok('GET', `/api/v1/events?topic=topology&network_id=${free30}`);
      const sw = ev.find((e: { kind: string; payload: { changes: { command_id?: string } } }) => e.kind === 'branch.switched' && e.payload.changes.command_id === d.command_id);
      assert.ok(sw, JSON.stringify(ev.slice(0, 3)));
      assert.equal(sw.payload.changes.state, 'open');
      assert.equal(sw.payload.changes.version, before.version + 1);
      // generation set point, then everything back
      await sleep(110);
      const g = await confirmed(a.id, 'set_generation', { index: 1, mw: 50 });
      assert.equal(g.statusCode, 200, g.body);
      assert.equal(json(g).data.result.change.previous_mw, before.generators[1].mw);
      assert.equal((await network(free30)).generators[1].mw, 50);
      assert.equal((await confirmed(a.id, 'set_generation', { index: 1, mw: before.generators[1].mw })).statusCode, 200);
      assert.equal((await confirmed(a.id, 'switch_branch', { index: 26, state: 'closed' })).statusCode, 200);
    });

    it('keeps control commands 100 ms apart (429 RATE_LIMITED with the 8.2 body)', async () => {
      const a = await agent({ network_id: free30 });
      const gen = json(await cmd(a.id, { command: 'set_generation', params: { index: 1, mw: 55 } })).data.result.confirmation_token;
      const sw = json(await cmd(a.id, { command: 'switch_branch', params: { index: 26, state: 'open' } })).data.result.confirmation_token;
      assert.equal((await cmd(a.id, { command: 'switch_branch', params: { index: 26, state: 'open', confirmation_token: sw } }, second)).statusCode, 200);
      const r = await cmd(a.id, { command: 'set_generation', params: { index: 1, mw: 55, confirmation_token: gen } }, second);
      const e = err(r, 429, 'RATE_LIMITED');
      assert.equal(e.details.rule, 'control_interval');
      assert.equal(e.details.scope, 'user');
      assert.equal(typeof e.details.limit, 'number');
      assert.equal(typeof e.details.window_seconds, 'number');
      assert.ok(e.details.retry_after >= 1);
      assert.ok(Date.parse(e.details.reset_at));
      assert.ok(Number(r.headers['retry-after']) >= 1);
      await sleep(120);
      assert.equal((await cmd(a.id, { command: 'set_generation', params: { index: 1, mw: 55, confirmation_token: gen } }, second)).statusCode, 200, 'the token survives a rate-limited try');
      await sleep(110);
      const d = await network(free30);
      assert.equal((await confirmed(a.id, 'switch_branch', { index: 26, state: 'closed' })).statusCode, 200);
      assert.equal((await confirmed(a.id, 'set_generation', { index: 1, mw: 60.97 })).statusCode, 200);
      assert.equal(d.generators[1].mw, 55);
    });

    // ------------------------------------------------------------------ limits

    it('limits an agent to 10 commands per second (429 RATE_LIMITED)', async () => {
      const a = await agent({ max_actions_per_minute: 600 });
      const rs = await Promise.all(Array.from({ length: 14 }, () => cmd(a.id, { command: 'status' })));
      const okN = rs.filter((r) => r.statusCode === 200).length;
      const limited = rs.filter((r) => r.statusCode === 429);
      assert.ok(okN <= 10 + 2 && okN >= 1, `${okN} passed`);
      assert.ok(limited.length >= 1, rs.map((r) => r.statusCode).join(','));
      const e = json(limited[0]).error;
      assert.equal(e.code, 'RATE_LIMITED');
      assert.deepEqual([e.details.limit, e.details.window_seconds, e.details.scope, e.details.rule, e.details.agent_id], [10, 1, 'user', 'per_second', a.id]);
      assert.ok(e.details.retry_after >= 1 && Date.parse(e.details.reset_at));
      assert.ok(limited[0].headers['retry-after']);
      assert.equal(limited[0].headers['x-ratelimit-limit'], '10');
      // emergency shutdown is never rate limited
      const s = await cmd(a.id, { command: 'emergency_shutdown' });
      assert.equal(s.statusCode, 200, s.body);
      await sleep(1100);
      assert.equal((await cmd(a.id, { command: 'status' })).statusCode, 200);
    });

    it('answers AGENT_BUSY above max_actions_per_minute, and emergency_shutdown bypasses it', async () => {
      const a = await agent({ max_actions_per_minute: 3 });
      for (let i = 0; i < 3; i++) assert.equal((await cmd(a.id, { command: 'status' })).statusCode, 200);
      const e = err(await cmd(a.id, { command: 'status' }), 422, 'AGENT_BUSY');
      assert.equal(e.details.reason, 'max_actions_per_minute');
      assert.equal(e.details.limit, 3);
      const s = await cmd(a.id, { command: 'emergency_shutdown', params: { reason: 'test' } });
      assert.equal(s.statusCode, 200, s.body);
      const r = json(s).data.result;
      assert.deepEqual([r.old_status, r.new_status, r.already_stopped], ['running', 'stopped', false]);
      assert.equal((await ok('GET', `/api/v1/agents/${a.id}`)).status, 'stopped');
      const again = json(await cmd(a.id, { command: 'emergency_shutdown' })).data.result;
      assert.equal(again.already_stopped, true);
      const ev = await ok('GET', `/api/v1/events?topic=agent&agent_id=${a.id}`);
      assert.ok(ev.some((x: { kind: string; payload: Record<string, unknown> }) => x.kind === 'agent.status_changed' && x.payload.new_status === 'stopped' && x.payload.reason === 'test'));
    });

    /** Holds the tenant's power flows in its queue (concurrent_powerflow 0, live) while fn runs: a run_powerflow
     *  command then keeps the agent's slot until something ends it, however fast or slow the machine is. */
    const holdingPowerFlows = async <T>(fn: () => Promise<T>): Promise<T> => {
      const quota = (body: Record<string, unknown>) => ok('PUT', '/api/v1/admin/tenants/default/quota', { ...body, reason: 'agents test: hold power flows in the queue' });
      const held = await quota({ concurrent_powerflow: 0 });
      try {
        return await fn();
      } finally {
        await quota({ concurrent_powerflow: held.previous.concurrent_powerflow });
      }
    };
    const until = async (what: string, fn: () => Promise<boolean>, ms = 30_000) => {
      const end = Date.now() + ms;
      while (!(await fn())) {
        if (Date.now() > end) assert.fail(`${what}: not within ${ms} ms`);
        await sleep(20);
      }
    };

    it('runs one command at a time: AGENT_BUSY, NETWORK_LOCKED, emergency priority waits, emergency_shutdown interrupts', async () => {
      // The running command must still run when the shutdown arrives. A long solve is no guarantee on a busy
      // machine (a 1000-iteration case2383wp solve takes ~1 s, the steps below may take longer), so its power
      // flow task waits in the tenant's queue instead, and the command holds the slot until it is interrupted.
      const a = await agent({ network_id: free30 });
      await holdingPowerFlows(async () => {
        const long = await cmd(a.id, { command: 'run_powerflow', timeout_ms: 60000, await_result: false });
        assert.equal(long.statusCode, 202, long.body);
        const acc = json(long).data;
        assert.equal(acc.status, 'accepted');
        assert.equal(acc.result, null);
        await waitAction(a.id, acc.command_id, ['running']);
        const busy = err(await cmd(a.id, { command: 'run_powerflow' }), 422, 'AGENT_BUSY');
        assert.equal(busy.details.command_id, acc.command_id);
        assert.equal((await cmd(a.id, { command: 'status' })).statusCode, 200, 'status does not need the command slot');
        // an emergency-priority command is not refused: it waits for the slot (here until its own deadline)
        const w = err(await cmd(a.id, { command: 'run_powerflow', priority: 'emergency', timeout_ms: 300 }), 504, 'GATEWAY_TIMEOUT');
        assert.equal((await actions(a.id)).find((x: { command_id: string }) => x.command_id === w.details.command_id).status, 'timeout');
        assert.equal((await waitAction(a.id, acc.command_id, ['running', 'completed', 'failed', 'cancelled', 'timeout'])).status, 'running');
        // shutdown: bypasses the busy slot, stops the agent, interrupts the running command
        const s = await cmd(a.id, { command: 'emergency_shutdown', priority: 'emergency' });
        assert.equal(s.statusCode, 200, s.body);
        assert.equal(json(s).data.result.interrupted_command_id, acc.command_id);
        const done = await waitAction(a.id, acc.command_id, ['cancelled', 'failed', 'timeout', 'completed']);
        assert.equal(done.status, 'cancelled', JSON.stringify(done));
        const ev = await ok('GET', `/api/v1/events?topic=agent&agent_id=${a.id}&page_size=100`);
        const completed = ev.find((x: { kind: string; payload: { command_id: string } }) => x.kind === 'command.completed' && x.payload.command_id === acc.command_id);
        assert.ok(completed, 'the result of an await_result:false command arrives as an agent event');
        assert.equal(completed.payload.status, 'cancelled');
      });
      // NETWORK_LOCKED: while a power flow of the network runs, another agent cannot change it. The lock lasts as
      // long as the solve, so the test waits for the lock, tries, and when the answer came after the lock had
      // ended it checks that the lock had indeed ended and tries again with a new solve.
      const big = await importCase('case2383wp');
      const b = await agent({ network_id: big });
      let refusedWhileLocked = false;
      for (let attempt = 0; attempt < 5 && !refusedWhileLocked; attempt++) {
        const task = await ok('POST', `/api/v1/networks/${big}/powerflow`, { async: true, tolerance: 1e-15, max_iterations: 1000, flat_start: true }, 202);
        const ended = async () => !['queued', 'dispatched', 'running'].includes((await ok('GET', `/api/v1/tasks/${task.task_id}`)).status);
        await until('the network is locked by its power flow (or the flow already ended)', async () => (await network(big)).status === 'locked' || (await ended()));
        const r = await cmd(b.id, { command: 'switch_branch', params: { index: 0, state: 'open' } });
        if (r.statusCode === 409) {
          err(r, 409, 'NETWORK_LOCKED');
          refusedWhileLocked = true;
        } else {
          assert.equal(json(r).data.status, 'confirmation_required', r.body);
          assert.notEqual((await network(big)).status, 'locked', 'a control command was accepted on a locked network');
        }
        await until('the power flow ends', ended);
      }
      assert.ok(refusedWhileLocked, 'NETWORK_LOCKED was never seen while the network was locked');
      await until('the network is unlocked', async () => (await network(big)).status === 'ready');
    });

    it('bounds execution with timeout_ms (504 GATEWAY_TIMEOUT)', async () => {
      const big = (await ok('GET', '/api/v1/networks?name=case2383wp&page_size=1'))[0]?.id ?? (await importCase('case2383wp'));
      const a = await agent({ network_id: big });
      const e = err(await cmd(a.id, { command: 'run_powerflow', params: { tolerance: 1e-15, max_iterations: 1000, flat_start: true }, timeout_ms: 150 }), 504, 'GATEWAY_TIMEOUT');
      assert.equal(e.details.timeout_ms === 150 || typeof e.details.task_id === 'string', true, JSON.stringify(e.details));
      const act = (await actions(a.id)).find((x: { command_id: string }) => x.command_id === e.details.command_id);
      assert.equal(act.status, 'timeout');
      assert.equal((await ok('GET', `/api/v1/agents/${a.id}`)).status, 'running');
    });

    it('returns at once with await_result false and records the result', async () => {
      const a = await agent({ network_id: free30 });
      const r = await cmd(a.id, { command: 'run_powerflow', await_result: false, priority: 'low' });
      assert.equal(r.statusCode, 202, r.body);
      const d = json(r).data;
      assert.equal(d.status, 'accepted');
      const done = await waitAction(a.id, d.command_id, ['completed', 'failed']);
      assert.equal(done.status, 'completed');
      assert.equal(done.priority, 'low');
      assert.equal(done.result.status, 'converged');
      assert.match(done.audit_id, /^aud_/);
    });

    it('keeps the action history with paging', async () => {
      const a = await agent();
      for (let i = 0; i < 5; i++) assert.equal((await cmd(a.id, { command: 'status' })).statusCode, 200);
      const r = json(await call('GET', `/api/v1/agents/${a.id}/actions?page_size=2`));
      assert.equal(r.data.length, 2);
      assert.equal(r.meta.total, 5);
      assert.equal(r.meta.total_pages, 3);
      const x = r.data[0];
      for (const k of ['id', 'agent_id', 'command', 'params', 'status', 'result', 'executed_at', 'duration_ms']) assert.ok(k in x, k);
      assert.match(x.id, /^act_/);
      assert.ok(r.data[0].executed_at >= r.data[1].executed_at);
      const p3 = await ok('GET', `/api/v1/agents/${a.id}/actions?page_size=2&page=3`);
      assert.equal(p3.length, 1);
      err(await call('GET', '/api/v1/agents/agent_nope00000/actions'), 404, 'NOT_FOUND');
    });

    it('runs a command batch highest priority first, each entry alone, at most 50', async () => {
      const a = await agent({ network_id: free30 });
      const r = await ok('POST', `/api/v1/agents/${a.id}/commands`, { commands: [
        { command: 'status', priority: 'low' }, { command: 'bogus' }, { command: 'status', priority: 'emergency' }, { command: 'run_powerflow' }, { colour: 1 },
      ] });
      assert.deepEqual(r.succeeded.map((x: { index: number }) => x.index), [0, 2, 3]);
      assert.deepEqual(r.failed.map((x: { index: number; error: { code: string } }) => [x.index, x.error.code]), [[1, 'VALIDATION_FAILED'], [4, 'INVALID_FIELD']]);
      const hist = (await ok('GET', `/api/v1/agents/${a.id}/actions?sort=seq`)).map((x: { priority: string; command: string }) => `${x.command}:${x.priority}`);
      assert.deepEqual(hist, ['status:emergency', 'run_powerflow:normal', 'status:low']);
      err(await call('POST', `/api/v1/agents/${a.id}/commands`, { commands: Array.from({ length: 51 }, () => ({ command: 'status' })) }), 422, 'VALIDATION_FAILED');
    });

    // ------------------------------------------------------------------ roles and tenants

    it('checks roles and isolates tenants', async () => {
      const a = await agent({ network_id: case30 });
      const viewer = await tokenFor(app, 'viewer');
      assert.equal((await call('GET', `/api/v1/agents/${a.id}`, undefined, viewer)).statusCode, 200);
      err(await call('POST', '/api/v1/agents', { name: 'v', type: 'dispatch' }, viewer), 403, 'FORBIDDEN');
      err(await cmd(a.id, { command: 'status' }, viewer), 403, 'FORBIDDEN');
      err(await call('POST', `/api/v1/agents/${a.id}/pause`, undefined, viewer), 403, 'FORBIDDEN');
      const operator = await tokenFor(app, 'operator');
      assert.equal((await cmd(a.id, { command: 'status' }, operator)).statusCode, 200);
      err(await call('GET', '/api/v1/agents', undefined, { authorization: 'Bearer nope' }), 401, 'UNAUTHORIZED');

      const other = await tokenFor(app, 'operator', `iso${mode.slice(0, 1)}${process.pid}`);
      err(await call('GET', `/api/v1/agents/${a.id}`, undefined, other), 404, 'NOT_FOUND');
      err(await cmd(a.id, { command: 'status' }, other), 404, 'NOT_FOUND');
      err(await call('PUT', `/api/v1/agents/${a.id}`, { name: 'stolen' }, other), 404, 'NOT_FOUND');
      err(await call('DELETE', `/api/v1/agents/${a.id}`, undefined, other), 404, 'NOT_FOUND');
      err(await call('POST', `/api/v1/agents/${a.id}/pause`, undefined, other), 404, 'NOT_FOUND');
      err(await call('GET', `/api/v1/agents/${a.id}/actions`, undefined, other), 404, 'NOT_FOUND');
      const list = json(await call('GET', '/api/v1/agents?page_size=100', undefined, other)).data;
      assert.ok(!list.some((x: { id: string }) => x.id === a.id));
      const e = err(await call('POST', '/api/v1/agents', { name: 'x', type: 'dispatch', network_id: case30 }, other), 422, 'VALIDATION_FAILED');
      assert.equal(e.details.field, 'network_id');
      const mine = json(await call('POST', '/api/v1/agents', { name: 'theirs', type: 'dispatch' }, other));
      err(await call('GET', `/api/v1/agents/${mine.data.id}`), 404, 'NOT_FOUND'); // the admin acts in its own tenant...
      assert.equal((await call('GET', `/api/v1/agents/${mine.data.id}`, undefined, { 'x-tenant-id': `iso${mode.slice(0, 1)}${process.pid}` })).statusCode, 200); // ...unless it names another
    });
  });
}
