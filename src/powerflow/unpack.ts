// wasm output buffer (abi.ts) -> SolveOutcome, in network order.
//  - buses: solved v / theta; isolated buses keep their input v / theta;
//    p_gen / q_gen = sum over the bus's in-service generators (an ideal slack
//    without generators reports its injection + load); p_load / q_load = the
//    bus's in-service loads;
//  - branches: flows of in-service branches, zeros for open / maintenance ones
//    and for branches to isolated buses; loading = max(|Sf|, |St|) / rate_a in %;
//  - generators: MATPOWER's pfsoln values; out-of-service ones 0;
//  - only a converged solve carries bus / branch / generator results.
import type { NetworkModel } from '../domain/networkModel.js';
import type { BranchResult, BusResult, GeneratorResult, SolveOptions, SolveOutcome, SolveStatus } from './types.js';
import { OUT, STATUS, outputOffsets } from './abi.js';
import type { PackedNetwork } from './pack.js';
import { RESULT_VALUES_WIDTH, resultValuesLayout } from './resultValues.js';

export function statusOf(code: number): SolveStatus {
  switch (code) {
    case STATUS.CONVERGED: return 'converged';
    case STATUS.CANCELLED: return 'cancelled';
    default: return 'diverged';
  }
}

export function messageOf(code: number, iterations: number, mismatch: number, o: SolveOptions): string | undefined {
  switch (code) {
    case STATUS.CONVERGED: return undefined;
    case STATUS.MAXIT: return `did not converge in ${iterations} iterations (max-norm mismatch ${mismatch.toExponential(3)} p.u., tolerance ${o.tolerance})`;
    case STATUS.NAN: return `diverged at iteration ${iterations}: the mismatch is no longer a finite number`;
    case STATUS.SINGULAR: return o.method === 'newton_raphson'
      ? `singular Jacobian at iteration ${iterations} (voltage collapse or an unobservable part of the network)`
      : 'singular B matrix (a part of the network is not connected to a slack through branches with reactance)';
    case STATUS.CANCELLED: return 'stopped before convergence';
    case STATUS.QLIM_INFEASIBLE: return 'reactive power limits: all remaining generators exceed the same limit (infeasible)';
    default: return `solver error (status ${code})`;
  }
}

export function emptyOutcome(status: SolveStatus, o: SolveOptions, extra: Partial<SolveOutcome> = {}): SolveOutcome {
  return {
    status, method: o.method, iterations: 0, mismatch: NaN, tolerance: o.tolerance, duration_ms: 0,
    buses: [], branches: [], generators: [], losses: { p_mw: 0, q_mvar: 0 }, ...extra,
  };
}

/** The outcome without its per-element values: status, iterations, mismatch, message, losses. */
function outcomeHeader(out: Float64Array, o: SolveOptions): SolveOutcome {
  const code = out[OUT.STATUS]!;
  const iterations = out[OUT.ITER]!;
  const mismatch = out[OUT.MISMATCH]!;
  const status = statusOf(code);
  const base: SolveOutcome = emptyOutcome(status, o, {
    iterations, mismatch, duration_ms: out[OUT.SOLVE_MS]!,
  });
  const msg = messageOf(code, iterations, mismatch, o);
  if (msg) base.message = msg;
  if (status === 'converged') base.losses = { p_mw: out[OUT.LOSS_P]!, q_mvar: out[OUT.LOSS_Q]! };
  return base;
}

export function unpackOutcome(net: NetworkModel, packed: PackedNetwork, out: Float64Array, o: SolveOptions): SolveOutcome {
  const base = outcomeHeader(out, o);
  if (base.status !== 'converged') return base;

  const { nb, nl, ng, busIndex, branchOrder, genOrder } = packed;
  const off = outputOffsets(nb, nl, ng);
  const dc = o.method === 'dc';

  // generators
  const generators: GeneratorResult[] = net.generators.map((g) => ({ bus: g.bus, p_gen: 0, q_gen: 0 }));
  const busPg = new Float64Array(net.buses.length), busQg = new Float64Array(net.buses.length);
  for (let k = 0; k < ng; k++) {
    const g = genOrder[k]!;
    const r = generators[g]!;
    r.p_gen = out[off.pg + k]!;
    r.q_gen = out[off.qg + k]!;
    const p = packed.genBusPos[k]!;
    busPg[p] += r.p_gen;
    busQg[p] += r.q_gen;
  }

  // buses
  const buses: BusResult[] = new Array(net.buses.length);
  for (let k = 0; k < net.buses.length; k++) {
    const b = net.buses[k]!;
    const i = busIndex[k]!;
    if (i < 0) {
      buses[k] = { id: b.id, v: b.v, theta: b.theta, p_gen: 0, q_gen: 0, p_load: packed.busLoadP[k]!, q_load: packed.busLoadQ[k]! };
      continue;
    }
    let pg = busPg[k]!, qg = busQg[k]!;
    if (packed.sourceSlack[i]) {
      pg = out[off.pinj + i]! + packed.busLoadP[k]!;
      qg = dc ? 0 : out[off.qinj + i]! + packed.busLoadQ[k]!;
    }
    buses[k] = {
      id: b.id, v: out[off.vm + i]!, theta: out[off.va + i]!,
      p_gen: pg, q_gen: qg, p_load: packed.busLoadP[k]!, q_load: packed.busLoadQ[k]!,
    };
  }

  // branches
  const slot = new Int32Array(net.branches.length).fill(-1);
  for (let l = 0; l < nl; l++) slot[branchOrder[l]!] = l;
  const branches: BranchResult[] = new Array(net.branches.length);
  for (let k = 0; k < net.branches.length; k++) {
    const br = net.branches[k]!;
    const l = slot[k]!;
    if (l < 0) {
      branches[k] = { index: k, from: br.from, to: br.to, p_from: 0, q_from: 0, p_to: 0, q_to: 0, loading: 0 };
      continue;
    }
    const pf = out[off.pf + l]!, qf = out[off.qf + l]!, pt = out[off.pt + l]!, qt = out[off.qt + l]!;
    let loading = 0;
    if (br.rate_a > 0) {
      const sf = pf * pf + qf * qf, st = pt * pt + qt * qt;
      loading = (Math.sqrt(sf > st ? sf : st) / br.rate_a) * 100;
    }
    branches[k] = { index: k, from: br.from, to: br.to, p_from: pf, q_from: qf, p_to: pt, q_to: qt, loading };
  }

  base.buses = buses;
  base.branches = branches;
  base.generators = generators;
  return base;
}

