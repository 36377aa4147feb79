// Sensitivities (docs/sensitivities.md): the full PTDF of case2383wp and 100 rows of case13659pegase,
// computed as the service does (src/sensitivities/compute.ts: pack, one factorisation, one solve per
// row on a solver thread, the matrix assembled in the main thread). Median of 5 after a warm-up.
// `npm run bench:sensitivities [-- --json]`.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { computeSensitivities } from '../src/sensitivities/compute.js';

const asJson = process.argv.includes('--json');
const RUNS: { case: string; what: string; rows?: number; goal: string }[] = [
  { case: 'case2383wp', what: 'full PTDF', goal: '< 1 s' },
  { case: 'case13659pegase', what: 'PTDF, 100 rows', rows: 100, goal: '< 200 ms' },
  { case: 'case2383wp', what: 'LODF, 100 outages × every branch', rows: 100, goal: '–' },
];

async function main(): Promise<void> {
  const pool = createSolverPool({ threads: 1 });
  const out: { case: string; what: string; entries: number; median_ms: number; goal: string }[] = [];
  try {
    for (const r of RUNS) {
      const net = parseMatpower(readFileSync(join(CASES_DIR, `${r.case}.m`), 'utf8'), `${r.case}.m`);
      const closed = net.branches.flatMap((b, l) => (b.status === 'closed' ? [l] : []));
      const kind = r.what.startsWith('LODF') ? 'lodf' as const : 'ptdf' as const;
      const req = kind === 'lodf' ? { kind, outages: closed.slice(0, r.rows) } : { kind, ...(r.rows ? { branches: closed.slice(0, r.rows) } : {}) };
      await computeSensitivities(pool, net, req);
      const ms: number[] = [];
      let entries = 0;
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now();
        const res = await computeSensitivities(pool, net, req);
        ms.push(performance.now() - t0);
        entries = res.rows.length * res.columns.length;
      }
      ms.sort((a, b) => a - b);
      out.push({ case: r.case, what: r.what, entries, median_ms: Math.round(ms[2]!), goal: r.goal });
      process.stderr.write(`${r.case} ${r.what}: ${Math.round(ms[2]!)} ms\n`);
    }
  } finally {
    await pool.close();
  }
  if (asJson) return void process.stdout.write(`${JSON.stringify(out)}\n`);
  process.stdout.write(`${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${loadavg()[0]!.toFixed(1)}\n\n| case | what | entries | median ms | goal |\n|---|---|---:|---:|---|\n`);
  for (const r of out) process.stdout.write(`| ${r.case} | ${r.what} | ${r.entries.toLocaleString('en')} | ${r.median_ms} | ${r.goal} |\n`);
}

main().catch((e) => { console.error(e); process.exit(1); });
