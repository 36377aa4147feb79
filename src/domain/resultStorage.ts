// Stored results, their quota and their retention (#35 item 4, docs/security.md "Storage quota and retention").
//
// What a task stores (a power flow's or OPF's result and values, a sensitivity matrix's rows, a study's case rows)
// is counted in tasks.result_bytes as it is written (migration 016). A tenant's use is the sum over its tasks and
// counts against its quota result_storage_mb: the stores whose size the request chooses (an asynchronous matrix, a
// study) are checked before they are queued, with the size they will have, and again before each batch of rows is
// written; over the quota is 409 CONFLICT with details.quota, as for the other count quotas. A finished task is
// deleted with everything it stored by DELETE /tasks/{id}, or by the retention sweep RESULT_RETENTION_DAYS after it
// finished (default 30 days).
import type { Services } from '../services.js';
import type { Database, Queryable } from '../db/database.js';
import { AppError } from '../lib/errors.js';
import { getQuotas } from '../security/quotas.js';
import { envNumber } from '../lib/env.js';

export const MB = 1 << 20;
const FINISHED_SQL = `('completed', 'failed', 'cancelled')`;

/** Bytes of results the tenant's tasks store. */
export async function storedBytes(q: Queryable, tenantId: string): Promise<number> {
  const { rows } = await q.query<{ n: string | number | null }>(
    'SELECT sum(result_bytes) AS n FROM tasks WHERE tenant_id = $1 AND result_bytes > 0',
    [tenantId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Counts bytes a task has just stored (rows written outside the statement that finishes it). */
export async function addResultBytes(q: Queryable, taskId: string, bytes: number): Promise<void> {
  if (bytes > 0) await q.query('UPDATE tasks SET result_bytes = result_bytes + $2 WHERE id = $1', [taskId, Math.round(bytes)]);
}

/** Bytes a study case row is counted for besides its monitored values and violations (its fixed columns). */
export const CASE_ROW_BYTES = 64;
const CASE_ROW_SQL = `${CASE_ROW_BYTES} + coalesce(octet_length(monitored), 0) + coalesce(octet_length(violations::text), 0)
  + coalesce(octet_length(islanded::text), 0)`;

/** Counts the case rows [start, end) of a study just stored, on its task (in the storing transaction). */
export async function addStudyRowBytes(q: Queryable, taskId: string, studyId: string, start: number, end: number): Promise<void> {
  await q.query(
    `UPDATE tasks SET result_bytes = result_bytes + coalesce((SELECT sum(${CASE_ROW_SQL}) FROM study_cases
                 WHERE study_id = $2 AND case_index >= $3 AND case_index < $4), 0) WHERE id = $1`,
    [taskId, studyId, start, end],
  );
}

const mb = (bytes: number) => Math.round((bytes / MB) * 1000) / 1000;

/** Refuses storing `adding` more bytes when the tenant's results would pass result_storage_mb (409 CONFLICT with advice). */
export async function checkStorageQuota(s: Pick<Services, 'db' | 'security'>, tenantId: string, adding: number, what: string): Promise<void> {
  const quotas = await getQuotas(s, tenantId);
  const limit = quotas.result_storage_mb * MB;
  const used = await storedBytes(s.db, tenantId);
  if (used + adding <= limit) return;
  const days = resultRetentionSettings().retentionDays;
  throw new AppError(
    'CONFLICT',
    `tenant ${tenantId} stores ${mb(used)} MB of results and ${what} would add ${mb(adding)} MB,` +
      ` over its quota of ${quotas.result_storage_mb} MB` +
      ` (result_storage_mb): delete finished tasks whose results you have read (DELETE /api/v1/tasks/{id}), ask for fewer rows or cases,` +
      ` or ask an admin to raise result_storage_mb; results are removed ${days} days after their task finished`,
    {
      quota: 'result_storage_mb',
      limit_mb: quotas.result_storage_mb,
      used_bytes: used,
      needed_bytes: Math.round(adding),
      retention_days: days,
    },
  );
}

/** Deletes finished tasks and everything they stored (matrix rows by cascade, a study's rows with its study). Returns how many. */
export async function deleteFinishedTasks(q: Database, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return q.transaction(async (tx) => {
    await tx.query(`DELETE FROM studies WHERE task_id IN (SELECT id FROM tasks WHERE id = ANY($1::text[]) AND status IN ${FINISHED_SQL})`, [
      ids,
    ]);
    const { rowCount } = await tx.query(`DELETE FROM tasks WHERE id = ANY($1::text[]) AND status IN ${FINISHED_SQL}`, [ids]);
    return rowCount;
  });
}

export interface ResultRetentionSettings {
  /** Days a finished task and its results are kept after it finished. */
  retentionDays: number;
  /** Seconds between two sweeps of a process (0: no sweep). */
  intervalSeconds: number;
}

export function resultRetentionSettings(env: NodeJS.ProcessEnv = process.env): ResultRetentionSettings {
  const num = (name: string, dflt: number) => envNumber(env, name, dflt);
  return { retentionDays: num('RESULT_RETENTION_DAYS', 30), intervalSeconds: num('RESULT_PURGE_INTERVAL_SECONDS', 3600) };
}

/** Deletes the tasks that finished more than `retentionDays` ago with their results, 500 at a time. Returns how many. */
export async function purgeExpiredResults(
  s: Pick<Services, 'db'>,
  retentionDays = resultRetentionSettings().retentionDays,
  now = new Date(),
): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  let total = 0;
  for (;;) {
    const { rows } = await s.db.query<{ id: string }>(
      `SELECT id FROM tasks WHERE completed_at < $1 AND status IN ${FINISHED_SQL} ORDER BY completed_at LIMIT 500`,
      [cutoff],
    );
    total += await deleteFinishedTasks(
      s.db,
      rows.map((r) => r.id),
    );
    if (rows.length < 500) return total;
  }
}

export interface ResultRetention {
  stop(): void;
}

/** Starts this process's periodic sweep (every API and worker process may run it; deletes are idempotent). */
export function startResultRetention(s: Pick<Services, 'db' | 'log'>, settings = resultRetentionSettings()): ResultRetention {
  if (settings.intervalSeconds <= 0) return { stop() {} };
  const timer = setInterval(() => {
    purgeExpiredResults(s, settings.retentionDays).then(
      (n) => n > 0 && s.log.info({ deleted: n, retention_days: settings.retentionDays }, 'result retention sweep'),
      (err) => s.log.warn({ err }, 'result retention sweep failed; retrying at the next interval'),
    );
  }, settings.intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
