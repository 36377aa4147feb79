// PTDF / LODF of a stored network (CONTRACT "Sensitivities"): the model version as stored, computed on
// a solver thread of this process (src/sensitivities/compute.ts), or with async: true as a task (kind
// 'sensitivities', run by src/queue/sensitivities.ts on any solver) whose matrix is stored by rows and
// read back, streamed, from GET /tasks/{id}/export.
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { getModel } from './networks.js';
import { requirePermission } from '../security/index.js';
import { computeSensitivities, sensitivityShape, type SensitivityRequest, type SensitivityResult } from '../sensitivities/compute.js';
import { taskView, type TaskRow } from './tasks.js';
import { MAX_ASYNC_ENTRIES } from '../queue/sensitivities.js';
import { readSensitivityRows } from '../db/stores/sensitivityRows.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { checkStorageQuota } from './resultStorage.js';

export async function runSensitivities(s: Services, caller: Caller, networkId: string, req: SensitivityRequest & { async?: boolean }, limits: { maxEntries?: number; door?: string } = {}): Promise<SensitivityResult & { network_id: string; network_version: number }> {
  requirePermission(caller, 'compute');
  if (!s.solver) throw new AppError('SERVICE_UNAVAILABLE', 'this process has no solver threads (ROLE=api): sensitivities are computed by an API process with ROLE=all', { dependency: 'solver' });
  const { summary, model } = await getModel(s, caller, networkId);
  try {
    const r = await computeSensitivities(s.solver, model, req, limits);
    return { network_id: summary.id, network_version: summary.version, ...r };
  } catch (e) {
    if (e instanceof PowerFlowInputError) throw new AppError(e.code, e.message, e.details);
    throw e;
  }
}

/**
 * A large answer as JSON text in pieces (the envelope of reply.ok, one matrix row a piece), so writing
 * millions of numbers never holds the event loop for one long turn.
 */
export function* sensitivityJson(r: SensitivityResult & { network_id: string; network_version: number }, requestId: string): Generator<string> {
  const { values, ...head } = r;
  yield `{"data":${JSON.stringify(head).slice(0, -1)},"values":[`;
  for (let i = 0; i < values.length; i++) yield `${i ? ',' : ''}${JSON.stringify(values[i])}`;
  yield `]},"request_id":${JSON.stringify(requestId)},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
}

const csvHeader = (kind: 'ptdf' | 'lodf', columns: number[]) => `${kind === 'ptdf' ? 'branch' : 'branch\\outage'},${columns.map((c) => (kind === 'ptdf' ? `bus ${c}` : `branch ${c}`)).join(',')}\n`;
const csvLine = (row: number, values: (number | null)[]) => `${row},${values.map((v) => (v === null ? '' : String(v))).join(',')}\n`;

/** The matrix as CSV lines: a header (row, then the column names), then one line per row; a null is an empty cell. */
export function* sensitivityCsv(r: SensitivityResult): Generator<string> {
  yield csvHeader(r.kind, r.columns);
  for (let i = 0; i < r.rows.length; i++) yield csvLine(r.rows[i]!, r.values[i]!);
}

/** POST /networks/{id}/sensitivities with async: true: the request checked against the current
 *  version (indexes, size) at once, then queued as a task of kind 'sensitivities'. */
export async function submitSensitivities(s: Services, caller: Caller, networkId: string, req: SensitivityRequest): Promise<ReturnType<typeof taskView>> {
  requirePermission(caller, 'compute');
  const { summary, model } = await getModel(s, caller, networkId);
  const { rows, columns } = sensitivityShape(model, req);
  if (rows.length * columns.length > MAX_ASYNC_ENTRIES) {
    throw new AppError('PARAM_OUT_OF_RANGE', `${rows.length} × ${columns.length} = ${rows.length * columns.length} entries, more than ${MAX_ASYNC_ENTRIES} in one asynchronous matrix: select rows with "branches" (or columns) and ask in parts`, { entries: rows.length * columns.length, limit: MAX_ASYNC_ENTRIES });
  }
  // stored as float64 rows: refused at once when the tenant's stored results would pass its quota
  await checkStorageQuota(s, caller.tenantId, rows.length * columns.length * 8, `this ${rows.length} × ${columns.length} matrix`);
  const options = { kind: req.kind, ...(req.branches ? { branches: req.branches } : {}), ...(req.buses ? { buses: req.buses } : {}), ...(req.outages ? { outages: req.outages } : {}) };
  const task = await s.tasks.submitWith(caller, networkId, summary.version, 'sensitivities', options, async () => {});
  return taskView(task);
}

type MatrixHeader = { kind: 'ptdf' | 'lodf'; rows: number[]; columns: number[]; bridges: number[]; network_id: string; network_version: number; entries: number };

/** Matrices up to this many entries come inline with GET /tasks/{id}?include=result; larger ones from values_url. */
export const INLINE_ENTRIES = 100_000;
const READ_ROWS_BYTES = 8 << 20;

/** The rows of a completed sensitivities task, read back in order in batches. */
async function* storedRows(s: Services, t: TaskRow): AsyncGenerator<(number | null)[]> {
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
export async function sensitivityTaskResult(s: Services, t: TaskRow): Promise<Record<string, unknown> | null> {
  if (t.status !== 'completed' || !t.result) return t.result;
  const h = t.result as unknown as MatrixHeader;
  if (h.entries > INLINE_ENTRIES) return t.result;
  const values: (number | null)[][] = [];
  for await (const row of storedRows(s, t)) values.push(row);
  return { ...t.result, values };
}

/** GET /tasks/{id}/export of a sensitivities task: the matrix streamed as CSV or as the synchronous answer's JSON. */
export function sensitivityTaskExport(s: Services, t: TaskRow, format: 'csv' | 'json', requestId: string): { contentType: string; filename: string; stream: AsyncIterable<string> } {
  if (t.status !== 'completed' || !t.result) {
    throw new AppError('CONFLICT', `task ${t.id} is ${t.status}; its matrix can be read once it has completed`, { task_id: t.id, status: t.status });
  }
  const h = t.result as unknown as MatrixHeader;
  const rows = storedRows(s, t);
  if (format === 'csv') {
    return {
      contentType: 'text/csv; charset=utf-8', filename: `${h.kind}-${t.id}.csv`,
      stream: (async function* () {
        yield csvHeader(h.kind, h.columns);
        let i = 0;
        for await (const v of rows) yield csvLine(h.rows[i++]!, v);
      })(),
    };
  }
  const head = { network_id: h.network_id, network_version: h.network_version, kind: h.kind, rows: h.rows, columns: h.columns, bridges: h.bridges };
  return {
    contentType: 'application/json; charset=utf-8', filename: `${h.kind}-${t.id}.json`,
    stream: (async function* () {
      yield `{"data":${JSON.stringify(head).slice(0, -1)},"values":[`;
      let i = 0;
      for await (const v of rows) yield `${i++ ? ',' : ''}${JSON.stringify(v)}`;
      yield `]},"request_id":${JSON.stringify(requestId)},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
    })(),
  };
}
