// Contingency screening (docs/studies.md "Screening"): the full N-1 of case9241pegase (every in-service
// branch) with and without the DC screen at 90 %, on 2 solver threads, islanding skip in both (so the
// rows compare the AC work only); how many AC-overloaded cases the screen kept. `npm run bench:screening [-- --case X]`.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyRequest } from '../src/studies/index.js';

const args = process.argv.slice(2);
const c = args.includes('--case') ? args[args.indexOf('--case') + 1]! : 'case9241pegase';
const threshold = 90;

async function main(): Promise<void> {
  const net = parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
  const pool = createSolverPool({ threads: 2 });
  const run = async (req: StudyRequest) => {
    const plan = planStudy(net, req);
    const t0 = performance.now();
    const size = 256, jobs: Promise<StudyCaseRow[]>[] = [];
    for (let s = 0; s < plan.caseCount; s += size) jobs.push(solveStudyChunk(pool, net, plan, s, Math.min(s + size, plan.caseCount)).then((ch) => studyChunkRows(plan, ch)));
    const rows = (await Promise.all(jobs)).flat();
    return { rows, ms: performance.now() - t0 };
  };
  try {
    const base: StudyRequest = { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip' };
    const full = await run(base);
    const screened = await run({ ...base, screening: { method: 'dc', threshold_percent: threshold } });
    const over = full.rows.filter((r) => r.violations.some((v) => v.type === 'branch_overload'));
    const kept = over.filter((r, _) => screened.rows.find((x) => x.case_id === r.case_id)!.status !== 'screened').length;
    const nScreened = screened.rows.filter((r) => r.status === 'screened').length;
    process.stdout.write(`${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${loadavg()[0]!.toFixed(1)}\n\n`);
    process.stdout.write(`| ${c} N-1 (${full.rows.length} outages, islanding skip) | wall ms | solved in AC | screened | AC-overloaded cases kept |\n|---|---:|---:|---:|---|\n`);
    process.stdout.write(`| without screening | ${Math.round(full.ms)} | ${full.rows.length} | 0 | – |\n`);
    process.stdout.write(`| DC screen at ${threshold} % | ${Math.round(screened.ms)} | ${full.rows.length - nScreened} | ${nScreened} | ${kept} of ${over.length} |\n`);
  } finally {
    await pool.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
