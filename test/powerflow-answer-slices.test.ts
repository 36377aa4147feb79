// Issue 35: a large synchronous power-flow answer (case9241pegase: 26,735 bus, branch and generator records, ~4 MB of
// JSON) is written in slices with turns of the event loop between them, so /health requests sent once its body has
// started are answered before it ends; the body is the bytes JSON.stringify writes, its values MATPOWER's; a small
// answer (case118) keeps the one-string path (a Content-Length, no chunks). Both modes, over HTTP.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { healthDuringAnswer } from './helpers/healthDuringAnswer.js';
import { CASES_DIR, REFERENCE_DIR } from '../src/paths.js';
import { jsonPieces } from '../src/lib/slices.js';
import { SLICED_ANSWER_ELEMENTS } from '../src/powerflow/answer.js';


describe('jsonPieces', () => {
  it('joins to the text JSON.stringify writes (skipped keys, nulls, dates, nesting)', () => {
    const when = new Date('2026-11-28T02:00:00.000Z');
    const value = {
      a: 1, skip: undefined, f: () => 1, nan: NaN, neg: -0, s: 'quote " and \u2028', when,
      list: [{ x: 1, y: undefined }, undefined, null, [1, [2]], NaN, 'é'], nested: { deeper: { list: [when] } }, empty: [], obj: {},
    };
    assert.equal([...jsonPieces(value)].join(''), JSON.stringify(value));
    assert.equal([...jsonPieces([1, 'two'])].join(''), '[1,"two"]');
    assert.equal([...jsonPieces(null)].join(''), 'null');
  });
});

for (const mode of MODES) {
  describe(`large power-flow answers written in slices (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    const net: Record<string, string> = {};
    const { call } = restClient(() => ({ app, h }));
    before(async () => {
      app = await startTestApp(mode, { listen: true });
      h = await adminHeaders(app);
      for (const name of ['case118', 'case9241pegase']) {
        const text = readFileSync(join(CASES_DIR, `${name}.m`), 'utf8');
        const r = await call('POST', '/api/v1/networks/import?format=matpower', text, { 'content-type': 'text/plain' });
        net[name] = json(r).data.id;
      }
    });
    after(async () => { await app?.close(); });

    it('/health sent after the answer started is answered before it ends; the body is JSON.stringify\'s, the values MATPOWER\'s', async () => {
      const out = await healthDuringAnswer(app.url!, `/api/v1/networks/${net.case9241pegase}/powerflow`, h, JSON.stringify({ method: 'dc' }));
      assert.equal(out.status, 200, out.body.slice(0, 500));
      assert.deepEqual(out.healths, [200, 200, 200]);
      assert.deepEqual(out.events, ['health', 'health', 'health', 'answer-end'], 'every /health answered before the answer ended');
      assert.equal(out.headers['content-length'], undefined, 'written in pieces');
      assert.match(out.headers['content-type']!, /^application\/json/);

      const body = JSON.parse(out.body);
      assert.deepEqual(Object.keys(body), ['data', 'request_id', 'timestamp']);
      // JSON.stringify of the parsed body gives the same bytes: the text is what one JSON.stringify writes
      assert.equal(JSON.stringify(body), out.body);
      const d = body.data;
      assert.ok(d.buses.length + d.branches.length + d.generators.length > SLICED_ANSWER_ELEMENTS);
      // MATPOWER's DC angles and flows
      const ref = JSON.parse(readFileSync(join(REFERENCE_DIR, 'case9241pegase.dc.json'), 'utf8')) as {
        bus: { va: number }[]; branch: { pf: number }[];
      };
      for (const k of [0, 1000, 9240]) assert.ok(Math.abs(d.buses[k].theta - ref.bus[k]!.va) <= 1e-9, `bus ${k} angle`);
      for (const k of [0, 8000, 16048]) assert.ok(Math.abs(d.branches[k].p_from - ref.branch[k]!.pf) <= 1e-3, `branch ${k} flow`);
    });

    it('a small answer (case118) is one string, as before', async () => {
      const r = await call('POST', `/api/v1/networks/${net.case118}/powerflow`, {});
      assert.equal(r.statusCode, 200, r.body);
      assert.equal(r.headers['content-length'], String(Buffer.byteLength(r.body)));
      assert.equal(JSON.stringify(JSON.parse(r.body)), r.body);
      assert.equal(json(r).data.buses.length, 118);
    });
  });
}
