// Reliability drills (docs/reliability.md, issue #11): faults and hostile input against
// real gridops processes, proving at-least-once execution, no lost task, no duplicate,
// 503s while a store is away and no 5xx from bad input.
//
//   npm run drill                       # the five drills, a table on stdout
//   npm run drill -- --json             # [{drill, submitted, completed, lost, duplicated, http_5xx, recovered_s, details}]
//   npm run drill -- --only fuzz,soak   # some of them: worker,redis,postgres,fuzz,soak,heavy
//   npm run drill -- --short            # the sizes test/drills.test.ts uses
//   npm run drill -- --only heavy --kinds import   # some rows of the heavy drill: powerflow,study,opf,scopf,sensitivities,import
// DRILL_TASKS (2000), DRILL_OUTAGE_S (8), DRILL_FUZZ_REQUESTS (10000), DRILL_FUZZ_SEED (1),
// DRILL_SOAK_S (600); private Redis and PostgreSQL on DRILL_REDIS_PORT (6390) and
// DRILL_PG_PORT (5440), never the shared ones on 6379 and 5432.
import { startPrivatePostgres, startPrivateRedis, type PrivateStore } from '../test/helpers/stores.js';
import { postgresRestartDrill, redisRestartDrill, workerKilledDrill } from './drills/queue.js';
import { fuzzDrill } from './drills/fuzz.js';
import { soakDrill } from './drills/soak.js';
import { HEAVY_KINDS, heavyDrill, type HeavyKind } from './drills/heavy.js';
import { log, type DrillResult } from './drills/common.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const short = args.includes('--short');
const onlyArg = args.includes('--only') ? args[args.indexOf('--only') + 1] ?? '' : '';
const only = new Set(onlyArg.split(',').filter(Boolean));
const num = (name: string, full: number, small: number) => Number(process.env[name] ?? (short ? small : full));

const DRILLS = ['worker', 'redis', 'postgres', 'fuzz', 'soak', 'heavy'] as const;
for (const o of only) if (!(DRILLS as readonly string[]).includes(o)) throw new Error(`unknown drill "${o}"; drills: ${DRILLS.join(', ')}`);
const kindsArg = args.includes('--kinds') ? args[args.indexOf('--kinds') + 1] ?? '' : '';
const kinds = kindsArg.split(',').filter(Boolean);
for (const k of kinds)
  if (!(HEAVY_KINDS as readonly string[]).includes(k)) throw new Error(`unknown heavy kind "${k}"; kinds: ${HEAVY_KINDS.join(', ')}`);
const wanted = (d: (typeof DRILLS)[number]) => only.size === 0 || only.has(d);

// Ctrl-C and kill still run the exit hooks that stop private stores and children.
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(130));

async function main() {
  const rows: DrillResult[] = [];
  const queueOpts = { tasks: num('DRILL_TASKS', 2000, 90), outageMs: num('DRILL_OUTAGE_S', 8, 3) * 1000, settleMs: short ? 150_000 : 600_000 };
  let redis: PrivateStore | undefined;
  let postgres: PrivateStore | undefined;
  try {
    if (wanted('worker') || wanted('redis') || wanted('postgres') || wanted('soak')) {
      redis = await startPrivateRedis(num('DRILL_REDIS_PORT', 6390, 6390));
      postgres = await startPrivatePostgres(num('DRILL_PG_PORT', 5440, 5440));
    }
    const stores = { redis: redis!, postgres: postgres! };
    const run = async (name: string, f: () => Promise<DrillResult>) => {
      log(`— drill: ${name}`);
      const t0 = Date.now();
      const r = await f();
      r.details.wall_s = Math.round((Date.now() - t0) / 100) / 10;
      log(JSON.stringify(r));
      rows.push(r);
    };
    if (wanted('worker')) await run('worker killed', () => workerKilledDrill(stores, queueOpts));
    if (wanted('redis')) await run('redis restart', () => redisRestartDrill(stores, queueOpts));
    if (wanted('postgres')) await run('postgresql restart', () => postgresRestartDrill(stores, queueOpts));
    if (wanted('fuzz')) await run('fuzz', () => fuzzDrill({ requests: num('DRILL_FUZZ_REQUESTS', 10_000, 1500), seed: num('DRILL_FUZZ_SEED', 1, 1) }));
    if (wanted('soak')) await run('soak', () => soakDrill(stores, { seconds: num('DRILL_SOAK_S', 600, 25) }));
    if (wanted('heavy')) await run('heavy', () => heavyDrill(kinds.length > 0 ? { kinds: kinds as HeavyKind[] } : {}));
  } finally {
    await redis?.destroy().catch(() => {});
    await postgres?.destroy().catch(() => {});
  }
  if (asJson) {
    process.stdout.write(JSON.stringify(rows) + '\n');
    return;
  }
  console.log('| drill | submitted | completed | lost | duplicated | http_5xx | recovered_s | notes |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const notes = Object.entries(r.details).filter(([, v]) => typeof v !== 'object').map(([k, v]) => `${k} ${v}`).join(', ');
    console.log(`| ${r.drill} | ${r.submitted} | ${r.completed} | ${r.lost} | ${r.duplicated} | ${r.http_5xx} | ${r.recovered_s ?? ''} | ${notes} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
