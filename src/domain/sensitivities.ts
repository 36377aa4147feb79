// PTDF / LODF of a stored network (CONTRACT "Sensitivities"): the model version as stored, computed on
// a solver thread of this process (src/sensitivities/compute.ts), or with async: true as a task (kind
// 'sensitivities', run by src/queue/sensitivities.ts on any solver) whose matrix is stored by rows and
// read back, streamed, from GET /tasks/{id}/export.
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { getModel } from './networks.js';
import { requirePermission } from '../security/index.js';
import {
  matrixValues, sensitivityMatrix, sensitivityPlan,
  type SensitivityLimits, type SensitivityMatrix, type SensitivityRequest, type SensitivityResult,
} from '../sensitivities/compute.js';
import { taskView, type TaskRow } from './tasks.js';
import { ASYNC_LIMITS } from '../queue/sensitivities.js';
import { SolverCoreError } from '../engine/coreFailure.js';
import { readSensitivityRows } from '../db/stores/sensitivityRows.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { checkStorageQuota } from './resultStorage.js';
import { inSlices } from '../lib/slices.js';

type Stored = { network_id: string; network_version: number };

/** The matrix of a stored network version, computed on this process's solver threads within the request's limits
 *  (src/sensitivities/compute.ts sensitivityPlan: entries answered, values computed). A failure of the core is a
 *  500 INTERNAL_ERROR that names none of its internals (logged with them). */
export async function runSensitivityMatrix(
  s: Pick<Services, 'db' | 'log' | 'solver'>, caller: Caller, networkId: string, req: SensitivityRequest, limits: SensitivityLimits = {},
): Promise<Stored & { matrix: SensitivityMatrix }> {
  requirePermission(caller, 'compute');
  const { summary, model } = await getModel(s, caller, networkId);
  try {
    const only = { kind: req.kind, branches: req.branches, buses: req.buses, outages: req.outages };
    if (!s.solver) {
      sensitivityPlan(model, only, limits); // a bad request is the same 4xx on every process
      throw new AppError('SERVICE_UNAVAILABLE', 'this process has no solver threads (ROLE=api): ask asynchronously ("async": true, '
        + 'computed by the workers) or send synchronous matrices to an API process with ROLE=all', { dependency: 'solver' });
    }
    const matrix = await sensitivityMatrix(s.solver, model, only, limits);
    return { network_id: summary.id, network_version: summary.version, matrix };
  } catch (e) {
    throw publicError(s, e);
  }
}

/** What a caller may be told of a failure: input problems as the doors' 4xx, a core failure without its internals. */
export function publicError(s: Pick<Services, 'log'>, e: unknown): unknown {
  if (e instanceof PowerFlowInputError) return new AppError(e.code, e.message, e.details);
  if (e instanceof SolverCoreError) {
    s.log.error({ work: e.work, core: e.detail }, 'solver core failure');
    return new AppError('INTERNAL_ERROR', e.message, { reason: 'solver_core_failure' });
  }
  return e;
}

export async function runSensitivities(
  s: Pick<Services, 'db' | 'log' | 'solver'>, caller: Caller, networkId: string, req: SensitivityRequest, limits: SensitivityLimits = {},
): Promise<SensitivityResult & Stored> {
  return sensitivityAnswer(await runSensitivityMatrix(s, caller, networkId, req, limits));
}

/** The answer's object: the version, then the matrix as nested lists. */
export function sensitivityAnswer(r: Stored & { matrix: SensitivityMatrix }): SensitivityResult & Stored {
  return { network_id: r.network_id, network_version: r.network_version, ...matrixValues(r.matrix) };
}

/** One row's values as the answer carries them (a bridge column null). */
function rowValues(m: SensitivityMatrix, r: number, buf: Float64Array): (number | null)[] {
  m.fillRow(r, buf);
  return Array.from(buf, (x) => (Number.isNaN(x) ? null : x));
}

/** What a matrix answer says before its values: the version, the kind, the row and column names, the bridges. */
export type MatrixHead = Stored & { kind: 'ptdf' | 'lodf'; rows: number[]; columns: number[]; bridges: number[] };
type RowValues = (number | null)[];

/** The head of a matrix computed here (the synchronous answer). */
export function matrixHead(r: Stored & { matrix: SensitivityMatrix }): MatrixHead {
  const m = r.matrix;
  return { network_id: r.network_id, network_version: r.network_version, kind: m.kind, rows: m.rows, columns: m.columns, bridges: m.bridges };
}

/** The rows of a matrix computed here, one at a time (each converted as it is written). */
export function* matrixRows(m: SensitivityMatrix): Generator<RowValues> {
  const buf = new Float64Array(m.columns.length);
  for (let i = 0; i < m.rows.length; i++) yield rowValues(m, i, buf);
}

/**
 * A matrix as JSON text in pieces (the envelope of reply.ok, one row a piece), so writing millions of
 * numbers never holds the event loop for one long turn.
 */
