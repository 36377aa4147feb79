// HTTP load benchmarks with autocannon against a real gridops process started here.
//
//   npm run bench:http                 # all scenarios, table on stdout
//   npm run bench:http -- --json       # JSON array on stdout
//   npm run bench:http -- --only list  # one scenario
// BENCH_SECONDS (10) per measurement, after BENCH_WARMUP_SECONDS (3) of the same load unmeasured.
//
// Scenarios (SPEC/issue targets on a 2-core machine):
//   list        GET /api/v1/networks (authenticated)          > 5,000 req/s
//   list-open   the same with authentication off (baseline; security within 25%)
//   get         GET /api/v1/networks/{id}
//   pf-sync     POST /networks/{case118}/powerflow (synchronous): 1 connection (idle latency), then 16; and GraphQL runPowerFlow
//   pf-sync-graphql, pf-sync-rest  the GraphQL one alone, the REST ones alone
//   pf-sync-pg  the synchronous power flow distributed (ROLE=api + ROLE=worker, PostgreSQL, BullMQ): the queue path
//   pf-sync-pg-all  the same with the API process ROLE=all (a solver pool of 1 thread, #36: solved at once when the
//               tenant has a free slot, src/queue/direct.ts) + the same ROLE=worker; GRIDOPS_DIRECT_SYNC=off for the queue path
//   pf-async    N async case118 power flows through BullMQ, submitted and completed  > 500/s
//   pf-async-embedded  the same in the embedded set-up (PGlite, in-process queue)      ≥ 1,000/s (#25)
// Embedded scenarios use PGlite in a temp dir; pf-async uses DATABASE_URL/REDIS_URL
// (defaults: this machine's PostgreSQL and Redis) with its own schema and prefix.
import autocannon from 'autocannon';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { CASES_DIR } from '../src/paths.js';
import { spawnGridops, type GridopsProcess } from '../test/helpers/process.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const PG_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const log = (...a: unknown[]) => console.error(...a);

interface Row { scenario: string; mode: string; req_per_s: number; p50_ms: number; p99_ms: number; errors: number; server_us_per_req?: number; note?: string }
const rows: Row[] = [];

// Extra node flags for the gridops processes, e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof".
const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

// gridops children, ready when they say so (test/helpers/process.ts); PORT=0 picks a free port.
const benchEnv = { LOG_LEVEL: 'warn', NODE_ENV: 'production', ADMIN_PASSWORD: 'bench-admin-password' };
async function startServer(env: Record<string, string>): Promise<GridopsProcess> {
  return spawnGridops({ ...benchEnv, PORT: '0', HOST: '127.0.0.1', ...env }, { inheritEnv: true, nodeArgs, keepLines: 0, echo: true });
}

function startWorker(env: Record<string, string>): Promise<GridopsProcess> {
  return spawnGridops({ ...benchEnv, ROLE: 'worker', ...env }, { inheritEnv: true, nodeArgs, keepLines: 0, echo: true });
}

const stop = (p: GridopsProcess) => p.stop(5000);

async function authHeader(base: string): Promise<Record<string, string>> {
  const r = await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'bench-admin-password' }) });
  if (r.status === 404) return {};
  const body = await r.json() as { data?: { token?: string } };
  if (!body.data?.token) throw new Error(`login failed: ${r.status}`);
  return { authorization: `Bearer ${body.data.token}` };
}

async function importCase(base: string, h: Record<string, string>, c: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: readFileSync(join(CASES_DIR, `${c}.m`), 'utf8') });
  const b = await r.json() as { data: { id: string } };
  if (r.status !== 201) throw new Error(`import ${c}: ${r.status} ${JSON.stringify(b)}`);
  return b.data.id;
}

const warmup = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);

/** CPU time (user + system) a process has used, in microseconds (Linux /proc). */
function cpuMicros(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1e6 / 100); // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

