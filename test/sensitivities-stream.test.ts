// Issue 35: a large synchronous sensitivity matrix is written in slices with turns of the event loop between them,
// so /health requests sent while its body is being written are answered before the body ends; the body is the same
// JSON envelope as before (byte for byte) and the same values as the small, serialized answer. Both modes, over HTTP.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { CASES_DIR } from '../src/paths.js';

type Event = 'matrix-end' | 'health';

/** A client thread: POSTs the matrix request; at its body's first piece sends three GET /health; posts the order of the ends. */
const CLIENT = `
const { request } = require('node:http');
const { parentPort, workerData: w } = require('node:worker_threads');
const events = [];
const healths = [];
const health = () => new Promise((resolve, reject) => {
  request(w.url + '/api/v1/health', (res) => {
    res.resume();
    res.on('end', () => { events.push('health'); resolve(res.statusCode); });
  }).on('error', reject).end();
});
const req = request(w.url + '/api/v1/networks/' + w.net + '/sensitivities',
  { method: 'POST', headers: { ...w.headers, 'content-type': 'application/json' } }, (res) => {
    const chunks = [];
    const asked = [];
    res.on('data', (c) => {
      if (chunks.length === 0) for (let i = 0; i < 3; i++) asked.push(health());
      chunks.push(c);
    });
    res.on('end', async () => {
      events.push('matrix-end');
      healths.push(...(await Promise.all(asked)));
      parentPort.postMessage({ events, healths, status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') });
    });
  });
req.end(w.body);
`;

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
      // The client on its own thread, as the drill's: it reads the body while the server's thread works, so the socket
      // never pushes back and only the server's turns of the event loop let /health in (an in-process client cannot).
      const workerData = { url: app.url, net, headers: h, body: JSON.stringify({ kind: 'ptdf', branches: rows }) };
      const worker = new Worker(CLIENT, { eval: true, workerData });
      const [out] = (await once(worker, 'message')) as [{ events: Event[]; healths: number[]; status: number; body: string }];
      await worker.terminate();
      const { events, body } = out;
      assert.equal(out.status, 200);
      assert.deepEqual(out.healths, [200, 200, 200]);
      assert.deepEqual(events, ['health', 'health', 'health', 'matrix-end'], 'every /health answered before the matrix body ended');

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