/**
 * unpackOutcome's values written straight into their stored binary form (encodeResultValues' format 1, src/powerflow/
 * resultValues.ts), with no object per bus, branch and generator: a task's result goes from the solver to its row
 * without the garbage of ~400 objects unpacked and encoded again (bench/README.md, round six b). The same arithmetic
 * in the same order as unpackOutcome, so the bytes equal encodeResultValues(unpackOutcome(...)) (test/result-values.test.ts).
 * The outcome's buses, branches and generators stay empty; `values` is undefined unless it converged.
 */
export function unpackOutcomeValues(net: NetworkModel, packed: PackedNetwork, out: Float64Array, o: SolveOptions): { outcome: SolveOutcome; values?: Buffer } {
  const outcome = outcomeHeader(out, o);
  if (outcome.status !== 'converged') return { outcome };
  const { nb, nl, ng, busIndex, branchOrder, genOrder } = packed;
  const off = outputOffsets(nb, nl, ng);
  const dc = o.method === 'dc';
  const W = RESULT_VALUES_WIDTH;
  const nbus = net.buses.length, nbr = net.branches.length, ngen = net.generators.length;
  const { f, bus, branch, gen } = resultValuesLayout(nbus, nbr, ngen);

  // generators: every one at its bus with 0, 0; the solved ones' values over them
  for (let g = 0; g < ngen; g++) f[gen + g * W.gen] = net.generators[g]!.bus;
  const busPg = new Float64Array(nbus), busQg = new Float64Array(nbus);
  for (let k = 0; k < ng; k++) {
    const at = gen + genOrder[k]! * W.gen;
    const pg = (f[at + 1] = out[off.pg + k]!);
    const qg = (f[at + 2] = out[off.qg + k]!);
    const p = packed.genBusPos[k]!;
    busPg[p] += pg;
    busQg[p] += qg;
  }

  for (let k = 0, at = bus; k < nbus; k++, at += W.bus) {
    const b = net.buses[k]!;
    const i = busIndex[k]!;
    f[at] = b.id;
    f[at + 5] = packed.busLoadP[k]!;
    f[at + 6] = packed.busLoadQ[k]!;
    if (i < 0) {
      f[at + 1] = b.v;
      f[at + 2] = b.theta;
      continue; // p_gen, q_gen 0
    }
    let pg = busPg[k]!, qg = busQg[k]!;
    if (packed.sourceSlack[i]) {
      pg = out[off.pinj + i]! + packed.busLoadP[k]!;
      qg = dc ? 0 : out[off.qinj + i]! + packed.busLoadQ[k]!;
    }
    f[at + 1] = out[off.vm + i]!;
    f[at + 2] = out[off.va + i]!;
    f[at + 3] = pg;
    f[at + 4] = qg;
  }

  const slot = new Int32Array(nbr).fill(-1);
  for (let l = 0; l < nl; l++) slot[branchOrder[l]!] = l;
  for (let k = 0, at = branch; k < nbr; k++, at += W.branch) {
    const br = net.branches[k]!;
    const l = slot[k]!;
    f[at] = br.from;
    f[at + 1] = br.to;
    if (l < 0) continue; // open: flows and loading 0
    const pf = out[off.pf + l]!, qf = out[off.qf + l]!, pt = out[off.pt + l]!, qt = out[off.qt + l]!;
    let loading = 0;
    if (br.rate_a > 0) {
      const sf = pf * pf + qf * qf, st = pt * pt + qt * qt;
      loading = (Math.sqrt(sf > st ? sf : st) / br.rate_a) * 100;
    }
    f[at + 2] = pf; f[at + 3] = qf; f[at + 4] = pt; f[at + 5] = qt; f[at + 6] = loading;
  }
  return { outcome, values: Buffer.from(f.buffer, f.byteOffset, f.byteLength) };
}
