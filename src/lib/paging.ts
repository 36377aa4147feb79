// Pagination (page/page_size or an opaque cursor) and multi-field sort of SPEC 4.1.
import { AppError, notFound } from './errors.js';

export interface PageQuery {
  page?: number;
  page_size?: number;
  cursor?: string;
  sort?: string;
}

export interface Paging {
  offset: number;
  limit: number;
  page: number;
  pageSize: number;
  usingCursor: boolean;
}

export const MAX_PAGE_SIZE = 100;

export function paging(q: PageQuery, defaultSize = 20): Paging {
  const pageSize = q.page_size ?? defaultSize;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new AppError('PARAM_OUT_OF_RANGE', `page_size must be between 1 and ${MAX_PAGE_SIZE}, got ${q.page_size}`, {
      field: 'page_size',
      limit: MAX_PAGE_SIZE,
    });
  }
  if (q.cursor) {
    const offset = decodeCursor(q.cursor);
    return { offset, limit: pageSize, page: Math.floor(offset / pageSize) + 1, pageSize, usingCursor: true };
  }
  const page = q.page ?? 1;
  if (!Number.isInteger(page) || page < 1) throw new AppError('PARAM_OUT_OF_RANGE', `page starts at 1, got ${q.page}`, { field: 'page' });
  if ((page - 1) * pageSize > CURSOR_OFFSET_MAX) {
    throw new AppError(
      'PARAM_OUT_OF_RANGE',
      `page ${q.page} is beyond the last position a list serves (${CURSOR_OFFSET_MAX} items); narrow the filter instead`,
      { field: 'page', limit: Math.floor(CURSOR_OFFSET_MAX / pageSize) + 1 },
    );
  }
  return { offset: (page - 1) * pageSize, limit: pageSize, page, pageSize, usingCursor: false };
}

// The cursor is opaque to clients; it carries the position in the sorted, filtered result.
// A decoded cursor is trusted only in the exact shape issued here: {"o": n} with n a
// safe integer in [0, CURSOR_OFFSET_MAX] (a forged {"o":1e300} once reached SQL as 1e+300).
export const CURSOR_OFFSET_MAX = 1_000_000_000;

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}
export function decodeCursor(c: string): number {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(c, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const o = decoded !== null && typeof decoded === 'object' && !Array.isArray(decoded) && Object.keys(decoded).length === 1
    ? (decoded as { o?: unknown }).o : undefined;
  if (typeof o === 'number' && Number.isSafeInteger(o) && o >= 0 && o <= CURSOR_OFFSET_MAX) return o;
  throw new AppError(
    'INVALID_FIELD',
    'cursor is not one this service issued; use next_cursor from a previous page (or page=1 to start over)',
    { field: 'cursor' },
  );
}

export function pageMeta(p: Paging, total: number, returned: number): Record<string, unknown> {
  const meta: Record<string, unknown> = { page: p.page, page_size: p.pageSize, total, total_pages: Math.ceil(total / p.pageSize) };
  const nextOffset = p.offset + returned;
  if (nextOffset < total) meta.next_cursor = encodeCursor(nextOffset);
  else if (p.usingCursor) meta.next_cursor = null;
  return meta;
}

/** Turns "name,-created_at" into an ORDER BY over allowed columns; unknown fields are INVALID_FIELD. */
export function orderBy(sort: string | undefined, allowed: Record<string, string>, dflt = '-created_at'): string {
  const parts = (sort && sort.trim() !== '' ? sort : dflt).split(',').map((s) => s.trim()).filter(Boolean);
  const cols: string[] = [];
  for (const p of parts) {
    const desc = p.startsWith('-');
    const name = desc || p.startsWith('+') ? p.slice(1) : p;
    const col = allowed[name];
    if (!col)
      throw new AppError('INVALID_FIELD', `cannot sort by "${name}"; sortable fields: ${Object.keys(allowed).join(', ')}`, {
        field: 'sort',
        allowed: Object.keys(allowed),
      });
    cols.push(`${col} ${desc ? 'DESC' : 'ASC'}`);
  }
  return cols.join(', ');
}

/** A filter of one value or several comma-separated ones, each among `allowed`; else INVALID_FIELD naming them. */
export function listParam<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T[] | undefined {
  if (value === undefined || value === '') return undefined;
  const parts = value.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean);
  for (const p of parts) {
    if (!allowed.includes(p as T))
      throw new AppError('INVALID_FIELD', `${name} must be one of ${allowed.join(', ')} (comma-separated for several), got "${p}"`, {
        field: name,
        allowed,
      });
  }
  return parts as T[];
}

/** The WHERE of a tenant's list: `tenant_id = $1` and the conditions added, each with its `?` numbered. */
export function tenantWhere(tenantId: string) {
  const where = ['tenant_id = $1'];
  const params: unknown[] = [tenantId];
  return {
    params,
    add(sql: string, v: unknown) {
      params.push(v);
      where.push(sql.replace('?', `$${params.length}`));
    },
    sql: () => where.join(' AND '),
  };
}

/** Where a list query runs (the database or a transaction). */
interface Queryable {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/**
 * One page of `SELECT columns FROM from WHERE where ORDER BY order` and the filtered
 * total in a single round trip (a window count); only a page past the end carries no
 * row with the total, and then one counting query answers it.
 */
export async function selectPage<T>(
  db: Queryable,
  q: { from: string; columns?: string; where: string; params: unknown[]; order: string },
  p: Paging,
): Promise<{ rows: T[]; total: number }> {
  const { rows } = await db.query<T & { page_total__?: number }>(
    `SELECT ${q.columns ?? '*'}, count(*) OVER ()::int AS page_total__ FROM ${q.from} WHERE ${q.where} ORDER BY ${q.order} LIMIT ${p.limit} OFFSET ${p.offset}`,
    q.params,
  );
  let total: number;
  if (rows.length > 0) {
    total = Number(rows[0].page_total__);
    for (const r of rows) delete r.page_total__;
  } else {
    total = Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${q.from} WHERE ${q.where}`, q.params)).rows[0].n);
  }
  return { rows, total };
}

/**
 * The row `id` of `table` when it belongs to `tenantId` (optionally locked FOR UPDATE),
 * else NOT_FOUND: a resource of another tenant is indistinguishable from a missing one.
 */
export async function findOwnedRow<T>(
  db: Queryable,
  table: 'agents' | 'alarms' | 'devices',
  kind: string,
  tenantId: string,
  id: string,
  lock = false,
): Promise<T> {
  const { rows } = await db.query<T>(`SELECT * FROM ${table} WHERE id = $1 AND tenant_id = $2${lock ? ' FOR UPDATE' : ''}`, [id, tenantId]);
  if (!rows[0]) throw notFound(kind, id);
  return rows[0];
}
