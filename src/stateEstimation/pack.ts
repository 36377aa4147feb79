// NetworkModel + measurements -> the state-estimation input buffer (./abi.ts). The internal numbering is the power
// flow's (src/powerflow/ext2int.ts). Each measurement is checked against the model first (a kind the list knows,
// an element that exists and is in service, a finite value, a positive sigma); every problem is a
// PowerFlowInputError naming the measurement, which the doors answer with 422 (VALIDATION_FAILED).
import type { NetworkModel } from '../domain/networkModel.js';
import { ext2int, type InternalNumbering } from '../powerflow/ext2int.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { SE_MEASUREMENT_KINDS } from '../schemas/vocabulary.js';
import { BR, BUS, GEN, IN, KIND, MEAS, SE_ABI_VERSION } from './abi.js';
import { MAX_MEASUREMENTS, SE_TOLERANCE, type Measurement, type StateEstimationOptions } from './types.js';

export interface PackedEstimate {
  input: Float64Array;
  ext: InternalNumbering;
  /** internal index of the reference bus */
  ref: number;
}

const BRANCH_KINDS = new Set(['p_from', 'p_to', 'q_from', 'q_to']);
const GEN_KINDS = new Set(['p_gen', 'q_gen']);

function refuse(message: string, details: Record<string, unknown>): never {
  throw new PowerFlowInputError(message, 'VALIDATION_FAILED', details);
}

/** The internal element of measurement k (branch, generator or bus index), refusing what the model cannot read. */
function internalElement(
  m: Measurement,
  k: number,
  net: NetworkModel,
  ext: InternalNumbering,
  branchAt: Int32Array,
  genAt: Int32Array,
): number {
  const at = { measurement: k, kind: m.kind, element: m.element };
  if (!(SE_MEASUREMENT_KINDS as readonly string[]).includes(m.kind)) {
    refuse(`measurement ${k}: unknown kind '${String(m.kind)}' (${SE_MEASUREMENT_KINDS.join(', ')})`, { ...at, field: 'kind' });
  }
  if (!Number.isInteger(m.element)) refuse(`measurement ${k}: element must be an integer`, { ...at, field: 'element' });
  if (!Number.isFinite(m.value)) refuse(`measurement ${k}: value must be a finite number`, { ...at, field: 'value' });
  if (!(typeof m.sigma === 'number' && Number.isFinite(m.sigma) && m.sigma > 0)) {
    refuse(`measurement ${k}: sigma must be a positive number`, { ...at, field: 'sigma' });
  }
  if (BRANCH_KINDS.has(m.kind)) {
    if (m.element < 0 || m.element >= net.branches.length)
      refuse(`measurement ${k}: there is no branch ${m.element} (0-based; the network has ${net.branches.length})`, {
        ...at,
        field: 'element',
      });
    const l = branchAt[m.element]!;
    if (l < 0) refuse(`measurement ${k}: branch ${m.element} is not in service (open, or at an isolated bus)`, { ...at, field: 'element' });
    return l;
  }
  if (GEN_KINDS.has(m.kind)) {
    if (m.element < 0 || m.element >= net.generators.length)
      refuse(`measurement ${k}: there is no generator ${m.element} (0-based; the network has ${net.generators.length})`, {
        ...at,
        field: 'element',
      });
    const g = genAt[m.element]!;
    if (g < 0) refuse(`measurement ${k}: generator ${m.element} is not in service`, { ...at, field: 'element' });
    return g;
  }
  const p = ext.position(m.element);
  if (p < 0) refuse(`measurement ${k}: there is no bus ${m.element}`, { ...at, field: 'element' });
  const i = ext.busIndex[p]!;
  if (i < 0) refuse(`measurement ${k}: bus ${m.element} is isolated`, { ...at, field: 'element' });
  return i;
}

/** Scale of a kind's value: MW / MVAr to p.u., degrees to radians, p.u. as is. */
export function kindScale(kind: Measurement['kind'], baseMva: number): number {
  if (kind === 'v_mag') return 1;
  if (kind === 'v_angle') return Math.PI / 180;
  return 1 / baseMva;
}

