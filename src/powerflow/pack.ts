// NetworkModel + options -> the wasm input buffer (abi.ts), with MATPOWER's
// preparation steps (ext2int.ts: the numbering every calculation shares; then
// bustypes and runpf's start point here):
//  - bus types (bustypes): a pv or slack bus without an in-service generator
//    is solved as pq; in an island whose slack has no in-service generator the
//    first pv bus (with one) becomes the slack. Beyond MATPOWER: several
//    islands each with their own slack are solved together, the promotion is
//    done per island, and a slack bus without any generator in an island with
//    no pv generator either is kept as an ideal slack source;
//  - start point: stored v / theta; at slack and pv buses |V| = vg of the LAST
//    in-service generator listed at the bus (MATPOWER's V0(gbus) = VG, last
//    wins). flat_start: |V| = 1 at pq buses (vg at pv / slack) and every angle
//    = its island's slack theta;
//  - rejects (PowerFlowInputError), beyond ext2int's refusals: no slack at all
//    (TOPOLOGY_INVALID), an island without a slack or pv generator (ISLANDED_BUS).
import type { NetworkModel } from '../domain/networkModel.js';
import { PowerFlowInputError, POWERFLOW_METHODS, type SolveOptions } from './types.js';
import { connectedComponents } from '../lib/graph.js';
import { ext2int } from './ext2int.js';
import {
  ABI_VERSION, IN, METHOD_CODE, TYPE_PQ, TYPE_PV, TYPE_REF, genOffsets, inputLength, inputOffsets,
} from './abi.js';

export interface PackedNetwork {
  /** The ABI input buffer (transferred to the worker). */
  input: Float64Array;
  nb: number;
  nl: number;
  ng: number;
  /** network bus position -> internal index, -1 when left out (isolated). */
  busIndex: Int32Array;
  /** internal bus -> network bus position. */
  busOrder: Int32Array;
  /** internal branch -> network branch position. */
  branchOrder: Int32Array;
  /** internal generator -> network generator position. */
  genOrder: Int32Array;
  /** internal generator -> network position of its bus. */
  genBusPos: Int32Array;
  /** internal bus -> 1 if it is a slack without any in-service generator (ideal source). */
  sourceSlack: Uint8Array;
  /** internal bus -> solve type (1 pq, 2 pv, 3 ref) as packed. */
  types: Int8Array;
  /** Load totals per network bus position (MW / MVAr, in-service loads). */
  busLoadP: Float64Array;
  busLoadQ: Float64Array;
}

const MAX_NAMED = 20;

function nameBuses(ids: number[]): string {
  const shown = ids.slice(0, MAX_NAMED).join(', ');
  return ids.length > MAX_NAMED ? `${shown} and ${ids.length - MAX_NAMED} more` : shown;
}

/** Checks and completes solve options (defaults from types.ts). */
export function checkOptions(o: SolveOptions): void {
  const bad = (msg: string, field: string): never => {
    throw new PowerFlowInputError(msg, 'VALIDATION_FAILED', { field });
  };
  if (!POWERFLOW_METHODS.includes(o.method)) bad(`unknown power flow method '${String(o.method)}' (newton_raphson, fast_decoupled, dc)`, 'method');
  if (!(typeof o.tolerance === 'number' && o.tolerance > 0 && Number.isFinite(o.tolerance))) bad('tolerance must be a positive number', 'tolerance');
  if (!(Number.isInteger(o.maxIterations) && o.maxIterations >= 1 && o.maxIterations <= 100000))
    bad('max_iterations must be an integer between 1 and 100000', 'max_iterations');
  if (!(typeof o.timeoutMs === 'number' && o.timeoutMs > 0)) bad('timeout_ms must be a positive number', 'timeout_ms');
}

