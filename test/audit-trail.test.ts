// Every answered request that the audit rule covers leaves its row, whatever its bytes
// (#21 item 1): NUL bytes in path parameters, invalid percent-encoding, mutating requests
// to unknown routes; a malformed multipart body is the client's 400, not a 500 (item 2); and a
// client's protocol mistake is a warning in the log, not an error with a stack (item 3).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import WebSocket from 'ws';
import { dropDistributed, json, MODES, startTestApp, testConfig, type TestApp } from './helpers/app.js';
import { startGridops } from '../src/runtime.js';
import { adminHeaders } from './helpers/auth.js';
import type { Headers } from './helpers/rest.js';

interface AuditRow { request_id: string; action: string; status: number; result: string; resource: { type: string | null; id: string | null }; details: Record<string, unknown> }

for (const mode of MODES) {
  describe(`audit trail: no request escapes it (${mode})`, () => {
    let app: TestApp;
    let admin: Headers;
    let n = 0;
    before(async () => {
      app = await startTestApp(mode);
      admin = await adminHeaders(app);
    });
    after(async () => {
      await app?.close();
    });

    /** Sends one request with a fresh request id and returns the status and that id's audit rows. */
    async function probe(method: string, url: string, headers: Headers = {}, payload?: string) {
      const rid = `audit-probe-${mode}-${++n}`;
      const r = await app.app!.inject({ method: method as 'GET', url, headers: { 'x-request-id': rid, ...headers }, ...(payload === undefined ? {} : { payload }) });
      const rows = json<{ data: AuditRow[] }>(await app.app!.inject({ method: 'GET', url: `/api/v1/audit?request_id=${rid}`, headers: admin })).data;
      return { status: r.statusCode, body: r.body, rows };
    }

    it('a NUL byte in a path parameter: answered, and its row stored with the byte escaped', async () => {
      for (const [method, url, h] of [
        ['GET', '/api/v1/networks/%00', {}],
        ['DELETE', '/api/v1/agents/%00', admin],
        ['PATCH', '/api/v1/admin/users/%00', { ...admin, 'content-type': 'application/json' }],
        ['DELETE', '/api/v1/studies/a%00b', admin],
        ['GET', '/api/v1/tasks/%00', { authorization: 'Bearer nonsense' }],
      ] as const) {
        const p = await probe(method, url, h, method === 'PATCH' ? '{"role":"viewer"}' : undefined);
        assert.ok(p.status >= 400 && p.status < 500, `${method} ${url}: ${p.status} ${p.body}`);
        assert.equal(p.rows.length, 1, `${method} ${url} (${p.status}) left ${p.rows.length} audit rows`);
        assert.equal(p.rows[0].status, p.status);
        if (p.rows[0].resource.id !== null) assert.ok(!p.rows[0].resource.id.includes('\u0000'), 'the NUL byte is stored escaped');
      }
      const p = await probe('DELETE', '/api/v1/agents/x%00y', admin);
      assert.equal(p.rows[0].resource.id, 'x\\u0000y', 'the escaped form keeps what was sent, readably');
    });

    it('a NUL byte in a header or a body field that reaches the details is stored escaped', async () => {
      const p = await probe('POST', '/api/v1/networks', { ...admin, 'content-type': 'application/json' }, JSON.stringify({ name: 'a\u0000b', buses: 'x' }));
      assert.equal(p.status, 400, p.body);
      assert.equal(p.rows.length, 1);
    });

    it('invalid percent-encoding in the path: 400 with advice, and an audit row', async () => {
      for (const url of ['/api/v1/tasks/%C3%28', '/api/v1/studies/%FF%FE', '/api/v1/networks/%E0%A4%A']) {
        const p = await probe('GET', url);
        assert.equal(p.status, 400, `${url}: ${p.body}`);
        const e = json(p).error;
        assert.equal(e.code, 'INVALID_REQUEST');
        assert.match(e.message, /percent-encod/i);
        assert.equal(p.rows.length, 1, `${url} left no audit row`);
        assert.equal(p.rows[0].result, 'failure');
        assert.equal(p.rows[0].details.path, url.split('?')[0]);
      }
    });

    it('a mutating request to a route that does not exist leaves its row', async () => {
      const p = await probe('DELETE', '/api/v1/no-such-resource/1', admin);
      assert.equal(p.status, 404, p.body);
      assert.equal(p.rows.length, 1);
      assert.equal(p.rows[0].action, 'DELETE /api/v1/no-such-resource/1');
    });

    it('a truncated multipart import is 400 with advice, not a 500, and audited', async () => {
      const boundary = 'gridopsboundary';
      const full = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="case9.m"\r\nContent-Type: text/plain\r\n\r\nfunction mpc = case9\nmpc.baseMVA = 100;\n`;
      for (const payload of [full, full.slice(0, 40), `--${boundary}\r\n`, `--${boundary}`]) {
        const p = await probe('POST', '/api/v1/networks/import?format=matpower', { ...admin, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload);
        assert.equal(p.status, 400, `${JSON.stringify(payload.slice(0, 30))}: ${p.body}`);
        const e = json(p).error;
        assert.ok(e.code === 'INVALID_REQUEST', p.body);
        assert.match(e.message, /multipart/i);
        assert.equal(p.rows.length, 1);
      }
    });
  });
}

for (const mode of MODES) {
  describe(`client mistakes are not server errors in the log (${mode})`, () => {
    let app: TestApp;
    const config = testConfig(mode);
    const lines: { level: number; msg: string; err?: { stack?: string } }[] = [];
    before(async () => {
      const log = pino({ level: 'debug' }, new Writable({ write(chunk, _enc, cb) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); cb(); } }));
      app = { ...(await startGridops(config, { listen: true, log })), mode, config };
    });
    after(async () => {
      await app?.close();
      if (mode === 'distributed') await dropDistributed(config.dbSchema, config.redisPrefix);
    });

    it('a WebSocket frame over the size limit: closed 1009, one warning without a stack, no error line', async () => {
      const admin = await adminHeaders(app);
      const token = admin.authorization.replace(/^Bearer /, '');
      for (const path of [`/ws?token=${token}`, '/graphql']) {
        const ws = new WebSocket(app.url!.replace(/^http/, 'ws') + path, path === '/graphql' ? 'graphql-transport-ws' : undefined);
        await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
        const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
        ws.on('error', () => {});
        ws.send('x'.repeat(1024 * 1024 + 10));
        assert.equal(await closed, 1009, path);
      }
      // The server logs the refusal when it reads the frame, before the close reaches the client.
      const errors = lines.filter((l) => l.level >= 50);
      assert.deepEqual(errors.map((l) => l.msg), [], 'no error-level line');
      const warnings = lines.filter((l) => l.level === 40 && /client error/.test(l.msg));
      assert.equal(warnings.length, 2, JSON.stringify(warnings));
      assert.ok(warnings.every((w) => !w.err?.stack), 'no stack on a client mistake');
    });
  });
}
