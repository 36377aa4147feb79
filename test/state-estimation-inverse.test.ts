// Ω's diagonal from G⁻¹'s sparse inverse subset (assembly/se/sparseInverse.ts, Takahashi's recurrences on the factor's
// pattern) against one solve of G y = H_iᵀ per measurement (the way it was found before, kept as the fallback):
// the same normalized residuals, the same critical measurements, the same removals in the same order. Measurement
// sets made from a power flow with seeded noise and, for the lnr loop, gross errors on a few of them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool } from '../src/engine/pool.js';
import { PowerFlowEngine } from '../src/engine/solverInstance.js';
import { packEstimate } from '../src/stateEstimation/pack.js';
import { IN, OUT, OUT_BUS, OUT_MEAS, STATUS } from '../src/stateEstimation/abi.js';
import type { Measurement } from '../src/stateEstimation/types.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { rng } from '../src/lib/rng.js';
import { solvePowerFlow } from '../src/powerflow/solve.js';

const pool = createSolverPool({ threads: 1 });
after(() => pool.close());

const load = (name: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'), `${name}.m`);

/** Every closed branch's from-end P and Q, every bus's Vm and every in-service generator bus's P and Q, as read by
 *  meters of sigma 1 MW / MVAr and 0.004 p.u. (seeded Gaussian noise); `gross` measurements get a 25-sigma error. */
async function measurementSet(net: NetworkModel, gross: number[]): Promise<Measurement[]> {
  const pf = await solvePowerFlow(pool, net, { method: 'newton_raphson', tolerance: 1e-10 });
  assert.equal(pf.status, 'converged');
  const u = rng(7);
  const normal = () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
  const out: Measurement[] = [];
  const add = (kind: Measurement['kind'], element: number, truth: number, sigma: number) =>
    out.push({ kind, element, value: truth + sigma * normal(), sigma });
  net.branches.forEach((b, l) => {
    if (b.status === 'closed') add('p_from', l, pf.branches[l]!.p_from, 1);
  });
  net.branches.forEach((b, l) => {
    if (b.status === 'closed') add('q_from', l, pf.branches[l]!.q_from, 1);
  });
  pf.buses.forEach((b) => add('v_mag', b.id, b.v, 0.004));
  for (const k of gross) out[k]!.value += 25 * out[k]!.sigma;
  return out;
}

interface Run {
  out: Float64Array;
  omegaMethod: number;
}

/** One estimate on a fresh core, Ω's diagonal by the sparse subset (bySolves false) or one solve per measurement. */
function estimate(net: NetworkModel, ms: Measurement[], threshold: number | null, bySolves: boolean): Run {
  const packed = packEstimate(net, ms, { maxIterations: 100, badDataThreshold: threshold, timeoutMs: 600_000 });
  packed.input[IN.RESIDUALS] = 1;
  packed.input[IN.OMEGA_BY_SOLVES] = bySolves ? 1 : 0;
  const engine = new PowerFlowEngine();
  const out = engine.solveStateEstimation(packed.input);
  return { out, omegaMethod: engine.seGainStats[5]! };
}

/** Column c of the measurement section of an output buffer. */
function column(out: Float64Array, nb: number, nm: number, c: number): number[] {
  const at = OUT.HEADER + OUT_BUS.FIELDS * nb + c * nm;
  return Array.from(out.subarray(at, at + nm));
}

function sameOmega(net: NetworkModel, nm: number, subset: Run, solves: Run): { compared: number; critical: number } {
  assert.equal(subset.omegaMethod, 1, "Ω's diagonal came from G⁻¹'s sparse subset");
  assert.equal(solves.omegaMethod, 2, "Ω's diagonal came from one solve per measurement");
  assert.equal(subset.out[OUT.STATUS], STATUS.CONVERGED);
  assert.equal(subset.out[OUT.PASSES], solves.out[OUT.PASSES], 'as many bad-data passes');
  const nb = net.buses.length;
  const removedPass = [column(subset.out, nb, nm, OUT_MEAS.REMOVED_PASS), column(solves.out, nb, nm, OUT_MEAS.REMOVED_PASS)];
  assert.deepEqual(removedPass[0], removedPass[1], 'the same measurements removed in the same passes');
  const nr = [column(subset.out, nb, nm, OUT_MEAS.NORMALIZED), column(solves.out, nb, nm, OUT_MEAS.NORMALIZED)];
  const ratio = column(solves.out, nb, nm, OUT_MEAS.OMEGA_RATIO);
  const removedNr = [column(subset.out, nb, nm, OUT_MEAS.REMOVED_NR), column(solves.out, nb, nm, OUT_MEAS.REMOVED_NR)];
  let compared = 0,
    critical = 0;
  for (let k = 0; k < nm; k++) {
    if (removedPass[1]![k]! > 0) {
      assert.ok(
        Math.abs(removedNr[0]![k]! - removedNr[1]![k]!) <= 1e-6 * Math.abs(removedNr[1]![k]!),
        `measurement ${k}: r_N when removed`,
      );
      continue;
    }
    assert.equal(Number.isNaN(nr[0]![k]!), Number.isNaN(nr[1]![k]!), `measurement ${k}: critical by both`);
    if (Number.isNaN(nr[1]![k]!)) {
      critical++;
      continue;
    }
    // Ω_ii = σ² − H_i G⁻¹ H_iᵀ cancels as the measurement nears critical: both ways lose digits there alike
    const tol = 1e-6 * Math.max(1, Math.abs(nr[1]![k]!)) * Math.max(1, 1e-4 / ratio[k]!);
    assert.ok(Math.abs(nr[0]![k]! - nr[1]![k]!) <= tol, `measurement ${k}: r_N ${nr[0]![k]} vs ${nr[1]![k]} (Ω/σ² ${ratio[k]})`);
    compared++;
  }
  return { compared, critical };
}

test("case300 with gross errors: the lnr loop removes the same measurements whichever way Ω's diagonal is found", async () => {
  const net = load('case300');
  const gross = [10, 600, 1000]; // a from-end P, a from-end Q, a Vm (case300 has 411 closed branches)
  const ms = await measurementSet(net, gross);
  const subset = estimate(net, ms, 3.0, false);
  const solves = estimate(net, ms, 3.0, true);
  const { compared } = sameOmega(net, ms.length, subset, solves);
  assert.ok(compared > ms.length / 2, `${compared} normalized residuals compared`);
  const removed = column(subset.out, net.buses.length, ms.length, OUT_MEAS.REMOVED_PASS);
  for (const k of gross) assert.ok(removed[k]! > 0, `the gross error on measurement ${k} was removed`);
});

test("case1354pegase, one estimate: every normalized residual and critical measurement equal to the per-measurement solves'", async () => {
  const net = load('case1354pegase');
  const ms = await measurementSet(net, []);
  const { compared } = sameOmega(net, ms.length, estimate(net, ms, null, false), estimate(net, ms, null, true));
  assert.ok(compared > ms.length / 2, `${compared} normalized residuals compared`);
});

test('case14 with bus 8 seen only through its one branch: critical measurements are critical by the sparse subset too', async () => {
  // bus 8 hangs on branch 7–8 alone; without its own Vm, that branch's P and Q are its only two measurements for its
  // two states: both critical, so the test of Ω/σ² against CRITICAL is exercised on both sides
  const net = load('case14');
  const pf = await solvePowerFlow(pool, net, { method: 'newton_raphson', tolerance: 1e-10 });
  const ms: Measurement[] = [
    ...net.branches.map((_, l) => ({ kind: 'p_from' as const, element: l, value: pf.branches[l]!.p_from + 0.1, sigma: 1 })),
    ...net.branches.map((_, l) => ({ kind: 'q_from' as const, element: l, value: pf.branches[l]!.q_from - 0.1, sigma: 1 })),
    ...pf.buses.filter((b) => b.id !== 8).map((b) => ({ kind: 'v_mag' as const, element: b.id, value: b.v, sigma: 0.004 })),
  ];
  const { critical } = sameOmega(net, ms.length, estimate(net, ms, null, false), estimate(net, ms, null, true));
  assert.ok(critical > 0, 'a critical measurement was found');
});
