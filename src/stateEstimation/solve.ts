// solveStateEstimation: the one function every door (REST, GraphQL, task queue, CLI, bench) calls.
//
//   const result = await solveStateEstimation(pool, network, measurements, {
//     maxIterations: 100,        // Gauss–Newton iterations per estimate (doSE)
//     badDataThreshold: 3.0,     // lnr removal above it; null: none
//     timeoutMs: 30000,          // -> status 'timeout'
//     signal,                    // AbortSignal -> status 'cancelled'
//     onProgress,                // (iteration) => void while it runs (polled every PROGRESS_POLL_MS, src/engine/pool.ts)
//   });
//
// Resolves with a StateEstimationResult (./types.ts, CONTRACT "State estimation"); rejects with
// PowerFlowInputError for a measurement or network the estimate cannot take (the doors answer 422).
// The network and measurements are packed (./pack.ts) into one Float64Array transferred to a pool worker
// (workers/solver.ts stateEstimation), estimated by the wasm core (assembly/se/), and unpacked here.
import { performance } from 'node:perf_hooks';
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import { IN, OUT, OUT_BUS, OUT_MEAS, STATUS } from './abi.js';
import { chiSquare99 } from './chiSquare.js';
import { branchAdmittance, kindScale, packEstimate, type PackedEstimate } from './pack.js';
import {
  DEFAULT_SE_OPTIONS,
  type Measurement,
  type StateEstimationOptions,
  type StateEstimationResult,
  type StateEstimationStatus,
} from './types.js';
import { PowerFlowInputError } from '../powerflow/types.js';

export interface StateEstimationCall extends Partial<StateEstimationOptions> {
  /** false (with badDataThreshold null): no normalized residuals, the estimate alone (bench:se's doSE-equivalent
   *  timing; every door computes them) */
  residuals?: boolean;
  signal?: AbortSignal;
  onProgress?: (iteration: number) => void;
}

function emptyResult(status: StateEstimationStatus, message: string, extra: Partial<StateEstimationResult> = {}): StateEstimationResult {
  return {
    status,
    iterations: 0,
    total_iterations: 0,
    passes: 0,
    J: null,
    dof: 0,
    chi_square: { J: null, dof: 0, quantile_99: null, passed: null },
    buses: [],
    branches: [],
    generators: [],
    bad_data: [],
    residuals: [],
    observability: { observable: true, unobservable_buses: [] },
    measurements_used: 0,
    message,
    duration_ms: 0,
    ...extra,
  };
}

export async function solveStateEstimation(
  pool: SolverPool,
  network: NetworkModel,
  measurements: Measurement[],
  call: StateEstimationCall = {},
): Promise<StateEstimationResult> {
  const o: StateEstimationOptions = {
    maxIterations: call.maxIterations ?? DEFAULT_SE_OPTIONS.maxIterations,
    badDataThreshold: call.badDataThreshold === undefined ? DEFAULT_SE_OPTIONS.badDataThreshold : call.badDataThreshold,
    timeoutMs: call.timeoutMs ?? DEFAULT_SE_OPTIONS.timeoutMs,
  };
  if (!(Number.isInteger(o.maxIterations) && o.maxIterations >= 1 && o.maxIterations <= 1000)) {
    throw new PowerFlowInputError('max_iterations must be an integer between 1 and 1000', 'VALIDATION_FAILED', { field: 'max_iterations' });
  }
  if (o.badDataThreshold !== null && !(o.badDataThreshold > 0 && Number.isFinite(o.badDataThreshold))) {
    throw new PowerFlowInputError('bad_data.threshold must be a positive number', 'VALIDATION_FAILED', { field: 'bad_data.threshold' });
  }
  const packed = packEstimate(network, measurements, o);
  if (call.residuals === false && o.badDataThreshold === null) packed.input[IN.RESIDUALS] = 0;
  const { signal, onProgress } = call;
  if (signal?.aborted) return emptyResult('cancelled', 'cancelled before it started');
  const started = performance.now();
  // the thread reports the last Gauss–Newton iteration in the job's progress slot
  const ran = await pool.run('stateEstimation', { input: packed.input }, { timeoutMs: o.timeoutMs, signal, onProgress });
  if (ran.stopped) {
    const message = ran.stopped === 'timeout' ? `exceeded timeout_ms (${o.timeoutMs} ms)` : 'cancelled';
    return emptyResult(ran.stopped, message, { duration_ms: performance.now() - started });
  }
  return unpackEstimate(network, measurements, packed, ran.value);
}

