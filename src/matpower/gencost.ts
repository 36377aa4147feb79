// MATPOWER `mpc.gencost` <-> generator `cost` and `reactive_cost` (docs/network-model.md).
//
// Row: MODEL STARTUP SHUTDOWN NCOST COST...; MODEL 1 = piecewise linear (NCOST points, 2*NCOST values
// x1 y1 x2 y2 ...), MODEL 2 = polynomial (NCOST coefficients, highest order first). One row per
// generator, or 2*ng rows: then rows ng+1..2ng cost each generator's reactive power (MATPOWER's pqcost).

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

/** Set `cost` (and `reactive_cost` from a 2·ng-row matrix) on every generator from mpc.gencost (absent:
 *  every cost stays null); `withoutCost` lists gencost rows (1-based) that are placeholders for no cost. */
export function applyGencost(m: GencostMatrix | undefined, generators: Generator[], fail: Fail, withoutCost?: GencostMatrix, field = 'gencost'): void {
  if (!m) return;
  const ng = generators.length;
  const rows = m.rowStart.length;
  if (rows !== ng && !(rows === 2 * ng && ng > 0)) {
    fail(m.line, `${ng} rows in mpc.${field} (one per mpc.gen row), or ${2 * ng} with reactive power costs in rows ${ng + 1}..${2 * ng}`, `${rows} rows`);
  }
  for (let r = 0; r < rows; r++) {
    const o = m.rowStart[r]!;
    const end = r + 1 < rows ? m.rowStart[r + 1]! : m.values.length;
    const line = m.rowLine[r]!;
    if (end - o < 4) fail(line, `MODEL STARTUP SHUTDOWN NCOST and the cost values in an mpc.${field} row`, `${end - o} numbers`);
    const v = m.values;
    const code = v[o]!, n = v[o + 3]!;
    if (code !== 1 && code !== 2) fail(line, `${field === 'gencost' ? 'gencost' : `mpc.${field}`} MODEL 1 (piecewise linear) or 2 (polynomial)`, String(code));
    if (!(Number.isInteger(n) && n >= 1)) fail(line, `a positive integer NCOST in mpc.${field}`, String(n));
    const want = code === 1 ? 2 * n : n;
    if (end - o - 4 < want) fail(line, `${want} cost values after NCOST = ${n} in mpc.${field}`, String(end - o - 4));
    // MATPOWER pads short rows with zeros: values past NCOST's count are ignored.
    const cost: GeneratorCost = {
      model: code === 1 ? 'piecewise_linear' : 'polynomial',
      startup: v[o + 1]!,
      shutdown: v[o + 2]!,
      coefficients: v.slice(o + 4, o + 4 + want),
    };
    const reactive = r >= ng;
    const where = `mpc.${field} row ${r + 1}${reactive ? ` (reactive power of generator row ${r - ng + 1})` : ''}`;
    const problems = costProblems(cost, where, reactive ? 'MVAr' : 'MW');
    if (problems.length > 0) fail(line, `a valid ${field === 'gencost' ? 'generator' : 'DC line'} cost in mpc.${field}`, problems.join('; '));
    if (reactive) generators[r - ng]!.reactive_cost = cost;
    else generators[r]!.cost = cost;
  }
  if (withoutCost) {
    for (const idx of withoutCost.values) {
      if (!(Number.isInteger(idx) && idx >= 1 && idx <= rows)) fail(withoutCost.line, `mpc.${field} row numbers 1..${rows}`, String(idx));
      if (idx <= ng) generators[idx - 1]!.cost = null;
      else delete generators[idx - ng - 1]!.reactive_cost;
    }
  }
}

/** mpc.gencost rows for the generators, or [] when none has a cost: one per generator, then one per generator
 *  for reactive power when any has a `reactive_cost`. `withoutCost` lists the 1-based rows written as a zero
 *  placeholder because that cost is absent (MATPOWER needs a row for every generator in each half). */
export function gencostRows(generators: readonly Generator[]): { rows: number[][]; withoutCost: number[] } {
  const withQ = generators.some((g) => g.reactive_cost);
  if (!withQ && !generators.some((g) => g.cost)) return { rows: [], withoutCost: [] };
  const withoutCost: number[] = [];
  const row = (c: GeneratorCost | null | undefined, at: number): number[] => {
    if (!c) { withoutCost.push(at); return [2, 0, 0, 1, 0]; }
    const n = c.model === 'piecewise_linear' ? c.coefficients.length / 2 : c.coefficients.length;
    return [c.model === 'piecewise_linear' ? 1 : 2, c.startup, c.shutdown, n, ...c.coefficients];
  };
  const rows = generators.map((g, i) => row(g.cost, i + 1));
  if (withQ) generators.forEach((g, i) => rows.push(row(g.reactive_cost, generators.length + i + 1)));
  return { rows, withoutCost };
}
