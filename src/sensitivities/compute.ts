// PTDF and LODF of a network (CONTRACT "Sensitivities"), as MATPOWER's makePTDF and makeLODF: the DC
// model packed as a DC power flow (src/powerflow/pack.ts: the same internal numbering, references and
// islands), the numbers from the core on a solver thread (assembly/sensitivity.ts: one factorisation of
// the reduced Bbus, one solve per requested row or outage column), bridges by Tarjan's search over the
// closed branches (src/lib/graph.ts). Elements are named as studies name them: branches by their
// 0-based position, buses by their id.
import type { NetworkModel } from '../domain/networkModel.js';
import type { SolverPool } from '../engine/pool.js';
import { packNetwork } from '../powerflow/pack.js';
import { DEFAULT_SOLVE_OPTIONS, PowerFlowInputError } from '../powerflow/types.js';
import { bridges } from '../lib/graph.js';
import { AppError } from '../lib/errors.js';
import type { Static } from '@sinclair/typebox';
import type { SensitivityIn } from '../schemas/sensitivities.js';

export type SensitivityKind = 'ptdf' | 'lodf';

/** POST /networks/{id}/sensitivities's body (src/schemas/sensitivities.ts) but `async`: rows are branch positions
 *  (default every in-service branch), PTDF columns bus ids (default every bus), LODF columns outaged branch
 *  positions (default the rows). */
export type SensitivityRequest = Omit<Static<typeof SensitivityIn>, 'async'>;

export interface SensitivityResult {
  kind: SensitivityKind;
  rows: number[];
  columns: number[];
  /** row-major, MW per MW; an LODF column of a bridge is null in every row */
  values: (number | null)[][];
  bridges: number[];
}

/** An answer (JSON or CSV) may carry this many entries (CONTRACT); more: select rows, in parts. */
export const MAX_SYNC_ENTRIES = 10_000_000;

function invalid(field: string, message: string): never {
  throw new AppError('INVALID_FIELD', `${field}: ${message}`, { field });
}

/** Resolved rows and columns of a request against the network (every problem named as INVALID_FIELD). */
export function sensitivityShape(network: NetworkModel, req: SensitivityRequest): { rows: number[]; columns: number[] } {
  const nl = network.branches.length;
  const branchList = (list: number[] | undefined, field: string, inService: boolean): number[] | undefined => {
    if (list === undefined) return undefined;
    if (list.length === 0) invalid(field, 'the list is empty: leave it out for every in-service branch');
    list.forEach((l, k) => {
      if (!Number.isInteger(l) || l < 0 || l >= nl) invalid(`${field}[${k}]`, `branch index ${l} does not exist (the network has ${nl}, indexes 0 to ${nl - 1})`);
      if (inService && network.branches[l]!.status !== 'closed') invalid(`${field}[${k}]`, `branch ${l} is out of service: its outage changes nothing`);
    });
    return list;
  };
  const rows = branchList(req.branches, 'branches', false) ?? network.branches.flatMap((b, l) => (b.status === 'closed' ? [l] : []));
  if (req.kind === 'ptdf') {
    if (req.outages !== undefined) invalid('outages', 'names LODF columns; a PTDF has buses as columns');
    const ids = new Set(network.buses.map((b) => b.id));
    if (req.buses !== undefined) {
      if (req.buses.length === 0) invalid('buses', 'the list is empty: leave it out for every bus');
      req.buses.forEach((id, k) => { if (!ids.has(id)) invalid(`buses[${k}]`, `bus ${id} does not exist`); });
    }
    return { rows, columns: req.buses ?? network.buses.map((b) => b.id) };
  }
  if (req.buses !== undefined) invalid('buses', 'names PTDF columns; an LODF has outaged branches as columns');
  return { rows, columns: branchList(req.outages, 'outages', true) ?? rows.filter((l) => network.branches[l]!.status === 'closed') };
}

/** The bridges of the network: closed branches whose outage splits it. */
export function networkBridges(network: NetworkModel): number[] {
  const pos = new Map(network.buses.map((b, k) => [b.id, k]));
  const closed = network.branches.flatMap((b, l) => (b.status === 'closed' && pos.has(b.from) && pos.has(b.to) ? [l] : []));
  const found = bridges(network.buses.length, closed.map((l) => pos.get(network.branches[l]!.from)!), closed.map((l) => pos.get(network.branches[l]!.to)!));
  return found.map((e) => closed[e]!);
}

