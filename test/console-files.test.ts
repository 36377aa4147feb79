// The console's files as the server hands them out (src/plugins/app/console.ts): every module the console
// imports is served, from console/ and its two module folders only; any other name is a 404, never a file
// from elsewhere. The browser test (console.test.ts) runs them; this one checks the boundary.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';
import { startTestApp, type TestApp } from './helpers/app.js';

describe('console files', () => {
  let app: TestApp;
  before(async () => { app = await startTestApp('embedded'); });
  after(async () => { await app?.close(); });

  it('serves each module of console/, views/ and components/, and every import names one', async () => {
    const files = ['', 'views', 'components'].flatMap((d) => readdirSync(join(ROOT, 'console', d)).filter((f) => f.endsWith('.js')).map((f) => (d ? `${d}/${f}` : f)));
    assert.ok(files.includes('views/network.js') && files.includes('components/table.js'), files.join(', '));
    for (const f of files) {
      const res = await app.app!.inject({ url: `/console/${f}` });
      assert.equal(res.statusCode, 200, f);
      assert.match(String(res.headers['content-type']), /text\/javascript/);
      assert.equal(res.body, readFileSync(join(ROOT, 'console', f), 'utf8'));
      for (const [, path] of res.body.matchAll(/from '(\/console\/[^']+)'/g)) {
        const imported = await app.app!.inject({ url: path! });
        assert.equal(imported.statusCode, 200, `${f} imports ${path}`);
      }
    }
  });

  it('answers 404 for any other folder, name or a way out of console/', async () => {
    for (const url of ['/console/src/server.js', '/console/views/..%2Fapp.js', '/console/views/%2e%2e%2fapi.js', '/console/components/Table.js',
      '/console/views/missing.js', '/console/views/network.ts', '/console/node_modules/x.js', '/console/../package.json', '/console/views/a/b.js']) {
      const res = await app.app!.inject({ url });
      assert.ok(res.statusCode === 404 || res.statusCode === 400, `${url}: ${res.statusCode}`);
      assert.doesNotMatch(res.body, /"name": "gridops"|import \{/, url);
    }
  });
});
