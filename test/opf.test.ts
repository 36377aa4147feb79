// solveOpf behaviour beyond the reference answers: infeasible problems and what binds, bad costs,
// cancel from a progress report, piecewise-linear costs, left-out elements.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR, ROOT } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { PowerFlowInputError } from '../src/powerflow/types.js';
import { solveOpf, unpackOpf } from '../src/opf/solve.js';
import { solveOpfLp } from '../src/opf/lp.js';
import { LP_MIPS_ITERATIONS, packOpf } from '../src/opf/pack.js';
import { DEFAULT_OPF_OPTIONS } from '../src/opf/types.js';
import { PowerFlowEngine } from '../src/engine/solverInstance.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

const pool = createSolverPool({ threads: 1 });
after(() => pool.close());
const PGLIB_DIR = join(ROOT, 'test', 'reference', 'pglib');
const case9 = (): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), 'case9.m');

test('capacity below demand: infeasible at once, naming total generation', async () => {
  const net = case9();
  for (const g of net.generators) g.pmax = 50;
  const r = await solveOpf(pool, net, { method: 'dc' });
  assert.equal(r.status, 'infeasible');
  assert.equal(r.binding?.[0]?.kind, 'total_generation');
  assert.match(r.message!, /capacity 150 MW is below the demand of 315 MW/);
});

test('flow limits that cannot be met: infeasible, with the limits that bind', async () => {
  const net = case9();
  // bus 5 (90 MW) is fed only by branches 4-5 and 5-6: cap both at 20 MVA
  for (const br of net.branches) if (br.to === 5 || br.from === 5) br.rate_a = 20;
  const r = await solveOpf(pool, net, { method: 'dc' });
  assert.equal(r.status, 'infeasible', r.message);
  assert.match(r.message!, /probably infeasible/);
  assert.ok(r.binding!.some((b) => b.kind === 'branch_flow' && (b.from === 5 || b.to === 5)), JSON.stringify(r.binding));
});

test('a congested line separates the LMPs and has a shadow price', async () => {
  const net = case9();
  net.branches.find((b) => b.from === 4 && b.to === 5)!.rate_a = 25;
  const r = await solveOpf(pool, net, { method: 'dc' });
  assert.equal(r.status, 'converged');
  const br = r.branches.find((b) => b.from === 4 && b.to === 5)!;
  assert.ok(Math.abs(Math.abs(br.p_from) - 25) < 1e-3, `flow ${br.p_from} at its limit`);
  assert.ok(br.mu_sf + br.mu_st > 0);
  const lmps = r.buses.map((b) => b.lmp_p);
  assert.ok(Math.max(...lmps) - Math.min(...lmps) > 0.1);
});

test('piecewise-linear costs: the dispatch follows the cheaper segments', async () => {
  const net = case9();
  // generator 0 cheap up to 100 MW then dear; the others flat 30 per MWh
  net.generators[0]!.cost = { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [0, 0, 100, 1000, 250, 10000] };
  net.generators[1]!.cost = { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [0, 0, 300, 9000] };
  net.generators[2]!.cost = { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [0, 0, 270, 8100] };
  const r = await solveOpf(pool, net, { method: 'dc' });
  assert.equal(r.status, 'converged', r.message);
  assert.ok(Math.abs(r.generators[0]!.p_mw - 100) < 1e-2, `gen 0 at the kink: ${r.generators[0]!.p_mw}`);
  // objective: 1000 for the first 100 MW, the remaining 215 MW at 30
  assert.ok(Math.abs(r.objective - (1000 + 215 * 30)) < 1e-2, String(r.objective));
  assert.ok(Math.abs(r.buses[0]!.lmp_p - 30) < 1e-3, `LMP ${r.buses[0]!.lmp_p}`);
});

test('bad input is refused before any solve: missing or non-convex costs, unknown method, no impedance', async () => {
  const net = case9();
  net.generators[1]!.cost = null;
  await assert.rejects(solveOpf(pool, net, { method: 'dc' }), (e: unknown) => e instanceof PowerFlowInputError && /generator 1 \(bus 2\): in service without a cost/.test(e.message));
  net.generators[1]!.cost = { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [0, 0, 100, 3000, 200, 4000] };
  await assert.rejects(solveOpf(pool, net, { method: 'dc' }), /not convex/);
  net.generators[1]!.cost = { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [1, 0.1, 5, 150] };
  await assert.rejects(solveOpf(pool, net, { method: 'dc' }), /up to quadratic; this one has degree 3/);
  await assert.rejects(solveOpf(pool, case9(), { method: 'xx' as 'dc' }), /unknown OPF method/);
  const shorted = case9();
  shorted.branches[3]!.r = 0; shorted.branches[3]!.x = 0;
  await assert.rejects(solveOpf(pool, shorted, { method: 'ac' }), /branch 4 .* has zero impedance \(r = x = 0\)/); // numbered from 1, as the power flow
});