async function cannon(scenario: string, mode: string, opts: autocannon.Options, note?: string, server?: GridopsProcess, workers?: GridopsProcess[]) {
  // A service that runs for days is warm: the first seconds (JIT, caches) are not measured.
  if (warmup > 0) {
    log(`warming up ${scenario} (${mode}) for ${warmup}s…`);
    await autocannon({ ...opts, duration: warmup });
  }
  log(`running ${scenario} (${mode}) for ${opts.duration}s…`);
  const cpu0 = cpuMicros(server?.pid);
  const parts0 = server && workers ? componentCpu(server, workers) : undefined;
  const r = await autocannon(opts);
  const cpu1 = cpuMicros(server?.pid);
  if (parts0 && server && workers && r.requests.total > 0) {
    const parts1 = componentCpu(server, workers);
    const per = (k: keyof typeof parts0) => ((parts1[k] - parts0[k]) / r.requests.total / 1000).toFixed(2);
    cpuBreakdown.push(`${scenario} (${mode}) CPU ms per request: api ${per('api')}, worker ${per('worker')}, postgresql ${per('postgres')}, redis ${per('redis')}, ` +
      `load generator ${per('bench')}`);
  }
  const errors = r.errors + r.non2xx;
  // The server's own CPU per request: what the load generator on the same cores costs is not in it.
  const perReq = cpu0 !== undefined && cpu1 !== undefined && r.requests.total > 0 ? Math.round((cpu1 - cpu0) / r.requests.total) : undefined;
  rows.push({ scenario, mode, req_per_s: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors, server_us_per_req: perReq, note });
}

/** A synchronous case118 power flow: one connection (sequential, an idle server's latency), then 16 connections. */
async function pfSync(base: string, h: Record<string, string>, id: string, mode: string, server: GridopsProcess, workers?: GridopsProcess[]) {
  const opts = { url: `${base}/api/v1/networks/${id}/powerflow`, method: 'POST' as const, headers: { ...h, 'content-type': 'application/json' }, body: '{}' };
  await cannon('pf-sync case118, 1 connection (sequential)', mode, { ...opts, connections: 1, duration }, 'p50 = one call on an otherwise idle server', server, workers);
  await cannon('pf-sync case118', mode, { ...opts, connections: 16, duration }, undefined, server, workers);
}

async function embeddedScenarios() {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-bench-'));

  // Authentication and all four rate-limit layers on; the limits are scaled up so that
  // they are computed on every request but never trip under a load from one address.
  // Both list servers run in development mode with the same data, so that the only
  // difference between 'list' and 'list-open' is the security gate.
  const server = await startServer({ DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', RATE_LIMIT_SCALE: '1000000', NODE_ENV: 'development' });
  const base = server.url!;
  try {
    const h = await authHeader(base);
    const auth = Object.keys(h).length > 0;
    const id118 = await importCase(base, h, 'case118');
    for (let i = 0; i < 20; i++) await importCase(base, h, 'case9');
    if (!only || only === 'list') await cannon('list', 'embedded', { url: `${base}/api/v1/networks`, headers: h, connections: 50, duration }, auth ? 'authenticated (Bearer) + rate limits' : 'authentication not enforced', server);
    if (!only || only === 'get') await cannon('get', 'embedded', { url: `${base}/api/v1/networks/${id118}`, headers: h, connections: 50, duration }, undefined, server);
    if (!only || only === 'pf-sync' || only === 'pf-sync-rest') await pfSync(base, h, id118, 'embedded', server);
    if (!only || only === 'pf-sync' || only === 'pf-sync-graphql') {
      // The same power flow through GraphQL's runPowerFlow, selecting every per-element value REST returns.
      const query = `mutation($id: ID!) { runPowerFlow(id: $id) { taskId status method iterations mismatch durationMs tolerance
        buses { id v theta pGen qGen pLoad qLoad } branches { index from to pFrom qFrom pTo qTo loading } } }`;
      await cannon('pf-sync case118 GraphQL runPowerFlow', 'embedded', { url: `${base}/graphql`, method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables: { id: id118 } }), connections: 16, duration }, undefined, server);
    }
  } finally {
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
  if (!only || only === 'list-open') {
    const dir2 = mkdtempSync(join(tmpdir(), 'gridops-bench-'));
    const server2 = await startServer({ DATA_DIR: dir2, DATABASE_URL: '', REDIS_URL: '', GRIDOPS_AUTH: 'off', RATE_LIMITS: 'off', GRIDOPS_RATE_LIMITS: 'off', NODE_ENV: 'development' });
    try {
      const base2 = server2.url!;
      const h2 = await authHeader(base2).catch(() => ({}));
      await importCase(base2, h2, 'case118');
      for (let i = 0; i < 20; i++) await importCase(base2, h2, 'case9');
      await cannon('list-open', 'embedded', { url: `${base2}/api/v1/networks`, connections: 50, duration }, 'GRIDOPS_AUTH=off, RATE_LIMITS=off baseline', server2);
    } finally {
      await stop(server2);
      rmSync(dir2, { recursive: true, force: true });
    }
  }
}

/** CPU µs used so far by each part of the distributed set-up (Linux /proc; PostgreSQL summed over its processes). */
function componentCpu(server: GridopsProcess, workers: GridopsProcess[]) {
  const sumOf = (name: string) => {
    let total = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith(name)) total += cpuMicros(Number(pid)) ?? 0;
      } catch { /* exited */ }
    }
    return total;
  };
  const self = process.cpuUsage();
  return {
    api: cpuMicros(server.pid) ?? 0,
    worker: workers.reduce((a, w) => a + (cpuMicros(w.pid) ?? 0), 0),
    postgres: sumOf('postgres'),
    redis: sumOf('redis-server'),
    bench: self.user + self.system,
  };
}
const cpuBreakdown: string[] = [];

