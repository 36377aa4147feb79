// Time-series benchmark against this machine's PostgreSQL (DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/postgres) in a schema of its own, dropped at the end.
//   npx tsc -p tsconfig.json && node dist/bench/timeseries.js [--points 10000000] [--series 100] [--writers 1,2,4]
// 1. Batch writes through the real write path (writeTimeseries: validation, daily
//    quota reservation, series resolution, one unnest INSERT per 10,000-point batch).
// 2. One-day, 1-minute aggregate queries (queryTimeseries) on one series of the
//    stored points (100 series x 100,000 points = 10 M by default, 1 point/s).
// Writes its table into bench/README.md, section "Time series".
import { randomBytes } from 'node:crypto';
import { writeReadmeSection } from './readme.js';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../src/config.js';
import { systemCaller } from '../src/domain/caller.js';
import { queryTimeseries, writeTimeseries, type PointInput } from '../src/domain/timeseries.js';
import { createServices, closeServices } from '../src/bootstrap.js';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const TOTAL = Number(arg('points', '10000000'));
const SERIES = Number(arg('series', '100'));
const WRITERS = arg('writers', '1,2,4').split(',').map(Number);
const BATCH = 10_000;
const PER_SERIES = Math.floor(TOTAL / SERIES);
const T0 = Date.parse('2026-01-01T00:00:00Z');
const LOAD_AT_START = loadavg()[0].toFixed(1);

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function p95(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))];
}

/** Batch k of a window: BATCH points = (BATCH / SERIES) consecutive seconds of every series. */
function makeBatch(offsetSec: number, perSeries: number, seriesFrom: number, seriesCount: number): PointInput[] {
  const pts: PointInput[] = new Array(perSeries * seriesCount);
  let i = 0;
  for (let s = seriesFrom; s < seriesFrom + seriesCount; s++) {
    const tags = { device: `dev_${String(s).padStart(4, '0')}`, site: `site_${s % 10}` };
    for (let k = 0; k < perSeries; k++) {
      const t = offsetSec + k;
      pts[i++] = { metric: 'power.active_mw', timestamp: new Date(T0 + t * 1000).toISOString(), value: Math.sin(t / 600 + s) * 50 + 50 + (t % 7), tags };
    }
  }
  return pts;
}

