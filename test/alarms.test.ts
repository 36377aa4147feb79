// Alarms through the real service, in both modes: raised by power-flow results
// (overload, voltage), one per condition across runs, cleared by a later result,
// acknowledged by people, listed with filters; device faults through raiseAlarm.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { raiseAlarm, clearAlarm } from '../src/domain/alarms.js';
import { powerFlowConditions } from '../src/domain/alarmRules.js';
import { withDefaults } from '../src/domain/networkModel.js';
import { restClient } from './helpers/rest.js';

type Headers = Record<string, string>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Net {
  buses: Record<string, unknown>[];
  branches: Record<string, unknown>[];
  generators: Record<string, unknown>[];
  loads: { bus: number; mw: number; mvar: number }[];
}

describe('alarm rules (unit)', () => {
  const model = withDefaults({
    name: 'u', buses: [{ id: 1, type: 'slack' }, { id: 2, type: 'pq', vmin: 0.95, vmax: 1.05 }, { id: 3, type: 'isolated' }],
    branches: [{ from: 1, to: 2, r: 0.01, x: 0.1, rate_a: 100 }, { from: 1, to: 2, r: 0.01, x: 0.1, rate_a: 100 }, { from: 1, to: 2, r: 0.01, x: 0.1 }],
  });
  const f = (loading: number) => ({ from: 1, to: 2, loading, p_from: 0, q_from: 0, p_to: 0, q_to: 0 });
  it('overload above 100% of rate_a (critical above 120%), voltage outside [vmin, vmax], parallel circuits apart', () => {
    const c = powerFlowConditions(model, {
      status: 'converged',
      buses: [
        { id: 1, v: 1 },
        { id: 2, v: 0.85 },
        { id: 3, v: 0.1 },
      ],
      branches: [f(110), f(130), f(500)],
    });
    assert.deepEqual(
      c.map((x) => [x.type, x.sourceId, x.severity]),
      [
        ['overload', '1-2', 2],
        ['overload', '1-2:2', 3],
        ['voltage', '2', 3],
      ],
    );
    assert.equal(c[2].details.vmin, 0.95);
    const none = powerFlowConditions(model, { status: 'converged', buses: [{ id: 2, v: 0.96 }], branches: [f(100), f(99), f(0)] });
    assert.deepEqual(none, []);
    const near = powerFlowConditions(model, { status: 'converged', buses: [{ id: 2, v: 0.94 }], branches: [] });
    assert.equal(near[0].severity, 2);
  });
});

