// Studies through GraphQL (runStudy, study(id) with its cases, cancelStudy) and their
// progress on every live door: SSE and WebSocket (topic powerflow: study.progress, then
// study.finished) and the GraphQL subscription studyProgress(studyId), in both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { MODES, json, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { code, collect, gql, ok, wsClient } from './graphql-helpers.js';
import { studyClient } from './helpers/studies.js';

type H = Record<string, string>;
interface Live { kind: string; payload: Record<string, any> }

/** Events of an SSE stream (data lines parsed as JSON). */
function sse(base: string, path: string, headers: H): Promise<{ events: Live[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const events: Live[] = [];
    const req = http.get(base + path, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`SSE answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let pending = '';
      res.on('data', (chunk: string) => {
        pending += chunk;
        let i;
        while ((i = pending.indexOf('\n\n')) >= 0) {
          const data = pending.slice(0, i).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
          pending = pending.slice(i + 2);
          if (!data) continue;
          try {
            events.push(JSON.parse(data));
          } catch { /* not JSON: ignore */ }
        }
      });
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

async function until<T>(what: string, f: () => T | undefined | false, ms = 180_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const STUDY_FIELDS = 'id taskId networkId kind status done total counts { converged diverged islanded branchOverload lowVoltage highVoltage withViolations } base startedAt completedAt solveMs error';

for (const mode of MODES) {
  describe(`studies live and GraphQL (${mode})`, () => {
    let app: TestApp;
    let admin: H;
    let net118: string;

    before(async () => {
      app = await startTestApp(mode, { listen: true });
      admin = await adminHeaders(app);
      net118 = await studyClient(app, async () => admin).importCase('case118');
    });
    after(async () => app?.close());

    it('runStudy; progress on SSE, WebSocket and studyProgress; study(id) with its cases as REST gives them', { timeout: 240_000 }, async () => {
      const stream = await sse(app.url!, '/api/v1/events/stream?topics=powerflow', admin);
      const ws = new WebSocket(app.url!.replace(/^http/, 'ws') + '/ws', ['gridops.v1'], { headers: admin });
      const wsEvents: Live[] = [];
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString());
        if (m.type === 'event') wsEvents.push(m.event);
      });
      await new Promise<void>((r, j) => { ws.once('open', () => r()); ws.once('error', j); });
      ws.send(JSON.stringify({ type: 'subscribe', id: 's1', topics: ['powerflow'] }));
      await until('the WebSocket subscription', () => true, 1000);
      const gws = wsClient(app, { authorization: admin.authorization });
      try {
        await gws.acked;
        app.services.config.studyChunkCases = 16; // 186 cases: 12 chunks, 12 progress messages
        let study: Record<string, any>;
        try {
          study = ok(await gql(app, `mutation($id: ID!) { runStudy(id: $id, kind: CONTINGENCY, contingencies: "n-1-branches", loadingLimitPercent: 90) { ${STUDY_FIELDS} } }`, { id: net118 }, admin)).runStudy;
        } finally {
          app.services.config.studyChunkCases = 0;
        }
        // the study view is read after the submission: an idle queue may already have started it
        assert.ok(['QUEUED', 'RUNNING'].includes(study.status), study.status);
        assert.equal(study.total, 186);
        const sub = collect(gws.client, 'subscription($id: ID!) { studyProgress(studyId: $id) { studyId status done total timestamp } }', { id: study.id });
        await sub.completed;
        assert.equal(sub.error, undefined, String(sub.error));
        const items = sub.items.map((x) => (x.data as any).studyProgress);
        const last = items[items.length - 1];
        assert.deepEqual({ status: last.status, done: last.done, total: last.total }, { status: 'COMPLETED', done: 186, total: 186 });
        const dones = items.map((x: { done: number }) => x.done);
        assert.deepEqual(dones, [...dones].sort((a, b) => a - b), 'done never goes back');

        for (const [door, events] of [["SSE", stream.events], ["WebSocket", wsEvents]] as [string, Live[]][]) {
          await until(`study.finished on ${door}`, () => events.some((e) => e.kind === 'study.finished' && e.payload.study_id === study.id));
          const progress = events.filter((e) => e.kind === 'study.progress' && e.payload.study_id === study.id);
          const chunks = progress.filter((e) => e.payload.chunks_done !== undefined);
          assert.equal(chunks.length, 12, `${door}: one message per chunk`);
          assert.equal(Math.max(...progress.map((e) => e.payload.done)), 186);
          const fin = events.find((e) => e.kind === 'study.finished' && e.payload.study_id === study.id)!;
          assert.equal(fin.payload.status, 'completed');
          assert.equal(fin.payload.task_id, study.taskId);
        }

        const q = ok(await gql(app, `query($id: ID!) { study(id: $id) { ${STUDY_FIELDS}
          cases(sort: "-max_loading_percent", pageSize: 5, page: 1) { total page pageSize totalPages items { caseId status iterations maxLoadingPercent maxLoadingBranch minV minVBus maxV maxVBus contingency { id branches generators } violations { type element value limit } islanded { buses loadMw generationMw } reason } }
          islands: cases(status: [ISLANDED], pageSize: 100) { total items { caseId status } }
          overloads: cases(violation: [BRANCH_OVERLOAD], pageSize: 100) { total } } }`, { id: study.id }, admin)).study;
        assert.equal(q.status, 'COMPLETED');
        assert.equal(q.done, 186);
        assert.equal(q.counts.converged + q.counts.diverged + q.counts.islanded, 186);
        const rest = studyClient(app, async () => admin);
        const page = json(await rest.call('GET', `/api/v1/studies/${study.id}/cases?sort=-max_loading_percent&page_size=5`));
        assert.equal(q.cases.total, 186);
        assert.equal(q.cases.totalPages, page.meta.total_pages);
        assert.deepEqual(q.cases.items.map((c: any) => [c.caseId, c.maxLoadingPercent, c.minV, c.violations.length]),
          page.data.map((c: any) => [c.case_id, c.max_loading_percent, c.min_v, c.violations.length]));
        assert.ok(q.cases.items.every((c: any) => c.violations.every((v: any) => ['BRANCH_OVERLOAD', 'LOW_VOLTAGE', 'HIGH_VOLTAGE'].includes(v.type))));
        assert.equal(q.islands.total, q.counts.islanded);
        assert.ok(q.islands.items.every((c: any) => c.status === 'ISLANDED'));
        assert.equal(q.overloads.total, q.counts.branchOverload);

        assert.equal(ok(await gql(app, '{ study(id: "study_00000000000000000000") { id } }', undefined, admin)).study, null);

        // The study's task: tasks { study } leads to it; task(id), a power-flow result, says where to read it.
        const listed = ok(await gql(app, '{ tasks(kind: "study", pageSize: 100) { items { id kind status study { id status done total } } } }', undefined, admin)).tasks.items;
        const mine = listed.find((t: any) => t.id === study.taskId);
        assert.ok(mine, 'the study task is listed');
        assert.deepEqual([mine.kind, mine.status, mine.study], ['study', 'COMPLETED', { id: study.id, status: 'COMPLETED', done: 186, total: 186 }]);
        const asTask = await gql(app, 'query($id: ID!) { task(id: $id) { status } }', { id: study.taskId }, admin);
        assert.equal(code(asTask), 'VALIDATION_FAILED', JSON.stringify(asTask.body));
        assert.equal(asTask.body.errors![0]!.extensions.details.reason, 'INVALID_FIELD');
        assert.match(asTask.body.errors![0]!.message, new RegExp(`is a study, not a power flow: read it with study\\(id: "${study.id}"\\)`));
        const pf = ok(await gql(app, '{ tasks(kind: "powerflow", pageSize: 5) { items { kind study { id } } } }', undefined, admin)).tasks.items;
        assert.ok(pf.every((t: any) => t.kind === 'powerflow' && t.study === null));
      } finally {
        await gws.client.dispose();
        ws.close();
        stream.close();
      }
    });

    it('GraphQL: a viewer reads but cannot run; bad input is a clear error; cancelStudy stops a study', { timeout: 240_000 }, async () => {
      const viewer = await tokenFor(app, 'viewer');
      const denied = await gql(app, 'mutation($id: ID!) { runStudy(id: $id, kind: CONTINGENCY) { id } }', { id: net118 }, viewer);
      assert.equal(code(denied), 'FORBIDDEN');
      const bad = await gql(app, 'mutation($id: ID!) { runStudy(id: $id, kind: CONTINGENCY, contingencies: [{branches: [500]}]) { id } }', { id: net118 }, admin);
      assert.ok(bad.body.errors?.length, JSON.stringify(bad.body));
      assert.match(bad.body.errors![0]!.message, /branch index 500 does not exist/);
      const warm = await gql(app, 'mutation($id: ID!) { runStudy(id: $id, kind: CONTINGENCY, options: {warmStart: PREVIOUS}) { id } }', { id: net118 }, admin);
      assert.match(String(warm.body.errors?.[0]?.message), /warm_start 'previous' applies to kind 'scenarios'/);
      const wrong = await gql(app, 'mutation($id: ID!) { runStudy(id: $id, kind: SCENARIOS, scenarios: {count: 2, load_scale: [1]}) { id } }', { id: net118 }, admin);
      assert.match(wrong.body.errors![0]!.message, /has 1 values, but scenarios.count is 2/);

      // The study waits in the tenant queue (concurrent_powerflow 0, live) until it is cancelled,
      // however fast the machine: a cancel that raced a finished study proved nothing.
      const rest = studyClient(app, async () => admin);
      const quota = async (body: Record<string, unknown>) =>
        json(await rest.call('PUT', '/api/v1/admin/tenants/default/quota', { ...body, reason: 'studies test: hold the study in the queue' })).data;
      const held = await quota({ concurrent_powerflow: 0 });
      let st: Record<string, any>;
      let c: Record<string, any>;
      try {
        st = ok(await gql(app, 'mutation($id: ID!) { runStudy(id: $id, kind: CONTINGENCY, contingencies: "n-1") { id status total } }', { id: net118 }, admin)).runStudy;
        assert.equal(st.status, 'QUEUED');
        c = ok(await gql(app, 'mutation($id: ID!) { cancelStudy(id: $id) { status done total } }', { id: st.id }, admin)).cancelStudy;
      } finally {
        await quota({ concurrent_powerflow: held.previous.concurrent_powerflow });
      }
      assert.equal(c.status, 'CANCELLED');
      const seen = ok(await gql(app, 'query($id: ID!) { study(id: $id) { id status } }', { id: st.id }, viewer)).study;
      assert.deepEqual(seen, { id: st.id, status: 'CANCELLED' });
      assert.ok(c.done < c.total);
      const again = await gql(app, 'mutation($id: ID!) { cancelStudy(id: $id) { status } }', { id: st.id }, admin);
      assert.ok(again.body.errors?.length);
    });
  });
}