/** A computed matrix, read a row at a time (NaN for an LODF column of a bridge): the synchronous
 *  answer builds its JSON rows from it, an async task writes the rows to storage in batches. */
export interface SensitivityMatrix {
  kind: SensitivityKind;
  rows: number[];
  columns: number[];
  bridges: number[];
  fillRow(r: number, out: Float64Array): void;
}

export async function sensitivityMatrix(pool: SolverPool, network: NetworkModel, req: SensitivityRequest, opts: { signal?: AbortSignal; maxEntries?: number; door?: string } = {}): Promise<SensitivityMatrix> {
  const { signal } = opts;
  const limit = opts.maxEntries ?? MAX_SYNC_ENTRIES;
  const { rows, columns } = sensitivityShape(network, req);
  if (rows.length * columns.length > limit) {
    throw new AppError('PARAM_OUT_OF_RANGE', `${rows.length} × ${columns.length} = ${rows.length * columns.length} entries, more than ${limit} in one answer${opts.door ? ` ${opts.door}` : ''}: select rows with "branches" (or columns); a larger matrix is asked for in parts`, { entries: rows.length * columns.length, limit });
  }
  const packed = packNetwork(network, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' }); // PowerFlowInputError: as a DC power flow
  const slot = new Int32Array(network.branches.length).fill(-1);
  packed.branchOrder.forEach((pos, l) => { slot[pos] = l; });
  const split = networkBridges(network);
  const nb = packed.nb, nl = packed.nl;
  if (req.kind === 'ptdf') {
    const solved = rows.filter((l) => slot[l]! >= 0);
    const out = solved.length ? await pool.runSensitivity(packed.input.slice(), 0, Float64Array.from(solved, (l) => slot[l]!), signal) : new Float64Array(0);
    if (out === null) throw new PowerFlowInputError('the DC susceptance matrix is singular (a branch with zero reactance?)', 'VALIDATION_FAILED', {});
    const at = new Map(solved.map((l, k) => [l, k]));
    const busPos = new Map(network.buses.map((b, k) => [b.id, k]));
    const colIdx = columns.map((id) => packed.busIndex[busPos.get(id)!]!);
    return {
      kind: 'ptdf', rows, columns, bridges: split,
      fillRow(r, v) {
        const k = at.get(rows[r]!);
        for (let j = 0; j < colIdx.length; j++) { const i = colIdx[j]!; v[j] = k === undefined || i < 0 ? 0 : out[k * nb + i]!; }
      },
    };
  }
  const bridge = new Set(split);
  const solved = columns.filter((l) => !bridge.has(l));
  const out = solved.length ? await pool.runSensitivity(packed.input.slice(), 1, Float64Array.from(solved, (l) => slot[l]!), signal) : new Float64Array(0);
  if (out === null) throw new PowerFlowInputError('the DC susceptance matrix is singular (a branch with zero reactance?)', 'VALIDATION_FAILED', {});
  const at = new Map(solved.map((l, k) => [l, k]));
  // LODF(m, k) = shift(m) / (1 − shift(k)); the outaged branch itself −1 (MATPOWER's diagonal).
  const colOff = columns.map((c) => { const k = at.get(c); return k === undefined ? -1 : k * nl; });
  const denom = columns.map((c, j) => (colOff[j]! < 0 ? 1 : 1 - out[colOff[j]! + slot[c]!]!));
  return {
    kind: 'lodf', rows, columns, bridges: split,
    fillRow(r, v) {
      const m = rows[r]!, im = slot[m]!;
      for (let j = 0; j < columns.length; j++) {
        const o = colOff[j]!;
        v[j] = o < 0 ? Number.NaN : m === columns[j] ? -1 : im < 0 ? 0 : out[o + im]! / denom[j]!;
      }
    },
  };
}

export async function computeSensitivities(pool: SolverPool, network: NetworkModel, req: SensitivityRequest, opts: { signal?: AbortSignal; maxEntries?: number; door?: string } = {}): Promise<SensitivityResult> {
  const m = await sensitivityMatrix(pool, network, req, opts);
  const buf = new Float64Array(m.columns.length);
  const values = m.rows.map((_, r) => {
    m.fillRow(r, buf);
    return Array.from(buf, (x) => (Number.isNaN(x) ? null : x));
  });
  return { kind: m.kind, rows: m.rows, columns: m.columns, values, bridges: m.bridges };
}
