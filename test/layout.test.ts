// The network drawing's structure layout (src/layout/stressLayout.ts): graph distance becomes drawing
// distance. Checked on shapes whose right drawing is known: a path is drawn straight with unit steps, two
// meshes joined by one branch are drawn apart, pinned buses keep their geometry, and the answer is
// deterministic and finite on split networks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stressLayout } from '../src/layout/stressLayout.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { CASES_DIR } from '../src/paths.js';

const dist = (p: Float64Array, a: number, b: number) => Math.hypot(p[2 * a]! - p[2 * b]!, p[2 * a + 1]! - p[2 * b + 1]!);

test('a path of 30 buses is drawn as a straight line of unit steps', () => {
  const n = 30, edges: number[] = [];
  for (let i = 0; i + 1 < n; i++) edges.push(i, i + 1);
  const p = stressLayout({ n, edges: Int32Array.from(edges), pinned: null });
  for (let i = 0; i + 1 < n; i++) assert.ok(Math.abs(dist(p, i, i + 1) - 1) < 0.05, `step ${i}: ${dist(p, i, i + 1)}`);
  assert.ok(Math.abs(dist(p, 0, n - 1) - (n - 1)) < 0.5, `end to end ${dist(p, 0, n - 1)} for ${n - 1} branches`);
});

test('two meshes joined by one branch are drawn apart, each compact', () => {
  // two 8×8 grids, their corners (63 and 64) joined
  const edges: number[] = [];
  for (const off of [0, 64]) for (let r = 0; r < 8; r++) for (let c = 0; c < 8; c++) {
    const i = off + r * 8 + c;
    if (c < 7) edges.push(i, i + 1);
    if (r < 7) edges.push(i, i + 8);
  }
  edges.push(63, 64);
  const p = stressLayout({ n: 128, edges: Int32Array.from(edges), pinned: null });
  const centre = (off: number) => { let x = 0, y = 0; for (let i = off; i < off + 64; i++) { x += p[2 * i]!; y += p[2 * i + 1]!; } return [x / 64, y / 64]; };
  const [a, b] = [centre(0), centre(64)];
  const apart = Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!);
  let spread = 0;
  for (let i = 0; i < 64; i++) spread = Math.max(spread, Math.hypot(p[2 * i]! - a[0]!, p[2 * i + 1]! - a[1]!));
  assert.ok(apart > 1.5 * spread, `the meshes' centres ${apart.toFixed(2)} apart, each within ${spread.toFixed(2)} of its centre`);
  // hop distance stretches a mesh a little (two hops across a corner are √2 in the plane): about one unit
  for (let r = 0; r < 7; r++) { const l = dist(p, r * 8, r * 8 + 8); assert.ok(l > 0.7 && l < 1.5, `a mesh branch ${l.toFixed(2)} long`); }
});

test('pinned buses keep their geometry (scaled, centred) and pull their neighbours between them', () => {
  // a path 0-1-2-3-4 with its ends pinned 10 apart on the x axis
  const pinned = new Float64Array(10).fill(Number.NaN);
  pinned[0] = 100; pinned[1] = 50; pinned[8] = 110; pinned[9] = 50;
  const p = stressLayout({ n: 5, edges: Int32Array.from([0, 1, 1, 2, 2, 3, 3, 4]), pinned });
  assert.equal(p[1], p[9], 'the pinned ends stay level');
  assert.ok(p[8]! > p[0]!, 'and in their order');
  for (const i of [1, 2, 3]) assert.ok(p[2 * i]! > p[0]! && p[2 * i]! < p[8]!, `bus ${i} lies between the pinned ends`);
  assert.ok(p[2]! < p[4]! && p[4]! < p[6]!, 'in path order');
});

test('deterministic, and finite on a network with several islands (case118, one radial bus cut off)', () => {
  const net = parseMatpower(readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), 'case118.m');
  const index = new Map(net.buses.map((b, i) => [b.id, i]));
  const edges = Int32Array.from(net.branches.slice(1).flatMap((br) => [index.get(br.from)!, index.get(br.to)!]));
  const a = stressLayout({ n: net.buses.length, edges: edges.slice(), pinned: null });
  const b = stressLayout({ n: net.buses.length, edges: edges.slice(), pinned: null });
  assert.deepEqual(Array.from(a), Array.from(b));
  assert.ok(a.every(Number.isFinite));
});
