// The SQL of sensitivity_rows (migration 014): the matrix of an asynchronous PTDF / LODF task.
import type { Queryable } from '../database.js';

/** Stores rows [first, first + rows.length) of a task's matrix, in one statement. */
export async function insertSensitivityRows(q: Queryable, taskId: string, first: number, rows: Float64Array[]): Promise<void> {
  const total = rows.reduce((n, r) => n + r.byteLength, 0);
  const all = Buffer.allocUnsafe(total);
  const at: number[] = [], len: number[] = [], index: number[] = [];
  let o = 0;
  rows.forEach((r, k) => {
    const bytes = Buffer.from(r.buffer, r.byteOffset, r.byteLength);
    bytes.copy(all, o);
    at.push(o); len.push(r.byteLength); index.push(first + k);
    o += r.byteLength;
  });
  await q.query(
    `INSERT INTO sensitivity_rows (task_id, row_index, row_values)
     SELECT $1, x.k, substring($2::bytea FROM x.at + 1 FOR x.len) FROM unnest($3::int[], $4::int[], $5::int[]) AS x(k, at, len)
     ON CONFLICT DO NOTHING`, [taskId, all, index, at, len]);
}

/** Rows from `after` + 1 on, at most `limit`, in order. */
export async function readSensitivityRows(q: Queryable, taskId: string, after: number, limit: number): Promise<{ row_index: number; values: Float64Array }[]> {
  const { rows } = await q.query<{ row_index: number; row_values: Uint8Array }>(
    `SELECT row_index, row_values FROM sensitivity_rows WHERE task_id = $1 AND row_index > $2 ORDER BY row_index LIMIT ${Math.trunc(limit)}`, [taskId, after]);
  return rows.map((r) => {
    const copy = new Uint8Array(r.row_values.byteLength);
    copy.set(r.row_values);
    return { row_index: r.row_index, values: new Float64Array(copy.buffer) };
  });
}

export async function deleteSensitivityRows(q: Queryable, taskId: string): Promise<void> {
  await q.query('DELETE FROM sensitivity_rows WHERE task_id = $1', [taskId]);
}
