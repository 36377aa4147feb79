// MATPOWER's ext2int, once for every calculation: power flow, studies, sensitivities and OPF
// all number a network through this module, so they cannot disagree about which buses,
// branches and generators take part or refuse the same network with different words.
//  - buses: internal index 0..nb-1 in model order; 'isolated' buses (MATPOWER type 4) are left
//    out, with the branches and generators attached to them;
//  - branches: only 'closed' ones between kept buses; generators and loads: only in-service ones;
//  - refusals (PowerFlowInputError), elements counted from 1 in messages (the 0-based position
//    is in details): bus ids that are not non-negative integers or appear twice, references to
//    unknown buses (BUS_NOT_FOUND), non-finite numbers, a branch with r = x = 0.
// What each calculation adds (bus types, start point, costs, limits) stays in its own packer.
import type { NetworkModel } from '../domain/networkModel.js';
import { PowerFlowInputError } from './types.js';

export interface InternalNumbering {
  nb: number;
  nl: number;
  ng: number;
  /** model bus position -> internal index, -1 when left out (isolated) */
  busIndex: Int32Array;
  /** internal bus -> model bus position */
  busOrder: Int32Array;
  /** internal branch -> model branch position, and its internal end buses */
  branchOrder: Int32Array;
  branchFrom: Int32Array;
  branchTo: Int32Array;
  /** internal generator -> model generator position, and its internal bus */
  genOrder: Int32Array;
  genBus: Int32Array;
  /** in-service load per model bus position (MW, MVAr) */
  busLoadP: Float64Array;
  busLoadQ: Float64Array;
  /** model position of a bus id, -1 when there is none */
  position: (id: number) => number;
}