test('out-of-service generator and open branch are left out and reported as zero', async () => {
  const net = case9();
  net.generators[2]!.in_service = false;
  net.branches[8]!.status = 'open';
  const r = await solveOpf(pool, net, { method: 'dc' });
  assert.equal(r.status, 'converged', r.message);
  assert.equal(r.generators[2]!.p_mw, 0);
  assert.equal(r.branches[8]!.p_from, 0);
  const total = r.generators.reduce((s, g) => s + g.p_mw, 0);
  assert.ok(Math.abs(total - 315) < 1e-3);
});

test('cancel from a progress report ends the solve as cancelled', async () => {
  const ac = new AbortController();
  const r = await solveOpf(pool, parseMatpower(readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), 'case118.m'), {
    method: 'dc', signal: ac.signal, onProgress: (p) => { if (p.iteration === 2) ac.abort(); },
  });
  assert.equal(r.status, 'cancelled');
  assert.equal(r.buses.length, 0);
});

test('opfFieldIssues: invalid given costs and reversed angle limits, with fields the doors can report', async () => {
  const { opfFieldIssues } = await import('../src/opf/costs.js');
  const net = case9();
  assert.deepEqual(opfFieldIssues(net), []);
  net.generators[0]!.cost = null; // missing is fine when storing
  net.generators[1]!.cost = { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: [0, 0, 100] };
  net.generators[2]!.cost = { model: 'cubic' as 'polynomial', startup: 0, shutdown: 0, coefficients: [1] };
  net.branches[3]!.angmin = 30; net.branches[3]!.angmax = -30;
  const issues = opfFieldIssues(net);
  assert.deepEqual(issues.map((i) => i.field), ['generators[1].cost', 'generators[1].cost', 'generators[2].cost', 'branches[3].angmin']);
  assert.match(issues[0]!.message, /even number of values, got 3/);
  assert.match(issues[2]!.message, /"polynomial" or "piecewise_linear"/);
  assert.match(issues[3]!.message, /angmin \(30°\) must not exceed angmax \(-30°\)/);
});

test('timeout_ms: a solve that runs past it ends as timeout, and the pool stays usable', async () => {
  const big = parseMatpower(readFileSync(join(CASES_DIR, 'case2869pegase.m'), 'utf8'), 'case2869pegase.m');
  const r = await solveOpf(pool, big, { method: 'dc', timeoutMs: 1 });
  assert.equal(r.status, 'timeout');
  assert.match(r.message!, /exceeded timeout_ms \(1 ms\)/);
  const again = await solveOpf(pool, case9(), { method: 'dc' });
  assert.equal(again.status, 'converged');
});

// AC-OPF behaviour (the reference answers are in opf-reference.test.ts).

test('AC: a fine piecewise-linear sampling of the quadratic costs gives the quadratic dispatch and cost', async () => {
  const quad = await solveOpf(pool, case9(), { method: 'ac' });
  const net = case9();
  for (const g of net.generators) {
    const [c2, c1, c0] = g.cost!.coefficients as [number, number, number];
    const pts: number[] = [];
    for (let k = 0; k <= 60; k++) { const p = g.pmin! + ((g.pmax! - g.pmin!) * k) / 60; pts.push(p, c2 * p * p + c1 * p + c0); }
    g.cost = { model: 'piecewise_linear', startup: 0, shutdown: 0, coefficients: pts };
  }
  const pwl = await solveOpf(pool, net, { method: 'ac' });
  assert.equal(pwl.status, 'converged', pwl.message);
  // chords lie above a convex curve by at most c2·(Δp/2)²: here well under 0.1 % of the cost
  assert.ok(pwl.objective >= quad.objective - 1e-6 && pwl.objective - quad.objective < 1e-3 * quad.objective, `${pwl.objective} vs ${quad.objective}`);
  pwl.generators.forEach((g, i) => assert.ok(Math.abs(g.p_mw - quad.generators[i]!.p_mw) < 5, `generator ${i}: ${g.p_mw} vs ${quad.generators[i]!.p_mw}`));
  // the objective is the piecewise-linear cost of the dispatch
  const cost = net.generators.reduce((s, g, i) => {
    const c = g.cost!.coefficients, p = pwl.generators[i]!.p_mw;
    for (let k = 0; k + 3 < c.length; k += 2) if (p <= c[k + 2]! + 1e-9) return s + c[k + 1]! + ((c[k + 3]! - c[k + 1]!) * (p - c[k]!)) / (c[k + 2]! - c[k]!);
    return s + Number.NaN;
  }, 0);
  assert.ok(Math.abs(cost - pwl.objective) < 1e-3 * Math.max(1, cost), `${cost} vs ${pwl.objective}`);
});