export function packEstimate(net: NetworkModel, measurements: Measurement[], o: StateEstimationOptions): PackedEstimate {
  if (measurements.length === 0)
    refuse("no measurements: give some inline, or register measures on the network's devices", { field: 'measurements' });
  if (measurements.length > MAX_MEASUREMENTS) {
    throw new PowerFlowInputError(
      `${measurements.length} measurements is more than one estimate takes (${MAX_MEASUREMENTS})`,
      'VALIDATION_FAILED',
      { field: 'measurements', limit: MAX_MEASUREMENTS },
    );
  }
  const base = net.base_mva;
  if (!(base > 0 && Number.isFinite(base))) refuse('base_mva must be a positive number', { field: 'base_mva' });
  const ext = ext2int(net);
  const { nb, nl, ng } = ext;
  let ref = -1;
  for (let i = 0; i < nb && ref < 0; i++) if (net.buses[ext.busOrder[i]!]!.type === 'slack') ref = i;
  if (ref < 0)
    throw new PowerFlowInputError('the network has no slack bus: the estimate needs one as its angle reference', 'TOPOLOGY_INVALID', {});
  const branchAt = new Int32Array(net.branches.length).fill(-1),
    genAt = new Int32Array(net.generators.length).fill(-1);
  ext.branchOrder.forEach((k, l) => {
    branchAt[k] = l;
  });
  ext.genOrder.forEach((k, g) => {
    genAt[k] = g;
  });
  const nm = measurements.length;
  const busOff = IN.HEADER,
    brOff = busOff + BUS.FIELDS * nb,
    genOff = brOff + BR.FIELDS * nl,
    mOff = genOff + GEN.FIELDS * ng;
  const input = new Float64Array(mOff + MEAS.FIELDS * nm);
  input[IN.VERSION] = SE_ABI_VERSION;
  input[IN.NB] = nb;
  input[IN.NL] = nl;
  input[IN.NG] = ng;
  input[IN.NM] = nm;
  input[IN.BASEMVA] = base;
  input[IN.REF] = ref;
  input[IN.MAXIT] = o.maxIterations;
  input[IN.TOL] = SE_TOLERANCE;
  input[IN.THRESHOLD] = o.badDataThreshold ?? 0;
  input[IN.RESIDUALS] = 1;
  for (let i = 0; i < nb; i++) {
    const k = ext.busOrder[i]!,
      b = net.buses[k]!;
    input[busOff + BUS.PD * nb + i] = ext.busLoadP[k]!;
    input[busOff + BUS.QD * nb + i] = ext.busLoadQ[k]!;
    input[busOff + BUS.GS * nb + i] = b.gs;
    input[busOff + BUS.BS * nb + i] = b.bs;
    input[busOff + BUS.VM0 * nb + i] = 1;
  }
  // doSE's flat start (getV0 type 2): every bus at 1, a bus with a generator in service at its VG (the last one's)
  for (let g = 0; g < ng; g++) input[busOff + BUS.VM0 * nb + ext.genBus[g]!] = net.generators[ext.genOrder[g]!]!.vg;
  for (let l = 0; l < nl; l++) {
    const b = net.branches[ext.branchOrder[l]!]!;
    const row = [ext.branchFrom[l]!, ext.branchTo[l]!, b.r, b.x, b.b, b.ratio, b.shift];
    for (let c = 0; c < BR.FIELDS; c++) input[brOff + c * nl + l] = row[c]!;
  }
  for (let g = 0; g < ng; g++) input[genOff + GEN.BUS * ng + g] = ext.genBus[g]!;
  measurements.forEach((m, k) => {
    const el = internalElement(m, k, net, ext, branchAt, genAt);
    const s = kindScale(m.kind, base);
    input[mOff + MEAS.KIND * nm + k] = KIND[m.kind];
    input[mOff + MEAS.ELEMENT * nm + k] = el;
    input[mOff + MEAS.VALUE * nm + k] = m.value * s;
    input[mOff + MEAS.SIGMA * nm + k] = m.sigma * s;
  });
  return { input, ext, ref };
}

/** The π model's Yff, Yft, Ytf, Ytt (re, im) of a branch, as assembly/branchModel.ts (MATPOWER's makeYbus). */
export function branchAdmittance(r: number, x: number, b: number, ratio: number, shift: number): number[] {
  const d = r * r + x * x,
    ysr = r / d,
    ysi = -x / d;
  const tap = ratio === 0 ? 1 : ratio,
    tr = tap * Math.cos(shift),
    ti = tap * Math.sin(shift),
    tt = tr * tr + ti * ti;
  const yttr = ysr,
    ytti = ysi + 0.5 * b;
  return [
    yttr / tt,
    ytti / tt,
    -(ysr * tr - ysi * ti) / tt,
    -(ysr * ti + ysi * tr) / tt,
    -(ysr * tr + ysi * ti) / tt,
    -(ysi * tr - ysr * ti) / tt,
    yttr,
    ytti,
  ];
}
