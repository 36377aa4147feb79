// The OpenAPI document: valid (an OpenAPI schema validator), complete where clients need it
// (the import request body, 429 and the other errors on every operation, no trailing
// slashes), and good enough that the Python client of docs/clients.md works against a real
// server (when python3 with `requests` is on the machine). Both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { CASES_DIR, REFERENCE_DIR, ROOT } from '../src/paths.js';

// PYTHON names the interpreter (.ci/run points it at Debian's python3 when that one has requests).
const PYTHON = process.env.PYTHON ?? 'python3';
const python = spawnSync(PYTHON, ['-c', 'import requests'], { encoding: 'utf8' });
const havePythonRequests = python.status === 0;

for (const mode of MODES) {
  describe(`OpenAPI document and a generated-from-it client (${mode})`, () => {
    let app: TestApp;
    let doc: any;

    before(async () => {
      app = await startTestApp(mode, { listen: true });
      const res = await app.app!.inject({ method: 'GET', url: '/api/v1/openapi.json' });
      assert.equal(res.statusCode, 200);
      doc = json(res);
    });
    after(async () => app?.close());

    it('is a valid OpenAPI document', async () => {
      const r = await new Validator().validate(doc);
      assert.equal(r.valid, true, JSON.stringify(r.errors, null, 1)?.slice(0, 3000));
    });

    it('has no path ending in /, and every operation lists 429, 500 and the errors of its kind', () => {
      const ops: [string, string, any][] = [];
      for (const [path, item] of Object.entries<any>(doc.paths)) for (const [m, op] of Object.entries<any>(item)) ops.push([path, m, op]);
      assert.ok(ops.length > 60, `${ops.length} operations`);
      for (const [path, m, op] of ops) {
        const where = `${m.toUpperCase()} ${path}`;
        assert.ok(path === '/' || !path.endsWith('/'), `${where} ends in /`);
        for (const c of ['429', '500']) assert.ok(op.responses[c], `${where} lists ${c}`);
        if (op.responses['429']) assert.match(op.responses['429'].description, /RATE_LIMITED/);
        if (path.includes('{')) assert.ok(op.responses['404'], `${where} lists 404`);
        if (!path.endsWith('/health') && !path.endsWith('/auth/token')) assert.ok(op.responses['401'], `${where} lists 401`);
      }
      assert.ok(doc.paths['/api/v1/networks'].get && doc.paths['/api/v1/tasks'].get, 'the list routes are under their own names');
    });

    it('documents the import request body (text, binary, multipart upload) and the task endpoints', () => {
      const imp = doc.paths['/api/v1/networks/import'].post;
      assert.equal(imp.requestBody.required, true);
      assert.deepEqual(Object.keys(imp.requestBody.content).sort(), ['application/octet-stream', 'multipart/form-data', 'text/plain']);
      assert.equal(imp.requestBody.content['multipart/form-data'].schema.properties.file.format, 'binary');
      assert.ok(imp.parameters.some((p: { name: string; required?: boolean }) => p.name === 'format' && !p.required));
      const exp = doc.paths['/api/v1/tasks/{id}/export'].get;
      assert.ok(exp.parameters.some((p: { name: string }) => p.name === 'format'));
      assert.ok(doc.paths['/api/v1/tasks/{id}'].get.parameters.some((p: { name: string }) => p.name === 'include'));
      assert.ok(doc.paths['/api/v1/admin/tenants/{tenant_id}/rate-limits'].put.requestBody);
    });

    it('serves the errors page that every error body points to, with an entry per code', async () => {
      const res = await app.app!.inject({ method: 'GET', url: '/api/v1/networks/net_nothere00000', headers: { host: 'grid.example:8080' } });
      const url = new URL(json(res).error.doc_url);
      assert.equal(`${url.host}${url.pathname}${url.hash}`, 'grid.example:8080/docs/errors#unauthorized');
      const page = await app.app!.inject({ method: 'GET', url: url.pathname });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      const { ERROR_STATUS } = await import('../src/lib/errors.js');
      for (const code of Object.keys(ERROR_STATUS)) {
        assert.match(page.body, new RegExp(`<section id="${code.toLowerCase()}"><h3>.*${code}.*</h3>\\n<p><b>Cause.</b> [^<]{20,}</p>\\n<p><b>Fix.</b> [^<]{15,}</p>`), code);
      }
      for (const code of ['QUERY_TOO_COMPLEX', 'QUERY_TOO_DEEP', 'UNAUTHENTICATED']) assert.match(page.body, new RegExp(`id="${code.toLowerCase()}"`));
    });

    it('works with the Python client of docs/clients.md: login, import, power flow, result', { skip: havePythonRequests ? false : 'python3 with requests is not installed (apt-get install python3-requests)' }, async () => {
      // Asynchronous: the server answering the client runs in this process.
      const child = spawn(PYTHON, [join(ROOT, 'examples', 'gridops_client.py'), app.url!, join(CASES_DIR, 'case9.m')], {
        env: { ...process.env, GRIDOPS_USER: app.config.adminUsername, GRIDOPS_PASSWORD: app.config.adminPassword ?? 'admin' },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      const timer = setTimeout(() => child.kill(), 120_000);
      const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
      clearTimeout(timer);
      const r = { status, stdout, stderr };
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      const ref = JSON.parse(readFileSync(join(REFERENCE_DIR, 'case9.nr.json'), 'utf8'));
      assert.equal(out.status, 'converged');
      assert.equal(out.bus_count, 9);
      out.v.forEach((v: number, i: number) => assert.ok(Math.abs(v - ref.bus[i].vm) < 1e-6, `bus ${i + 1}`));
      assert.deepEqual(out.branch_index, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    });
  });
}
