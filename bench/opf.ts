// OPF benchmark: DC- and AC-OPF (MIPS in the wasm core) on every shipped case, through the
// solver pool (one warm worker thread), beside MATPOWER's rundcopf / runopf times
// from shared/reference/opf/TIMINGS.md (measured on a 2-vCPU VM like this machine).
//
//   npm run bench:opf                  # tables on stdout
//   npm run bench:opf -- --json        # only [{case, method, buses, iterations, median_ms}] on stdout
//   npm run bench:opf -- --only case2383wp --method ac --runs 9
//
// median_ms: median time inside the worker around the wasm solve (building the problem, the KKT
// pattern and its pivot sequence, every MIPS iteration, the results); no packing or transfer.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg, cpus } from 'node:os';
import { CASES_DIR, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/powerflow/pool.js';
import { solveOpf } from '../src/opf/solve.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const runsArg = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : undefined;
const methods = (args.includes('--method') ? [args[args.indexOf('--method') + 1]] : ['dc', 'ac']) as ('dc' | 'ac')[];
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Matpower { dc_s: number; ac_s: number; dcSolver: string; acIterations: string }
/** TIMINGS.md rows: | case | buses | DC solver | DC-OPF s | AC-OPF s | AC iterations | note | */
function matpowerTimes(): Map<string, Matpower> {
  const m = new Map<string, Matpower>();
  let text = '';
  try { text = readFileSync(join(SHARED_DIR, 'reference', 'opf', 'TIMINGS.md'), 'utf8'); } catch { return m; }
  for (const line of text.split('\n')) {
    const c = line.split('|').map((x) => x.trim());
    if (c.length < 8 || !/^\d+$/.test(c[2]!)) continue;
    m.set(c[1]!, { dcSolver: c[3]!, dc_s: Number(c[4]), ac_s: Number(c[5]), acIterations: c[6]! });
  }
  return m;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k]! : (s[k - 1]! + s[k]!) / 2;
}

async function main(): Promise<void> {
  const mp = matpowerTimes();
  const cases = readdirSync(CASES_DIR).filter((f) => f.endsWith('.m')).map((f) => f.slice(0, -2))
    .filter((c) => !only || c === only)
    .map((c) => ({ c, size: readFileSync(join(CASES_DIR, `${c}.m`)).length }))
    .sort((a, b) => a.size - b.size).map((x) => x.c);
  const pool = createSolverPool({ threads: 1 });
  const rows: { case: string; method: 'dc' | 'ac'; buses: number; iterations: number; median_ms: number; status: string; matpower_ms: number | null; speedup: number | null }[] = [];
  const load0 = loadavg()[0]!;
  try {
    for (const method of methods) for (const c of cases) {
      const net = parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
      const runs = runsArg ?? (net.buses.length >= 5000 ? 3 : net.buses.length >= 1000 ? 5 : 11);
      const times: number[] = [];
      let iterations = 0, status = '';
      for (let r = 0; r <= runs; r++) {
        const res = await solveOpf(pool, net, { method, timeoutMs: 600_000 });
        if (r > 0) times.push(res.duration_ms); // first run warms the thread up
        iterations = res.iterations; status = res.status;
      }
      const ms = median(times);
      const ref = mp.get(c);
      const mpS = ref ? (method === 'dc' ? ref.dc_s : ref.ac_s) : Number.NaN;
      const mpMs = Number.isFinite(mpS) ? mpS * 1000 : null;
      rows.push({ case: c, method, buses: net.buses.length, iterations, median_ms: Math.round(ms * 100) / 100, status, matpower_ms: mpMs, speedup: mpMs ? Math.round((mpMs / ms) * 10) / 10 : null });
      log(`${method} ${c}: ${status} in ${iterations} iterations, median ${ms.toFixed(1)} ms over ${runs} runs`);
    }
  } finally {
    await pool.close();
  }
  if (asJson) {
    process.stdout.write(`${JSON.stringify(rows.map(({ case: c, method, buses, iterations, median_ms }) => ({ case: c, method, buses, iterations, median_ms })))}\n`);
    return;
  }
  const out = [`${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`];
  for (const method of methods) {
    out.push('', method === 'dc' ? 'DC-OPF' : 'AC-OPF', '',
      `| case | buses | status | MIPS iterations | gridops ms (median) | MATPOWER ${method === 'dc' ? 'rundcopf ms (solver)' : 'runopf ms (MIPS iterations)'} | speed-up |`,
      '|---|---:|---|---:|---:|---:|---:|',
      ...rows.filter((r) => r.method === method).map((r) => `| ${r.case} | ${r.buses} | ${r.status} | ${r.iterations} | ${r.median_ms.toFixed(1)} | ${r.matpower_ms === null ? '—' : `${r.matpower_ms.toFixed(0)} (${method === 'dc' ? mp.get(r.case)!.dcSolver : mp.get(r.case)!.acIterations})`} | ${r.speedup === null ? '—' : `${r.speedup}×`} |`));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((e: unknown) => { log(String((e as Error)?.stack ?? e)); process.exitCode = 1; });
