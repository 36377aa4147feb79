// POST /api/v1/networks/import as real clients send it: no ?format (matpower is the
// default), text/plain, octet-stream, a multipart file upload, curl's default content
// type; and the advice given when a body cannot be a case file. Both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';

const case9 = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');

function multipartBody(fileText: string, boundary: string): string {
  return [
    `--${boundary}`,
    'Content-Disposition: form-data; name="file"; filename="case9.m"',
    'Content-Type: application/octet-stream',
    '',
    fileText,
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

for (const mode of MODES) {
  describe(`network import and export formats (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const post = (url: string, contentType: string, payload: string) =>
      app.app!.inject({ method: 'POST', url, headers: { ...h, 'content-type': contentType }, payload });

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('imports without ?format= (matpower is the default) as text/plain and application/octet-stream', async () => {
      for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/octet-stream']) {
        const res = await post('/api/v1/networks/import', type, case9);
        assert.equal(res.statusCode, 201, `${type}: ${res.body}`);
        assert.equal(json(res).data.bus_count, 9);
      }
      const named = await post('/api/v1/networks/import?format=matpower&name=nine', 'text/plain', case9);
      assert.equal(json(named).data.name, 'nine');
      const bad = await post('/api/v1/networks/import?format=cim', 'text/plain', case9);
      assert.equal(bad.statusCode, 400);
      assert.match(json(bad).error.message, /format" must be one of "matpower"/);
    });

    it('imports a multipart/form-data file upload (curl -F file=@case9.m)', async () => {
      const boundary = '----gridopsTestBoundary7MA4YWxk';
      const res = await post('/api/v1/networks/import?name=uploaded', `multipart/form-data; boundary=${boundary}`, multipartBody(case9, boundary));
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(json(res).data.name, 'uploaded');
      assert.equal(json(res).data.branch_count, 9);
      const empty = await post('/api/v1/networks/import', `multipart/form-data; boundary=${boundary}`, `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}--\r\n`);
      assert.equal(empty.statusCode, 400, empty.body);
      assert.match(json(empty).error.message, /no file part: upload the case with curl -F file=@case9.m/);
    });

    it('takes curl\'s default content type (--data-binary), and explains what curl -d did to the file', async () => {
      const res = await post('/api/v1/networks/import', 'application/x-www-form-urlencoded', case9);
      assert.equal(res.statusCode, 201, res.body);
      // curl -d @case9.m strips the line breaks.
      const flat = await post('/api/v1/networks/import', 'application/x-www-form-urlencoded', case9.replace(/\r?\n/g, ''));
      assert.equal(flat.statusCode, 422, flat.body);
      assert.match(json(flat).error.message, /curl -d @file removes them; send the file with --data-binary @case9.m/);
    });

    it('answers JSON and unknown media types with what the route takes, not "send application/json"', async () => {
      let res = await post('/api/v1/networks/import', 'application/json', JSON.stringify({ text: case9 }));
      assert.equal(res.statusCode, 415, res.body);
      assert.match(json(res).error.message, /text\/plain or application\/octet-stream .* multipart\/form-data/);
      res = await post('/api/v1/networks/import', 'application/xml', '<case/>');
      assert.equal(res.statusCode, 415, res.body);
      assert.match(json(res).error.message, /unsupported Content-Type application\/xml; this endpoint takes the \.m file as text\/plain/);
      assert.doesNotMatch(json(res).error.message, /send application\/json/);
      // Other routes still say JSON.
      res = await post('/api/v1/networks', 'application/xml', '<network/>');
      assert.equal(res.statusCode, 415, res.body);
      assert.match(json(res).error.message, /this endpoint takes application\/json/);
    });

    it('exports a network without ?format= and names the formats on a wrong one', async () => {
      const id = json(await post('/api/v1/networks/import', 'text/plain', case9)).data.id;
      let res = await app.app!.inject({ method: 'GET', url: `/api/v1/networks/${id}/export`, headers: h });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(res.body, /^function mpc = case9/);
      res = await app.app!.inject({ method: 'GET', url: `/api/v1/networks/${id}/export?format=csv`, headers: h });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(json(res).error.message, /must be one of "matpower"/);
    });
  });
}