async function* sensitivityJson(
  head: MatrixHead,
  rows: Iterable<RowValues> | AsyncIterable<RowValues>,
  requestId: string,
): AsyncGenerator<string> {
  const h = {
    network_id: head.network_id,
    network_version: head.network_version,
    kind: head.kind,
    rows: head.rows,
    columns: head.columns,
    bridges: head.bridges,
  };
  yield `{"data":${JSON.stringify(h).slice(0, -1)},"values":[`;
  let i = 0;
  for await (const v of rows) yield `${i++ ? ',' : ''}${JSON.stringify(v)}`;
  yield `]},"request_id":${JSON.stringify(requestId)},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
}

const csvHeader = (kind: 'ptdf' | 'lodf', columns: number[]) =>
  `${kind === 'ptdf' ? 'branch' : 'branch\\outage'},${columns.map((c) => (kind === 'ptdf' ? `bus ${c}` : `branch ${c}`)).join(',')}\n`;
const csvLine = (row: number, values: RowValues) => `${row},${values.map((v) => (v === null ? '' : String(v))).join(',')}\n`;

/** A matrix as CSV lines: a header (row, then the column names), then one line per row; a null is an empty cell. */
export async function* sensitivityCsv(
  head: Pick<MatrixHead, 'kind' | 'rows' | 'columns'>,
  rows: Iterable<RowValues> | AsyncIterable<RowValues>,
): AsyncGenerator<string> {
  yield csvHeader(head.kind, head.columns);
  let i = 0;
  for await (const v of rows) yield csvLine(head.rows[i++]!, v);
}

/** A matrix streamed as CSV or as the synchronous answer's JSON, in slices: the one writer of both the synchronous
 *  answer (POST /networks/{id}/sensitivities, rows computed here) and a task's export (rows read back). */
export function sensitivityStream(head: MatrixHead, rows: Iterable<RowValues> | AsyncIterable<RowValues>, format: 'csv' | 'json', requestId: string):
  { contentType: string; stream: AsyncIterable<string> } {
  return format === 'csv'
    ? { contentType: 'text/csv; charset=utf-8', stream: inSlices(sensitivityCsv(head, rows)) }
    : { contentType: 'application/json; charset=utf-8', stream: inSlices(sensitivityJson(head, rows, requestId)) };
}

/** POST /networks/{id}/sensitivities with async: true: the request checked against the current
 *  version (indexes, size) at once, then queued as a task of kind 'sensitivities'. */
export async function submitSensitivities(
  s: Pick<Services, 'db' | 'security' | 'tasks'>,
  caller: Caller,
  networkId: string,
  req: SensitivityRequest,
): Promise<ReturnType<typeof taskView>> {
  requirePermission(caller, 'compute');
  const { summary, model } = await getModel(s, caller, networkId);
  const { rows, columns } = sensitivityPlan(model, req, ASYNC_LIMITS);
  // stored as float64 rows: refused at once when the tenant's stored results would pass its quota
  await checkStorageQuota(s, caller.tenantId, rows.length * columns.length * 8, `this ${rows.length} × ${columns.length} matrix`);
  const options = {
    kind: req.kind,
    ...(req.branches ? { branches: req.branches } : {}),
    ...(req.buses ? { buses: req.buses } : {}),
    ...(req.outages ? { outages: req.outages } : {}),
  };
  const task = await s.tasks.submitWith(caller, networkId, summary.version, 'sensitivities', options, async () => {});
  return taskView(task);
}

/** A sensitivities task's stored result: the matrix head and its size (the rows are stored apart). */
type MatrixHeader = MatrixHead & { entries: number };

/** Matrices up to this many entries come inline with GET /tasks/{id}?include=result; larger ones from values_url. */
export const INLINE_ENTRIES = 100_000;
const READ_ROWS_BYTES = 8 << 20;

/** The rows of a completed sensitivities task, read back in order in batches. */
async function* storedRows(s: Pick<Services, 'db'>, t: TaskRow): AsyncGenerator<(number | null)[]> {
  const h = t.result as unknown as MatrixHeader;
  const batch = Math.max(1, Math.floor(READ_ROWS_BYTES / Math.max(8, 8 * h.columns.length)));
  for (let after = -1; ;) {
    const rows = await readSensitivityRows(s.db, t.id, after, batch);
    for (const r of rows) yield Array.from(r.values, (x) => (Number.isNaN(x) ? null : x));
    if (rows.length < batch) return;
    after = rows[rows.length - 1]!.row_index;
  }
}

/** A completed sensitivities task's result for include=result: the header, with the values when small. */
export async function sensitivityTaskResult(s: Pick<Services, 'db'>, t: TaskRow): Promise<Record<string, unknown> | null> {
  if (t.status !== 'completed' || !t.result) return t.result;
  const h = t.result as unknown as MatrixHeader;
  if (h.entries > INLINE_ENTRIES) return t.result;
  const values: (number | null)[][] = [];
  for await (const row of storedRows(s, t)) values.push(row);
  return { ...t.result, values };
}

/** GET /tasks/{id}/export of a sensitivities task: the matrix streamed as CSV or as the synchronous answer's JSON. */
export function sensitivityTaskExport(
  s: Pick<Services, 'db'>,
  t: TaskRow,
  format: 'csv' | 'json',
  requestId: string,
): { contentType: string; filename: string; stream: AsyncIterable<string> } {
  if (t.status !== 'completed' || !t.result) {
    throw new AppError('CONFLICT', `task ${t.id} is ${t.status}; its matrix can be read once it has completed`, { task_id: t.id, status: t.status });
  }
  const h = t.result as unknown as MatrixHeader;
  return { ...sensitivityStream(h, storedRows(s, t), format, requestId), filename: `${h.kind}-${t.id}.${format}` };
}