export function packNetwork(net: NetworkModel, o: SolveOptions): PackedNetwork {
  checkOptions(o);
  const baseMVA = net.base_mva;
  if (!(baseMVA > 0 && Number.isFinite(baseMVA))) {
    throw new PowerFlowInputError('base_mva must be a positive number', 'VALIDATION_FAILED', { field: 'base_mva' });
  }
  const buses = net.buses, gens = net.generators;
  const { nb, nl, ng, busIndex, busOrder, branchOrder: brOrder, branchFrom: brF, branchTo: brT, genOrder, genBus, busLoadP, busLoadQ } = ext2int(net);
  const genCount = new Int32Array(nb);
  const lastVg = new Float64Array(nb);
  for (let k = 0; k < ng; k++) {
    genCount[genBus[k]!]++;
    lastVg[genBus[k]!] = gens[genOrder[k]!]!.vg; // last listed wins
  }

  // ---- islands (connected components over in-service branches)
  const { label: island, count: nIsl } = connectedComponents(nb, (link) => {
    for (let l = 0; l < nl; l++) link(brF[l]!, brT[l]!);
  });

  // ---- bus types (bustypes), per island
  const types = new Int8Array(nb);
  const sourceSlack = new Uint8Array(nb);
  const hasRef = new Uint8Array(nIsl);
  const firstPv = new Int32Array(nIsl).fill(-1);
  const firstBareSlack = new Int32Array(nIsl).fill(-1);
  for (let i = 0; i < nb; i++) {
    const ty = buses[busOrder[i]!]!.type;
    const isl = island[i]!;
    if (ty === 'slack' && genCount[i]! > 0) { types[i] = TYPE_REF; hasRef[isl] = 1; }
    else if (ty === 'pv' && genCount[i]! > 0) { types[i] = TYPE_PV; if (firstPv[isl]! < 0) firstPv[isl] = i; }
    else {
      types[i] = TYPE_PQ;
      if (ty === 'slack' && firstBareSlack[isl]! < 0) firstBareSlack[isl] = i;
    }
  }
  const orphanOf = new Int32Array(nIsl).fill(-1); // island -> index in orphans
  const orphans: number[][] = [];
  for (let s = 0; s < nIsl; s++) {
    if (hasRef[s]) continue;
    if (firstPv[s]! >= 0) types[firstPv[s]!] = TYPE_REF;
    else if (firstBareSlack[s]! >= 0) { types[firstBareSlack[s]!] = TYPE_REF; sourceSlack[firstBareSlack[s]!] = 1; }
    else { orphanOf[s] = orphans.length; orphans.push([]); }
  }
  if (orphans.length > 0) for (let i = 0; i < nb; i++) {
    const o = orphanOf[island[i]!]!;
    if (o >= 0) orphans[o]!.push(buses[busOrder[i]!]!.id);
  }
  if (orphans.length > 0) {
    if (orphans.length === nIsl) {
      throw new PowerFlowInputError(
        'the network has no slack bus (and no pv bus with an in-service generator to take its place)',
        'TOPOLOGY_INVALID', { islands: orphans });
    }
    const all = orphans.flat();
    throw new PowerFlowInputError(
      `${orphans.length === 1 ? 'an island' : `${orphans.length} islands`} without a slack bus or a pv bus with an in-service ` +
        `generator: bus${all.length === 1 ? '' : 'es'} ${nameBuses(all)}`,
      'ISLANDED_BUS',
      { buses: all, islands: orphans },
    );
  }

  // ---- start point
  const refTheta = new Float64Array(nIsl);
  for (let i = 0; i < nb; i++) if (types[i] === TYPE_REF) refTheta[island[i]!] = buses[busOrder[i]!]!.theta;
  const off = inputOffsets(nb, nl);
  const go = genOffsets(nb, nl, ng);
  const input = new Float64Array(inputLength(nb, nl, ng));
  input[IN.VERSION] = ABI_VERSION;
  input[IN.METHOD] = METHOD_CODE[o.method];
  input[IN.TOL] = o.tolerance;
  input[IN.MAXIT] = o.maxIterations;
  input[IN.NB] = nb;
  input[IN.NL] = nl;
  input[IN.NG] = ng;
  input[IN.BASEMVA] = baseMVA;
  for (let i = 0; i < nb; i++) {
    const k = busOrder[i]!;
    const b = buses[k]!;
    const controlled = types[i] !== TYPE_PQ && genCount[i]! > 0;
    let vm = o.flatStart ? 1.0 : b.v;
    if (controlled) vm = lastVg[i]!;
    else if (sourceSlack[i]) vm = b.v; // an ideal source holds its stored voltage
    input[off.type + i] = types[i]!;
    input[off.vm0 + i] = vm;
    input[off.va0 + i] = o.flatStart ? refTheta[island[i]!]! : b.theta;
    input[off.pd + i] = busLoadP[k]!;
    input[off.qd + i] = busLoadQ[k]!;
    input[off.gs + i] = b.gs;
    input[off.bs + i] = b.bs;
    input[off.island + i] = island[i]!;
  }
  for (let l = 0; l < nl; l++) {
    const br = net.branches[brOrder[l]!]!;
    input[off.f + l] = brF[l]!;
    input[off.t + l] = brT[l]!;
    input[off.r + l] = br.r;
    input[off.x + l] = br.x;
    input[off.b + l] = br.b;
    input[off.ratio + l] = br.ratio;
    input[off.shift + l] = br.shift;
  }
  for (let k = 0; k < ng; k++) {
    const gen = gens[genOrder[k]!]!;
    input[go.bus + k] = genBus[k]!;
    input[go.pg + k] = gen.mw;
    input[go.qg + k] = gen.mvar;
    input[go.qmin + k] = gen.qmin ?? -Infinity;
    input[go.qmax + k] = gen.qmax ?? Infinity;
  }
  return {
    input, nb, nl, ng, busIndex, busOrder,
    branchOrder: brOrder, genOrder,
    genBusPos: Int32Array.from(genBus, (i) => busOrder[i]!),
    sourceSlack, types, busLoadP, busLoadQ,
  };
}
