// State-estimation benchmark (issue 39 item 6): a full measurement set of a case — every in-service branch's
// from-end P and Q, every in-service generator's P and Q, every bus's voltage magnitude — made from its power flow
// with seeded Gaussian noise (σ 1 MW / MVAr, 0.004 p.u.), estimated on one warm worker thread. Printed beside
// doSE's time on the same machine (MATPOWER Extras, Octave; test/reference/state-estimation/TIMINGS.md, measured by
// test/reference/state-estimation/make_references.m) where it has one.
//
//   npm run bench:se                                 # case9241pegase (and case300, case1354pegase) table on stdout
//   npm run bench:se -- --only case9241pegase --runs 9
//   npm run bench:se -- --json
//
// estimate_ms: the median time inside the worker around the wasm estimate with bad data off and no normalized
// residuals (doSE's work: the Gauss–Newton iterations and the observability check); residuals_ms: one estimate and
// its normalized residuals (Ω's diagonal from G⁻¹'s sparse inverse subset, assembly/se/sparseInverse.ts), no
// removal; lnr_ms: the whole lnr loop at threshold 3 (an estimate from the flat start per removal; cases over
// ONE_LNR_RUN_ABOVE buses time it once, it makes dozens of passes there).
// The worker keeps the last estimate's analysis (assembly/se/entry.ts): the runs after the first, which are timed,
// are what a control centre's next estimate of the same meters costs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { CASES_DIR, ROOT } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { solveStateEstimation } from '../src/stateEstimation/solve.js';
import type { Measurement } from '../src/stateEstimation/types.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { rng } from '../src/lib/rng.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const args = process.argv.slice(2);
const asJson = args.includes('--json');
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 5;
const log = (s: string) => process.stderr.write(`${s}\n`);

/** A standard normal draw (Box–Muller) from a seeded uniform source. */
function normal(u: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

/** The full set of the issue: from-end P/Q of every in-service branch, P/Q of every in-service generator, Vm of every bus. */
export function fullMeasurementSet(
  net: NetworkModel,
  pf: Awaited<ReturnType<typeof solvePowerFlow>>,
  seed = 42,
): Measurement[] {
  const u = rng(seed);
  const out: Measurement[] = [];
  const add = (kind: Measurement['kind'], element: number, truth: number, sigma: number) =>
    out.push({ kind, element, value: truth + sigma * normal(u), sigma });
  net.branches.forEach((b, l) => {
    if (b.status === 'closed') add('p_from', l, pf.branches[l]!.p_from, 1);
  });
  net.branches.forEach((b, l) => {
    if (b.status === 'closed') add('q_from', l, pf.branches[l]!.q_from, 1);
  });
  // doSE's p_gen: the bus's injection plus its load, which is what every generator at the bus reads
  const busGen = new Map<number, { p: number; q: number }>();
  net.generators.forEach((g, k) => {
    if (!g.in_service) return;
    const s = busGen.get(g.bus) ?? { p: 0, q: 0 };
    s.p += pf.generators[k]!.p_gen;
    s.q += pf.generators[k]!.q_gen;
    busGen.set(g.bus, s);
  });
  net.generators.forEach((g, k) => {
    if (g.in_service) add('p_gen', k, busGen.get(g.bus)!.p, 1);
  });
  net.generators.forEach((g, k) => {
    if (g.in_service) add('q_gen', k, busGen.get(g.bus)!.q, 1);
  });
  pf.buses.forEach((b) => add('v_mag', b.id, b.v, 0.004));
  return out;
}

function doseTimes(): Map<string, string> {
  const m = new Map<string, string>();
  try {
    for (const line of readFileSync(join(ROOT, 'test', 'reference', 'state-estimation', 'TIMINGS.md'), 'utf8').split('\n')) {
      const c = line.split('|').map((x) => x.trim());
      if (c.length >= 4 && /^case/.test(c[1]!)) m.set(c[1]!, c[3]!);
    }
  } catch {
    /* no timings: printed as "not measured" */
  }
  return m;
}

const ONE_LNR_RUN_ABOVE = 3000;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const cases = only ? [only] : ['case300', 'case1354pegase', 'case9241pegase'];
  const pool = createSolverPool({ threads: 1 });
  const dose = doseTimes();
  const rows: Record<string, unknown>[] = [];
  try {
    for (const name of cases) {
      const net = parseMatpower(readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'), `${name}.m`);
      const pf = await solvePowerFlow(pool, net, { method: 'newton_raphson', tolerance: 1e-10 });
      if (pf.status !== 'converged') throw new Error(`${name}: the power flow for the measurements ended ${pf.status}`);
      const ms = fullMeasurementSet(net, pf);
      const time = async (threshold: number | null, residuals = true, timed = runs) => {
        const t: number[] = [];
        let last;
        for (let k = 0; k < timed + 1; k++) {
          last = await solveStateEstimation(pool, net, ms, { badDataThreshold: threshold, residuals, timeoutMs: 600_000 });
          if (k > 0) t.push(last.duration_ms); // the first run warms the worker
        }
        return { ms: median(t), r: last! };
      };
      const plain = await time(null, false);
      const withResiduals = await time(null, true);
      const lnr = await time(3.0, true, net.buses.length > ONE_LNR_RUN_ABOVE ? 1 : runs);
      const row = {
        case: name,
        buses: net.buses.length,
        measurements: ms.length,
        status: plain.r.status,
        iterations: plain.r.iterations,
        estimate_ms: Math.round(plain.ms * 10) / 10,
        residuals_ms: Math.round(withResiduals.ms * 10) / 10,
        lnr_ms: Math.round(lnr.ms * 10) / 10,
        removed: lnr.r.bad_data.length,
        dose: dose.get(name) ?? 'not measured',
      };
      rows.push(row);
      log(`${name}: ${JSON.stringify(row)}`);
    }
  } finally {
    await pool.close();
  }
  if (asJson) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return;
  }
  const lines = [
    `State estimation, full measurement set, one worker thread (${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()[0]!.toFixed(2)})`,
    '| case | buses | measurements | iterations | estimate ms | + normalized residuals ms | lnr loop ms (removed) | doSE (Octave) |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.case} | ${r.buses} | ${r.measurements} | ${r.iterations} | ${r.estimate_ms} | ${r.residuals_ms} | ` +
        `${r.lnr_ms} (${r.removed}) | ${r.dose} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1]?.endsWith('se.js')) await main();
