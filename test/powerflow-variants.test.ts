// Power-flow situations the shared cases do not exercise, built from them:
// out-of-service branches, isolated buses, several islands, rejected topologies,
// several generators per bus, pv buses without generators, divergence, flat
// start, and the pool's cancel / timeout / progress / symbolic-analysis reuse.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { PowerFlowInputError, type ProgressReport, type SolveOptions, type SolveOutcome } from '../src/powerflow/types.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { deepFreeze } from '../src/lib/immutable.js';
import { solveDiagnostics, solvePowerFlow } from '../src/powerflow/solve.js';

const QUICK = process.env.QUICK === '1';
const NR: Partial<SolveOptions> = { method: 'newton_raphson', maxIterations: 10, tolerance: 1e-8 };
const METHODS: Partial<SolveOptions>[] = [NR, { method: 'fast_decoupled', maxIterations: 30 }, { method: 'dc' }];

const loaded = new Map<string, NetworkModel>();
function load(c: string): NetworkModel {
  if (!loaded.has(c)) loaded.set(c, parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`));
  return structuredClone(loaded.get(c)!);
}

let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

function converged(res: SolveOutcome): SolveOutcome {
  assert.equal(res.status, 'converged', res.message);
  return res;
}

function sameBuses(a: SolveOutcome, b: SolveOutcome, ids?: number[], tol = 1e-9): void {
  const bi = new Map(b.buses.map((x) => [x.id, x]));
  for (const x of a.buses) {
    if (ids && !ids.includes(x.id)) continue;
    const y = bi.get(x.id);
    if (!y) continue;
    assert.ok(Math.abs(x.v - y.v) <= tol, `bus ${x.id}: v ${x.v} vs ${y.v}`);
    assert.ok(Math.abs(x.theta - y.theta) <= tol, `bus ${x.id}: theta ${x.theta} vs ${y.theta}`);
  }
}

test('an open (or maintenance) branch gives the solution of the case without that branch, and zero flows', async () => {
  for (const m of METHODS) {
    for (const status of ['open', 'maintenance'] as const) {
      const withOpen = load('case30');
      withOpen.branches[0]!.status = status; // 1-2, not a bridge
      const without = load('case30');
      without.branches.splice(0, 1);
      const a = converged(await solvePowerFlow(pool, withOpen, m));
      const b = converged(await solvePowerFlow(pool, without, m));
      sameBuses(a, b);
      assert.deepEqual(a.branches[0], { index: 0, from: 1, to: 2, p_from: 0, q_from: 0, p_to: 0, q_to: 0, loading: 0 });
      for (let k = 1; k < a.branches.length; k++) {
        assert.ok(Math.abs(a.branches[k]!.p_from - b.branches[k - 1]!.p_from) < 1e-6);
        assert.ok(Math.abs(a.branches[k]!.q_to - b.branches[k - 1]!.q_to) < 1e-6);
      }
      assert.ok(Math.abs(a.losses.p_mw - b.losses.p_mw) < 1e-9);
      // and it really changes the solution
      const full = converged(await solvePowerFlow(pool, load('case30'), m));
      assert.ok(Math.abs(full.buses[1]!.theta - a.buses[1]!.theta) > 1e-4);
    }
  }
});

test('an isolated (type 4) bus and everything attached to it are left out and reported with input values', async () => {
  const base = converged(await solvePowerFlow(pool, load('case9'), NR));
  const net = load('case9');
  net.buses.push({ ...net.buses[4]!, id: 100, type: 'isolated', v: 0.97, theta: 0.1 });
  net.branches.push({ ...net.branches[0]!, from: 4, to: 100, status: 'closed', rate_a: 100 });
  net.generators.push({ ...net.generators[1]!, bus: 100, mw: 50 });
  net.loads.push({ bus: 100, mw: 30, mvar: 10, in_service: true });
  for (const m of METHODS) {
    const res = converged(await solvePowerFlow(pool, net, m));
    const ref = m === NR ? base : converged(await solvePowerFlow(pool, load('case9'), m));
    sameBuses(res, ref);
    const iso = res.buses.find((b) => b.id === 100)!;
    assert.equal(iso.v, 0.97);
    assert.equal(iso.theta, 0.1);
    assert.equal(iso.p_gen, 0);
    assert.deepEqual(res.branches.at(-1), { index: res.branches.length - 1, from: 4, to: 100, p_from: 0, q_from: 0, p_to: 0, q_to: 0, loading: 0 });
    assert.deepEqual(res.generators.at(-1), { bus: 100, p_gen: 0, q_gen: 0 });
    assert.equal(res.iterations, ref.iterations);
  }
});

/** case9 twice: the second copy with bus numbers + 100, a second slack. */
function twoIslands(): NetworkModel {
  const a = load('case9'), b = load('case9');
  for (const x of b.buses) x.id += 100;
  for (const x of b.branches) { x.from += 100; x.to += 100; }
  for (const x of b.generators) x.bus += 100;
  for (const x of b.loads) { x.bus += 100; x.mw *= 0.9; }
  b.buses[0]!.theta = 0.2; // its own angle reference
  a.buses.push(...b.buses); a.branches.push(...b.branches); a.generators.push(...b.generators); a.loads.push(...b.loads);
  return a;
}

test('two islands, each with its own slack, solve together as they solve apart', async () => {
  const net = twoIslands();
  const first = load('case9');
  const second: NetworkModel = { ...net, buses: net.buses.slice(9), branches: net.branches.slice(9), generators: net.generators.slice(3), loads: net.loads.filter((l) => l.bus > 100) };
  for (const m of METHODS) {
    const res = converged(await solvePowerFlow(pool, net, m));
    const r1 = converged(await solvePowerFlow(pool, first, m));
    const r2 = converged(await solvePowerFlow(pool, second, m));
    sameBuses(res, r1);
    sameBuses(res, r2);
    assert.ok(Math.abs(res.buses.find((b) => b.id === 101)!.theta - 0.2) < 1e-15, 'second slack keeps its angle');
    assert.ok(Math.abs(res.generators[3]!.p_gen - r2.generators[0]!.p_gen) < 1e-6, 'second slack takes its own island\'s mismatch');
    assert.ok(Math.abs(res.losses.p_mw - (r1.losses.p_mw + r2.losses.p_mw)) < 1e-9);
  }
});

test('an island without a slack or pv generator is rejected, naming its buses', async () => {
  const net = load('case9');
  net.buses.push({ ...net.buses[4]!, id: 50, type: 'pq' }, { ...net.buses[4]!, id: 51, type: 'pq' });
  net.branches.push({ ...net.branches[1]!, from: 50, to: 51 });
  net.loads.push({ bus: 51, mw: 10, mvar: 1, in_service: true });
  await assert.rejects(solvePowerFlow(pool, net, NR), (e: unknown) => {
    assert.ok(e instanceof PowerFlowInputError);
    assert.equal(e.code, 'ISLANDED_BUS');
    assert.match(e.message, /buses 50, 51/);
    assert.deepEqual(e.details.buses, [50, 51]);
    return true;
  });
  // a pv generator in that island is enough: it becomes the island's slack
  net.buses[10]!.type = 'pv';
  net.generators.push({ ...net.generators[1]!, bus: 51, mw: 10, vg: 1.0 });
  const res = converged(await solvePowerFlow(pool, net, NR));
  assert.ok(Math.abs(res.generators.at(-1)!.p_gen - 10 - res.losses.p_mw + converged(await solvePowerFlow(pool, load('case9'), NR)).losses.p_mw) < 1e-6);
});

test('other rejected inputs: no slack at all, unknown bus, duplicate bus, zero impedance, bad options', async () => {
  const noSlack = load('case9');
  noSlack.buses[0]!.type = 'pq';
  for (const b of noSlack.buses) if (b.type === 'pv') b.type = 'pq';
  await assert.rejects(solvePowerFlow(pool, noSlack, NR),
    (e: unknown) => e instanceof PowerFlowInputError && e.code === 'TOPOLOGY_INVALID' && /no slack/.test(e.message));
  const unknown = load('case9');
  unknown.branches[3]!.to = 999;
  await assert.rejects(solvePowerFlow(pool, unknown, NR),
    (e: unknown) => e instanceof PowerFlowInputError && e.code === 'BUS_NOT_FOUND' && /bus 999/.test(e.message));
  const unknownGen = load('case9');
  unknownGen.generators[0]!.bus = 998;
  await assert.rejects(solvePowerFlow(pool, unknownGen, NR), (e: unknown) => e instanceof PowerFlowInputError && e.code === 'BUS_NOT_FOUND');
  const dup = load('case9');
  dup.buses[3]!.id = 1;
  await assert.rejects(solvePowerFlow(pool, dup, NR), (e: unknown) => e instanceof PowerFlowInputError && e.code === 'VALIDATION_FAILED');
  const zero = load('case9');
  zero.branches[2]!.r = 0; zero.branches[2]!.x = 0;
  await assert.rejects(solvePowerFlow(pool, zero, NR), (e: unknown) => e instanceof PowerFlowInputError && /zero impedance/.test(e.message));
  await assert.rejects(solvePowerFlow(pool, load('case9'), { method: 'gauss' as never }), PowerFlowInputError);
  await assert.rejects(solvePowerFlow(pool, load('case9'), { tolerance: -1 }), PowerFlowInputError);
  await assert.rejects(solvePowerFlow(pool, load('case9'), { maxIterations: 0 }), PowerFlowInputError);
});

test('a slack bus without generators next to a pv generator: the pv bus becomes the slack (MATPOWER bustypes)', async () => {
  const net = load('case9');
  net.generators[0]!.in_service = false; // bus 1 (slack) loses its only generator
  const res = converged(await solvePowerFlow(pool, net, NR));
  // bus 2 (first pv) is the slack now: its angle stays at its stored value, its generator takes the mismatch
  assert.equal(res.buses[1]!.theta, net.buses[1]!.theta);
  assert.notEqual(res.generators[1]!.p_gen, net.generators[1]!.mw);
  assert.equal(res.generators[0]!.p_gen, 0);
  // bus 1 is solved as pq (no load, no generation)
  assert.ok(Math.abs(res.buses[0]!.p_gen) < 1e-12);
});

test('a network whose only slack has no generator at all keeps that slack as an ideal source', async () => {
  const net = load('case9');
  net.generators = [];
  for (const b of net.buses) if (b.type === 'pv') b.type = 'pq';
  const res = converged(await solvePowerFlow(pool, net, NR));
  assert.equal(res.buses[0]!.v, net.buses[0]!.v);
  const load_ = net.loads.reduce((s, l) => s + l.mw, 0);
  assert.ok(Math.abs(res.buses[0]!.p_gen - load_ - res.losses.p_mw) < 1e-6, 'the slack supplies load + losses');
});

test('several generators on one bus: the LAST listed vg sets |V|; Q is shared by Q range; P of the slack goes to the first', async () => {
  const net = load('case9');
  // bus 2 (pv): a second generator listed after the first, with another vg
  net.generators.splice(2, 0, { ...net.generators[1]!, mw: 20, vg: 1.03, qmin: -100, qmax: 200 });
  net.generators[1]!.qmin = -300; net.generators[1]!.qmax = 300; net.generators[1]!.vg = 1.025;
  let res = converged(await solvePowerFlow(pool, net, NR));
  assert.ok(Math.abs(res.buses[1]!.v - 1.03) < 1e-12, 'last listed vg wins');
  const g1 = res.generators[1]!, g2 = res.generators[2]!;
  const qBus = res.buses[1]!.q_gen;
  assert.ok(Math.abs(g1.q_gen + g2.q_gen - qBus) < 1e-9);
  // MATPOWER pfsoln: Qg_i = Qmin_i + (Qtot - sum Qmin) / (sum Qmax - sum Qmin) * (Qmax_i - Qmin_i)
  const expect1 = -300 + (qBus - (-400)) / (500 - (-400) + 2.220446049250313e-16) * 600;
  assert.ok(Math.abs(g1.q_gen - expect1) < 1e-9, `${g1.q_gen} vs ${expect1}`);
  assert.equal(g1.p_gen, 163);
  assert.equal(g2.p_gen, 20);
  // swap the listing order: the other vg wins
  [net.generators[1], net.generators[2]] = [net.generators[2]!, net.generators[1]!];
  res = converged(await solvePowerFlow(pool, net, NR));
  assert.ok(Math.abs(res.buses[1]!.v - 1.025) < 1e-12);
  // two generators at the slack: the first takes the slack P, the second keeps its set point
  const slack2 = load('case9');
  slack2.generators.push({ ...slack2.generators[0]!, mw: 30 });
  const r2 = converged(await solvePowerFlow(pool, slack2, NR));
  const r1 = converged(await solvePowerFlow(pool, load('case9'), NR));
  assert.equal(r2.generators[3]!.p_gen, 30);
  assert.ok(Math.abs(r2.generators[0]!.p_gen + 30 - r1.generators[0]!.p_gen) < 1e-6);
  // infinite Q limits (null) are shared with MATPOWER's finite proxy, still summing to the bus total
  const inf = load('case9');
  inf.generators.push({ ...inf.generators[2]!, mw: 10, qmin: null, qmax: null });
  const r3 = converged(await solvePowerFlow(pool, inf, NR));
  assert.ok(Math.abs(r3.generators[2]!.q_gen + r3.generators[3]!.q_gen - r3.buses[2]!.q_gen) < 1e-9);
});

test('a pv bus whose generators are all out of service is solved as pq', async () => {
  const net = load('case9');
  net.generators[2]!.in_service = false; // bus 3
  const asPq = load('case9');
  asPq.generators.splice(2, 1);
  asPq.buses[2]!.type = 'pq';
  for (const m of METHODS) {
    const a = converged(await solvePowerFlow(pool, net, m));
    const b = converged(await solvePowerFlow(pool, asPq, m));
    sameBuses(a, b);
    assert.deepEqual(a.generators[2], { bus: 3, p_gen: 0, q_gen: 0 });
    if (m !== METHODS[2]) assert.ok(Math.abs(a.buses[2]!.v - 1.025) > 1e-3, 'bus 3 no longer holds its set point');
  }
});

test('divergent loads are reported as diverged, never as converged garbage', async () => {
  for (const c of ['case9', 'case30']) {
    const net = load(c);
    for (const l of net.loads) { l.mw *= 10; l.mvar *= 10; }
    for (const m of [NR, { method: 'fast_decoupled' as const, maxIterations: 30 }]) {
      const res = await solvePowerFlow(pool, net, m);
      assert.equal(res.status, 'diverged', `${c} ${m.method}: ${res.status}`);
      assert.ok(res.message && res.message.length > 0);
      assert.equal(res.buses.length, 0);
    }
  }
  // loads so large that the iteration overflows to NaN / infinity
  const huge = load('case9');
  for (const l of huge.loads) l.mw *= 1e300;
  const res = await solvePowerFlow(pool, huge, { ...NR, maxIterations: 50 });
  assert.equal(res.status, 'diverged');
  // default service limit (50 iterations) too
  const ten = load('case9');
  for (const l of ten.loads) { l.mw *= 10; l.mvar *= 10; }
  assert.equal((await solvePowerFlow(pool, ten)).status, 'diverged');
});

test('flat start: |V| = 1 at pq buses and the slack angle everywhere; case118 keeps its 30 degree reference', async () => {
  const net = load('case118');
  const normal = converged(await solvePowerFlow(pool, net, NR));
  const flat = converged(await solvePowerFlow(pool, net, { ...NR, flatStart: true }));
  sameBuses(normal, flat, undefined, 1e-7);
  assert.ok(Math.abs(flat.buses.find((b) => net.buses.find((x) => x.id === b.id)!.type === 'slack')!.theta - (30 * Math.PI) / 180) < 1e-15);
  assert.equal(flat.iterations, 4); // MATPOWER's flat-start check: 4
});

test('reactive limits: a slack at its limit hands the slack over (angles re-referenced), and an infeasible set is diverged', async () => {
  const net = load('case9');
  net.generators[0]!.qmax = 5; // the slack generator (27 MVAr without limits)
  const res = converged(await solvePowerFlow(pool, net, { ...NR, enforceQLimits: true }));
  assert.equal(res.generators[0]!.q_gen, 5, 'fixed at its limit');
  assert.equal(res.buses[0]!.theta, 0, 'the original slack keeps its angle');
  assert.ok(Math.abs(res.buses[0]!.v - 1.04) > 1e-4, 'bus 1 is pq now');
  assert.ok(Math.abs(res.buses[1]!.v - 1.025) < 1e-12, 'bus 2 holds its voltage');
  assert.ok(res.generators[1]!.p_gen > 163, 'bus 2 became the slack and takes the mismatch');
  assert.ok(Math.abs(res.generators[0]!.p_gen - 71.641021474482) < 1e-6, 'the former slack keeps the P it had');
  // without enforcement the limits are ignored (MATPOWER's default)
  assert.ok(converged(await solvePowerFlow(pool, net, NR)).generators[0]!.q_gen > 20);
  const all = load('case9');
  for (const g of all.generators) { g.qmax = -400; g.qmin = -500; }
  const bad = await solvePowerFlow(pool, all, { ...NR, enforceQLimits: true });
  assert.equal(bad.status, 'diverged');
  assert.match(bad.message ?? '', /infeasible/);
});

test('tiny networks: a lone slack, and a slack with one pv bus', async () => {
  const one: NetworkModel = { ...load('case9'), buses: [{ ...load('case9').buses[0]! }], branches: [], generators: [{ ...load('case9').generators[0]!, mw: 0 }], loads: [{ bus: 1, mw: 10, mvar: 2, in_service: true }] };
  for (const m of METHODS) {
    const r = converged(await solvePowerFlow(pool, one, m));
    assert.equal(r.generators[0]!.p_gen, 10);
    assert.equal(r.iterations, m === METHODS[2] ? 1 : 0);
  }
});

test('progress: one report per iteration, numbered 1..n, before the result', async () => {
  const reports: ProgressReport[] = [];
  const res = converged(await solvePowerFlow(pool, load('case9'), NR, { onProgress: (p) => reports.push(p) }));
  assert.equal(reports.length, res.iterations);
  assert.deepEqual(reports.map((r) => r.iteration), [1, 2, 3, 4]);
  assert.ok(reports.every((r) => r.maxIterations === 10));
  assert.ok(reports.at(-1)!.mismatch < 1e-8 && reports[0]!.mismatch > reports.at(-1)!.mismatch);
  assert.equal(reports.at(-1)!.mismatch, res.mismatch);
  // fast decoupled and q-limit re-runs count on across the re-runs
  const fd: ProgressReport[] = [];
  const r2 = converged(await solvePowerFlow(pool, load('case14'), { method: 'fast_decoupled', maxIterations: 30 }, { onProgress: (p) => fd.push(p) }));
  assert.deepEqual(fd.map((r) => r.iteration), Array.from({ length: r2.iterations }, (_, k) => k + 1));
  const ql: ProgressReport[] = [];
  const r3 = converged(await solvePowerFlow(pool, load('case14'), { ...NR, enforceQLimits: true }, { onProgress: (p) => ql.push(p) }));
  assert.equal(r3.iterations, 5);
  assert.deepEqual(ql.map((r) => r.iteration), [1, 2, 3, 4, 5]);
});

test('a second solve on the same topology reuses the symbolic analysis', async () => {
  const one = createSolverPool({ threads: 1 });
  try {
    const net = load('case118');
    const a = converged(await solvePowerFlow(one, net, NR));
    const first = solveDiagnostics(a)!.analyses;
    // same topology, other loads and impedances: no new analysis
    for (const l of net.loads) l.mw *= 1.05;
    net.branches[5]!.x *= 1.1;
    const b = converged(await solvePowerFlow(one, net, NR));
    assert.equal(solveDiagnostics(b)!.analyses, first);
    assert.notEqual(b.buses[10]!.theta, a.buses[10]!.theta);
    // another topology: one more
    net.branches[5]!.status = 'open';
    const c = converged(await solvePowerFlow(one, net, NR));
    assert.equal(solveDiagnostics(c)!.analyses, first + 1);
    // back to the first one: still cached
    net.branches[5]!.status = 'closed';
    const d = converged(await solvePowerFlow(one, net, NR));
    assert.equal(solveDiagnostics(d)!.analyses, first + 1);
    // fast decoupled: B' and B'' analysed once, then reused
    const e = converged(await solvePowerFlow(one, net, { method: 'fast_decoupled', maxIterations: 30 }));
    const f = converged(await solvePowerFlow(one, net, { method: 'fast_decoupled', maxIterations: 30 }));
    assert.equal(solveDiagnostics(e)!.analyses, first + 3);
    assert.equal(solveDiagnostics(f)!.analyses, first + 3);
  } finally {
    await one.close();
  }
});

/** A long solve: Newton on a large case with a tolerance it can never reach. */
function endless(): { net: NetworkModel; options: Partial<SolveOptions> } {
  return { net: load(QUICK ? 'case2869pegase' : 'case13659pegase'), options: { method: 'newton_raphson', tolerance: 1e-300, maxIterations: 100000 } };
}

test('packing: kept for a frozen model and its options, never for a model that may change', async () => {
  const NR = { method: 'newton_raphson' as const, maxIterations: 10 };
  const frozen = deepFreeze(load('case30'));
  const first = converged(await solvePowerFlow(pool, frozen, NR));
  const again = converged(await solvePowerFlow(pool, frozen, NR));
  assert.deepEqual(again.buses, first.buses, 'the kept packing solves the same');
  // Options the packing reads are part of its key: a different tolerance is honoured.
  const loose = converged(await solvePowerFlow(pool, frozen, { ...NR, tolerance: 1e-3 }));
  assert.ok(loose.iterations < first.iterations, `tolerance 1e-3: ${loose.iterations} iterations, 1e-8: ${first.iterations}`);
  // A model that is not frozen is packed on every solve: a change between solves counts.
  const open = load('case30');
  const before = converged(await solvePowerFlow(pool, open, NR));
  open.loads[0]!.mw *= 1.5;
  const after = converged(await solvePowerFlow(pool, open, NR));
  assert.notEqual(after.buses.find((b) => b.id === open.loads[0]!.bus)!.p_load, before.buses.find((b) => b.id === open.loads[0]!.bus)!.p_load);
});

test('progress: a long solve reports its iterations live, each once and in order', async () => {
  const { net, options } = endless();
  const reports: { iteration: number; at: number }[] = [];
  const started = performance.now();
  const onProgress = (p: { iteration: number }) => reports.push({ iteration: p.iteration, at: performance.now() - started });
  const res = await solvePowerFlow(pool, net, { ...options, timeoutMs: 1500 }, { onProgress });
  const ended = performance.now() - started;
  assert.equal(res.status, 'timeout');
  assert.ok(reports.length >= 3, `${reports.length} reports`);
  assert.deepEqual(reports.map((r) => r.iteration), Array.from({ length: reports.length }, (_, k) => k + 1));
  // That they arrive while the solve runs (not together at its end) is shown by the cancel test
  // below: aborting at the third report stops the solve (cancelled, not timed out).
  void ended;
  assert.equal(res.iterations, reports.at(-1)!.iteration, 'the outcome carries the last reported iteration');
});

test('cancel: aborting a running solve stops it between iterations; the worker stays warm', async () => {
  const one = createSolverPool({ threads: 1 });
  try {
    const { net, options } = endless();
    const warm = converged(await solvePowerFlow(one, net, NR));
    const ac = new AbortController();
    let seen = 0;
    const started = performance.now();
    let abortedAt = 0;
    const res = await solvePowerFlow(one, net, options, {
      signal: ac.signal,
      onProgress: () => { if (++seen === 3) { abortedAt = performance.now(); ac.abort(); } },
    });
    assert.equal(res.status, 'cancelled');
    assert.ok(seen >= 3);
    assert.ok(res.iterations >= 3, 'the last reported iteration');
    assert.ok(Number.isFinite(res.mismatch), 'and its mismatch');
    assert.ok(abortedAt > started, 'aborted from the third report, while the solve ran');
    assert.equal(res.buses.length, 0);
    // the worker stopped at its next iteration and is reused (same thread, cache intact)
    const again = converged(await solvePowerFlow(one, net, NR));
    assert.equal(solveDiagnostics(again)!.thread, solveDiagnostics(warm)!.thread);
    assert.equal(solveDiagnostics(again)!.analyses, solveDiagnostics(warm)!.analyses);
    // a signal aborted before the call
    const pre = new AbortController();
    pre.abort();
    assert.equal((await solvePowerFlow(one, net, NR, { signal: pre.signal })).status, 'cancelled');
  } finally {
    await one.close();
  }
});

test('timeout: a running solve past timeoutMs resolves with status timeout and is stopped', async () => {
  const one = createSolverPool({ threads: 1 });
  try {
    const { net, options } = endless();
    converged(await solvePowerFlow(one, net, NR));
    const t0 = performance.now();
    const res = await solvePowerFlow(one, net, { ...options, timeoutMs: 400 });
    const took = performance.now() - t0;
    assert.equal(res.status, 'timeout');
    assert.ok(took >= 390, `stopped after ${took} ms, not before its timeout`);
    assert.match(res.message ?? '', /timeout/);
    // One thread: had the endless solve not been stopped, this one would never run.
    converged(await solvePowerFlow(one, load('case9'), NR));
    // a queued task that times out never runs
    const a = solvePowerFlow(one, net, { ...options, timeoutMs: 300 });
    const b = solvePowerFlow(one, net, { ...options, timeoutMs: 100 });
    assert.equal((await b).status, 'timeout');
    assert.equal((await a).status, 'timeout');
  } finally {
    await one.close();
  }
});