async function asyncThroughput(apiRole: 'api' | 'all' = 'api') {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const prefix = `gridops-bench-${randomBytes(4).toString('hex')}`;
  const env = { DATABASE_URL: PG_URL, REDIS_URL, GRIDOPS_DB_SCHEMA: schema, GRIDOPS_REDIS_PREFIX: prefix, RATE_LIMIT_SCALE: '1000000' };
  // ROLE=all: the API process has a solver pool (1 thread) and solves synchronous power flows at once (#36).
  const server = await startServer({ ...env, ROLE: apiRole, ...(apiRole === 'all' ? { WORKERS: '1' } : {}) });
  const base = server.url!;
  const workers = [await startWorker({ ...env, WORKERS: String(Math.max(1, availableParallelism() - 1)) })];
  const db = new pg.Client({ connectionString: PG_URL });
  await db.connect();
  try {
    const h = await authHeader(base);
    const id = await importCase(base, h, 'case118');
    await db.query(`UPDATE "${schema}".tenants SET quotas = quotas || '{"concurrent_powerflow": 1000, "api_requests_per_hour": 100000000}'::jsonb`);
    if (!only || only === 'list-pg') {
      for (let i = 0; i < 20; i++) await importCase(base, h, 'case9');
      await cannon('list', 'distributed (PostgreSQL)', { url: `${base}/api/v1/networks`, headers: h, connections: 50, duration }, 'authenticated (Bearer) + rate limits in Redis', server);
    }
    if (apiRole === 'all') {
      const direct = process.env.GRIDOPS_DIRECT_SYNC === 'off' ? 'queue path, GRIDOPS_DIRECT_SYNC=off' : 'solved at once';
      await pfSync(base, h, id, `distributed (API ROLE=all, 1 solver thread; 1 worker process; ${direct})`, server, workers);
      return;
    }
    if (!only || only === 'pf-sync-pg') await pfSync(base, h, id, 'distributed (BullMQ, 1 worker process)', server, workers);
    if (only === 'pf-sync-pg') return;
    const N = Number(process.env.BENCH_TASKS ?? 3000);
    const finished = async () => {
      const { rows: [{ n }] } = await db.query(`SELECT count(*)::int AS n FROM "${schema}".tasks WHERE status IN ('completed', 'failed', 'cancelled')`);
      return n as number;
    };
    const cpu0 = componentCpu(server, workers);
    const run = await submitAndComplete(base, h, id, N, finished);
    const cpu1 = componentCpu(server, workers);
    const perTask = (k: keyof typeof cpu0) => ((cpu1[k] - cpu0[k]) / N / 1000).toFixed(2);
    cpuBreakdown.push(`pf-async CPU ms per task: api ${perTask('api')}, worker ${perTask('worker')}, postgresql ${perTask('postgres')}, redis ${perTask('redis')}, load generator ${perTask('bench')}; wall ${(run.wallMs / N).toFixed(2)} ms per task`);
    rows.push({ scenario: 'pf-async case118', mode: 'distributed (BullMQ, 1 worker process)', req_per_s: Math.round(N / (run.wallMs / 1000)), p50_ms: run.submitted.latency.p50, p99_ms: run.submitted.latency.p99, errors: 0, note: `${N} tasks; submit ${run.submitPerS.toFixed(0)}/s; completed per second end to end; latency = submission` });
  } finally {
    await Promise.all(workers.map(stop));
    await stop(server);
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await db.end();
    const r = new Redis(REDIS_URL);
    let cursor = '0';
    do {
      const [c, keys] = await r.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = c;
      if (keys.length) await r.del(...keys);
    } while (cursor !== '0');
    r.disconnect();
  }
}

/**
 * Submits N async case118 power flows with autocannon and waits until `finished()` (tasks in a final
 * state) has grown by N. autocannon reports only at its next 1-second tick after the last response, so
 * the submissions are timed by their last response and completion is watched meanwhile. autocannon, not
 * fetch: the load generator shares the two cores, and fetch costs ~1 ms of CPU per request.
 */
