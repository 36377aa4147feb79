// Hardening round three (issue #35 items 5 to 8), both modes: apply: true on an OPF is a write (role and token
// scope, NETWORK_LOCKED and archived at the time of the write) and is audited as one; control characters in
// caller text are 400 INVALID_FIELD naming the field, and a database refusal of a value is a 400 with a warning;
// a negative LODF outage is 400; CSV cells with leading spaces before a formula character are neutralised; an
// encoded control character in a request path is audited.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import WebSocket from 'ws';
import { json, MODES, testConfig, dropDistributed, type TestApp } from './helpers/app.js';
import { adminHeaders, createUser, loginAs } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { studyClient } from './helpers/studies.js';
import { CASES_DIR } from '../src/paths.js';
import { startGridops } from '../src/runtime.js';
import { saveModelVersion, loadVersion } from '../src/domain/networks.js';
import { systemCaller } from '../src/domain/caller.js';
import { toAppError } from '../src/plugins/app/envelope.js';

const case9 = () => readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');

for (const mode of MODES) {
  describe(`security: hardening round three (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    const logs: { level: number; msg: string; sqlstate?: string }[] = [];
    const { call, ok, err } = restClient(() => ({ app, h }));
    const importCase9 = async (query = '') => {
      const r = await call('POST', `/api/v1/networks/import?format=matpower${query}`, case9(), { 'content-type': 'text/plain' });
      assert.equal(r.statusCode, 201, r.body);
      return json(r).data.id as string;
    };

    before(async () => {
      // A real process whose log lines the test reads (levels: 40 warn, 50 error).
      const config = testConfig(mode, { logLevel: 'warn' });
      const sink = new Writable({
        write(chunk, _enc, done) {
          for (const l of String(chunk).split('\n')) if (l) logs.push(JSON.parse(l));
          done();
        },
      });
      const running = await startGridops(config, { listen: true, log: pino({ level: 'warn' }, sink) });
      app = {
        ...running,
        mode,
        config,
        schema: mode === 'distributed' ? config.dbSchema : undefined,
        async close() {
          await running.close();
          if (mode === 'distributed') await dropDistributed(config.dbSchema, config.redisPrefix);
        },
      };
      h = await adminHeaders(app);
    });
    after(async () => {
      await app?.close();
    });

    // ------------------------------------------------------------------ item 5: apply is a write

    it('apply: a token with scope "read compute" is 403 as on PUT, and the network keeps its version', async () => {
      const net = await importCase9();
      const u = await createUser(app, { username: `op-scope-${mode}`, role: 'operator' });
      const narrow = await loginAs(app, u.username, u.password, { scope: 'read compute' });
      const detail = await ok('GET', `/api/v1/networks/${net}`);
      const put = await call(
        'PUT',
        `/api/v1/networks/${net}`,
        { name: 'x', buses: detail.buses, branches: detail.branches, generators: detail.generators, loads: detail.loads },
        narrow,
      );
      err(put, 403, 'FORBIDDEN');
      const e = err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', apply: true }, narrow), 403, 'FORBIDDEN');
      assert.equal(e.details.permission, 'write');
      // without apply the same token computes
      assert.equal((await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc' }, narrow)).statusCode, 200);
      assert.equal((await ok('GET', `/api/v1/networks/${net}`)).version, 1);
      // the role's full scope may apply
      const full = await loginAs(app, u.username, u.password);
      const r = json(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', apply: true }, full));
      assert.deepEqual(r.data.applied, { network_version: 2 }, JSON.stringify(r));
    });

    it('apply: NETWORK_LOCKED when a task of the network is being solved at the time of the write', async () => {
      const net = await importCase9();
      // A task of the network being solved: the row a running task has (a study's task, which no sweeper fails).
      const lock = `task_lock${mode.slice(0, 3)}${Date.now()}`;
      await app.services.db.query(
        `INSERT INTO tasks (id, tenant_id, network_id, network_version, kind, status, options, started_at)
         VALUES ($1, 'default', $2, 1, 'study', 'running', '{}', now())`,
        [lock, net],
      );
      try {
        const e = err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', apply: true }), 409, 'NETWORK_LOCKED');
        assert.equal(e.details.network_id, net);
        assert.equal((await ok('GET', `/api/v1/networks/${net}`)).version, 1);
      } finally {
        await app.services.db.query(`UPDATE tasks SET status = 'failed', completed_at = now() WHERE id = $1`, [lock]);
      }
      assert.deepEqual((await ok('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', apply: true })).applied, { network_version: 2 });
    });

    it('apply: an archived network is refused at the time of the write (the write the apply makes)', async () => {
      const net = await importCase9();
      const detail = await ok('GET', `/api/v1/networks/${net}`);
      await ok('PUT', `/api/v1/networks/${net}`, {
        name: detail.name,
        buses: detail.buses,
        branches: detail.branches,
        generators: detail.generators,
        loads: detail.loads,
        status: 'archived',
      });
      const caller = systemCaller('default', 'archived-apply');
      const model = await loadVersion(app.services.db, net, 2);
      await assert.rejects(
        saveModelVersion(app.services, caller, net, 2, model, { kind: 'network.opf_applied' }, { asWrite: true }),
        (e: { code?: string }) => e.code === 'CONFLICT',
      );
      assert.equal((await ok('GET', `/api/v1/networks/${net}`)).version, 2);
    });

    // ------------------------------------------------------------------ item 7: the audit entry of an applied OPF

    it('the audit entry of an applied OPF says apply and names the task and both versions', async () => {
      const net = await importCase9();
      const rid = `apply-audit-${mode}`;
      const r = json(
        await app.app!.inject({
          method: 'POST',
          url: `/api/v1/networks/${net}/opf`,
          headers: { ...h, 'x-request-id': rid },
          payload: { method: 'dc', apply: true },
        }),
      );
      assert.deepEqual(r.data.applied, { network_version: 2 });
      const rows = await ok('GET', `/api/v1/audit?request_id=${rid}`);
      assert.equal(rows.length, 1, JSON.stringify(rows));
      assert.deepEqual(rows[0].resource, { type: 'network', id: net });
      assert.equal(rows[0].details.apply, true);
      assert.equal(rows[0].details.task_id, r.data.task_id);
      assert.equal(rows[0].details.network_version_before, 1);
      assert.equal(rows[0].details.network_version_after, 2);
      // a read-only OPF is not taken for one
      const rid2 = `noapply-audit-${mode}`;
      await app.app!.inject({
        method: 'POST',
        url: `/api/v1/networks/${net}/opf`,
        headers: { ...h, 'x-request-id': rid2 },
        payload: { method: 'dc' },
      });
      const plain = await ok('GET', `/api/v1/audit?request_id=${rid2}`);
      assert.equal(plain[0].details.apply, undefined);
    });

    // ------------------------------------------------------------------ item 6: control characters

    it('control characters in ids and names are 400 INVALID_FIELD naming the field, never a 500', async () => {
      const net = await importCase9();
      const before = logs.filter((l) => l.level >= 50).length;
      const study = err(
        await call('POST', `/api/v1/networks/${net}/studies`, { kind: 'contingency', contingencies: [{ id: 'a\u0000b', branches: [0] }] }),
        400,
        'INVALID_FIELD',
      );
      assert.equal(study.details.field, 'contingencies[0].id');
      const opf = err(
        await call('POST', `/api/v1/networks/${net}/opf`, {
          method: 'dc',
          security: {
            contingencies: [
              { id: 'x', branches: [1] },
              { id: 'a\u0000b', branches: [2] },
            ],
          },
        }),
        400,
        'INVALID_FIELD',
      );
      assert.equal(opf.details.field, 'security.contingencies[1].id');
      const imp = err(
        await call('POST', '/api/v1/networks/import?format=matpower&name=a%00b', case9(), { 'content-type': 'text/plain' }),
        400,
        'INVALID_FIELD',
      );
      assert.equal(imp.details.field, 'name');
      // other C0 characters too, in a name and a tag key; tab and line breaks in a name as well
      for (const [body, field] of [
        [{ name: 'a\u0001b' }, 'name'],
        [{ name: 'a\tb' }, 'name'],
        [{ name: 'n', tags: { 'k\u0007': 'v' } }, 'tags.k\u0007'],
        [{ name: 'n', description: 'bell\u0007' }, 'description'],
      ] as const) {
        const e = err(await call('POST', '/api/v1/networks', { buses: [{ id: 1, type: 'slack' }], ...body }), 400, 'INVALID_FIELD');
        assert.equal(e.details.field, field);
      }
      // free text may have lines and tabs
      const ok201 = await call('POST', '/api/v1/networks', {
        name: 'lines',
        description: 'first line\nsecond\tline\r\n',
        buses: [{ id: 1, type: 'slack' }],
      });
      assert.equal(ok201.statusCode, 201, ok201.body);
      // GraphQL: the same rule on a mutation's arguments
      const g = json(
        await call('POST', '/graphql', {
          query: 'mutation($n: String!) { createNetwork(input: {name: $n, buses: [{id: 1, type: SLACK}]}) { id } }',
          variables: { n: 'a\u0000b' },
        }),
      );
      assert.ok(g.errors?.length, JSON.stringify(g));
      assert.notEqual(g.errors[0].extensions.code, 'INTERNAL_ERROR', JSON.stringify(g.errors));
      assert.equal(g.errors[0].extensions.details.field, 'input.name', JSON.stringify(g.errors));
      assert.equal(logs.filter((l) => l.level >= 50).length, before, 'no error-level log line');
    });

    it('a database refusal of caller text (SQLSTATE class 22) is a 400 logged as a warning, never a 500', async () => {
      // the error each mode's driver gives for a NUL in text, as the door maps it
      const refused = await app.services.db.query('SELECT $1::text AS t', ['a\u0000b']).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(refused, 'the database accepted a NUL in text');
      assert.match(String((refused as { code?: string }).code), /^22/);
      const e = toAppError(refused as Error);
      assert.equal(e.statusCode, 400);
      assert.equal(e.code, 'INVALID_FIELD');
      // through a door the text walk does not cover (a GraphQL query's filter reaches SQL as it is)
      const before = logs.filter((l) => l.level >= 50).length;
      const warnsBefore = logs.filter((l) => l.level === 40 && l.sqlstate).length;
      const g = json(
        await call('POST', '/graphql', {
          query: 'query($n: String) { networks(filter: {nameContains: $n}) { items { id } } }',
          variables: { n: 'a\u0000b' },
        }),
      );
      assert.ok(g.errors?.length, JSON.stringify(g));
      assert.equal(g.errors[0].extensions.code, 'VALIDATION_FAILED', JSON.stringify(g.errors));
      assert.match(String(g.errors[0].extensions.details.sqlstate), /^22/);
      assert.ok(logs.filter((l) => l.level === 40 && l.sqlstate).length > warnsBefore, 'a warning names the SQLSTATE');
      assert.equal(logs.filter((l) => l.level >= 50).length, before, 'no error-level log line');
    });

    it('WebSocket: control characters in a command are INVALID_FIELD naming the field, not an internal error', async () => {
      const agent = await ok('POST', '/api/v1/agents', { name: `ws-ctl-${mode}`, type: 'dispatch' }, 201);
      const before = logs.filter((l) => l.level >= 50).length;
      const ws = new WebSocket(`${app.url!.replace(/^http/, 'ws')}/ws`, ['gridops.v1'], { headers: { authorization: h.authorization! } });
      const frames: { type: string; id?: string; code?: string; details?: { field?: string } }[] = [];
      ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
      await new Promise<void>((res, rej) => {
        ws.on('open', () => res());
        ws.on('error', rej);
      });
      ws.send(JSON.stringify({ type: 'command', id: 'c1', agent_id: agent.id, command: 'start', params: { reason: 'a\u0000b' } }));
      const end = Date.now() + 10_000;
      let answer: (typeof frames)[number] | undefined;
      while (!(answer = frames.find((f) => f.id === 'c1')) && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      ws.close();
      assert.ok(answer, `no answer to the command: ${JSON.stringify(frames)}`);
      assert.equal(answer.code, 'INVALID_FIELD', JSON.stringify(answer));
      assert.equal(answer.details?.field, 'params.reason');
      assert.equal(logs.filter((l) => l.level >= 50).length, before, 'no error-level log line');
    });

    // ------------------------------------------------------------------ item 8: the small ones

    it('a negative LODF outage (and branch) index is 400 INVALID_FIELD naming it', async () => {
      const net = await importCase9();
      const e = err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'lodf', outages: [0, -1] }), 400, 'INVALID_FIELD');
      assert.equal(e.details.field, 'outages[1]');
      const b = err(await call('POST', `/api/v1/networks/${net}/sensitivities`, { kind: 'ptdf', branches: [-3] }), 400, 'INVALID_FIELD');
      assert.equal(b.details.field, 'branches[0]');
    });

    it('studies CSV: leading spaces before = + - @ do not get past the neutralisation', { timeout: 120_000 }, async () => {
      const api = studyClient(app, async () => h);
      const net = await importCase9();
      const ids = [' =1+1', '   +cmd', '  -2+3', ' @SUM(1)'];
      const st = await api.submit(net, { kind: 'contingency', contingencies: ids.map((id, k) => ({ id, branches: [k + 3] })) });
      await api.waitFor(st.study_id);
      const r = await api.call('GET', `/api/v1/studies/${st.study_id}/cases.csv`);
      assert.equal(r.statusCode, 200, r.body);
      const lines = r.body.trimEnd().split('\n');
      const header = lines[0]!.split(',');
      lines.slice(1).forEach((line, k) => {
        const c = line.split(',')[header.indexOf('contingency_id')]!;
        assert.equal(c, `'${ids[k]}`, `contingency_id cell ${JSON.stringify(c)}`);
      });
    });

    it('GET /networks/net_%00abc with a valid token is audited like an invalid percent-encoding', async () => {
      for (const url of ['/api/v1/networks/net_%00abc', '/api/v1/networks/net_%1Fabc/layout', '/api/v1/tasks/task_%7F']) {
        const rid = `ctl-path-${mode}-${url.length}`;
        const r = await app.app!.inject({ method: 'GET', url, headers: { ...h, 'x-request-id': rid } });
        assert.ok(r.statusCode >= 400 && r.statusCode < 500, `${url}: ${r.statusCode} ${r.body}`);
        const rows = await ok('GET', `/api/v1/audit?request_id=${rid}`);
        assert.equal(rows.length, 1, `${url} left ${rows.length} audit rows`);
        assert.equal(rows[0].status, r.statusCode);
        assert.equal(rows[0].details.reason, 'control_character_in_path');
      }
    });
  });
}
