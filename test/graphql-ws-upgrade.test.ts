// A refused GraphQL WebSocket upgrade answers with its HTTP status (#13 item 1): the
// connection-establishment limit of /graphql is the one of /ws (ws_connect, per client
// address), and a refusal is 429 with Retry-After, which the graphql-ws client reports
// as an error (it used to get 200 with a JSON body: "Unexpected server response: 200").
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { loadSecurityConfig } from '../src/security/settings.js';
import { wsClient, wsUrl } from './graphql-helpers.js';

/** A bare upgrade request to /graphql: the status, headers and body of a refusal. */
function rawUpgrade(app: TestApp): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl(app), ['graphql-transport-ws']);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body ? JSON.parse(body) : undefined }));
    });
    ws.on('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.on('error', (e) => { if (!/Unexpected server response/.test(e.message)) reject(e); });
  });
}

for (const mode of MODES) {
  describe(`GraphQL WebSocket upgrade over the connection limit (${mode})`, () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp(mode, {
        listen: true,
        // Two upgrades per address, refilled far slower than the test runs.
        config: { security: loadSecurityConfig({ RATE_LIMITS: JSON.stringify({ ip: { ws_connect: { rate: 0.001, burst: 2 } } }) }, 'test') },
      });
    });
    after(async () => app?.close());

    it('answers 429 with Retry-After, and the graphql-ws client reports it as an error (no crash)', async () => {
      const token = (await adminHeaders(app)).authorization.replace(/^Bearer /, '');
      const first = wsClient(app, { token });
      const second = wsClient(app, { token });
      await first.acked;
      await second.acked;

      const errors: unknown[] = [];
      let closed: { code: number; reason: string } | undefined;
      const client = createClient({
        url: wsUrl(app), webSocketImpl: WebSocket, connectionParams: { token }, retryAttempts: 0,
        on: { error: (e) => errors.push(e), closed: (e) => { closed = e as { code: number; reason: string }; } },
      });
      const outcome = await new Promise<{ error?: unknown; data?: unknown }>((resolve) => {
        client.subscribe({ query: '{ __typename }' }, { next: (data) => resolve({ data }), error: (error) => resolve({ error }), complete: () => {} });
      });
      assert.equal(outcome.data, undefined);
      assert.ok(outcome.error, 'the operation fails');
      assert.ok(errors.some((e) => /Unexpected server response: 429/.test(String((e as { message?: string }).message ?? e))), `the client saw ${errors.map(String).join('; ')}`);
      assert.notEqual(closed?.code, 1000);
      await client.dispose();

      const refused = await rawUpgrade(app);
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers['retry-after']) >= 1, `Retry-After: ${refused.headers['retry-after']}`);
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
      assert.equal(refused.body.error.details.scope, 'ip');

      await first.client.dispose();
      await second.client.dispose();
    });
  });
}