async function submitAndComplete(base: string, h: Record<string, string>, id: string, N: number, finished: () => Promise<number>) {
  const url = `${base}/api/v1/networks/${id}/powerflow`, headers = { ...h, 'content-type': 'application/json' };
  for (let i = 0; i < 20; i++) await fetch(url, { method: 'POST', headers, body: '{}' });   // warm-up
  const before = await finished();
  log(`submitting ${N} async case118 power flows…`);
  const t0 = performance.now();
  const cannonRun = autocannon({ url, method: 'POST', headers, body: '{"async":true}', connections: 32, amount: N });
  let tSubmitted = t0;
  (cannonRun as unknown as import('node:events').EventEmitter).on('response', () => { tSubmitted = performance.now(); });
  let cannonResult: autocannon.Result | undefined;
  void cannonRun.then((r) => { cannonResult = r; });
  const failedSubmissions = () => cannonResult && (cannonResult.non2xx > 0 || cannonResult.errors > 0)
    ? new Error(`submit: ${cannonResult.non2xx} non-2xx responses, ${cannonResult.errors} errors`) : undefined;
  for (;;) {
    if (await finished() - before >= N) break;
    const failed = failedSubmissions();
    if (failed) throw failed;
    await new Promise((r) => setTimeout(r, 50));
  }
  const wallMs = performance.now() - t0;
  const submitted = await cannonRun;
  const failed = failedSubmissions();
  if (failed) throw failed;
  return { wallMs, submitted, submitPerS: N / ((tSubmitted - t0) / 1000) };
}

/** The embedded set-up (PGlite, in-process queue, one process): N async case118 power flows end to end;
 *  completion is read from the process's own gridops_tasks_total (GET /metrics). */
async function embeddedAsyncThroughput() {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-bench-'));
  const server = await startServer({ DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', RATE_LIMIT_SCALE: '1000000' });
  const base = server.url!;
  try {
    const h = await authHeader(base);
    const id = await importCase(base, h, 'case118');
    const N = Number(process.env.BENCH_TASKS ?? 3000);
    const finished = async () => {
      const text = await (await fetch(`${base}/metrics`, { headers: h })).text();
      let n = 0;
      for (const m of text.matchAll(/^gridops_tasks_total\{([^}]*)\} (\S+)$/gm)) if (m[1]!.includes('kind="powerflow"')) n += Number(m[2]);
      return n;
    };
    const cpu0 = cpuMicros(server.pid) ?? 0, self0 = process.cpuUsage();
    const run = await submitAndComplete(base, h, id, N, finished);
    const self = process.cpuUsage(self0);
    cpuBreakdown.push(`pf-async embedded CPU ms per task: gridops ${(((cpuMicros(server.pid) ?? 0) - cpu0) / N / 1000).toFixed(2)}, load generator ${((self.user + self.system) / N / 1000).toFixed(2)}; wall ${(run.wallMs / N).toFixed(2)} ms per task`);
    rows.push({ scenario: 'pf-async case118', mode: 'embedded (PGlite, in-process queue)', req_per_s: Math.round(N / (run.wallMs / 1000)), p50_ms: run.submitted.latency.p50, p99_ms: run.submitted.latency.p99, errors: 0, note: `${N} tasks; submit ${run.submitPerS.toFixed(0)}/s; completed per second end to end; latency = submission` });
  } finally {
    await stop(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main() {
  if (!only?.startsWith('pf-async') && !only?.startsWith('pf-sync-pg')) await embeddedScenarios();
  if (!only || only === 'pf-async-embedded') await embeddedAsyncThroughput();
  if (!only || only === 'pf-async' || only === 'list-pg' || only === 'pf-sync-pg') await asyncThroughput();
  if (!only || only === 'pf-sync-pg-all') await asyncThroughput('all');
  if (asJson) {
    process.stdout.write(JSON.stringify(rows) + '\n');
    return;
  }
  const header = '| scenario | mode | req/s | p50 ms | p99 ms | errors | server CPU µs/req | note |';
  console.log(header);
  console.log('|---|---|---:|---:|---:|---:|---:|---|');
  for (const line of cpuBreakdown) log(line);
  for (const r of rows) console.log(`| ${r.scenario} | ${r.mode} | ${r.req_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${r.errors} | ${r.server_us_per_req ?? ''} | ${r.note ?? ''} |`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