test('AC: voltage and reactive limits hold at the optimum, with their multipliers when they bind', async () => {
  const net = case9();
  for (const b of net.buses) b.vmax = 1.05;
  const r = await solveOpf(pool, net, { method: 'ac' });
  assert.equal(r.status, 'converged', r.message);
  for (const b of r.buses) assert.ok(b.v <= 1.05 + 1e-6 && b.v >= 0.9 - 1e-6, `bus ${b.id} v ${b.v}`);
  assert.ok(r.buses.some((b) => b.mu_vmax > 0), 'some bus sits at vmax with a price');
  const free = await solveOpf(pool, case9(), { method: 'ac' });
  assert.ok(r.objective > free.objective, 'a tighter voltage band costs more');
  // losses: generation exceeds the 315 MW demand, and power balances at every bus
  const gen = r.generators.reduce((s, g) => s + g.p_mw, 0);
  const loss = r.branches.reduce((s, b) => s + b.p_from + b.p_to, 0);
  assert.ok(Math.abs(gen - 315 - loss) < 1e-4, `generation ${gen}, losses ${loss}`);
});

test('AC: limits no dispatch can meet end infeasible, naming what binds', async () => {
  const net = case9();
  for (const br of net.branches) if (br.to === 5 || br.from === 5) br.rate_a = 20;
  const r = await solveOpf(pool, net, { method: 'ac' });
  assert.equal(r.status, 'infeasible', r.message);
  assert.ok(r.binding!.length > 0, JSON.stringify(r.binding));
  const capacity = case9();
  for (const g of capacity.generators) g.pmax = 50;
  const c = await solveOpf(pool, capacity, { method: 'ac' });
  assert.equal(c.status, 'infeasible');
  assert.equal(c.binding?.[0]?.kind, 'total_generation');
});

test('AC: an open branch and a generator out of service are left out and reported as zero', async () => {
  const net = case9();
  net.generators[2]!.in_service = false;
  net.branches[8]!.status = 'open';
  const r = await solveOpf(pool, net, { method: 'ac' });
  assert.equal(r.status, 'converged', r.message);
  assert.deepEqual([r.generators[2]!.p_mw, r.generators[2]!.q_mvar, r.branches[8]!.p_from, r.branches[8]!.q_to], [0, 0, 0, 0]);
  assert.ok(r.generators[0]!.p_mw + r.generators[1]!.p_mw > 315);
});

test('AC: a long OPF reports its iterations live, each once and in order, before the result', async () => {
  const net = parseMatpower(readFileSync(join(CASES_DIR, 'case2383wp.m'), 'utf8'), 'case2383wp.m');
  // event-loop turns, counted by a setImmediate chain: reports delivered together at the end share one turn
  let turn = 0, ticking = true;
  const tick = () => { turn++; if (ticking) setImmediate(tick); };
  setImmediate(tick);
  const reports: { iteration: number; turn: number }[] = [];
  const r = await solveOpf(pool, net, { method: 'ac', timeoutMs: 600_000, onProgress: (p) => reports.push({ iteration: p.iteration, turn }) });
  ticking = false;
  assert.equal(r.status, 'converged', r.message);
  assert.deepEqual(reports.map((x) => x.iteration), Array.from({ length: r.iterations + 1 }, (_, k) => k));
  assert.ok(new Set(reports.map((x) => x.turn)).size > 1, 'reports arrived over several turns, not all with the result');
});

