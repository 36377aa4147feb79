// Study engine benchmark (issue #16 goals), through the solver pool with 2 threads:
// plan -> chunks (one Piscina task each, all submitted at once) -> rows decoded.
//
//   npm run bench:study                  # table on stdout
//   npm run bench:study -- --json        # only a JSON array on stdout:
//                                        #   [{case, study, cases, threads, wall_ms, per_case_ms_per_thread, rss_mb}]
//   npm run bench:study -- --only case118 --threads 1 --chunk 250
//   npm run bench:study -- --readme      # also (re)writes section "Studies" of bench/README.md
//
// wall_ms: planStudy + every chunk solved + every row decoded (studyChunkRows), a fresh pool
//          per study (so the symbolic analyses of each thread are inside the time);
// per_case_ms_per_thread = wall_ms × threads / cases; rss_mb: the largest RSS sampled
// every 50 ms during the study (main thread + solver threads: one process); CPU ms/case (table
// only): user + system CPU of the whole process during the study per case, which a busy machine
// distorts far less than wall time (it still pays for cache misses and steal).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyChunk, studyChunkRows, type StudyRequest } from '../src/studies/index.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { writeReadmeSection } from './readme.js';
import { solveDiagnostics, solvePowerFlow } from '../src/powerflow/solve.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const opt = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const only = opt('--only');
const threads = Number(opt('--threads') ?? 2);
const chunkArg = opt('--chunk');
const log = (s: string) => process.stderr.write(`${s}\n`);

interface Study { case: string; study: string; goal: string; request: (net: NetworkModel) => StudyRequest; chunk: number }

/** A year of hourly load levels: daily and weekly shape on a seasonal swing (0.55 .. 1.05). */
function hourly(count: number): number[] {
  return Array.from({ length: count }, (_, h) => {
    const day = Math.sin(((h % 24) - 6) / 24 * 2 * Math.PI), season = Math.cos(h / 8760 * 2 * Math.PI);
    const weekend = Math.floor(h / 24) % 7 >= 5 ? -0.06 : 0;
    return 0.8 + 0.12 * day + 0.1 * season + weekend;
  });
}

