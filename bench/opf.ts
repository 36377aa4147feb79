// OPF benchmark: DC- and AC-OPF (MIPS in the wasm core) on every shipped case, through the
// solver pool (one warm worker thread), beside MATPOWER's rundcopf / runopf times
// from shared/reference/opf/TIMINGS.md (measured on a 2-vCPU VM like this machine).
//
//   npm run bench:opf                  # tables on stdout
//   npm run bench:opf -- --json        # only [{case, method, buses, iterations, median_ms}] on stdout
//   npm run bench:opf -- --only case2383wp --method ac --runs 9
//   npm run bench:opf -- --only none --method dc --security   # only the security-constrained rows
//
// median_ms: median time inside the worker around the wasm solve (building the problem, the KKT
// pattern and its pivot sequence, every MIPS iteration, the results); no packing or transfer. The runs
// after the first take the KKT analysis the first one kept (assembly/opf/analysisCache.ts: an OPF of the
// same network again); first_ms is that first run, which finds it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg, cpus } from 'node:os';
import { CASES_DIR, ROOT, SHARED_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { solveOpf } from '../src/opf/solve.js';
import { performance } from 'node:perf_hooks';
import { deepFreeze } from '../src/lib/immutable.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const runsArg = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : undefined;
const methods = (args.includes('--method') ? [args[args.indexOf('--method') + 1]] : ['dc', 'ac']) as ('dc' | 'ac')[];
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Matpower { dc_s: number; ac_s: number; dcSolver: string; acIterations: string; acFails: boolean }
/** TIMINGS.md rows: | case | buses | DC solver | DC-OPF s | AC-OPF s | AC iterations | note | */
function matpowerTimes(): Map<string, Matpower> {
  const m = new Map<string, Matpower>();
  let text = '';
  try { text = readFileSync(join(SHARED_DIR, 'reference', 'opf', 'TIMINGS.md'), 'utf8'); } catch { return m; }
  for (const line of text.split('\n')) {
    const c = line.split('|').map((x) => x.trim());
    if (c.length < 8 || !/^\d+$/.test(c[2]!)) continue;
    m.set(c[1]!, { dcSolver: c[3]!, dc_s: Number(c[4]), ac_s: Number(c[5]), acIterations: c[6]!, acFails: /MIPS fails/.test(c[7] ?? '') });
  }
  return m;
}

/** Where MATPOWER's default AC-OPF fails (TIMINGS.md's note), its time to an answer: the failed run plus its
 *  opf.start = 2 run, as gridops's row counts its own failed default start and retry. From
 *  shared/reference/opf/<case>.acopf_start2.json (`wall_s`, beside TIMINGS.md's failed run), else from the
 *  project's own MATPOWER run, test/reference/matpower-opf (both runs there, on one machine); NaN without either. */
function matpowerAnswerTime(c: string, failedS: number): number {
  const read = (dir: string) => {
    try {
      return JSON.parse(readFileSync(join(dir, `${c}.acopf_start2.json`), 'utf8')) as { wall_s?: number; default_start?: { wall_s?: number } };
    } catch {
      return undefined;
    }
  };
  const shared = read(join(SHARED_DIR, 'reference', 'opf'));
  if (shared?.wall_s !== undefined) return failedS + shared.wall_s;
  const own = read(join(ROOT, 'test', 'reference', 'matpower-opf'));
  if (own?.wall_s !== undefined && own.default_start?.wall_s !== undefined) return own.default_start.wall_s + own.wall_s;
  return Number.NaN;
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
  const rows: { case: string; method: 'dc' | 'ac'; buses: number; iterations: number; first_ms: number; median_ms: number; status: string; matpower_ms: number | null; speedup: number | null }[] = [];
  const load0 = loadavg()[0]!;
  try {
    for (const method of methods) for (const c of cases) {
      const net = parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
      const runs = runsArg ?? (net.buses.length >= 5000 ? 3 : net.buses.length >= 1000 ? 5 : 11);
      const times: number[] = [];
      let iterations = 0, status = '', first = 0;
      for (let r = 0; r <= runs; r++) {
        const res = await solveOpf(pool, net, { method, timeoutMs: 600_000 });
        // a default start that did not converge and was retried from the case state counts whole
        const earlier = (res.earlier_runs ?? []).reduce((t, e) => t + e.duration_ms, 0);
        // the first run of a case analyses its KKT system (kept for the next runs: assembly/opf/analysisCache.ts)
        // on a thread warmed up by the cases before it
        if (r > 0) times.push(res.duration_ms + earlier); else first = res.duration_ms + earlier;
        iterations = res.iterations; status = res.status;
        if (res.earlier_runs?.length) status = `${res.status} from ${res.start} (after ${res.earlier_runs.map((e) => `${e.start}: ${e.status}, ${e.iterations} it.`).join('; ')})`;
      }
      const ms = median(times);
      const ref = mp.get(c);
      const mpS = ref ? (method === 'dc' ? ref.dc_s : ref.acFails ? matpowerAnswerTime(c, ref.ac_s) : ref.ac_s) : Number.NaN;
      const mpMs = Number.isFinite(mpS) ? mpS * 1000 : null;
      rows.push({ case: c, method, buses: net.buses.length, iterations, first_ms: Math.round(first * 100) / 100, median_ms: Math.round(ms * 100) / 100, status, matpower_ms: mpMs, speedup: mpMs ? Math.round((mpMs / ms) * 10) / 10 : null });
      log(`${method} ${c}: ${status} in ${iterations} iterations, median ${ms.toFixed(1)} ms over ${runs} runs`);
    }
    if (methods.includes('dc') && (args.includes('--security') || !only)) scopf = await securityRows(pool);
  } finally {
    await pool.close();
  }
  if (asJson) {
    process.stdout.write(`${JSON.stringify([...rows.map(({ case: c, method, buses, iterations, first_ms, median_ms }) => ({ case: c, method, buses, iterations, first_ms, median_ms })), ...scopf])}\n`);
    return;
  }
  const out = [`${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${load0.toFixed(2)} -> ${loadavg()[0]!.toFixed(2)}`];
  for (const method of methods) {
    out.push('', method === 'dc' ? 'DC-OPF' : 'AC-OPF', '',
      `| case | buses | status | MIPS iterations | first solve ms | gridops ms (median) | MATPOWER ${method === 'dc' ? 'rundcopf ms (solver)' : 'runopf ms (MIPS iterations)'} | speed-up (first) | speed-up |`,
      '|---|---:|---|---:|---:|---:|---:|---:|---:|',
      ...rows.filter((r) => r.method === method).map((r) => `| ${r.case} | ${r.buses} | ${r.status} | ${r.iterations} | ${r.first_ms.toFixed(1)} | ${r.median_ms.toFixed(1)} | ${r.matpower_ms === null ? (method === 'ac' && mp.get(r.case)?.acFails ? `fails in ${(mp.get(r.case)!.ac_s * 1000).toFixed(0)} (${mp.get(r.case)!.acIterations}); no opf.start 2 time` : '—') : `${r.matpower_ms.toFixed(0)} (${method === 'dc' ? mp.get(r.case)!.dcSolver : mp.get(r.case)!.acIterations}${method === 'ac' && mp.get(r.case)!.acFails ? ' failed + opf.start 2' : ''})`} | ${r.matpower_ms === null ? '—' : `${(r.matpower_ms / r.first_ms).toFixed(1)}×`} | ${r.speedup === null ? '—' : `${r.speedup}×`} |`));
  }
  if (scopf.length > 0) {
    out.push('', 'Security-constrained DC-OPF (preventive N-1, constraint generation; wall time of the whole call: LODF, every round)', '',
      '| case | status | outages | excluded | rounds | rows added | explicit rows | objective | first call ms | gridops ms (median) | MATPOWER explicit ms | speed-up |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...scopf.map((r) => `| ${r.case} | ${r.status} | ${r.outages} | ${r.excluded} | ${r.rounds} | ${r.rows_added} | ${r.explicit_rows ?? '—'} | ${r.status === 'converged' ? r.objective.toFixed(4) : '—'} | ${r.first_ms.toFixed(1)} | ${r.median_ms.toFixed(1)} | ${r.matpower_ms === null ? '—' : r.matpower_ms.toFixed(0)} | ${r.matpower_ms === null ? '—' : `${(r.matpower_ms / r.median_ms).toFixed(1)}×`} |`));
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

interface ScopfRow { case: string; method: 'scopf'; status: string; outages: number; excluded: number; rounds: number; rows_added: number; explicit_rows: number | null; objective: number; first_ms: number; median_ms: number; matpower_ms: number | null }
let scopf: ScopfRow[] = [];

/** SCOPF of the reference cases (MATPOWER's explicit solve time from shared/reference/scopf), case118 with
 *  ratings that make N-1 bind (1.6 × its DC-OPF flow + 60 MW, as test/scopf-reference.test.ts), case2383wp. */
async function securityRows(pool: ReturnType<typeof createSolverPool>): Promise<ScopfRow[]> {
  const { solveSecurityConstrainedDcOpf } = await import('../src/opf/security.js');
  const out: ScopfRow[] = [];
  for (const c of ['case9', 'case30', 'case118', 'case2383wp']) {
    let net = parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
    if (c === 'case118') {
      const base = await solveOpf(pool, net, { method: 'dc' });
      net = { ...net, branches: net.branches.map((b, l) => ({ ...b, rate_a: Math.round(1.6 * Math.abs(base.branches[l]!.p_from) + 60) })) };
    }
    net = deepFreeze(net); // as the service holds a stored version: the LODF is kept with it after the first call
    let ref: { solve_s: number; constraints: number } | undefined;
    try { ref = JSON.parse(readFileSync(join(SHARED_DIR, 'reference', 'scopf', `${c}.json`), 'utf8')).runs[1]; } catch { ref = undefined; }
    const runs = net.buses.length >= 1000 ? 3 : 31;
    // The first call is reported apart (it computes the LODF rows); the timed runs follow warm-up calls as a
    // service's steady state does: a sub-millisecond answer is otherwise measured on code V8 has not yet optimised.
    const warmUps = net.buses.length >= 1000 ? 1 : 30;
    const times: number[] = [];
    let last, first = 0;
    for (let r = 0; r < warmUps + runs; r++) {
      const t = performance.now();
      last = await solveSecurityConstrainedDcOpf(pool, net, { contingencies: 'n-1-branches' }, { method: 'dc', timeoutMs: 600_000 });
      if (r === 0) first = performance.now() - t; else if (r >= warmUps) times.push(performance.now() - t);
    }
    const ms = median(times);
    out.push({ case: c, method: 'scopf', status: last!.status, outages: last!.security.contingencies, excluded: last!.security.excluded.length, rounds: last!.security.rounds, rows_added: last!.security.constraints_added,
      explicit_rows: ref?.constraints ?? null, objective: last!.objective, first_ms: Math.round(first * 100) / 100, median_ms: Math.round(ms * 100) / 100, matpower_ms: ref ? ref.solve_s * 1000 : null });
    log(`scopf ${c}: ${last!.status}, ${last!.security.rounds} rounds, median ${ms.toFixed(1)} ms over ${runs} runs`);
  }
  return out;
}

main().catch((e: unknown) => { log(String((e as Error)?.stack ?? e)); process.exitCode = 1; });
