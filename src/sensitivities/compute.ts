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
import { SENSITIVITY_CHUNK_VALUES } from '../engine/solverInstance.js';
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

/** Bounds (CONTRACT "Bounded work", docs/security.md "Bounds on work"). An answer (JSON or CSV) may carry this
 *  many entries (CONTRACT); more: select rows, in parts. */
export const MAX_SYNC_ENTRIES = 10_000_000;
/** Values the core may compute for one synchronous answer (every solve's vector: a PTDF row has a value per bus,
 *  a PTDF column or an outage's flow shift one per branch): about 5 s of one solver thread on case9241pegase. */
export const MAX_SYNC_COMPUTED = 40_000_000;
/** The same for an asynchronous matrix (a task on the queue). */
export const MAX_ASYNC_COMPUTED = 120_000_000;

/** Limits of one request: the entries answered, the values computed, and the door named in the advice. */
export interface SensitivityLimits {
  maxEntries?: number;
  maxComputed?: number;
  door?: string;
}

function invalid(field: string, message: string): never {
  throw new AppError('INVALID_FIELD', `${field}: ${message}`, { field });
}

/** A list of indexes with each one once: a repeated index is refused (the answer has a row or column per entry). */
function refuseRepeats(list: number[], field: string, what: string): void {
  const first = new Map<number, number>();
  list.forEach((x, k) => {
    const at = first.get(x);
    if (at !== undefined) invalid(`${field}[${k}]`, `${what} ${x} is listed twice (also at ${field}[${at}]): name each once`);
    first.set(x, k);
  });
}

/** Resolved rows and columns of a request against the network (every problem named as INVALID_FIELD). */
export function sensitivityShape(network: NetworkModel, req: SensitivityRequest): { rows: number[]; columns: number[] } {
  const nl = network.branches.length;
  const branchList = (list: number[] | undefined, field: string, inService: boolean): number[] | undefined => {
    if (list === undefined) return undefined;
    if (list.length === 0) invalid(field, 'the list is empty: leave it out for every in-service branch');
    list.forEach((l, k) => {
      if (!Number.isInteger(l) || l < 0 || l >= nl)
        invalid(`${field}[${k}]`, `branch index ${l} does not exist (the network has ${nl}, indexes 0 to ${nl - 1})`);
      if (inService && network.branches[l]!.status !== 'closed')
        invalid(`${field}[${k}]`, `branch ${l} is out of service: its outage changes nothing`);
    });
    refuseRepeats(list, field, 'branch');
    return list;
  };
  const rows = branchList(req.branches, 'branches', false) ?? network.branches.flatMap((b, l) => (b.status === 'closed' ? [l] : []));
  if (req.kind === 'ptdf') {
    if (req.outages !== undefined) invalid('outages', 'names LODF columns; a PTDF has buses as columns');
    const ids = new Set(network.buses.map((b) => b.id));
    if (req.buses !== undefined) {
      if (req.buses.length === 0) invalid('buses', 'the list is empty: leave it out for every bus');
      req.buses.forEach((id, k) => {
        if (!ids.has(id)) invalid(`buses[${k}]`, `bus ${id} does not exist`);
      });
      refuseRepeats(req.buses, 'buses', 'bus');
    }
    return { rows, columns: req.buses ?? network.buses.map((b) => b.id) };
  }
  if (req.buses !== undefined) invalid('buses', 'names PTDF columns; an LODF has outaged branches as columns');
  return { rows, columns: branchList(req.outages, 'outages', true) ?? rows.filter((l) => network.branches[l]!.status === 'closed') };
}

/** How a request is computed and what it costs, before anything is: a PTDF by rows (a solve per row, a value per
 *  bus each) or by columns (a solve per bus, a value per branch each), whichever computes fewer values; an LODF by
 *  outage columns (a solve per outage, a value per branch). Over a limit: 422 PARAM_OUT_OF_RANGE with advice. */
