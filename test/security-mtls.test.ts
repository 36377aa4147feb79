// Security: HTTPS with mutual TLS, in both modes. The test makes its own CA and
// certificates with openssl: accepted service/agent certificates (identity from the
// TLS_CLIENT_MAP configuration, by CN or fingerprint), and refused ones (expired,
// another CA, signed by the CA but not in the mapping, whatever its O/OU say),
// a certificate combined with a bearer token, and the expiry warning.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { parseCertMap } from '../src/security/certMap.js';

const ssl = (dir: string, ...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });

function makePki(dir: string) {
  const ca = (name: string) => ssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '30', '-subj', `/CN=${name} test CA`);
  ca('ca');
  ca('otherca');
  const leaf = (name: string, subj: string, signer: string, days: string, ext?: string) => {
    ssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subj);
    const extArgs = ext ? ['-extfile', ext] : [];
    ssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', `${signer}.crt`, '-CAkey', `${signer}.key`, '-CAcreateserial', '-out', `${name}.crt`, '-days', days, ...extArgs);
  };
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  leaf('server', '/CN=localhost', 'ca', '30', 'server.ext');
  leaf('service', '/CN=service-billing/O=default/OU=operator', 'ca', '365');
  leaf('agent', '/CN=agent-agent_42', 'ca', '365');
  leaf('viewer', '/CN=service-reports/OU=viewer', 'ca', '365');
  leaf('soon', '/CN=service-soon', 'ca', '10');
  leaf('badcn', '/CN=user-bob', 'ca', '365');
  leaf('foreign', '/CN=service-evil', 'otherca', '365');
  // Signed by the trusted CA, claiming admin of tenant default in its subject, but in no mapping.
  leaf('rogue', '/CN=service-rogue/O=default/OU=admin', 'ca', '365');
  // Mapped by fingerprint only: its subject claims admin of another tenant; the mapping says viewer.
  leaf('pinned', '/CN=service-pinned/O=other/OU=admin', 'ca', '365');
  // An expired certificate: openssl ca lets us set the validity window in the past.
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(join(dir, 'ca.cnf'), `[ca]\ndefault_ca=test\n[test]\ndatabase=index.txt\nserial=serial\nnew_certs_dir=.\ndefault_md=sha256\npolicy=any\ncopy_extensions=none\n[any]\ncommonName=supplied\n`);
  ssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'expired.key', '-out', 'expired.csr', '-subj', '/CN=service-old');
  ssl(dir, 'ca', '-batch', '-config', 'ca.cnf', '-cert', 'ca.crt', '-keyfile', 'ca.key', '-in', 'expired.csr', '-out', 'expired.crt', '-startdate', '20200101000000Z', '-enddate', '20200201000000Z', '-notext');
}

/** The identity mapping of the test: subject O/OU are deliberately not what it says. */
function certMap(dir: string): string {
  const fp = ssl(dir, 'x509', '-in', 'pinned.crt', '-noout', '-fingerprint', '-sha256').toString().trim().split('=')[1];
  return JSON.stringify({
    'service-billing': { tenant: 'default', role: 'operator' },
    'agent-agent_42': { tenant: 'default', role: 'operator' },
    'service-reports': { tenant: 'default', role: 'viewer' },
    'service-soon': { tenant: 'default', role: 'viewer' },
    [`sha256:${fp}`]: { tenant: 'default', role: 'viewer', user: 'pinned-reports' },
  });
}

interface Res { status: number; body: any; headers: Record<string, string | string[] | undefined> }