async function main() {
  const schema = `bench_ts_${randomBytes(4).toString('hex')}`;
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', WORKERS: '1' }, { databaseUrl: URL, dbSchema: schema });
  const s = await createServices(config, pino({ level: 'silent' })); // the app's own services: migrations, quotas, security
  const db = s.db;
  const caller = systemCaller('default', 'bench');
  const rows: string[][] = [];
  try {
    // The benchmark writes far beyond the default daily quota: raise it for this tenant.
    await db.query(`UPDATE tenants SET base_quotas = base_quotas || '{"timeseries_daily_points": 1000000000000, "timeseries_daily_gb": 1000000}'::jsonb WHERE id = 'default'`);
    const { rows: v } = await db.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    console.log(`PostgreSQL ${v[0].v}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? '?'}), schema ${schema}`);
    console.log(`loading ${(SERIES * PER_SERIES).toLocaleString('en')} points: ${SERIES} series x ${PER_SERIES.toLocaleString('en')} points (1/s), batches of ${BATCH.toLocaleString('en')}`);

    // ---- 1. writes: the load of the 10 M points is split into phases, one per writer count.
    const perBatchSeconds = BATCH / SERIES;
    const totalBatches = Math.ceil(PER_SERIES / perBatchSeconds);
    const phases = WRITERS.length;
    let nextBatch = 0;
    for (let p = 0; p < phases; p++) {
      const writers = WRITERS[p];
      const end = p === phases - 1 ? totalBatches : Math.round(((p + 1) * totalBatches) / phases);
      const start = nextBatch;
      let cursor = start;
      let points = 0;
      let jsMs = 0;
      const t = performance.now();
      await Promise.all(Array.from({ length: writers }, async () => {
        for (;;) {
          const b = cursor++;
          if (b >= end) return;
          const off = b * perBatchSeconds;
          const per = Math.min(perBatchSeconds, PER_SERIES - off);
          const j = performance.now();
          const batch = makeBatch(off, per, 0, SERIES);
          jsMs += performance.now() - j;
          const r = await writeTimeseries(s, caller, batch);
          if (r.rejected) throw new Error(`rejected ${r.rejected}: ${r.errors[0]?.message}`);
          points += r.accepted;
        }
      }));
      nextBatch = end;
      const secs = (performance.now() - t - jsMs / writers) / 1000;
      const rate = points / secs;
      console.log(`  writers=${writers}: ${points.toLocaleString('en')} points in ${secs.toFixed(1)} s -> ${Math.round(rate).toLocaleString('en')} points/s`);
      rows.push([`batch write, 10,000-point batches, ${writers} concurrent writer${writers > 1 ? 's' : ''}`, `${Math.round(rate).toLocaleString('en')} points/s`, `${(points / 1e6).toFixed(2)} M points, ${(secs * 1000 / (end - start) * writers).toFixed(1)} ms per batch`]);
    }
    // The ceiling: the same INSERT statement with prebuilt array literals (no validation,
    // quota or series lookup), one connection, into a scratch table of the same layout.
    {
      await db.query('CREATE TABLE ceiling_points (LIKE timeseries_points INCLUDING ALL)');
      const batches = 100;
      const lits: string[][] = [];
      for (let b = 0; b < batches; b++) {
        const ids: number[] = [], mss: number[] = [], vals: number[] = [];
        for (let sr = 1; sr <= SERIES; sr++) for (let k = 0; k < BATCH / SERIES; k++) { ids.push(sr); mss.push(T0 + (b * (BATCH / SERIES) + k) * 1000); vals.push(Math.random() * 100); }
        lits.push([`{${ids.join(',')}}`, `{${mss.join(',')}}`, `{${vals.join(',')}}`]);
      }
      const t = performance.now();
      for (const l of lits) {
        await db.query('INSERT INTO ceiling_points (series_id, ts, value) SELECT id, to_timestamp(ms::float8 / 1000), v FROM unnest($1::bigint[], $2::int8[], $3::float8[]) AS u(id, ms, v)', l);
      }
      const secs = (performance.now() - t) / 1000;
      const rate = (batches * BATCH) / secs;
      console.log(`  PostgreSQL alone (same INSERT, prebuilt arrays, 1 connection): ${Math.round(rate).toLocaleString('en')} points/s`);
      rows.push(['ceiling: the same unnest INSERT alone, prebuilt arrays, 1 connection', `${Math.round(rate).toLocaleString('en')} points/s`, `${(batches * BATCH / 1e6).toFixed(1)} M points into an empty table of the same layout, ${(secs * 1000 / batches).toFixed(1)} ms per batch`]);
      await db.query('DROP TABLE ceiling_points');
    }
    await db.query('ANALYZE timeseries_points');
    await db.query('ANALYZE timeseries_series');
    const { rows: size } = await db.query<{ n: number; bytes: number }>(`SELECT (SELECT count(*) FROM timeseries_points)::float8 AS n, pg_total_relation_size('timeseries_points')::float8 AS bytes`);
    console.log(`stored: ${size[0].n.toLocaleString('en')} points, ${(size[0].bytes / 2 ** 20).toFixed(0)} MiB with the primary key (${(size[0].bytes / size[0].n).toFixed(1)} bytes/point)`);

    // ---- 2. queries: one series, one day, 1-minute bins.
    const daySec = Math.min(86400, PER_SERIES);
    const q = (aggregation: string, series: number, extra: Record<string, unknown> = {}) => ({
      metric: 'power.active_mw', tags: `device:dev_${String(series).padStart(4, '0')}`, from: new Date(T0).toISOString(),
      to: new Date(T0 + daySec * 1000).toISOString(), aggregation, interval: '1m', ...extra,
    });
    const bench = async (label: string, aggregation: string, extra: Record<string, unknown> = {}) => {
      const times: number[] = [];
      let n = 0;
      for (let i = 0; i < 25; i++) {
        const t = performance.now();
        const r = await queryTimeseries(s, caller, q(aggregation, (i * 37) % SERIES, extra));
        times.push(performance.now() - t);
        n = r.count;
        if (r.points.some((pt) => pt.value === null)) throw new Error('unexpected empty bin');
      }
      const warm = times.slice(5);
      console.log(`  ${label}: ${n} bins, median ${median(warm).toFixed(1)} ms, p95 ${p95(warm).toFixed(1)} ms (first ${times[0].toFixed(1)} ms)`);
      rows.push([`query: one series, one day (${daySec.toLocaleString('en')} points), 1-minute ${label}`, `${median(warm).toFixed(1)} ms median`, `p95 ${p95(warm).toFixed(1)} ms, ${n} bins, over ${(size[0].n / 1e6).toFixed(1)} M stored points`]);
    };
    await bench('avg', 'avg');
    await bench('percentile_95', 'percentile_95');
    await bench('max, fill linear', 'max', { fill: 'linear' });
    // Fleet-wide: the same day over every series of the metric (no tag filter).
    {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await queryTimeseries(s, caller, { ...q('avg', 0), tags: undefined });
        times.push(performance.now() - t);
      }
      console.log(`  avg over all ${SERIES} series: median ${median(times).toFixed(0)} ms`);
      rows.push([`query: all ${SERIES} series, one day (${(daySec * SERIES / 1e6).toFixed(1)} M points), 1-minute avg`, `${median(times).toFixed(0)} ms median`, '5 runs']);
    }
  } finally {
    await closeServices(s).catch(() => {});
    const c = new pg.Client({ connectionString: URL });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  }

  const table = ['| measurement | result | notes |', '|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  console.log('\n' + table);
  writeReadme(table);
}

function writeReadme(table: string) {
  const section = `## Time series

\`node dist/bench/timeseries.js\` (bench/timeseries.ts) against the machine's PostgreSQL, in a schema of
its own that is dropped at the end. Writes go through the service's write path (\`writeTimeseries\`:
per-point validation, daily quota reservation, series lookup, one \`INSERT … SELECT FROM unnest(…)\`
per batch); queries through \`queryTimeseries\` (\`date_bin\` + aggregate in SQL, fill over
\`generate_series\`). Load: ${SERIES} series × ${PER_SERIES.toLocaleString('en')} points (one per second), ${(SERIES * PER_SERIES / 1e6).toFixed(0)} M points in all,
written in batches of 10,000 (100 seconds of every series). Targets: > 200,000 points/s, < 200 ms per one-day 1-minute query.
Last run: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} CPU(s), ${cpus()[0]?.model ?? ''}, PostgreSQL on the same machine;
load average at the start ${LOAD_AT_START} (other work was running on the same two cores during the run).

${table}
`;
  writeReadmeSection('## Time series', section);
  console.log(`\nwrote bench/README.md (section "Time series")`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
