// PSS/E RAW and RAWX through the service's doors, both modes (CONTRACT "PSS/E RAW and MATPOWER DC
// lines"): POST /networks/import?format=psse|rawx and detected, the warnings it answers, 400
// INVALID_FORMAT naming line and record, the DC lines stored and solved (REST power flow equals
// MATPOWER's runpf), GET /export?format=psse and import -> export -> import solving to the same answer.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { gql, ok } from './graphql-helpers.js';
import { SHARED_DIR } from '../src/paths.js';

const PSSE = join(SHARED_DIR, 'reference', 'psse');
const raw = (f: string) => readFileSync(join(PSSE, 'cases', f), 'utf8');
const solution = (name: string) => JSON.parse(readFileSync(join(PSSE, 'solutions', `${name}.json`), 'utf8')) as {
  pf: { bus: number[][]; gen: number[][]; branch: number[][]; dcline?: number[][] };
};

for (const mode of MODES) {
  describe(`PSS/E import and export (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const post = (url: string, payload: string, contentType = 'text/plain') =>
      app.app!.inject({ method: 'POST', url, headers: { ...h, 'content-type': contentType }, payload });
    const get = (url: string) => app.app!.inject({ method: 'GET', url, headers: h });
    const solve = async (id: string) => {
      const res = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${id}/powerflow`, headers: { ...h, 'content-type': 'application/json' },
        payload: { method: 'newton_raphson', tolerance: 1e-8, max_iterations: 10 } });
      assert.equal(res.statusCode, 200, res.body);
      return json(res).data;
    };

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('imports a RAW file with ?format=psse and without it, answering its revision and warnings', async () => {
      const text = raw('matpower/t_psse_case3.raw');
      for (const url of ['/api/v1/networks/import?format=psse', '/api/v1/networks/import']) {
        const res = await post(url, text);
        assert.equal(res.statusCode, 201, res.body);
        const d = json(res).data;
        assert.equal(d.format, 'psse');
        assert.equal(d.revision, 30);
        assert.equal(d.bus_count, 46);
        const codes = d.warnings.map((w: { code: string }) => w.code);
        for (const c of ['VSC_DC_NOT_MODELLED', 'FACTS_NOT_MODELLED', 'MULTI_TERMINAL_DC_NOT_MODELLED', 'TWO_TERMINAL_DC_AS_DC_LINE']) assert.ok(codes.includes(c), `${c} in ${codes}`);
        const vsc = d.warnings.find((w: { code: string }) => w.code === 'VSC_DC_NOT_MODELLED');
        assert.ok(vsc.count >= 1 && vsc.first_line > 0);
      }
    });

    it('imports RAWX (format given or detected) and a revision-35 RAW file, equal to the revision-33 twin', async () => {
      const ids: string[] = [];
      for (const [file, url] of [['powsybl/IEEE_14_bus.raw', '?format=psse'], ['powsybl/IEEE_14_bus_rev35.raw', ''], ['powsybl/IEEE_14_bus_rev35.rawx', '?format=rawx'],
        ['powsybl/IEEE_14_bus_rev35.rawx', '']] as const) {
        const res = await post(`/api/v1/networks/import${url}`, raw(file));
        assert.equal(res.statusCode, 201, `${file}: ${res.body}`);
        assert.equal(json(res).data.format, file.endsWith('.rawx') ? 'rawx' : 'psse');
        ids.push(json(res).data.id);
      }
      // RAWX sent as application/json is the file too
      const asJson = await post('/api/v1/networks/import', raw('powsybl/IEEE_14_bus_rev35.rawx'), 'application/json');
      assert.equal(asJson.statusCode, 201, asJson.body);
      assert.equal(json(asJson).data.format, 'rawx');
      const ref = solution('IEEE_14_bus');
      for (const id of ids) {
        const r = await solve(id);
        r.buses.forEach((b: { id: number; v: number; theta: number }, k: number) => {
          assert.equal(b.id, ref.pf.bus[k]![0]);
          assert.ok(Math.abs(b.v - ref.pf.bus[k]![2]!) <= 1e-6, `bus ${b.id} v`);
          assert.ok(Math.abs(b.theta - ref.pf.bus[k]![3]! * Math.PI / 180) <= 1e-6, `bus ${b.id} theta`);
        });
      }
    });

    it('a malformed or truncated file is 400 INVALID_FORMAT naming the line and the record', async () => {
      const text = raw('powsybl/IEEE_14_bus.raw').split('\n');
      const bad = text.slice();
      bad[5] = bad[5]!.replace(/^(\s*\d+,\s*'[^']*',)\s*[0-9.]+/, "$1 abc");
      let res = await post('/api/v1/networks/import?format=psse', bad.join('\n'));
      assert.equal(res.statusCode, 400, res.body);
      let e = json(res).error;
      assert.equal(e.code, 'INVALID_FORMAT');
      assert.equal(e.details.line, 6);
      assert.equal(e.details.record, 'bus record');
      assert.match(e.message, /line 6 \(bus record\): expected a number for BASKV, found 'abc'/);
      // truncated inside a transformer record: the record's first line is named
      const cut = text.findIndex((l) => /BEGIN TRANSFORMER DATA/.test(l));
      res = await post('/api/v1/networks/import?format=psse', text.slice(0, cut + 3).join('\n'));
      assert.equal(res.statusCode, 400, res.body);
      e = json(res).error;
      assert.equal(e.code, 'INVALID_FORMAT');
      assert.equal(e.details.line, cut + 2);
      assert.equal(e.details.record, 'transformer record');
      // a RAWX document that is not JSON
      res = await post('/api/v1/networks/import?format=rawx', '{"network": {"caseid": ');
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(json(res).error.code, 'INVALID_FORMAT');
    });

    it('stores the DC lines of a RAW file and solves them as MATPOWER runpf does', async () => {
      const res = await post('/api/v1/networks/import', raw('matpower/t_case9_save2psse.raw'));
      assert.equal(res.statusCode, 201, res.body);
      const id = json(res).data.id;
      const detail = json(await get(`/api/v1/networks/${id}`)).data;
      assert.equal(detail.dc_lines.length, 2);
      assert.equal(detail.dc_lines[0].from, 3);
      const ref = solution('t_case9_save2psse');
      const r = await solve(id);
      ref.pf.bus.forEach(([bus, , vm, va]) => {
        const b = r.buses.find((x: { id: number }) => x.id === bus);
        assert.ok(Math.abs(b.v - vm!) <= 1e-6 && Math.abs(b.theta - va! * Math.PI / 180) <= 1e-6, `bus ${bus}`);
      });
      assert.equal(r.dc_lines.length, 2);
      // an asynchronous power flow stores them with its result
      const queued = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${id}/powerflow`, headers: { ...h, 'content-type': 'application/json' }, payload: { async: true } });
      assert.equal(queued.statusCode, 202, queued.body);
      const taskId = json(queued).data.task_id;
      assert.equal(await waitForTaskStatus(app, h, taskId, 'completed'), 'completed');
      const stored = json(await get(`/api/v1/tasks/${taskId}?include=result`)).data.result;
      assert.equal(stored.dc_lines.length, 2);
      assert.ok(Math.abs(stored.dc_lines[1].q_to - r.dc_lines[1].q_to) <= 1e-9);
      // GraphQL shows them, and creates a network with them
      const g = ok(await gql(app, 'query($id: ID!) { network(id: $id) { dcLines { from to inService pFrom vFrom } } }', { id }, h)).network;
      assert.deepEqual(g.dcLines.map((d: { from: number; to: number }) => [d.from, d.to]), [[3, 4], [4, 7]]);
      const created = ok(await gql(app, `mutation($input: NetworkInput!) { createNetwork(input: $input) { id dcLines { from to pFrom pTo loss1 inService } } }`, {
        input: { name: 'dc-gql', buses: [{ id: 1, type: 'SLACK' }, { id: 2, type: 'PQ' }], branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
          dcLines: [{ from: 1, to: 2, pFrom: 10, loss1: 0.02 }] },
      }, h)).createNetwork;
      assert.deepEqual(created.dcLines, [{ from: 1, to: 2, pFrom: 10, pTo: 10, loss1: 0.02, inService: true }]);
      ref.pf.dcline!.forEach((d, k) => {
        assert.ok(Math.abs(r.dc_lines[k].p_from - d[3]!) <= 1e-6);
        assert.ok(Math.abs(r.dc_lines[k].q_from - d[5]!) <= 1e-3, `DC line ${k + 1} q_from ${r.dc_lines[k].q_from} / ${d[5]}`);
      });
    });

    it('exports RAW revision 33; import -> export -> import solves to the same answer', async () => {
      for (const file of ['matpower/t_psse_case3.raw', 'matpower/t_case9_save2psse.raw', 'powsybl/illinois_IEEE_118_Bus.RAW']) {
        const first = json(await post('/api/v1/networks/import?format=psse', raw(file))).data;
        const exported = await get(`/api/v1/networks/${first.id}/export?format=psse`);
        assert.equal(exported.statusCode, 200);
        assert.match(String(exported.headers['content-disposition']), /\.raw"/);
        assert.match(exported.body, /^0, 100, 33, /);
        const again = await post('/api/v1/networks/import?format=psse', exported.body);
        assert.equal(again.statusCode, 201, again.body);
        const second = json(again).data;
        assert.equal(second.bus_count, first.bus_count);
        const [a, b] = [await solve(first.id), await solve(second.id)];
        assert.equal(a.buses.length, b.buses.length);
        a.buses.forEach((x: { id: number; v: number; theta: number }, k: number) => {
          assert.equal(x.id, b.buses[k].id);
          assert.ok(Math.abs(x.v - b.buses[k].v) <= 1e-9 && Math.abs(x.theta - b.buses[k].theta) <= 1e-9, `${file}: bus ${x.id}`);
        });
        a.generators.forEach((g: { p_gen: number; q_gen: number }, k: number) => {
          assert.ok(Math.abs(g.p_gen - b.generators[k].p_gen) <= 1e-6 && Math.abs(g.q_gen - b.generators[k].q_gen) <= 1e-6, `${file}: generator ${k + 1}`);
        });
      }
    });
  });
}