test('DC with linear costs (case2383wp, degenerate): MIPS with the predictor–corrector gives HiGHS\'s optimum and prices', async () => {
  const wp = parseMatpower(readFileSync(join(CASES_DIR, 'case2383wp.m'), 'utf8'), 'case2383wp.m');
  const r = await solveOpf(pool, wp, { method: 'dc', timeoutMs: 600_000 });
  assert.equal(r.status, 'converged', r.message);
  assert.equal(r.solver, 'mips');
  assert.ok(r.iterations <= LP_MIPS_ITERATIONS, `${r.iterations} iterations`);
  // the answer is a dispatch within every limit, balanced, whose cost is the objective
  const demand = wp.loads.filter((l) => l.in_service).reduce((s, l) => s + l.mw, 0) + wp.buses.reduce((s, b) => s + b.gs, 0);
  assert.ok(Math.abs(r.generators.reduce((s, g) => s + g.p_mw, 0) - demand) < 1e-4, 'generation meets demand');
  let cost = 0;
  r.generators.forEach((g, i) => {
    const m = wp.generators[i]!;
    if (!m.in_service) return;
    assert.ok(g.p_mw >= m.pmin! - 1e-6 && g.p_mw <= m.pmax! + 1e-6, `generator ${i} within its limits`);
    const c = m.cost!.coefficients;
    cost += c.length === 3 ? c[0]! * g.p_mw ** 2 + c[1]! * g.p_mw + c[2]! : c.length === 2 ? c[0]! * g.p_mw + c[1]! : c[0]!;
  });
  assert.ok(Math.abs(cost - r.objective) < 1e-6 * r.objective, `${cost} vs ${r.objective}`);
  r.branches.forEach((b, i) => { const rate = wp.branches[i]!.rate_a; if (rate > 0) assert.ok(Math.abs(b.p_from) <= rate * (1 + 1e-9) + 1e-6, `branch ${i}`); });
  // HiGHS (an established LP solver) on the same LP: the same optimum and prices
  const engine = new PowerFlowEngine();
  const o = { ...DEFAULT_OPF_OPTIONS, method: 'dc' as const };
  const packed = packOpf(wp, o);
  const lp = await solveOpfLp(engine, packed.input.slice(), 600);
  assert.ok(lp, 'case2383wp has linear costs: an LP, which HiGHS solves');
  const highs = unpackOpf(wp, packed, lp.output, o);
  assert.equal(highs.status, 'converged');
  assert.ok(Math.abs(highs.objective - r.objective) < 1e-9 * r.objective, `${highs.objective} vs ${r.objective}`);
  highs.buses.forEach((b, i) => assert.ok(Math.abs(b.lmp_p - r.buses[i]!.lmp_p) < 1e-6, `bus ${b.id} LMP ${b.lmp_p} vs ${r.buses[i]!.lmp_p}`));
  assert.equal(await solveOpfLp(engine, packOpf(case9(), o).input, 600), undefined, 'quadratic costs are not an LP');
});

test('DC with linear costs, a degenerate LP (pglib_opf_case3012wp_k): MIPS converges, regularised near the optimum, to HiGHS\'s objective', async () => {
  const net = parseMatpower(readFileSync(join(PGLIB_DIR, 'pglib_opf_case3012wp_k.m'), 'utf8'), 'pglib_opf_case3012wp_k.m');
  const r = await solveOpf(pool, net, { method: 'dc', timeoutMs: 600_000 });
  assert.equal(r.status, 'converged', r.message);
  assert.equal(r.solver, 'mips', 'no handover to HiGHS');
  const demand = net.loads.filter((l) => l.in_service).reduce((s, l) => s + l.mw, 0) + net.buses.reduce((s, b) => s + b.gs, 0);
  assert.ok(Math.abs(r.generators.reduce((s, g) => s + g.p_mw, 0) - demand) < 1e-4, 'generation meets demand');
  r.generators.forEach((g, i) => {
    const m = net.generators[i]!;
    if (m.in_service) assert.ok(g.p_mw >= m.pmin! - 1e-6 && g.p_mw <= m.pmax! + 1e-6, `generator ${i} within its limits`);
  });
  const o = { ...DEFAULT_OPF_OPTIONS, method: 'dc' as const };
  const lp = await solveOpfLp(new PowerFlowEngine(), packOpf(net, o).input, 600);
  assert.ok(lp, 'an LP');
  assert.ok(Math.abs(lp.objective - r.objective) < 1e-7 * r.objective, `${r.objective} vs HiGHS ${lp.objective}`);
});

