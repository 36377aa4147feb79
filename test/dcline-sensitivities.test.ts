// PTDF and LODF of a network with DC lines (docs/sensitivities.md): MATPOWER's makePTDF / makeLODF see branches
// only, a DC line being a pair of injections; gridops answers the same matrices with and without the DC lines, and
// a DC power flow of the network moves by exactly PTDF × the DC line's injections when a line's flow changes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { computeSensitivities } from '../src/sensitivities/compute.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const pool = createSolverPool({ threads: 1 });
after(() => pool.close());
const net = parseMatpower(readFileSync(join(ROOT, 'test', 'reference', 'dcline-opf', 't_case9_dcline.m'), 'utf8'), 't_case9_dcline.m');
const { dc_lines: _lines, ...withoutDcLines } = net;

test('PTDF and LODF ignore DC lines, as makePTDF / makeLODF do', async () => {
  for (const kind of ['ptdf', 'lodf'] as const) {
    assert.deepEqual(await computeSensitivities(pool, net, { kind }), await computeSensitivities(pool, withoutDcLines, { kind }), kind);
  }
});

test('a DC line is its injections: 1 MW more on line 2 (7 → 9) moves DC flows by PTDF(9) − PTDF(7) per MW', async () => {
  const ptdf = await computeSensitivities(pool, net, { kind: 'ptdf' });
  const col = (id: number) => ptdf.columns.indexOf(id);
  const more = { ...net, dc_lines: net.dc_lines!.map((d, k) => (k === 1 ? { ...d, p_from: d.p_from + 1 } : d)) };
  const a = await solvePowerFlow(pool, net, { method: 'dc' }),
    b = await solvePowerFlow(pool, more, { method: 'dc' });
  ptdf.rows.forEach((l, r) => {
    const expected = ptdf.values[r]![col(9)]! - ptdf.values[r]![col(7)]!;
    const moved = b.branches[l]!.p_from - a.branches[l]!.p_from;
    assert.ok(Math.abs(moved - expected) <= 1e-9, `branch ${l}: ${moved} vs ${expected}`);
  });
});