for (const mode of MODES) {
  describe(`alarms API (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    const { call, ok, err } = restClient(() => ({ app, h }));
    const alarmsOf = async (net: string, q = '') => ok('GET', `/api/v1/alarms?network_id=${net}&page_size=100${q}`);
    const pf = (net: string, body: Record<string, unknown> = {}) => ok('POST', `/api/v1/networks/${net}/powerflow`, body);
    const put = (net: string, n: Net, name: string) =>
      ok('PUT', `/api/v1/networks/${net}`, { name, buses: n.buses, branches: n.branches, generators: n.generators, loads: n.loads });

    let base: Net;
    let net: string;

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case30.m'), 'utf8'), {
        'content-type': 'text/plain',
      });
      assert.equal(r.statusCode, 201, r.body);
      const d = await ok('GET', `/api/v1/networks/${json(r).data.id}`);
      // Only branch 6-8 (index 9) keeps its rating (32 MVA): case30 runs it at ~109%, so exactly one overload.
      base = {
        buses: d.buses,
        branches: d.branches.map((b: Record<string, unknown>, i: number) => ({ ...b, rate_a: i === 9 ? 32 : 0 })),
        generators: d.generators,
        loads: d.loads,
      };
      net = (await ok('POST', '/api/v1/networks', { name: 'case30-alarms', ...base }, 201)).id;
    });
    after(async () => app?.close());

    it('raises one overload alarm for an overloading power flow, and no duplicate on later runs', async () => {
      const r1 = await pf(net);
      assert.equal(r1.status, 'converged');
      let list = await alarmsOf(net);
      assert.equal(list.length, 1, JSON.stringify(list));
      const a = list[0];
      assert.match(a.id, /^alarm_/);
      assert.equal(a.type, 'overload');
      assert.equal(a.severity, 'error');
      assert.equal(a.severity_level, 2);
      assert.equal(a.status, 'active');
      assert.equal(a.network_id, net);
      assert.deepEqual(a.source, { type: 'branch', id: '6-8' });
      assert.ok(a.details.loading > 100 && a.details.loading < 120, JSON.stringify(a.details));
      assert.equal(a.details.limit, 100);
      assert.equal(a.details.rate_a, 32);
      assert.equal(a.details.task_id, r1.task_id);
      assert.match(a.message, /6-8/);
      assert.ok(a.raised_at);
      assert.equal(a.acknowledged_at, null);
      assert.equal(a.cleared_at, null);
      // the async path (task queue) judges results the same way
      const q = await ok('POST', `/api/v1/networks/${net}/powerflow`, { async: true }, 202);
      for (let i = 0; i < 400 && (await ok('GET', `/api/v1/tasks/${q.task_id}`)).status !== 'completed'; i++) await sleep(10);
      await pf(net);
      list = await alarmsOf(net);
      assert.equal(list.length, 1, 'still one alarm for the condition');
      assert.equal(list[0].id, a.id);
      assert.equal(list[0].occurrences, 3);
      assert.notEqual(list[0].details.task_id, r1.task_id);
      const ev = await ok('GET', `/api/v1/events?topic=alarm,constraint&network_id=${net}&page_size=100`);
      const raised = ev.filter((e: { kind: string }) => e.kind === 'alarm.raised');
      assert.equal(raised.length, 1);
      for (const k of ['alarm_id', 'id', 'severity', 'status', 'type', 'message', 'network_id', 'raised_at']) assert.ok(k in raised[0].payload, k);
      assert.equal(raised[0].payload.alarm_id, a.id);
      const violated = ev.filter((e: { kind: string }) => e.kind === 'constraint.violated');
      assert.equal(violated.length, 1);
      assert.deepEqual([violated[0].payload.element, violated[0].payload.quantity, violated[0].payload.limit], ['branch:6-8', 'loading', 100]);
      assert.ok(violated[0].payload.value > 100);
    });

    it('acknowledges an active alarm once; the states are enforced', async () => {
      const [a] = await alarmsOf(net, '&status=active');
      err(await call('PATCH', `/api/v1/alarms/${a.id}/ack`, {}), 400, 'INVALID_REQUEST');
      err(await call('PATCH', `/api/v1/alarms/${a.id}/ack`, { acknowledged_by: '' }), 400, 'INVALID_FIELD');
      err(await call('PATCH', '/api/v1/alarms/alarm_nope0000/ack', { acknowledged_by: 'ops' }), 404, 'NOT_FOUND');
      const k = await ok('PATCH', `/api/v1/alarms/${a.id}/ack`, { acknowledged_by: 'operator-1', note: 'load shedding planned' });
      assert.equal(k.status, 'acknowledged');
      assert.equal(k.acknowledged_by, 'operator-1');
      assert.equal(k.note, 'load shedding planned');
      assert.ok(k.acknowledged_at);
      const again = err(await call('PATCH', `/api/v1/alarms/${a.id}/ack`, { acknowledged_by: 'operator-2' }), 409, 'CONFLICT');
      assert.deepEqual([again.details.from, again.details.to], ['acknowledged', 'acknowledged']);
      // an acknowledged alarm stays the one alarm of its condition
      await pf(net);
      const list = await alarmsOf(net);
      assert.equal(list.length, 1);
      assert.equal(list[0].status, 'acknowledged');
      assert.equal((await ok('GET', `/api/v1/alarms/${a.id}`)).status, 'acknowledged');
      const ev = await ok('GET', `/api/v1/events?topic=alarm&network_id=${net}`);
      assert.ok(ev.some((e: { kind: string; payload: { status: string } }) => e.kind === 'alarm.acknowledged' && e.payload.status === 'acknowledged'));
    });

    it('clears the alarm when a later result shows the condition gone (loads reduced), and raises anew when it returns', async () => {
      const [a] = await alarmsOf(net);
      await put(net, { ...base, loads: base.loads.map((l) => ({ ...l, mw: l.mw * 0.6, mvar: l.mvar * 0.6 })) }, 'case30-light');
      await pf(net);
      const c = await ok('GET', `/api/v1/alarms/${a.id}`);
      assert.equal(c.status, 'cleared');
      assert.ok(c.cleared_at);
      assert.equal((await alarmsOf(net, '&status=active,acknowledged')).length, 0);
      const e = err(await call('PATCH', `/api/v1/alarms/${a.id}/ack`, { acknowledged_by: 'late' }), 409, 'CONFLICT');
      assert.equal(e.details.from, 'cleared');
      const ev = await ok('GET', `/api/v1/events?topic=alarm,constraint&network_id=${net}&page_size=100`);
      assert.ok(ev.some((x: { kind: string; payload: { alarm_id: string } }) => x.kind === 'alarm.cleared' && x.payload.alarm_id === a.id));
      const restored = ev.find((x: { kind: string }) => x.kind === 'constraint.restored');
      assert.ok(restored);
      assert.equal(restored.payload.element, 'branch:6-8');
      assert.ok(restored.payload.value < 100);
      // a cleared alarm stays cleared on later clean runs
      await pf(net);
      assert.equal((await ok('GET', `/api/v1/alarms/${a.id}`)).status, 'cleared');
      // heavier loads: the overload returns, as a new (critical) alarm
      await put(net, { ...base, loads: base.loads.map((l) => ({ ...l, mw: l.mw * 1.25, mvar: l.mvar * 1.25 })) }, 'case30-heavy');
      await pf(net);
      const open = await alarmsOf(net, '&status=active&type=overload');
      assert.equal(open.length, 1);
      assert.notEqual(open[0].id, a.id);
      assert.equal(open[0].severity, 'critical', JSON.stringify(open[0].details));
      assert.ok(open[0].details.loading > 120);
      await put(net, base, 'case30-alarms');
    });

    it('raises voltage alarms with v, vmin and vmax', async () => {
      const buses = base.buses.map((b) => (b.id === 8 ? { ...b, vmin: 0.97 } : b));
      await put(net, { ...base, buses }, 'case30-tight-v');
      await pf(net);
      const v = await alarmsOf(net, '&type=voltage&status=active');
      assert.equal(v.length, 1, JSON.stringify(v));
      assert.deepEqual(v[0].source, { type: 'bus', id: '8' });
      assert.equal(v[0].details.vmin, 0.97);
      assert.equal(v[0].details.vmax, 1.05);
      assert.ok(v[0].details.v < 0.97);
      assert.equal(v[0].details.direction, 'low');
      assert.equal(v[0].severity, 'error');
      await put(net, base, 'case30-alarms');
      await pf(net);
      assert.equal((await ok('GET', `/api/v1/alarms/${v[0].id}`)).status, 'cleared');
    });

    it('does not judge diverged results', async () => {
      const before = (await alarmsOf(net)).length;
      const heavy = await ok(
        'POST',
        '/api/v1/networks',
        { name: 'case30-x10', ...base, loads: base.loads.map((l) => ({ ...l, mw: l.mw * 10, mvar: l.mvar * 10 })) },
        201,
      );
      const r = await call('POST', `/api/v1/networks/${heavy.id}/powerflow`, { max_iterations: 10 });
      err(r, 409, 'POWERFLOW_DIVERGED');
      assert.equal((await alarmsOf(heavy.id)).length, 0);
      assert.equal((await alarmsOf(net)).length, before);
    });

    it('lists with filters, paging and sort, and refuses bad filters', async () => {
      await raiseAlarm(app.services, 'default', {
        type: 'test',
        severity: 'critical',
        message: 'critical one',
        network_id: net,
        source: { type: 'test', id: 'lists' },
      });
      const all = json(await call('GET', '/api/v1/alarms?page_size=2'));
      assert.ok(all.meta.total >= 3, JSON.stringify(all.meta));
      assert.equal(all.data.length, 2);
      assert.ok(all.data[0].raised_at >= all.data[1].raised_at, 'newest first by default');
      const next = json(await call('GET', `/api/v1/alarms?page_size=2&cursor=${all.meta.next_cursor}`));
      assert.notEqual(next.data[0].id, all.data[0].id);
      const crit = await ok('GET', '/api/v1/alarms?severity=critical');
      assert.ok(crit.length >= 1 && crit.every((a: { severity: string }) => a.severity === 'critical'));
      const several = await ok('GET', '/api/v1/alarms?severity=error,critical&status=cleared&page_size=100');
      assert.ok(
        several.length >= 1 &&
          several.every((a: { severity: string; status: string }) => ['error', 'critical'].includes(a.severity) && a.status === 'cleared'),
      );
      const bySev = await ok('GET', '/api/v1/alarms?sort=-severity,raised_at&page_size=100');
      for (let i = 1; i < bySev.length; i++) assert.ok(bySev[i - 1].severity_level >= bySev[i].severity_level);
      const t0 = new Date(Date.now() - 3600_000).toISOString();
      assert.ok((await ok('GET', `/api/v1/alarms?from=${t0}&to=${new Date(Date.now() + 60_000).toISOString()}&page_size=100`)).length >= 3);
      assert.equal((await ok('GET', `/api/v1/alarms?to=${t0}`)).length, 0);
      assert.equal((await ok('GET', '/api/v1/alarms?network_id=net_none0000')).length, 0);
      err(await call('GET', '/api/v1/alarms?severity=loud'), 400, 'INVALID_FIELD');
      err(await call('GET', '/api/v1/alarms?status=open'), 400, 'INVALID_FIELD');
      err(await call('GET', '/api/v1/alarms?from=yesterday'), 400, 'INVALID_FIELD');
      err(await call('GET', '/api/v1/alarms?sort=colour'), 400, 'INVALID_FIELD');
      err(await call('GET', '/api/v1/alarms?page_size=0'), 422, 'PARAM_OUT_OF_RANGE');
      err(await call('GET', '/api/v1/alarms/alarm_nope0000'), 404, 'NOT_FOUND');
      err(await call('GET', '/api/v1/alarms/bad'), 400, 'INVALID_FIELD');
      err(await call('DELETE', `/api/v1/alarms/${all.data[0].id}`), 405, 'METHOD_NOT_ALLOWED');
    });

    it('raises and clears device-fault alarms for other domains, one per condition', async () => {
      const a = await raiseAlarm(app.services, 'default', {
        type: 'device_fault',
        severity: 'error',
        message: 'inverter fault',
        network_id: net,
        source: { type: 'device', id: 'dev_x1' },
        details: { code: 'E42' },
      });
      const b = await raiseAlarm(app.services, 'default', {
        type: 'device_fault',
        severity: 'critical',
        message: 'inverter fault',
        network_id: net,
        source: { type: 'device', id: 'dev_x1' },
        details: { code: 'E43' },
      });
      assert.equal(b.id, a.id);
      assert.equal(b.severity, 'critical');
      assert.equal(b.occurrences, 2);
      const got = await ok('GET', `/api/v1/alarms/${a.id}`);
      assert.deepEqual(got.source, { type: 'device', id: 'dev_x1' });
      // a power-flow run on the network leaves device alarms alone
      await pf(net);
      assert.equal((await ok('GET', `/api/v1/alarms/${a.id}`)).status, 'active');
      const c = await clearAlarm(app.services, 'default', { type: 'device_fault', source: { type: 'device', id: 'dev_x1' }, network_id: net });
      assert.equal(c?.status, 'cleared');
      assert.equal(
        await clearAlarm(app.services, 'default', { type: 'device_fault', source: { type: 'device', id: 'dev_x1' }, network_id: net }),
        null,
      );
      const d = await raiseAlarm(app.services, 'default', {
        type: 'device_fault',
        severity: 1,
        message: 'again',
        network_id: net,
        source: { type: 'device', id: 'dev_x1' },
      });
      assert.notEqual(d.id, a.id);
      assert.equal(d.severity, 'warn');
      await clearAlarm(app.services, 'default', { id: d.id });
    });

    it('checks roles and isolates tenants', async () => {
      const [a] = await ok('GET', '/api/v1/alarms?page_size=1');
      const viewer = await tokenFor(app, 'viewer');
      assert.equal((await call('GET', `/api/v1/alarms/${a.id}`, undefined, viewer)).statusCode, 200);
      err(await call('PATCH', `/api/v1/alarms/${a.id}/ack`, { acknowledged_by: 'v' }, viewer), 403, 'FORBIDDEN');
      const other = await tokenFor(app, 'operator', `alx${mode.slice(0, 1)}${process.pid}`);
      assert.equal(json(await call('GET', '/api/v1/alarms?page_size=100', undefined, other)).data.length, 0);
      err(await call('GET', `/api/v1/alarms/${a.id}`, undefined, other), 404, 'NOT_FOUND');
      err(await call('PATCH', `/api/v1/alarms/${a.id}/ack`, { acknowledged_by: 'x' }, other), 404, 'NOT_FOUND');
    });
  });
}
