// Studies across worker processes (distributed mode): an API process (ROLE=api) in the
// test and `node dist/src/server.js` children with ROLE=worker. Two workers share a
// study's chunks and give exactly the engine's rows; a worker SIGKILLed in the middle of a
// chunk leaves it to the other one (which redoes it), and the rows are still exactly the engine's, each once.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PG_URL, REDIS_URL, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { assertSameRows, engineRows, studyClient } from './helpers/studies.js';
import { ROOT } from '../src/paths.js';
import type { StudyRequest } from '../src/studies/index.js';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { BullTransport } from '../src/queue/bullmq.js';
import type { StudyChunkJob } from '../src/queue/scheduler.js';
import { pieceKinds } from '../src/queue/pieces.js';

const SERVER = fileURLToPath(new URL('../src/server.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface WorkerProc {
  proc: ChildProcess;
  name: string;
  log: string[];
  exited: Promise<number | null>;
}

// A small local spawner (the drills branch brings a shared one in test/helpers/).
async function startWorker(app: TestApp, dataDir: string, children: Set<WorkerProc>): Promise<WorkerProc> {
  const proc = spawn(process.execPath, [SERVER], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '', NODE_ENV: 'test', ROLE: 'worker', DATABASE_URL: PG_URL, REDIS_URL,
      GRIDOPS_DB_SCHEMA: app.schema!, GRIDOPS_REDIS_PREFIX: app.prefix!, WORKERS: '1', DATA_DIR: dataDir, LOG_LEVEL: 'info',
      // A killed worker's chunk is taken back within ~3 s instead of ~15 s.
      GRIDOPS_QUEUE_LOCK_MS: '2000', GRIDOPS_QUEUE_STALLED_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const w: WorkerProc = { proc, name: `${hostname()}:${proc.pid}`, log: [], exited: new Promise((r) => proc.once('exit', (code) => r(code))) };
  children.add(w);
  void w.exited.then(() => children.delete(w));
  let ready!: () => void;
  const started = new Promise<void>((r) => (ready = r));
  const onData = (d: Buffer) => {
    for (const line of d.toString().split('\n')) {
      if (!line) continue;
      w.log.push(line);
      if (line.includes('"gridops started"')) ready();
    }
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  await Promise.race([
    started,
    w.exited.then((code) => { throw new Error(`worker exited (${code}) before starting:\n${w.log.join('\n')}`); }),
    sleep(60_000).then(() => { throw new Error(`worker did not start within 60 s:\n${w.log.join('\n')}`); }),
  ]);
  return w;
}

const N1: StudyRequest = { kind: 'contingency', contingencies: 'n-1' };

describe('studies with worker processes (distributed)', () => {
  let app: TestApp;
  let api: ReturnType<typeof studyClient>;
  let dataDir: string;
  const children = new Set<WorkerProc>();
  const killAll = () => { for (const c of children) c.proc.kill('SIGKILL'); };
  process.once('exit', killAll);
  let workers: WorkerProc[];

  const chunks = async (studyId: string) => (await app.services.db.query<{ chunk: number; status: string; attempts: number; solved_by: string | null }>(
    'SELECT chunk, status, attempts, solved_by FROM study_chunks WHERE study_id = $1 ORDER BY chunk', [studyId])).rows;

  const submitWithChunks = async (networkId: string, request: StudyRequest, size: number) => {
    app.services.config.studyChunkCases = size;
    try {
      return await api.submit(networkId, request);
    } finally {
      app.services.config.studyChunkCases = 0;
    }
  };

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gridops-studies-'));
    app = await startTestApp('distributed', { config: { role: 'api' } });
    api = studyClient(app, () => adminHeaders(app));
    workers = await Promise.all([startWorker(app, dataDir, children), startWorker(app, dataDir, children)]);
  });
  after(async () => {
    killAll();
    await Promise.all([...children].map((c) => c.exited));
    await app?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('two workers share the chunks of an N-1 of case118; the rows are exactly the engine\'s', { timeout: 300_000 }, async () => {
    assert.equal(app.services.solver, undefined, 'the API process solves nothing itself');
    const net = await api.importCase('case118');
    const sub = await submitWithChunks(net, N1, 8);
    const st = await api.waitFor(sub.study_id);
    assert.equal(st.status, 'completed', JSON.stringify(st.error));
    assert.equal(st.progress.done, 240, '186 branches and 54 generators');
    const rows = await api.allCases(sub.study_id);
    assertSameRows(rows, await engineRows(app, net, N1, 240)); // one chunk: chunking changes nothing
    const by = new Set((await chunks(sub.study_id)).map((c) => c.solved_by));
    assert.deepEqual([...by].sort(), workers.map((w) => w.name).sort(), 'both workers solved chunks');
  });

  it('a worker SIGKILLed in the middle of a chunk: the other one redoes it; the rows are still exactly the engine\'s', { timeout: 300_000 }, async (t) => {
    const net = await api.importCase('case2383wp');
    // 600 outages of case2383wp in 12 chunks of 50: long enough to be caught in flight.
    const request: StudyRequest = { kind: 'contingency', contingencies: Array.from({ length: 600 }, (_, i) => ({ branches: [i] })) };
    const expected = engineRows(app, net, request, 50); // computed meanwhile, in this process
    const sub = await submitWithChunks(net, request, 50);
    // Wait until a worker holds a chunk (taken, not done), then kill that worker.
    const end = Date.now() + 120_000;
    let victim: WorkerProc | undefined;
    while (!victim && Date.now() < end) {
      const inFlight = (await chunks(sub.study_id)).find((c) => c.status === 'pending' && c.attempts > 0 && c.solved_by);
      if (inFlight) victim = workers.find((w) => w.name === inFlight.solved_by);
      else await sleep(5);
    }
    assert.ok(victim, 'a worker took a chunk');
    victim.proc.kill('SIGKILL');
    await victim.exited;
    const killedAt = Date.now();
    // The chunks the dead worker held: none of their rows may be missing or doubled.
    const orphans = (await chunks(sub.study_id)).filter((c) => c.status === 'pending' && c.solved_by === victim!.name).map((c) => c.chunk);
    const st = await api.waitFor(sub.study_id);
    t.diagnostic(`chunks ${orphans.join(', ')} held by the killed worker; study finished ${Date.now() - killedAt} ms after the kill`);
    assert.equal(st.status, 'completed', JSON.stringify(st.error));
    assert.equal(st.progress.done, st.progress.total);
    const all = await chunks(sub.study_id);
    assert.ok(all.every((c) => c.status === 'done'));
    const survivor = workers.find((w) => w !== victim)!;
    for (const c of orphans) {
      const row = all.find((x) => x.chunk === c)!;
      assert.equal(row.solved_by, survivor.name, `chunk ${c} was redone by the survivor`);
      assert.ok(row.attempts >= 2, `chunk ${c} ran twice`);
    }
    const rows = await api.allCases(sub.study_id);
    assert.equal(rows.length, st.progress.total);
    assertSameRows(rows, await expected);
  });

  it('sweeper: chunk jobs that vanished from Redis are sent again and the study completes with the same rows', { timeout: 300_000 }, async () => {
    const conn = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue<StudyChunkJob>(pieceKinds.study_chunk.queue, { connection: conn, prefix: app.prefix });
    try {
      const net = await api.importCase('case118');
      const sub = await submitWithChunks(net, N1, 4); // 60 chunks: most wait in Redis a while
      // Drop the chunk jobs still waiting (as a Redis that lost data would).
      const dropped: string[] = [];
      const end = Date.now() + 120_000;
      while (dropped.length === 0 && Date.now() < end) {
        for (const job of await queue.getWaiting()) {
          if (job.data.studyId !== sub.study_id) continue;
          await job.remove().then(() => dropped.push(job.id!), () => {});
        }
        if (dropped.length === 0) await sleep(5);
      }
      assert.ok(dropped.length > 0, 'some chunk jobs were waiting');
      const transport = app.services.tasks.transport as BullTransport;
      // The running chunks finish; the dropped ones have no job: two sweeps re-send them.
      const st = await (async () => {
        for (;;) {
          const now = await api.study(sub.study_id);
          if (now.status !== 'running' && now.status !== 'queued') return now;
          await transport.sweep();
          await sleep(200);
        }
      })();
      assert.equal(st.status, 'completed', JSON.stringify(st.error));
      assert.equal(st.progress.done, 240);
      assertSameRows(await api.allCases(sub.study_id), await engineRows(app, net, N1, 240));
    } finally {
      await queue.close();
      conn.disconnect();
    }
  });
});
