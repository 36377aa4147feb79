// MATPOWER `mpc.gencost` <-> generator `cost` (docs/network-model.md).
//
// Row: MODEL STARTUP SHUTDOWN NCOST COST...; MODEL 1 = piecewise linear (NCOST points, 2*NCOST values
// x1 y1 x2 y2 ...), MODEL 2 = polynomial (NCOST coefficients, highest order first). One row per
// generator. MATPOWER allows 2*ng rows, the second half costing reactive power; gridops does not
// model reactive costs and refuses such a file rather than drop them silently.

import type { Generator, GeneratorCost } from '../domain/networkModel.js';
import { costProblems } from '../opf/costs.js';

/** The numbers of one parsed matrix (as the reader scans them): values row after row. */
export interface GencostMatrix {
  line: number;
  values: number[];
  rowStart: number[];
  rowLine: number[];
}

type Fail = (line: number, expected: string, found?: string) => never;

/** Set `cost` on every generator from mpc.gencost (absent: every cost stays null). */
export function applyGencost(m: GencostMatrix | undefined, generators: Generator[], fail: Fail, withoutCost?: GencostMatrix): void {
  if (!m) return;
  const ng = generators.length;
  const rows = m.rowStart.length;
  if (rows === 2 * ng && ng > 0) {
    fail(m.line, `${ng} rows in mpc.gencost (one per mpc.gen row); reactive power costs (rows ${ng + 1}..${2 * ng}) are not supported — remove them`, `${rows} rows`);
  }
  if (rows !== ng) fail(m.line, `${ng} rows in mpc.gencost (one per mpc.gen row)`, `${rows} rows`);
  for (let r = 0; r < rows; r++) {
    const o = m.rowStart[r]!;
    const end = r + 1 < rows ? m.rowStart[r + 1]! : m.values.length;
    const line = m.rowLine[r]!;
    if (end - o < 4) fail(line, 'MODEL STARTUP SHUTDOWN NCOST and the cost values in an mpc.gencost row', `${end - o} numbers`);
    const v = m.values;
    const code = v[o]!, n = v[o + 3]!;
    if (code !== 1 && code !== 2) fail(line, 'gencost MODEL 1 (piecewise linear) or 2 (polynomial)', String(code));
    if (!(Number.isInteger(n) && n >= 1)) fail(line, 'a positive integer NCOST in mpc.gencost', String(n));
    const want = code === 1 ? 2 * n : n;
    if (end - o - 4 < want) fail(line, `${want} cost values after NCOST = ${n} in mpc.gencost`, String(end - o - 4));
    // MATPOWER pads short rows with zeros: values past NCOST's count are ignored.
    const cost: GeneratorCost = {
      model: code === 1 ? 'piecewise_linear' : 'polynomial',
      startup: v[o + 1]!,
      shutdown: v[o + 2]!,
      coefficients: v.slice(o + 4, o + 4 + want),
    };
    const problems = costProblems(cost, `mpc.gencost row ${r + 1}`);
    if (problems.length > 0) fail(line, 'a valid generator cost in mpc.gencost', problems.join('; '));
    generators[r]!.cost = cost;
  }
  if (withoutCost) {
    for (const idx of withoutCost.values) {
      const g = Number.isInteger(idx) && idx >= 1 && idx <= ng ? generators[idx - 1] : undefined;
      if (!g) fail(withoutCost.line, `generator row numbers 1..${ng}`, String(idx));
      g!.cost = null;
    }
  }
}

/** mpc.gencost rows for the generators, or [] when none has a cost; `withoutCost` lists the 1-based rows
 *  written as a zero placeholder because the generator has no cost (MATPOWER needs one row per generator). */
export function gencostRows(generators: readonly Generator[]): { rows: number[][]; withoutCost: number[] } {
  if (!generators.some((g) => g.cost)) return { rows: [], withoutCost: [] };
  const withoutCost: number[] = [];
  const rows = generators.map((g, i) => {
    const c = g.cost ?? null;
    if (c === null) { withoutCost.push(i + 1); return [2, 0, 0, 1, 0]; }
    const n = c.model === 'piecewise_linear' ? c.coefficients.length / 2 : c.coefficients.length;
    return [c.model === 'piecewise_linear' ? 1 : 2, c.startup, c.shutdown, n, ...c.coefficients];
  });
  return { rows, withoutCost };
}
