// One SQL interface over two engines: PostgreSQL through `pg` (DATABASE_URL)
// and PGlite, PostgreSQL compiled to WebAssembly, embedded under DATA_DIR.
// Repositories write plain PostgreSQL with $n parameters; both engines run it.
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { unavailableDependency } from '../lib/unavailable.js';
import { openPgliteThread } from './pgliteThread.js';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly engine: 'postgres' | 'pglite';
  /** Runs fn inside one transaction (BEGIN/COMMIT, ROLLBACK on throw). */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

// int8 (bigint) as JS number: our counters and event ids stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface DatabaseOptions {
  url?: string;
  schema: string;
  dataDir?: string; // PGlite files; undefined = in memory
  poolSize?: number;
}

function quoteIdent(s: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(s)) throw new Error(`invalid schema name "${s}"`);
  return `"${s}"`;
}

export async function openDatabase(opts: DatabaseOptions): Promise<Database> {
  if (opts.url) return openPostgres(opts.url, opts.schema, opts.poolSize ?? 10);
  let dir: string | undefined;
  if (opts.dataDir) {
    dir = join(opts.dataDir, 'pglite');
    mkdirSync(dir, { recursive: true });
  }
  return openPgliteThread(dir, quoteIdent(opts.schema).slice(1, -1));
}

const PREPARED_MAX = 512;

async function openPostgres(url: string, schema: string, max: number): Promise<Database> {
  const s = quoteIdent(schema);
  // The schema exists before the pool's connections ask for it in their start-up options.
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
  } finally {
    await setup.end();
  }
  // search_path is a start-up option of every connection: no extra round trip per query.
  const pool = new pg.Pool({ connectionString: url, max, options: `-c search_path=${schema},public` });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Parameterised statements are prepared once per connection and reused by name: PostgreSQL
  // then skips parsing and, after a few runs, planning (most of the server's time on the short
  // statements of the task life cycle). The first PREPARED_MAX distinct texts are named, which
  // bounds what each connection keeps however many list filters and sorts clients combine.
  const names = new Map<string, string>();
  const nameOf = (sql: string): string | undefined => {
    let n = names.get(sql);
    if (n === undefined && names.size < PREPARED_MAX) names.set(sql, (n = `g${names.size}`));
    return n;
  };
  const run = async <T>(client: pg.PoolClient | pg.Pool, sql: string, params?: unknown[]) => {
    const name = params && params.length > 0 ? nameOf(sql) : undefined;
    const r = name ? await client.query({ name, text: sql, values: params as unknown[] }) : await client.query(sql, params as unknown[]);
    return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
  };
  const withClient = async <T>(fn: (c: pg.PoolClient) => Promise<T>) => {
    const c = await pool.connect();
    // A checked-out client whose server goes away (a restart) emits 'error' between two
    // statements; with no listener that event would end the process. It is noted instead,
    // the transaction's next statement fails, and the client is destroyed on release rather
    // than handed out again.
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken ??= err;
    };
    c.on('error', onError);
    try {
      return await fn(c);
    } catch (e) {
      if (unavailableDependency(e)) broken ??= e as Error;
      throw e;
    } finally {
      c.off('error', onError);
      c.release(broken);
    }
  };
  const db: Database = {
    engine: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    exec: async (sql) => void (await pool.query(sql)),
    async transaction(fn) {
      return withClient(async (c) => {
        await c.query('BEGIN');
        try {
          const out = await fn({ query: (sql, params) => run(c, sql, params), exec: async (sql) => void (await c.query(sql)) });
          await c.query('COMMIT');
          return out;
        } catch (e) {
          await c.query('ROLLBACK').catch(() => {});
          throw e;
        }
      });
    },
    async ping() {
      try {
        await pool.query('SELECT 1');
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await pool.end();
    },
  };
  return db;
}