const STUDIES: Study[] = [
  { case: 'case2383wp', study: 'N-1 all branches (islanding skip)', goal: '< 2 s wall', chunk: 256, request: () => ({ kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip' }) },
  // The default since #23: the splitting outages solved on what stays energized (goal: within 15 % of skip).
  { case: 'case2383wp', study: 'N-1 all branches (islanding isolate)', goal: '≤ 2.24 s (1.15 × the 1.95 s skip wall #23 started from)', chunk: 256, request: () => ({ kind: 'contingency', contingencies: 'n-1-branches', islanding: 'isolate' }) },
  {
    case: 'case9241pegase', study: 'N-1 first 2,000 branches', goal: '≤ 8 ms/case/thread, RSS < 1 GB', chunk: 100,
    request: (net) => {
      const list = [];
      for (let i = 0; i < net.branches.length && list.length < 2000; i++) if (net.branches[i]!.status === 'closed') list.push({ branches: [i], id: `branch:${i}` });
      return { kind: 'contingency', contingencies: list };
    },
  },
  {
    case: 'case118', study: '10,000 load scenarios', goal: '≥ 20,000 scenarios/s', chunk: 2500,
    request: () => ({ kind: 'scenarios', scenarios: { count: 10000, load_scale: Array.from({ length: 10000 }, (_, s) => 0.7 + 0.5 * ((s * 7919) % 10000) / 10000) } }),
  },
  { case: 'case2383wp', study: '8,760 hourly scenarios', goal: '< 10 s', chunk: 1095, request: () => ({ kind: 'scenarios', scenarios: { count: 8760, load_scale: hourly(8760) } }) },
  { case: 'case2383wp', study: '8,760 hourly scenarios, warm_start previous', goal: '≤ 5 s (#25)', chunk: 1095, request: () => ({ kind: 'scenarios', scenarios: { count: 8760, load_scale: hourly(8760) }, warm_start: 'previous' }) },
];

interface Row { case: string; study: string; cases: number; threads: number; wall_ms: number; per_case_ms_per_thread: number; rss_mb: number; cpu_ms_per_case: number; goal: string; statuses: string }

async function runOne(s: Study): Promise<Row> {
  const net = parseMatpower(readFileSync(join(CASES_DIR, `${s.case}.m`), 'utf8'), `${s.case}.m`);
  const pool = createSolverPool({ threads });
  let rss = process.memoryUsage().rss;
  const sampler = setInterval(() => { rss = Math.max(rss, process.memoryUsage().rss); }, 50);
  try {
    const req = { ...s.request(net), tolerance: 1e-8, max_iterations: 10 };
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const plan = planStudy(net, req);
    const size = Number(chunkArg ?? s.chunk);
    const jobs = [];
    for (let k = 0; k < plan.caseCount; k += size) jobs.push(solveStudyChunk(pool, net, plan, k, Math.min(k + size, plan.caseCount)));
    const counts: Record<string, number> = {};
    for (const chunk of await Promise.all(jobs)) {
      for (const row of studyChunkRows(plan, chunk)) counts[row.status] = (counts[row.status] ?? 0) + 1;
    }
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    rss = Math.max(rss, process.memoryUsage().rss);
    return {
      case: s.case, study: s.study, cases: plan.caseCount, threads, wall_ms: Math.round(wall),
      per_case_ms_per_thread: Number((wall * threads / plan.caseCount).toFixed(3)), rss_mb: Math.round(rss / 2 ** 20),
      cpu_ms_per_case: Number(((cpu.user + cpu.system) / 1000 / plan.caseCount).toFixed(3)),
      goal: s.goal, statuses: Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', '),
    };
  } finally {
    clearInterval(sampler);
    await pool.close();
  }
}

/** Median worker ms of one case2383wp Newton power flow now: the machine's state, next to the
 *  Solver section's figure for the same solve (bench/README.md). */
async function calibration(): Promise<number> {
  const net = parseMatpower(readFileSync(join(CASES_DIR, 'case2383wp.m'), 'utf8'), 'case2383wp.m');
  const pool = createSolverPool({ threads: 1 });
  try {
    const ms: number[] = [];
    for (let i = 0; i < 7; i++) ms.push(solveDiagnostics(await solvePowerFlow(pool, net, { maxIterations: 10 }))!.solveMs);
    return ms.sort((a, b) => a - b)[3]!;
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const load = loadavg()[0]!;
  const calib = await calibration();
  log(`one case2383wp power flow: ${calib.toFixed(2)} ms (worker, median of 7)`);
  for (const s of STUDIES.filter((x) => !only || x.case === only)) {
    log(`${s.case} ${s.study} ...`);
    rows.push(await runOne(s));
  }
  if (asJson) {
    process.stdout.write(`${JSON.stringify(rows.map(({ goal: _g, statuses: _s, cpu_ms_per_case: _c, ...r }) => r))}\n`);
    return;
  }
  const table = [
    '| case | study | cases | threads | wall ms | ms/case/thread | CPU ms/case | cases/s | RSS MB | goal | statuses |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows.map((r) => `| ${r.case} | ${r.study} | ${r.cases.toLocaleString('en')} | ${r.threads} | ${r.wall_ms.toLocaleString('en')} | ${r.per_case_ms_per_thread} | ${r.cpu_ms_per_case} | ${Math.round(r.cases / r.wall_ms * 1000).toLocaleString('en')} | ${r.rss_mb} | ${r.goal} | ${r.statuses} |`),
  ].join('\n');
  process.stdout.write(`${table}\n`);
  if (args.includes('--readme')) {
    writeReadmeSection('## Studies', `## Studies\n\n\`npm run bench:study\` (bench/study.ts). ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${load.toFixed(1)} before the run (the machine was shared with other work); one case2383wp Newton power flow took ${calib.toFixed(2)} ms in a worker just before (median of 7; see the Solver section for the same solve on a quiet machine).\n\n${table}\n`);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
