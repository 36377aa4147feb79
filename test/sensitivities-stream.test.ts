// Issue 35: a large synchronous sensitivity matrix is written in slices with turns of the event loop between them,
// so /health requests sent while its body is being written are answered before the body ends; the body is the same
// JSON envelope as before (byte for byte) and the same values as the small, serialized answer. Both modes, over HTTP.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { healthDuringAnswer } from './helpers/healthDuringAnswer.js';
import { CASES_DIR } from '../src/paths.js';



for (const mode of MODES) {
  describe(`sensitivities streamed in slices (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    let net: string;
    const { call, ok } = restClient(() => ({ app, h }));
    before(async () => {
      app = await startTestApp(mode, { listen: true });
      h = await adminHeaders(app);
      const text = readFileSync(join(CASES_DIR, 'case1354pegase.m'), 'utf8');
      const r = await call('POST', '/api/v1/networks/import?format=matpower', text, { 'content-type': 'text/plain' });
      net = json(r).data.id;
    });
    after(async () => { await app?.close(); });

    it('/health requests sent after the matrix body started are answered before it ends; the body is the same JSON', async () => {
      const rows = Array.from({ length: 1200 }, (_, i) => i);
      const out = await healthDuringAnswer(app.url!, `/api/v1/networks/${net}/sensitivities`, h, JSON.stringify({ kind: 'ptdf', branches: rows }));
      const { events, body } = out;
      assert.equal(out.status, 200);
      assert.deepEqual(out.healths, [200, 200, 200]);
      assert.deepEqual(events, ['health', 'health', 'health', 'answer-end'], 'every /health answered before the matrix body ended');

      // byte for byte the envelope JSON.stringify writes, as the row-by-row writer did before the slices
      const d = JSON.parse(body);
      assert.ok(d.data.rows.length * d.data.columns.length > 100_000, 'past the streaming size');
      const { network_id, network_version, kind, columns, bridges, values } = d.data;
      const expected = JSON.stringify({
        data: { network_id, network_version, kind, rows: d.data.rows, columns, bridges, values },
        request_id: d.request_id, timestamp: d.timestamp,
      });
      assert.equal(body, expected);
      assert.deepEqual(Object.keys(d), ['data', 'request_id', 'timestamp']);
      // a small matrix (serialized by reply.ok) has the same fields and the same rows
      const small = await ok('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', branches: [3, 399] });
      assert.deepEqual(Object.keys(d.data).sort(), Object.keys(small).sort());
      assert.deepEqual([values[3], values[399]], small.values);
      assert.deepEqual(small.columns, columns);

      // the CSV of the same matrix, also in slices: a header and one line per row
      const csv = await call('POST', `/api/v1/networks/${net}/sensitivities?format=csv`, { kind: 'ptdf', branches: rows });
      const lines = csv.body.trimEnd().split('\n');
      assert.equal(lines.length, rows.length + 1);
      assert.deepEqual(lines[1200]!.split(',').slice(1).map((x) => (x === '' ? null : Number(x))), values[1199]);
    });
  });
}
