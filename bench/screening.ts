// Contingency screening (docs/studies.md "Screening", CONTRACT "Contingency screening"): per case, the full N-1
// (every in-service branch) without screening and with the default screen (ac_linear at 90 %), on 2 solver
// threads, islanding skip in both (so the rows compare the AC work only). Printed per case: cases screened, cases
// lost (screened although the full study finds a new or worsened overload there), screened cases with a new or
// worsened voltage violation (reported, not promised), the most a screen could take out without a loss (the cases
// that neither split the network nor carry a new or worsened overload in the full study), the wall times and the
// process CPU time (both solver threads; steadier than wall time on a shared machine), and CPU / wall of each study
// (how busy the two threads were: 2 at most, less while the machine's other work holds its cores).
// `npm run bench:screening [-- --case X[,Y]] [-- --method dc] [-- --threshold 90] [-- --every K]`; X names a file of
// shared/cases or test/reference/pglib; --every K studies the outages of every Kth in-service branch only (a sample,
// for networks whose full N-1 is too long to run twice).
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyRequest } from '../src/studies/index.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1]! : fallback);
const cases = arg('--case', 'case_ACTIVSg2000,case2383wp,case9241pegase,pglib_opf_case588_sdet').split(',');
const method = arg('--method', 'ac_linear') as 'ac_linear' | 'dc';
const threshold = Number(arg('--threshold', '90'));
const every = Number(arg('--every', '1'));
const PGLIB = join(import.meta.dirname, '..', '..', 'test', 'reference', 'pglib');

function load(c: string): NetworkModel {
  const file = existsSync(join(CASES_DIR, `${c}.m`)) ? join(CASES_DIR, `${c}.m`) : join(PGLIB, `${c}.m`);
  return parseMatpower(readFileSync(file, 'utf8'), `${c}.m`);
}

async function main(): Promise<void> {
  const pool = createSolverPool({ threads: 2 });
  const run = async (net: NetworkModel, req: StudyRequest) => {
    const all = planStudy(net, req);
    const sample = all.contingencies.filter((_, k) => k % every === 0);
    const plan = every > 1 && all.contingencies.length > 1 ? { ...all, contingencies: sample, caseCount: sample.length } : all;
    const t0 = performance.now(), cpu0 = process.cpuUsage();
    const size = 256, jobs: Promise<StudyCaseRow[]>[] = [];
    for (let s = 0; s < plan.caseCount; s += size) {
      jobs.push(solveStudyChunk(pool, net, plan, s, Math.min(s + size, plan.caseCount)).then((ch) => studyChunkRows(plan, ch)));
    }
    const rows = (await Promise.all(jobs)).flat();
    const cpu = process.cpuUsage(cpu0); // the whole process: both solver threads and the main thread
    return { rows, ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  process.stdout.write(`${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${loadavg()[0]!.toFixed(1)}; `
    + `screen ${method} at ${threshold} %${every > 1 ? `, the outages of every ${every}th branch` : ''}\n\n`);
  process.stdout.write('| case (N-1 of every branch, islanding skip) | cases | split (always solved) | screened | lost '
    + '| screened with a new voltage violation | screenable at most | wall ms unscreened | wall ms screened | ratio '
    + '| CPU ms unscreened | CPU ms screened | CPU ratio | CPU / wall unscreened | CPU / wall screened |\n');
  process.stdout.write('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n');
  try {
    for (const c of cases) {
      const net = load(c);
      const base: StudyRequest = { kind: 'contingency', contingencies: 'n-1-branches', islanding: 'skip' };
      // warm: the workers' wasm and topology caches, and both studies' code paths (the screen's on the main thread)
      await run(net, { ...base, contingencies: [{ branches: [0] }] });
      await run(net, { ...base, contingencies: [{ branches: [0] }], screening: { method, threshold_percent: threshold } });
      const full = await run(net, base);
      const screened = await run(net, { ...base, screening: { method, threshold_percent: threshold } });
      const isNew = (r: StudyCaseRow, overload: boolean) => r.violations.some((v) => (v.type === 'branch_overload') === overload && v.kind !== 'pre_existing');
      const marked = screened.rows.map((r) => r.status === 'screened');
      const lost = full.rows.filter((r, k) => marked[k] && isNew(r, true)).length;
      const voltage = full.rows.filter((r, k) => marked[k] && isNew(r, false)).length;
      const n = full.rows.length, nScreened = marked.filter(Boolean).length, split = full.rows.filter((r) => r.status === 'islanded').length;
      const screenable = full.rows.filter((r) => r.status !== 'islanded' && !isNew(r, true)).length;
      const pct = (k: number) => `${k} (${((100 * k) / n).toFixed(1)} %)`;
      process.stdout.write(`| ${c} | ${n} | ${split} | ${pct(nScreened)} | ${lost} | ${voltage} | ${pct(screenable)} | `
        + `${Math.round(full.ms)} | ${Math.round(screened.ms)} | ${(screened.ms / full.ms).toFixed(2)} | `
        + `${Math.round(full.cpuMs)} | ${Math.round(screened.cpuMs)} | ${(screened.cpuMs / full.cpuMs).toFixed(2)} | `
        + `${(full.cpuMs / full.ms).toFixed(2)} | ${(screened.cpuMs / screened.ms).toFixed(2)} |\n`);
    }
  } finally {
    await pool.close();
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