for (const mode of MODES) {
  describe(`security: HTTPS and mutual TLS (${mode})`, () => {
    let dir: string;
    let app: TestApp;
    let port: number;
    const get = (path: string, client?: string, headers: Record<string, string> = {}, method = 'GET', body?: unknown) =>
      new Promise<Res>((resolve, reject) => {
        const payload = body === undefined ? undefined : JSON.stringify(body);
        const req = request({
          host: '127.0.0.1', port, path, method, agent: false, servername: 'localhost',
          ca: readFileSync(join(dir, 'ca.crt')),
          ...(client ? { cert: readFileSync(join(dir, `${client}.crt`)), key: readFileSync(join(dir, `${client}.key`)) } : {}),
          headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) } : {}) },
        }, (res) => {
          let data = '';
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data ? JSON.parse(data) : undefined, headers: res.headers }));
        });
        req.on('error', reject);
        req.end(payload);
      });

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gridops-pki-'));
      makePki(dir);
      app = await startTestApp(mode, {
        listen: true,
        config: { tlsCertFile: join(dir, 'server.crt'), tlsKeyFile: join(dir, 'server.key'), tlsCaFile: join(dir, 'ca.crt'), host: '127.0.0.1', clientCertMap: parseCertMap(certMap(dir)) },
      });
      assert.match(app.url!, /^https:/);
      port = Number(new URL(app.url!).port);
    });
    after(async () => {
      await app?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('serves HTTPS; without any credential a protected endpoint is 401', async () => {
      assert.equal((await get('/api/v1/health')).status, 200);
      const r = await get('/api/v1/networks');
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, 'UNAUTHORIZED');
    });

    it('accepts service-{name} and agent-{id} certificates of the CA as callers', async () => {
      const svc = await get('/api/v1/networks', 'service', { 'x-request-id': `mtls-svc-${mode}` });
      assert.equal(svc.status, 200, JSON.stringify(svc.body));
      const agent = await get('/api/v1/tenant/quota', 'agent');
      assert.equal(agent.status, 200);
      // operator role (OU) may write; the entry names the service
      const created = await get('/api/v1/networks', 'service', { 'x-request-id': `mtls-create-${mode}` }, 'POST', {
        name: 'via-cert', buses: [{ id: 1, type: 'slack' }, { id: 2, type: 'pq' }], branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }], generators: [{ bus: 1, mw: 0 }], loads: [{ bus: 2, mw: 1, mvar: 0 }],
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const viewer = await get('/api/v1/networks', 'viewer', {}, 'POST', { name: 'x', buses: [{ id: 1, type: 'slack' }] });
      assert.equal(viewer.status, 403);
      const admin = await adminHeaders(app);
      const audit = await get(`/api/v1/audit?request_id=mtls-create-${mode}`, undefined, admin);
      assert.equal(audit.body.data[0].actor.type, 'service');
      assert.equal(audit.body.data[0].actor.id, 'billing');
      assert.equal(audit.body.data[0].details.auth_method, 'mtls');
      const denied = await get('/api/v1/networks/net_0123456789abcdef0123', 'agent', { 'x-request-id': `mtls-agent-${mode}` }, 'DELETE');
      assert.ok(denied.status >= 400);
      const agentAudit = await get(`/api/v1/audit?request_id=mtls-agent-${mode}`, undefined, admin);
      assert.deepEqual(agentAudit.body.data[0].actor, { type: 'agent', id: 'agent_42', tenant: 'default' });
    });

    it('refuses an expired certificate with 401 CERT_EXPIRED', async () => {
      const r = await get('/api/v1/networks', 'expired');
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, 'CERT_EXPIRED');
    });

    it('refuses a certificate of another CA and a bad common name with 401 CERT_INVALID', async () => {
      for (const c of ['foreign', 'badcn']) {
        const r = await get('/api/v1/networks', c);
        assert.equal(r.status, 401, c);
        assert.equal(r.body.error.code, 'CERT_INVALID', c);
      }
      // a bad certificate is refused even with a good token
      const admin = await adminHeaders(app);
      assert.equal((await get('/api/v1/networks', 'foreign', admin)).status, 401);
    });

    it('takes the identity from TLS_CLIENT_MAP only: an unmapped certificate is 401 whatever its O/OU say', async () => {
      const rogue = await get('/api/v1/admin/tenants', 'rogue');
      assert.equal(rogue.status, 401, JSON.stringify(rogue.body));
      assert.equal(rogue.body.error.code, 'CERT_INVALID');
      assert.equal(rogue.body.error.details.reason, 'CERT_NOT_MAPPED');
      assert.match(rogue.body.error.message, /not mapped to an identity.*TLS_CLIENT_MAP/);
      // Mapped by fingerprint to a viewer: OU=admin and O=other are ignored.
      const read = await get('/api/v1/networks', 'pinned');
      assert.equal(read.status, 200, JSON.stringify(read.body));
      const write = await get('/api/v1/admin/tenants', 'pinned', { 'x-request-id': `mtls-pinned-${mode}` }, 'POST', { tenant_id: `pinned-${mode}` });
      assert.equal(write.status, 403);
      const audit = await get(`/api/v1/audit?request_id=mtls-pinned-${mode}`, undefined, await adminHeaders(app));
      assert.deepEqual(audit.body.data[0].actor, { type: 'service', id: 'pinned-reports', tenant: 'default' });
    });

    it('combines a certificate with a bearer token: the token decides tenant and role', async () => {
      const admin = await adminHeaders(app);
      const r = await get('/api/v1/admin/tenants', 'viewer', { ...admin, 'x-request-id': `mtls-both-${mode}` }, 'POST', { tenant_id: `mtls-${mode}` });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const audit = await get(`/api/v1/audit?request_id=mtls-both-${mode}`, undefined, admin);
      const e = audit.body.data[0];
      assert.deepEqual(e.actor, { type: 'user', id: 'admin', tenant: 'default' });
      assert.equal(e.details.auth_method, 'bearer+mtls');
      assert.equal(e.details.client_cert, 'service-reports');
      const w = await get('/api/v1/admin/tenants', 'viewer', { 'x-request-id': `mtls-viewer-${mode}` });
      assert.equal(w.status, 403);
    });

    it('warns when the client certificate expires within 30 days', async () => {
      const r = await get('/api/v1/networks', 'soon');
      assert.equal(r.status, 200);
      assert.match(String(r.headers['x-client-cert-warning']), /expires in \d+ days/);
      assert.equal((await get('/api/v1/networks', 'service')).headers['x-client-cert-warning'], undefined);
    });
  });
}