const STATUS_NAME: Record<number, StateEstimationStatus> = {
  [STATUS.CONVERGED]: 'converged',
  [STATUS.DIVERGED]: 'diverged',
  [STATUS.UNOBSERVABLE]: 'unobservable',
  [STATUS.CANCELLED]: 'cancelled',
};

/** Output buffer -> StateEstimationResult in model order, in MW, MVAr, p.u., radians (residuals in the measurement's
 *  own units: MW, MVAr, p.u., degrees). */
export function unpackEstimate(
  net: NetworkModel,
  measurements: Measurement[],
  p: PackedEstimate,
  out: Float64Array,
): StateEstimationResult {
  const code = out[OUT.STATUS]!;
  if (code === STATUS.BAD_INPUT)
    throw new PowerFlowInputError('the state-estimation core rejected the packed network', 'VALIDATION_FAILED');
  const status = STATUS_NAME[code] ?? 'diverged';
  const { nb, nl } = p.ext;
  const nm = measurements.length,
    base = net.base_mva;
  const oBus = OUT.HEADER,
    oMeas = oBus + OUT_BUS.FIELDS * nb;
  const head = {
    iterations: out[OUT.ITER]!,
    total_iterations: out[OUT.TOTAL_ITER]!,
    passes: out[OUT.PASSES]!,
    duration_ms: out[OUT.SOLVE_MS]!,
    measurements_used: out[OUT.ACTIVE]!,
  };
  if (status === 'unobservable') {
    const unobservable: number[] = [];
    for (let i = 0; i < nb; i++) if (out[oBus + OUT_BUS.UNOBSERVABLE * nb + i] === 1) unobservable.push(net.buses[p.ext.busOrder[i]!]!.id);
    return {
      ...emptyResult(
        'unobservable',
        `the measurements do not observe ${unobservable.length > 0 ? `bus(es) ${unobservable.join(', ')}` : 'the whole network'}`,
      ),
      ...head,
      observability: { observable: false, unobservable_buses: unobservable },
    };
  }
  if (status === 'cancelled') return { ...emptyResult('cancelled', 'stopped'), ...head };
  const vm = new Float64Array(net.buses.length),
    va = new Float64Array(net.buses.length);
  for (let i = 0; i < nb; i++) {
    const k = p.ext.busOrder[i]!;
    vm[k] = out[oBus + OUT_BUS.VM * nb + i]!;
    va[k] = out[oBus + OUT_BUS.VA * nb + i]!;
  }
  const buses = net.buses.map((b, k) => ({ id: b.id, v: vm[k]!, theta: va[k]! }));
  // flows from the estimated voltages (π model), and each bus's injection: its branch ends plus its shunt
  const injP = new Float64Array(net.buses.length),
    injQ = new Float64Array(net.buses.length);
  const branches = net.branches.map((b, index) => ({ index, from: b.from, to: b.to, p_from: 0, q_from: 0, p_to: 0, q_to: 0, loading: 0 }));
  for (let l = 0; l < nl; l++) {
    const k = p.ext.branchOrder[l]!,
      b = net.branches[k]!;
    const f = p.ext.busOrder[p.ext.branchFrom[l]!]!,
      t = p.ext.busOrder[p.ext.branchTo[l]!]!;
    const y = branchAdmittance(b.r, b.x, b.b, b.ratio, b.shift);
    const vf = [vm[f]! * Math.cos(va[f]!), vm[f]! * Math.sin(va[f]!)],
      vt = [vm[t]! * Math.cos(va[t]!), vm[t]! * Math.sin(va[t]!)];
    const sf = endPower(vf, vt, y[0]!, y[1]!, y[2]!, y[3]!),
      st = endPower(vt, vf, y[6]!, y[7]!, y[4]!, y[5]!);
    const r = branches[k]!;
    r.p_from = sf[0] * base;
    r.q_from = sf[1] * base;
    r.p_to = st[0] * base;
    r.q_to = st[1] * base;
    if (b.rate_a > 0) r.loading = (100 * Math.max(Math.hypot(r.p_from, r.q_from), Math.hypot(r.p_to, r.q_to))) / b.rate_a;
    injP[f] += r.p_from;
    injQ[f] += r.q_from;
    injP[t] += r.p_to;
    injQ[t] += r.q_to;
  }
  net.buses.forEach((b, k) => {
    injP[k] += vm[k]! ** 2 * b.gs;
    injQ[k] -= vm[k]! ** 2 * b.bs;
  });
  // doSE's generator output: its bus's injection plus the bus's load
  const generators = net.generators.map((g, index) => {
    const k = p.ext.position(g.bus);
    const on = g.in_service && p.ext.busIndex[k]! >= 0;
    return { index, bus: g.bus, p_mw: on ? injP[k]! + p.ext.busLoadP[k]! : 0, q_mvar: on ? injQ[k]! + p.ext.busLoadQ[k]! : 0 };
  });
  const residuals: StateEstimationResult['residuals'] = [];
  const badData: (StateEstimationResult['bad_data'][number] & { pass: number })[] = [];
  for (let k = 0; k < nm; k++) {
    const m = measurements[k]!,
      s = kindScale(m.kind, base);
    const pass = out[oMeas + OUT_MEAS.REMOVED_PASS * nm + k]!;
    if (pass > 0) {
      badData.push({
        measurement: k,
        kind: m.kind,
        element: m.element,
        value: m.value,
        normalized_residual: out[oMeas + OUT_MEAS.REMOVED_NR * nm + k]!,
        pass,
      });
      continue;
    }
    const nr = out[oMeas + OUT_MEAS.NORMALIZED * nm + k]!;
    const ratio = out[oMeas + OUT_MEAS.OMEGA_RATIO * nm + k]!;
    residuals.push({
      measurement: k,
      kind: m.kind,
      element: m.element,
      value: m.value,
      estimate: out[oMeas + OUT_MEAS.ESTIMATE * nm + k]! / s,
      residual: out[oMeas + OUT_MEAS.RESIDUAL * nm + k]! / s,
      normalized_residual: Number.isNaN(nr) ? null : nr,
      critical: !Number.isNaN(ratio) && Number.isNaN(nr),
    });
  }
  badData.sort((a, b) => a.pass - b.pass);
  const J = out[OUT.J]!,
    dof = head.measurements_used - 2 * (nb - 1);
  const quantile = dof > 0 ? chiSquare99(dof) : null;
  return {
    status,
    ...head,
    J,
    dof,
    chi_square: { J, dof, quantile_99: quantile, passed: quantile === null ? null : J <= quantile },
    buses,
    branches,
    generators,
    bad_data: badData.map(({ pass: _pass, ...d }) => d),
    residuals,
    observability: { observable: true, unobservable_buses: [] },
  };
}

/** S = V_a conj(Y_aa V_a + Y_ab V_b), p.u. */
function endPower(va: number[], vb: number[], gaa: number, baa: number, gab: number, bab: number): [number, number] {
  const ir = gaa * va[0]! - baa * va[1]! + gab * vb[0]! - bab * vb[1]!;
  const ii = gaa * va[1]! + baa * va[0]! + gab * vb[1]! + bab * vb[0]!;
  return [va[0]! * ir + va[1]! * ii, va[1]! * ir - va[0]! * ii];
}