test('DC with linear costs: an LP MIPS has not finished in its iterations goes to HiGHS, with MIPS\'s prices', async () => {
  const pegase = parseMatpower(readFileSync(join(CASES_DIR, 'case1354pegase.m'), 'utf8'), 'case1354pegase.m');
  const mips = await solveOpf(pool, pegase, { method: 'dc' });
  assert.equal(mips.status, 'converged', mips.message);
  assert.equal(mips.solver, 'mips');
  const handed = await solveOpf(pool, pegase, { method: 'dc', maxIterations: 1 });
  assert.equal(handed.status, 'converged', handed.message);
  assert.equal(handed.solver, 'highs');
  assert.equal(handed.iterations, 1, 'the MIPS iterations made before the handover');
  assert.ok(Math.abs(handed.objective - mips.objective) < 1e-6 * mips.objective);
  handed.buses.forEach((b, i) => assert.ok(Math.abs(b.lmp_p - mips.buses[i]!.lmp_p) < 1e-6, `bus ${b.id} LMP`));
  handed.branches.forEach((b, i) => assert.ok(Math.abs(b.mu_sf - mips.branches[i]!.mu_sf) + Math.abs(b.mu_st - mips.branches[i]!.mu_st) < 1e-6, `branch ${i} multipliers`));
});

test('DC with linear costs: where HiGHS itself fails (case2869pegase without crossover), MIPS\'s answer stands, no error', async () => {
  const pegase = parseMatpower(readFileSync(join(CASES_DIR, 'case2869pegase.m'), 'utf8'), 'case2869pegase.m');
  const r = await solveOpf(pool, pegase, { method: 'dc', maxIterations: 1 });
  // HiGHS 1.x in WebAssembly reports an error on this LP; whichever way it ends, the call answers
  if (r.solver === 'highs') assert.equal(r.status, 'converged');
  else assert.notEqual(r.status, 'converged');
  const full = await solveOpf(pool, pegase, { method: 'dc' });
  assert.equal(full.status, 'converged', full.message);
});

test('AC: polynomial costs above quadratic are taken directly (MATPOWER accepts any degree in AC)', async () => {
  const net = case9();
  net.generators[0]!.cost = { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [2e-4, 0.11, 5, 150] }; // + 0.0002 P³
  net.generators[1]!.cost = { model: 'polynomial', startup: 0, shutdown: 0, coefficients: [1e-6, 0, 0.085, 1.2, 600] }; // + 1e-6 P⁴
  const r = await solveOpf(pool, net, { method: 'ac' });
  assert.equal(r.status, 'converged', r.message);
  const poly = (c: number[], p: number) => c.reduce((s, a) => s * p + a, 0);
  const der = (c: number[], p: number) => c.slice(0, -1).reduce((s, a, i) => s * p + a * (c.length - 1 - i), 0);
  const cost = net.generators.reduce((s, g, i) => s + poly(g.cost!.coefficients, r.generators[i]!.p_mw), 0);
  assert.ok(Math.abs(cost - r.objective) < 1e-6 * cost, `${cost} vs ${r.objective}`);
  // optimality: a generator within its limits produces where its marginal cost equals its bus's LMP
  r.generators.forEach((g, i) => {
    const m = net.generators[i]!;
    if (g.mu_pmax > 1e-6 || g.mu_pmin > 1e-6 || g.mu_qmax > 1e-6 || g.mu_qmin > 1e-6) return;
    const lmp = r.buses.find((b) => b.id === g.bus)!.lmp_p;
    assert.ok(Math.abs(der(m.cost!.coefficients, g.p_mw) - lmp) < 1e-4, `generator ${i}: marginal cost ${der(m.cost!.coefficients, g.p_mw)} vs LMP ${lmp}`);
  });
  // the cubic term raises generator 0's marginal cost: it produces less than with the quadratic alone
  const quad = await solveOpf(pool, case9(), { method: 'ac' });
  assert.ok(r.generators[0]!.p_mw < quad.generators[0]!.p_mw - 1, `${r.generators[0]!.p_mw} vs ${quad.generators[0]!.p_mw}`);
});
