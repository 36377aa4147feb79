// The log at the default level under load (docs/deployment.md#logs): successful reads are not
// logged one by one, refusals by a rate limit once per caller and minute, every line has one
// msg that keeps the reason. Both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import pino from 'pino';
import { MODES, dropDistributed, json, testConfig, type Mode } from './helpers/app.js';
import { loadSecurityConfig } from '../src/security/settings.js';
import { startGridops, type Running } from '../src/runtime.js';

for (const mode of MODES) {
  describe(`request log at the default level (${mode})`, () => {
    let running: Running;
    const lines: string[] = [];
    const config = testConfig(mode as Mode, {
      logLevel: 'info',
      security: { ...loadSecurityConfig({}, 'test'), rateLimitScale: 1, rateLimits: { ip: { authenticated: { rate: 60, burst: 5 } } } },
    });
    const call = (method: string, url: string, headers: Record<string, string> = {}, body?: unknown, ip = '10.5.0.1') =>
      running.app!.inject({ method: method as 'GET', url, headers, remoteAddress: ip, ...(body === undefined ? {} : { payload: body as object }) });

    before(async () => {
      const sink = new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } });
      running = await startGridops(config, { listen: false, log: pino({ level: 'info' }, sink) });
    });
    after(async () => {
      await running?.close();
      if (mode === 'distributed') await dropDistributed(config.dbSchema, config.redisPrefix);
    });

    it('logs changes and rejections with their reason, not every successful read; a flood of 429s once', async () => {
      const login = await call('POST', '/api/v1/auth/token', { 'content-type': 'application/json' }, { username: 'admin', password: config.adminPassword ?? 'admin' });
      const h = { authorization: `Bearer ${json(login).data.token}` };
      lines.length = 0;
      const codes: number[] = [];
      for (let i = 0; i < 40; i++) codes.push((await call('GET', '/api/v1/networks', h)).statusCode);
      const ok = codes.filter((c) => c === 200).length;
      const refused = codes.filter((c) => c === 429).length;
      assert.ok(ok >= 5 && refused >= 30, `${ok} ok, ${refused} refused`);
      assert.equal((await call('GET', '/api/v1/networks/net_nothere00000', h, undefined, '10.5.0.2')).statusCode, 404);
      await new Promise((r) => setImmediate(r));

      for (const l of lines) assert.equal(l.match(/"msg":/g)?.length, 1, `one msg per line: ${l}`);
      const parsed = lines.map((l) => JSON.parse(l) as { msg: string; level: number; code?: string; req?: { url?: string } });
      assert.equal(parsed.filter((p) => p.msg.startsWith('request completed: GET /api/v1/networks')).length, 0, 'successful reads are at debug');
      const limited = parsed.filter((p) => p.code === 'RATE_LIMITED');
      assert.equal(limited.length, 1, `one line for ${refused} refusals: ${JSON.stringify(limited)}`);
      assert.match(limited[0]!.msg, /^request rejected: GET \/api\/v1\/networks 429 RATE_LIMITED rate limit of client address .* exceeded/);
      const missing = parsed.filter((p) => p.code === 'NOT_FOUND');
      assert.equal(missing.length, 1);
      assert.match(missing[0]!.msg, /^request rejected: GET \/api\/v1\/networks\/:id 404 NOT_FOUND: network net_nothere00000 does not exist/);
      assert.ok(lines.length <= 6, `${lines.length} lines for ${codes.length + 1} requests:\n${lines.join('\n')}`);
    });
  });
}