export function sensitivityPlan(
  network: NetworkModel,
  req: SensitivityRequest,
  limits: SensitivityLimits = {},
): { rows: number[]; columns: number[]; byColumns: boolean; computed: number } {
  const { rows, columns } = sensitivityShape(network, req);
  const entries = rows.length * columns.length;
  const maxEntries = limits.maxEntries ?? MAX_SYNC_ENTRIES;
  const door = limits.door ? ` ${limits.door}` : '';
  if (entries > maxEntries) {
    throw new AppError(
      'PARAM_OUT_OF_RANGE',
      `${rows.length} × ${columns.length} = ${entries} entries, more than ${maxEntries} in one answer${door}: `
        + 'select rows with "branches" (or columns); a larger matrix is asked for in parts',
      { entries, limit: maxEntries },
    );
  }
  const nb = network.buses.length;
  const closed = network.branches.reduce((n, b) => n + (b.status === 'closed' ? 1 : 0), 0);
  const inService = rows.reduce((n, l) => n + (network.branches[l]!.status === 'closed' ? 1 : 0), 0);
  const byRows = inService * nb,
    byColumns = columns.length * closed;
  const ptdfByColumns = req.kind === 'ptdf' && byColumns < byRows;
  const computed = req.kind === 'lodf' ? byColumns : Math.min(byRows, byColumns);
  const maxComputed = limits.maxComputed ?? MAX_SYNC_COMPUTED;
  if (computed > maxComputed) {
    const how =
      req.kind === 'lodf'
        ? `${columns.length} outages × ${closed} branches`
        : ptdfByColumns
          ? `${columns.length} buses × ${closed} branches`
          : `${inService} rows × ${nb} buses`;
    throw new AppError(
      'PARAM_OUT_OF_RANGE',
      `computing this matrix takes ${how} = ${computed} values, more than ${maxComputed}${door}: `
        + `select fewer ${req.kind === 'lodf' ? 'outages' : 'rows or buses'}, ask in parts`
        + `${limits.maxComputed === undefined || limits.maxComputed < MAX_ASYNC_COMPUTED ? ', or send "async": true' : ''}`,
      { computed, limit: maxComputed },
    );
  }
  return { rows, columns, byColumns: ptdfByColumns, computed };
}

/** The bridges of the network: closed branches whose outage splits it. */
export function networkBridges(network: NetworkModel): number[] {
  const pos = new Map(network.buses.map((b, k) => [b.id, k]));
  const closed = network.branches.flatMap((b, l) => (b.status === 'closed' && pos.has(b.from) && pos.has(b.to) ? [l] : []));
  const found = bridges(
    network.buses.length,
    closed.map((l) => pos.get(network.branches[l]!.from)!),
    closed.map((l) => pos.get(network.branches[l]!.to)!),
  );
  return found.map((e) => closed[e]!);
}

/** A computed matrix, read a row at a time (NaN for an LODF column of a bridge): the synchronous
 *  answer builds its JSON rows from it, an async task writes the rows to storage in batches. It holds the answer's
 *  entries only (8 bytes each), never the values computed on the way. */
export interface SensitivityMatrix {
  kind: SensitivityKind;
  rows: number[];
  columns: number[];
  bridges: number[];
  fillRow(r: number, out: Float64Array): void;
}

const aborted = (): Error => Object.assign(new Error('the sensitivities were cancelled'), { name: 'AbortError' });
const singular = () =>
  new PowerFlowInputError('the DC susceptance matrix is singular (a branch with zero reactance?)', 'VALIDATION_FAILED', {});

/** Items in chunks of at most SENSITIVITY_CHUNK_VALUES values, one core call each, one after the other: a thread
 *  holds no more than one chunk's memory, and other work reaches the threads between two chunks. */
async function inChunks(
  pool: SolverPool,
  input: Float64Array,
  kind: 0 | 1 | 2,
  items: number[],
  size: number,
  signal: AbortSignal | undefined,
  take: (first: number, out: Float64Array) => void,
): Promise<void> {
  const per = Math.max(1, Math.floor(SENSITIVITY_CHUNK_VALUES / Math.max(1, size)));
  for (let first = 0; first < items.length; first += per) {
    if (signal?.aborted) throw aborted();
    const ran = await pool.run('sensitivity', { input: input.slice(), kind, items: Float64Array.from(items.slice(first, first + per)) }, { signal });
    if (ran.stopped) throw aborted();
    if (ran.value === null) throw singular();
    take(first, ran.value);
  }
}

