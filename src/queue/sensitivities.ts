// Running an asynchronous PTDF / LODF task (kind 'sensitivities', src/domain/sensitivities.ts): the
// network version's matrix on this process's solver pool, its rows stored in batches as they are
// read out (src/db/stores/sensitivityRows.ts), then the task completed with the matrix's header as
// its result. The rows are read back, streamed, by GET /tasks/{id}/export (format csv or json).
import type { Services } from '../services.js';
import type { StoredTaskRow, TaskRow } from '../domain/tasks.js';
import { taskFromRow } from '../domain/tasks.js';
import { MAX_ASYNC_COMPUTED, sensitivityMatrix, type SensitivityLimits, type SensitivityRequest } from '../sensitivities/compute.js';
import { SolverCoreError } from '../engine/coreFailure.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { AppError } from '../lib/errors.js';
import { deleteSensitivityRows, insertSensitivityRows } from '../db/stores/sensitivityRows.js';
import { announceFinished, cachedModel } from './execute.js';
import { addResultBytes, checkStorageQuota } from '../domain/resultStorage.js';

/** Entries an asynchronous matrix may have (25 M: 200 MB of float64 stored); more: ask in parts. */
export const MAX_ASYNC_ENTRIES = 25_000_000;
/** The bounds of an asynchronous matrix, checked when it is submitted and again when it runs. */
export const ASYNC_LIMITS: SensitivityLimits = { maxEntries: MAX_ASYNC_ENTRIES, maxComputed: MAX_ASYNC_COMPUTED, door: 'asynchronously' };
/** Bytes of rows per INSERT. */
const BATCH_BYTES = 4 << 20;

type Failure = { code: string; message: string; details?: Record<string, unknown> };

export async function runSensitivitiesTask(s: Services, task: TaskRow, signal: AbortSignal): Promise<void> {
  const req = task.options as unknown as SensitivityRequest;
  const started = performance.now();
  let failure: Failure | null = null;
  let header: Record<string, unknown> | null = null;
  try {
    const model = await cachedModel(s, task.network_id, task.network_version);
    const m = await sensitivityMatrix(s.solver!, model, req, { ...ASYNC_LIMITS, signal });
    const perBatch = Math.max(1, Math.floor(BATCH_BYTES / Math.max(8, 8 * m.columns.length)));
    for (let first = 0; first < m.rows.length; first += perBatch) {
      if (signal.aborted) break; // cancelled: the cancel finished the task; the rows go below
      const batch: Float64Array[] = [];
      for (let r = first; r < Math.min(m.rows.length, first + perBatch); r++) {
        const v = new Float64Array(m.columns.length);
        m.fillRow(r, v);
        batch.push(v);
      }
      // the tenant's storage quota, checked before each batch is stored (other tasks store meanwhile)
      const bytes = batch.length * 8 * m.columns.length;
      await checkStorageQuota(s, task.tenant_id, bytes, `the rest of matrix ${task.id}`);
      await insertSensitivityRows(s.db, task.id, first, batch);
      await addResultBytes(s.db, task.id, bytes);
    }
    if (signal.aborted) {
      await deleteSensitivityRows(s.db, task.id);
      return;
    }
    header = {
      task_id: task.id, network_id: task.network_id, network_version: task.network_version, kind: m.kind,
      rows: m.rows, columns: m.columns, bridges: m.bridges, entries: m.rows.length * m.columns.length,
      duration_ms: Math.round(performance.now() - started), started_at: task.started_at, completed_at: new Date().toISOString(),
      values_url: `/api/v1/tasks/${task.id}/export?format=json`,
    };
  } catch (e) {
    if ((e as Error).name === 'AbortError' || signal.aborted) {
      await deleteSensitivityRows(s.db, task.id);
      return;
    }
    if (e instanceof PowerFlowInputError || e instanceof AppError) {
      failure = { code: e.code, message: e.message, details: e.details as Record<string, unknown> };
    } else if (e instanceof SolverCoreError) {
      // the core's own words stay in the log; the task says what happened
      s.log.error({ task: task.id, work: e.work, core: e.detail }, 'solver core failure');
      failure = { code: 'INTERNAL_ERROR', message: e.message, details: { reason: 'solver_core_failure' } };
    } else {
      s.log.error({ err: e, task: task.id }, 'sensitivities failed');
      failure = { code: 'INTERNAL_ERROR', message: 'the sensitivities failed on an internal error (logged with the task id)' };
    }
  }
  const status = failure ? 'failed' : 'completed';
  if (failure) await deleteSensitivityRows(s.db, task.id); // a failed matrix (over the storage quota too) keeps no rows
  const { rows } = await s.db.query<StoredTaskRow>(
    `UPDATE tasks SET status = $2, result = $3::jsonb, error = $4, completed_at = now(),
       result_bytes = CASE WHEN $3::jsonb IS NULL THEN 0 ELSE result_bytes + octet_length($3::jsonb::text) END
     WHERE id = $1 AND status = 'running' RETURNING *`,
    [task.id, status, header === null ? null : JSON.stringify(header), failure === null ? null : JSON.stringify(failure)]);
  if (rows[0]) await announceFinished(s, taskFromRow(rows[0]));
  else await deleteSensitivityRows(s.db, task.id); // cancelled meanwhile: nothing will read them
}