/** `what` names the calculation in the refusal of a network whose buses are all isolated. */
export function ext2int(net: NetworkModel, what: 'solve' | 'dispatch' = 'solve'): InternalNumbering {
  const buses = net.buses, branches = net.branches, gens = net.generators, loads = net.loads;
  const nBusAll = buses.length;
  if (nBusAll === 0) throw new PowerFlowInputError('the network has no buses', 'VALIDATION_FAILED', { field: 'buses' });

  // ---- bus numbers (a dense id -> position table when ids are compact, else a Map)
  let maxId = 0;
  for (let k = 0; k < nBusAll; k++) {
    const b = buses[k]!;
    if (!(Number.isInteger(b.id) && b.id >= 0))
      throw new PowerFlowInputError(`bus id ${String(b.id)} is not a non-negative integer`, 'VALIDATION_FAILED', { bus: b.id });
    if (b.id > maxId) maxId = b.id;
    if (!Number.isFinite(b.v) || !Number.isFinite(b.theta) || !Number.isFinite(b.gs) || !Number.isFinite(b.bs)) {
      throw new PowerFlowInputError(`bus ${b.id} has a non-finite v, theta, gs or bs`, 'VALIDATION_FAILED', { bus: b.id });
    }
  }
  const dense = maxId <= 8 * nBusAll + 1024 ? new Int32Array(maxId + 1).fill(-1) : undefined;
  const map = dense ? undefined : new Map<number, number>();
  for (let k = 0; k < nBusAll; k++) {
    const id = buses[k]!.id;
    const prev = dense ? dense[id]! : (map!.get(id) ?? -1);
    if (prev >= 0) throw new PowerFlowInputError(`bus ${id} appears twice`, 'VALIDATION_FAILED', { bus: id });
    if (dense) dense[id] = k; else map!.set(id, k);
  }
  const position = (id: number): number => {
    if (dense) return Number.isInteger(id) && id >= 0 && id <= maxId ? dense[id]! : -1;
    return map!.get(id) ?? -1;
  };
  const missing = (id: number, element: string): never => {
    throw new PowerFlowInputError(`${element} refers to bus ${id}, which does not exist`, 'BUS_NOT_FOUND', { bus: id });
  };
  const busIndex = new Int32Array(nBusAll).fill(-1);
  let nb = 0;
  for (let k = 0; k < nBusAll; k++) if (buses[k]!.type !== 'isolated') busIndex[k] = nb++;
  if (nb === 0) throw new PowerFlowInputError(`every bus is isolated: nothing to ${what}`, 'TOPOLOGY_INVALID', {});
  const busOrder = new Int32Array(nb);
  for (let k = 0; k < nBusAll; k++) if (busIndex[k]! >= 0) busOrder[busIndex[k]!] = k;

  // ---- branches in service between kept buses
  const brF = new Int32Array(branches.length), brT = new Int32Array(branches.length), brOrder = new Int32Array(branches.length);
  let nl = 0;
  for (let l = 0; l < branches.length; l++) {
    const br = branches[l]!;
    const pf = position(br.from), pt = position(br.to);
    if (pf < 0) missing(br.from, `branch ${l + 1} (${br.from}-${br.to})`);
    if (pt < 0) missing(br.to, `branch ${l + 1} (${br.from}-${br.to})`);
    if (br.status !== 'closed') continue;
    const f = busIndex[pf]!, t = busIndex[pt]!;
    if (f < 0 || t < 0) continue;
    if (!(Number.isFinite(br.r) && Number.isFinite(br.x) && Number.isFinite(br.b) && Number.isFinite(br.ratio) && Number.isFinite(br.shift))) {
      throw new PowerFlowInputError(`branch ${l + 1} (${br.from}-${br.to}) has a non-finite parameter`, 'VALIDATION_FAILED', { branch: l, branch_index: l });
    }
    if (br.r === 0 && br.x === 0) {
      throw new PowerFlowInputError(`branch ${l + 1} (${br.from}-${br.to}) has zero impedance (r = x = 0)`, 'VALIDATION_FAILED', {
        branch: l,
        branch_index: l,
      });
    }
    brF[nl] = f; brT[nl] = t; brOrder[nl] = l;
    nl++;
  }

  // ---- generators and loads in service
  const genOrder = new Int32Array(gens.length), genBus = new Int32Array(gens.length);
  let ng = 0;
  for (let g = 0; g < gens.length; g++) {
    const gen = gens[g]!;
    const p = position(gen.bus);
    if (p < 0) missing(gen.bus, `generator ${g + 1}`);
    const i = busIndex[p]!;
    if (!gen.in_service || i < 0) continue;
    if (!Number.isFinite(gen.mw) || !Number.isFinite(gen.mvar) || !Number.isFinite(gen.vg)) {
      throw new PowerFlowInputError(`generator ${g + 1} at bus ${gen.bus} has a non-finite mw, mvar or vg`, 'VALIDATION_FAILED', {
        generator: g,
        generator_index: g,
      });
    }
    genOrder[ng] = g; genBus[ng] = i;
    ng++;
  }
  const busLoadP = new Float64Array(nBusAll), busLoadQ = new Float64Array(nBusAll);
  for (let k = 0; k < loads.length; k++) {
    const ld = loads[k]!;
    const p = position(ld.bus);
    if (p < 0) missing(ld.bus, `load ${k + 1}`);
    if (!ld.in_service) continue;
    if (!Number.isFinite(ld.mw) || !Number.isFinite(ld.mvar ?? 0)) {
      throw new PowerFlowInputError(`load ${k + 1} at bus ${ld.bus} has a non-finite mw or mvar`, 'VALIDATION_FAILED', { load: k, load_index: k });
    }
    busLoadP[p] += ld.mw;
    busLoadQ[p] += ld.mvar ?? 0;
  }
  return {
    nb, nl, ng, busIndex, busOrder,
    branchOrder: brOrder.slice(0, nl), branchFrom: brF.slice(0, nl), branchTo: brT.slice(0, nl),
    genOrder: genOrder.slice(0, ng), genBus: genBus.slice(0, ng),
    busLoadP, busLoadQ, position,
  };
}
