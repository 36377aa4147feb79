// The messages between the service and the embedded database's thread (workers/pglite.ts).
// Requests carry an id; each gets one reply with the same id (id 0: the thread is ready, or failed to open).

export interface PgliteWorkerData {
  /** PGlite's files; undefined = in memory */
  dir?: string;
  schema: string;
}

export type PgliteRequest =
  | { id: number; op: 'query'; sql: string; params?: unknown[]; tx: boolean }
  | { id: number; op: 'exec'; sql: string; tx: boolean }
  | { id: number; op: 'begin' | 'commit' | 'rollback' | 'close' };

/** A database error's fields, as PostgreSQL reports them (SQLSTATE `code` and the rest) */
export type PgliteErrorFields = Record<string, string | number | undefined> & { message: string };

export interface PgliteReply {
  id: number;
  rows?: unknown[];
  rowCount?: number;
  /** names of the bytea columns of `rows` */
  bytea?: string[];
  error?: PgliteErrorFields;
}

// The fields of pg-protocol's DatabaseError that callers read (code for SQLSTATE classes, the rest for logs).
const ERROR_FIELDS = [
  'name',
  'code',
  'severity',
  'detail',
  'hint',
  'position',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'routine',
];

/** What crosses the thread boundary of an error: its message and PostgreSQL's fields, never the query's parameters. */
export function errorFields(e: unknown): PgliteErrorFields {
  if (!(e instanceof Error)) return { message: String(e) };
  const out: PgliteErrorFields = { message: e.message };
  for (const k of ERROR_FIELDS) {
    const v = (e as unknown as Record<string, unknown>)[k];
    if (typeof v === 'string' || typeof v === 'number') out[k] = v;
  }
  return out;
}
