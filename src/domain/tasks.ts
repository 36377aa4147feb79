// Task records: how a power-flow task looks to clients, and the SQL that moves it.
import type { Queryable } from '../db/database.js';
import type { Caller } from './caller.js';
import { notFound } from '../lib/errors.js';
import { decodeResultValues } from '../powerflow/resultValues.js';

/** Internal states; 'dispatched' (handed to a solver, not started) shows as queued. */
export type TaskState = 'queued' | 'dispatched' | 'running' | 'completed' | 'failed' | 'cancelled';
export type TaskStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface TaskRow {
  id: string;
  seq: number;
  tenant_id: string;
  network_id: string;
  network_version: number;
  kind: string;
  status: TaskState;
  options: Record<string, unknown>;
  progress: { iteration: number; max_iterations: number; mismatch: number; updated_at?: string } | null;
  result: Record<string, unknown> | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  attempts: number;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export const FINISHED: readonly TaskState[] = ['completed', 'failed', 'cancelled'];

export function publicStatus(s: TaskState): TaskStatus {
  return s === 'dispatched' ? 'queued' : s;
}

export function taskView(t: TaskRow) {
  return {
    task_id: t.id,
    network_id: t.network_id,
    network_version: t.network_version,
    kind: t.kind,
    status: publicStatus(t.status),
    poll_url: `/api/v1/tasks/${t.id}`,
    options: t.options,
    progress: t.progress,
    result: t.result,
    error: t.error,
    attempts: t.attempts,
    created_at: new Date(t.created_at),
    started_at: t.started_at ? new Date(t.started_at) : null,
    completed_at: t.completed_at ? new Date(t.completed_at) : null,
  };
}

/** A tasks row as stored (SELECT * / RETURNING *): the result's values may be in binary beside it. */
export type StoredTaskRow = TaskRow & { result_values?: Uint8Array | null };

/**
 * The task of a stored row, its result whole: the values stored in binary
 * (tasks.result_values, src/powerflow/resultValues.ts) rejoin the JSON header, in the
 * order the result has always had (buses, branches and generators before losses).
 */
export function taskFromRow(row: StoredTaskRow): TaskRow {
  const { result_values: values, ...task } = row;
  if (!values || !task.result) return task;
  const arrays = decodeResultValues(values);
  const result: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(task.result)) {
    if (k === 'losses') Object.assign(result, arrays);
    result[k] = v;
  }
  if (!('buses' in result)) Object.assign(result, arrays);
  task.result = result;
  return task;
}

export async function findTask(q: Queryable, caller: Caller, id: string): Promise<TaskRow> {
  const { rows } = await q.query<StoredTaskRow>('SELECT * FROM tasks WHERE id = $1 AND tenant_id = $2', [id, caller.tenantId]);
  if (!rows[0]) throw notFound('task', id);
  return taskFromRow(rows[0]);
}

export async function taskById(q: Queryable, id: string): Promise<TaskRow | undefined> {
  const { rows } = await q.query<StoredTaskRow>('SELECT * FROM tasks WHERE id = $1', [id]);
  return rows[0] && taskFromRow(rows[0]);
}