export async function sensitivityMatrix(
  pool: SolverPool,
  network: NetworkModel,
  req: SensitivityRequest,
  opts: SensitivityLimits & { signal?: AbortSignal } = {},
): Promise<SensitivityMatrix> {
  const { signal } = opts;
  const { rows, columns, byColumns } = sensitivityPlan(network, req, opts);
  const packed = packNetwork(network, { ...DEFAULT_SOLVE_OPTIONS, method: 'dc' }); // PowerFlowInputError: as a DC power flow
  const slot = new Int32Array(network.branches.length).fill(-1);
  packed.branchOrder.forEach((pos, l) => {
    slot[pos] = l;
  });
  const split = networkBridges(network);
  const nb = packed.nb,
    nl = packed.nl,
    C = columns.length;
  const values = new Float64Array(rows.length * C);
  const matrix = {
    kind: req.kind,
    rows,
    columns,
    bridges: split,
    fillRow: (r: number, v: Float64Array) => {
      v.set(values.subarray(r * C, (r + 1) * C));
    },
  };
  if (req.kind === 'ptdf') {
    const busPos = new Map(network.buses.map((b, k) => [b.id, k]));
    const colIdx = columns.map((id) => packed.busIndex[busPos.get(id)!]!); // internal bus, -1 when isolated (a 0 column)
    if (byColumns) {
      const buses = colIdx.flatMap((i, j) => (i >= 0 ? [j] : []));
      await inChunks(
        pool,
        packed.input,
        2,
        buses.map((j) => colIdx[j]!),
        nl,
        signal,
        (first, out) => {
          for (let k = 0; first + k < buses.length && k * nl < out.length; k++) {
            const j = buses[first + k]!;
            rows.forEach((l, r) => {
              const s = slot[l]!;
              if (s >= 0) values[r * C + j] = out[k * nl + s]!;
            });
          }
        },
      );
      return matrix;
    }
    const solved = rows.flatMap((l, r) => (slot[l]! >= 0 ? [r] : []));
    await inChunks(
      pool,
      packed.input,
      0,
      solved.map((r) => slot[rows[r]!]!),
      nb,
      signal,
      (first, out) => {
        for (let k = 0; first + k < solved.length && k * nb < out.length; k++) {
          const o = solved[first + k]! * C;
          for (let j = 0; j < C; j++) {
            const i = colIdx[j]!;
            if (i >= 0) values[o + j] = out[k * nb + i]!;
          }
        }
      },
    );
    return matrix;
  }
  // LODF(m, k) = shift(m) / (1 − shift(k)); the outaged branch itself −1 (MATPOWER's diagonal); a bridge's column NaN
  const bridge = new Set(split);
  const solved = columns.flatMap((c, j) => (bridge.has(c) ? [] : [j]));
  columns.forEach((c, j) => {
    if (bridge.has(c)) for (let r = 0; r < rows.length; r++) values[r * C + j] = Number.NaN;
  });
  await inChunks(
    pool,
    packed.input,
    1,
    solved.map((j) => slot[columns[j]!]!),
    nl,
    signal,
    (first, out) => {
      for (let k = 0; first + k < solved.length && k * nl < out.length; k++) {
        const j = solved[first + k]!,
          c = columns[j]!,
          o = k * nl;
        const denom = 1 - out[o + slot[c]!]!;
        rows.forEach((m, r) => {
          const im = slot[m]!;
          values[r * C + j] = m === c ? -1 : im < 0 ? 0 : out[o + im]! / denom;
        });
      }
    },
  );
  return matrix;
}

export async function computeSensitivities(
  pool: SolverPool,
  network: NetworkModel,
  req: SensitivityRequest,
  opts: SensitivityLimits & { signal?: AbortSignal } = {},
): Promise<SensitivityResult> {
  return matrixValues(await sensitivityMatrix(pool, network, req, opts));
}

/** The matrix as the answer's nested lists (a bridge column null). */
export function matrixValues(m: SensitivityMatrix): SensitivityResult {
  const buf = new Float64Array(m.columns.length);
  const values = m.rows.map((_, r) => {
    m.fillRow(r, buf);
    return Array.from(buf, (x) => (Number.isNaN(x) ? null : x));
  });
  return { kind: m.kind, rows: m.rows, columns: m.columns, values, bridges: m.bridges };
}
