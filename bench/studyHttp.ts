// Studies end to end over HTTP (issue #16: "the HTTP end-to-end time of the case2383wp N-1"):
// a started gridops (embedded: one process, PGlite, in-process queue, WORKERS=2; distributed:
// ROLE=api + 2 × ROLE=worker with WORKERS=1 on this machine's PostgreSQL and Redis), case2383wp
// imported, POST /networks/{id}/studies {kind: contingency, contingencies: n-1-branches}, then
// GET /studies/{id} every 50 ms until completed.
//
//   npm run bench:study-http                 # table on stdout
//   npm run bench:study-http -- --json       # [{case, study, mode, cases, submit_to_completed_ms, queued_ms, wall_ms}]
//   npm run bench:study-http -- --only embedded
import { randomBytes } from 'node:crypto';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CASES_DIR } from '../src/paths.js';
import { spawnGridops, type GridopsProcess } from '../test/helpers/process.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CASE = 'case2383wp';
const log = (s: string) => process.stderr.write(`${s}\n`);
const benchEnv = { LOG_LEVEL: 'warn', NODE_ENV: 'production', ADMIN_PASSWORD: 'bench-admin-password', RATE_LIMIT_SCALE: '1000000' };

interface Row { case: string; study: string; mode: string; cases: number; submit_to_completed_ms: number; queued_ms: number; wall_ms: number }

async function json(r: Response): Promise<{ data: Record<string, unknown> }> {
  const b = await r.json() as { data: Record<string, unknown> };
  if (r.status >= 300) throw new Error(`${r.status} ${JSON.stringify(b).slice(0, 300)}`);
  return b;
}

async function run(mode: string, base: string): Promise<Row> {
  const login = await json(await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'bench-admin-password' }) }));
  const h = { authorization: `Bearer ${login.data.token as string}` };
  const net = await json(await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' },
    body: readFileSync(join(CASES_DIR, `${CASE}.m`), 'utf8') }));
  const t0 = performance.now();
  const sub = await json(await fetch(`${base}/api/v1/networks/${net.data.id as string}/studies`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'contingency', contingencies: 'n-1-branches' }) }));
  for (;;) {
    const st = (await json(await fetch(`${base}/api/v1/studies/${sub.data.study_id as string}`, { headers: h }))).data;
    if (st.status === 'completed') {
      const ms = performance.now() - t0;
      const timings = st.timings as { queued_ms: number; wall_ms: number };
      const progress = st.progress as { total: number };
      return { case: CASE, study: 'N-1 all branches', mode, cases: progress.total, submit_to_completed_ms: Math.round(ms),
        queued_ms: timings.queued_ms, wall_ms: timings.wall_ms };
    }
    if (st.status === 'failed' || st.status === 'cancelled') throw new Error(`study ${st.status}: ${JSON.stringify(st).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const load0 = loadavg()[0]!;
  if (!only || only === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'gridops-bench-'));
    const server = await spawnGridops({ ...benchEnv, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', WORKERS: '2' }, { inheritEnv: true, keepLines: 0 });
    try { rows.push(await run('embedded (PGlite, in-process queue), one process, WORKERS=2', server.url!)); } finally { await server.stop(5000); rmSync(dir, { recursive: true, force: true }); }
    log(`embedded: ${JSON.stringify(rows.at(-1))}`);
  }
  if (!only || only === 'distributed') {
    const env = { DATABASE_URL: PG_URL, REDIS_URL, GRIDOPS_DB_SCHEMA: `bench_${randomBytes(4).toString('hex')}`, GRIDOPS_REDIS_PREFIX: `gridops-bench-${randomBytes(4).toString('hex')}` };
    const server = await spawnGridops({ ...benchEnv, ...env, PORT: '0', HOST: '127.0.0.1', ROLE: 'api' }, { inheritEnv: true, keepLines: 0 });
    const workers: GridopsProcess[] = [];
    try {
      for (let i = 0; i < 2; i++) workers.push(await spawnGridops({ ...benchEnv, ...env, ROLE: 'worker', WORKERS: '1' }, { inheritEnv: true, keepLines: 0 }));
      rows.push(await run('distributed (PostgreSQL, BullMQ): ROLE=api + 2 × ROLE=worker, WORKERS=1', server.url!));
    } finally {
      for (const w of workers) await w.stop(5000);
      await server.stop(5000);
    }
    log(`distributed: ${JSON.stringify(rows.at(-1))}`);
  }
  if (asJson) { process.stdout.write(`${JSON.stringify(rows)}\n`); return; }
  process.stdout.write([
    `load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`,
    '| mode | cases | submit → completed ms | queued ms | wall (started → completed) ms |',
    '|---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.mode} | ${r.cases} | ${r.submit_to_completed_ms} | ${r.queued_ms} | ${r.wall_ms} |`),
  ].join('\n') + '\n');
}

main().catch((e: unknown) => { log(String((e as Error)?.stack ?? e)); process.exitCode = 1; });
