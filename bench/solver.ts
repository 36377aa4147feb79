// Power-flow solver benchmark: every shared case x newton_raphson / fast_decoupled
// / dc through the solver pool (one warm worker thread), with MATPOWER's limits
// (10 NR / 30 FD iterations, tolerance 1e-8) and its start point.
//
//   npm run bench:solver                 # table on stdout
//   npm run bench:solver -- --json       # only a JSON array on stdout:
//                                        #   [{case, method, buses, median_ms, iterations}]
//   npm run bench:solver -- --only case9241pegase --runs 21
//   npm run bench:solver -- --readme     # also (re)writes section "Solver" of bench/README.md
//
// worker ms: median time inside the warm worker around the wasm solve (Ybus,
//            iterations with Jacobian builds and sparse LU, pfsoln, losses);
//            no packing, no transfer. This is `median_ms` in the JSON.
// pool ms:   median end to end through solvePowerFlow (packing the network,
//            transfer to the worker and back, unpacking into result objects).
// MATPOWER:  runpf ms (`time_ms_median` of the reference JSON: Octave tic/toc
//            around runpf with the legacy core) and the solver-call-only time.
import { readdirSync, readFileSync } from 'node:fs';
import { writeReadmeSection } from './readme.js';
import { join } from 'node:path';
import { cpus, availableParallelism, loadavg } from 'node:os';
import { CASES_DIR, REFERENCE_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import type { PowerFlowMethod, SolveOptions } from '../src/powerflow/types.js';
import { solveDiagnostics, solvePowerFlow } from '../src/powerflow/solve.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const runsArg = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : undefined;
const writeReadme = args.includes('--readme');

const METHODS: { key: 'nr' | 'fdxb' | 'dc'; method: PowerFlowMethod; options: Partial<SolveOptions> }[] = [
  { key: 'nr', method: 'newton_raphson', options: { method: 'newton_raphson', maxIterations: 10, tolerance: 1e-8 } },
  { key: 'fdxb', method: 'fast_decoupled', options: { method: 'fast_decoupled', maxIterations: 30, tolerance: 1e-8 } },
  { key: 'dc', method: 'dc', options: { method: 'dc' } },
];

interface Row {
  case: string; method: PowerFlowMethod; buses: number; median_ms: number; iterations: number;
  status: string; pool_ms: number; min_ms: number; mp_iterations: number; mp_runpf_ms: number; mp_loop_ms: number | null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const log = (s: string) => process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  const cases = readdirSync(CASES_DIR).filter((f) => f.endsWith('.m')).map((f) => f.slice(0, -2))
    .filter((c) => !only || c === only)
    .map((c) => ({ c, size: readFileSync(join(CASES_DIR, `${c}.m`)).length }))
    .sort((a, b) => a.size - b.size).map((x) => x.c);
  const pool = createSolverPool({ threads: 1 });
  const rows: Row[] = [];
  const loadBefore = loadavg()[0]!;
  try {
    for (const c of cases) {
      const net = parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
      const buses = net.buses.length;
      const runs = runsArg ?? (buses >= 1000 ? 11 : 21);
      for (const m of METHODS) {
        const ref = JSON.parse(readFileSync(join(REFERENCE_DIR, `${c}.${m.key}.json`), 'utf8')) as {
          iterations: number; time_ms_median: number; timing?: { solver_call_only_ms_median?: number | null };
        };
        for (let w = 0; w < 3; w++) await solvePowerFlow(pool, net, m.options); // warm-up: JIT, topology cache, LU analysis
        const inWorker: number[] = [], endToEnd: number[] = [];
        let iterations = 0, status = '';
        for (let r = 0; r < runs; r++) {
          const res = await solvePowerFlow(pool, net, m.options);
          const d = solveDiagnostics(res);
          if (d) { inWorker.push(d.solveMs); endToEnd.push(d.endToEndMs); }
          iterations = res.iterations;
          status = res.status;
        }
        const row: Row = {
          case: c, method: m.method, buses, median_ms: median(inWorker), iterations, status,
          pool_ms: median(endToEnd), min_ms: Math.min(...inWorker),
          mp_iterations: ref.iterations, mp_runpf_ms: ref.time_ms_median, mp_loop_ms: ref.timing?.solver_call_only_ms_median ?? null,
        };
        rows.push(row);
        log(`${c} ${m.key}: ${row.median_ms.toFixed(2)} ms in the worker, ${row.pool_ms.toFixed(2)} ms through the pool, ${iterations} iterations (${status})`);
      }
    }
  } finally {
    await pool.close();
  }
  if (asJson) {
    process.stdout.write(`${JSON.stringify(rows.map((r) => ({ case: r.case, method: r.method, buses: r.buses, median_ms: r.median_ms, iterations: r.iterations })))}\n`);
    return;
  }
  const f = (x: number | null, d = 2) => (x === null ? '-' : x.toFixed(d));
  const machine = `${availableParallelism()} CPUs (nproc), ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}; `
    + `1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (other processes share the machine)`;
  const table = [
    '| case | buses | method | iter | MATPOWER iter | worker ms (median) | pool ms (median) | MATPOWER runpf ms | MATPOWER loop ms | runpf / worker |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.case} | ${r.buses} | ${r.method} | ${r.iterations}${r.status === 'converged' ? '' : ` (${r.status})`} | ${r.mp_iterations} | ${f(r.median_ms)} | ${f(r.pool_ms)} | ${f(r.mp_runpf_ms)} | ${f(r.mp_loop_ms)} | ${f(r.mp_runpf_ms / r.median_ms, 1)}x |`),
  ].join('\n');
  process.stdout.write(`Machine: ${machine}\n\n${table}\n`);
  if (writeReadme) updateReadme(table, machine);
}

function updateReadme(table: string, machine: string): void {
  const section = `## Solver

\`npm run bench:solver\` (bench/solver.ts): every shared case with MATPOWER's own start point and limits
(10 Newton / 30 fast-decoupled iterations, tolerance 1e-8), solved through the solver pool with one warm
worker thread (3 warm-up solves, then 21 runs below 1,000 buses, 11 above; medians).

- **worker ms**: inside the worker, around the WebAssembly solve: Ybus (cached while the parameters are
  unchanged), the iterations with Jacobian builds and sparse LU (symbolic analysis cached per topology), the
  pfsoln post-processing and losses. No packing, no transfer. This is \`median_ms\` of \`-- --json\`.
- **pool ms**: \`solvePowerFlow(pool, )\` end to end: packing the network into one Float64Array, transfer to the
  worker and back, unpacking into result objects.
- **MATPOWER runpf ms**: \`time_ms_median\` of the reference JSON (Octave 7.3, MATPOWER 8.1 legacy core,
  \`runpf\` incl. ext2int, Ybus, solve, pfsoln; a 2-vCPU machine of this kind); **loop ms**: the solver call
  alone (newtonpf / fdpf / dcpf with prebuilt matrices). **runpf / worker**: how many times faster.

Last run: ${new Date().toISOString().slice(0, 10)}, ${machine}.

${table}
`;
  writeReadmeSection('## Solver', section);
  log(`wrote bench/README.md (section "Solver")`);
}

main().catch((e: unknown) => { console.error(e); process.exit(1); });
