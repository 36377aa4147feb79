// GraphQL vs REST list throughput with autocannon against a real gridops process
// (embedded: PGlite, production mode, authentication and all rate-limit layers on,
// limits scaled up so that they are computed on every request but never trip).
//
//   npm run build && node dist/bench/graphql.js            # table on stdout
//   node dist/bench/graphql.js --json                      # JSON rows
//   BENCH_SECONDS=20 BENCH_ROUNDS=3 node dist/bench/graphql.js
//
// Scenarios (target: GraphQL list within 50% of the REST list):
//   rest-list      GET  /api/v1/networks                          (20 networks, page of 20)
//   gql-list       POST /graphql { networks { items { id name busCount } } }
//   gql-list-apq   the same as an automatic persisted query (hash only)
//   gql-nested     POST /graphql { networks { items { id buses { id type } generators { mw } } } } (models through the batch loader)
// Rounds alternate REST and GraphQL so both see the same machine load.
import autocannon from 'autocannon';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { spawnGridops } from '../test/helpers/process.js';

const asJson = process.argv.includes('--json');
const duration = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const log = (...a: unknown[]) => console.error(...a);

interface Row { scenario: string; round: number; req_per_s: number; p50_ms: number; p99_ms: number; errors: number }
const rows: Row[] = [];

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'gridops-bench-gql-'));
  // Ready when it says so (test/helpers/process.ts); PORT=0 picks a free port.
  const server = await spawnGridops({ DATA_DIR: dir, DATABASE_URL: '', REDIS_URL: '', RATE_LIMIT_SCALE: '1000000', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', ADMIN_PASSWORD: 'bench-admin-password' }, { inheritEnv: true, keepLines: 0, echo: true });
  const base = server.url!;
  try {
    const login = await fetch(`${base}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'bench-admin-password' }) });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const h = { authorization: `Bearer ${token}` };
    const caseText = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');
    for (let i = 0; i < 20; i++) {
      const r = await fetch(`${base}/api/v1/networks/import?format=matpower`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: caseText });
      if (r.status !== 201) throw new Error(`import: ${r.status} ${await r.text()}`);
    }
    const listQuery = '{ networks { items { id name busCount } } }';
    const nestedQuery = '{ networks { items { id buses { id type } generators { mw } } } }';
    const sha = createHash('sha256').update(listQuery).digest('hex');
    const gqlHeaders = { ...h, 'content-type': 'application/json' };
    // Register the persisted query once; check every scenario answers without errors.
    for (const body of [{ query: listQuery, extensions: { persistedQuery: { version: 1, sha256Hash: sha } } }, { query: nestedQuery }]) {
      const r = await fetch(`${base}/graphql`, { method: 'POST', headers: gqlHeaders, body: JSON.stringify(body) });
      const j = (await r.json()) as { errors?: unknown; data?: { networks: { items: unknown[] } } };
      if (j.errors || j.data?.networks.items.length !== 20) throw new Error(`graphql warm-up: ${JSON.stringify(j).slice(0, 300)}`);
    }
    const scenarios: [string, autocannon.Options][] = [
      ['rest-list', { url: `${base}/api/v1/networks`, headers: h }],
      ['gql-list', { url: `${base}/graphql`, method: 'POST', headers: gqlHeaders, body: JSON.stringify({ query: listQuery }) }],
      ['gql-list-apq', { url: `${base}/graphql`, method: 'POST', headers: gqlHeaders, body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: sha } } }) }],
      ['gql-nested', { url: `${base}/graphql`, method: 'POST', headers: gqlHeaders, body: JSON.stringify({ query: nestedQuery }) }],
    ];
    for (let round = 1; round <= rounds; round++) {
      for (const [name, opts] of scenarios) {
        log(`round ${round}: ${name} for ${duration}s…`);
        const r = await autocannon({ ...opts, connections, duration });
        rows.push({ scenario: name, round, req_per_s: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors + r.non2xx });
      }
    }
  } finally {
    await server.stop(5000);
    rmSync(dir, { recursive: true, force: true });
  }
  const best = (s: string) => Math.max(...rows.filter((r) => r.scenario === s).map((r) => r.req_per_s));
  if (asJson) {
    process.stdout.write(JSON.stringify(rows) + '\n');
    return;
  }
  console.log(`${new Date().toISOString().slice(0, 10)}, ${availableParallelism()} CPU(s), ${cpus()[0]?.model ?? ''}, Node ${process.version}, load average at the end ${loadavg()[0].toFixed(1)}, ${connections} connections, ${duration} s per run`);
  console.log('| scenario | round | req/s | p50 ms | p99 ms | errors |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.scenario} | ${r.round} | ${r.req_per_s} | ${r.p50_ms} | ${r.p99_ms} | ${r.errors} |`);
  console.log(`\nbest gql-list / best rest-list = ${(best('gql-list') / best('rest-list')).toFixed(2)} (target >= 0.50)`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
