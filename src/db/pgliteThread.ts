// The embedded database (PGlite) behind the `Database` interface, run in a thread of its own
// (workers/pglite.ts): its statements cost the service's event loop one message each way instead of
// the statement's whole execution. Storing a large model or a study's rows used to hold the loop for
// up to a second (issue 35's heavy drill); the main thread's share of a power-flow request was 64 %
// SQL (issue 36's profile).
//
// Transactions are serialised here, as PGlite is one connection: a transaction's statements carry
// `tx` and run inside PGlite's own transaction on the thread; other statements wait their turn.
// If the thread dies (it should not: a crash of the database engine), every waiting statement is
// refused with the reason, the open transaction is lost (rolled back: PGlite writes to disk at
// COMMIT), and the next statement opens the data directory again in a new thread.
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { Database, Queryable, QueryResult } from './database.js';
import type { PgliteErrorFields, PgliteReply, PgliteRequest, PgliteWorkerData } from './pgliteProtocol.js';

type Request = PgliteRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

function workerFile(): string {
  const here = import.meta.url;
  const ext = here.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`../../workers/pglite${ext}`, here));
}

/** A database error rebuilt on this side: message and PostgreSQL's fields (code = SQLSTATE), as pg gives them. */
function databaseError(f: PgliteErrorFields): Error {
  const e = new Error(f.message);
  for (const [k, v] of Object.entries(f)) if (k !== 'message' && v !== undefined) (e as unknown as Record<string, unknown>)[k] = v;
  return e;
}

/** One thread with one PGlite; requests and their replies matched by id. */
class PgliteThread {
  private readonly pending = new Map<number, { resolve: (r: PgliteReply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  /** When the thread took its oldest unanswered request (undefined: idle). */
  busySince: number | undefined;
  private stopped: Error | undefined;
  readonly ready: Promise<void>;
  private readonly worker: Worker;

  constructor(data: PgliteWorkerData) {
    this.worker = new Worker(workerFile(), { workerData: data });
    this.worker.unref();
    this.ready = new Promise((resolve, reject) => {
      this.pending.set(0, { resolve: (r) => (r.error ? reject(databaseError(r.error)) : resolve()), reject });
      this.worker.ref();
    });
    this.worker.on('message', (r: PgliteReply) => {
      const p = this.pending.get(r.id);
      if (!p) return;
      this.pending.delete(r.id);
      if (this.pending.size === 0) {
        this.worker.unref();
        this.busySince = undefined;
      }
      p.resolve(r);
    });
    const stop = (why: Error) => {
      this.stopped ??= why;
      for (const p of this.pending.values()) p.reject(why);
      this.pending.clear();
    };
    this.worker.on('error', (e) => stop(new Error(`the embedded database thread failed: ${e.message}`)));
    this.worker.on('exit', (code) => stop(new Error(`the embedded database thread ended (exit code ${code})`)));
  }

  get alive(): boolean {
    return this.stopped === undefined;
  }

  call(req: Request): Promise<PgliteReply> {
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<PgliteReply>((resolve, reject) => {
      if (this.pending.size === 0) {
        this.worker.ref();
        this.busySince = performance.now();
      }
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id, ...('params' in req && req.params ? { params: req.params.map(ownBytes) } : {}) });
    }).then((r) => {
      if (r.error) throw databaseError(r.error);
      return r;
    });
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }
}

/**
 * A structured clone of a typed-array view copies its whole ArrayBuffer: a Buffer slice of Node's
 * 8 kB pool or of a solver's result buffer would cost far more than its bytes. Such a view is copied
 * to a buffer of its own first.
 */
function ownBytes(v: unknown): unknown {
  if (v instanceof Uint8Array && (v.byteOffset !== 0 || v.byteLength !== v.buffer.byteLength)) return Uint8Array.prototype.slice.call(v);
  return v;
}

/** Rows as the `pg` driver gives them: bytea columns as Buffers (a structured clone makes them Uint8Arrays). */
function result<T>(r: PgliteReply): QueryResult<T> {
  const rows = (r.rows ?? []) as Record<string, unknown>[];
  if (r.bytea) {
    for (const row of rows) {
      for (const c of r.bytea) {
        const v = row[c];
        if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[c] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      }
    }
  }
  return { rows: rows as T[], rowCount: r.rowCount ?? rows.length };
}

/** How long a statement in progress counts as the database being up (then a probe waits its turn). */
const BUSY_AS_UP_MS = 30_000;

export async function openPgliteThread(dir: string | undefined, schema: string): Promise<Database> {
  const data: PgliteWorkerData = { dir, schema };
  let thread = new PgliteThread(data);
  await thread.ready;
  let closed = false;
  // A thread that died is replaced at the next statement (outside a transaction: one in flight fails).
  const current = async (): Promise<PgliteThread> => {
    if (closed) throw new Error('the embedded database is closed');
    if (!thread.alive) {
      thread = new PgliteThread(data);
      await thread.ready;
    }
    return thread;
  };
  // One transaction (or lone statement) at a time: PGlite is one connection.
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => {});
    return next;
  };
  const query = <T>(t: PgliteThread, sql: string, params: unknown[] | undefined, tx: boolean) =>
    t.call({ op: 'query', sql, params, tx }).then((r) => result<T>(r));
  return {
    engine: 'pglite',
    query: (sql, params) => serial(async () => query(await current(), sql, params, false)),
    exec: (sql) => serial(async () => void (await (await current()).call({ op: 'exec', sql, tx: false }))),
    transaction: (fn) =>
      serial(async () => {
        const t = await current();
        await t.call({ op: 'begin' });
        // Statements of this transaction go to the thread it began on; a replacement thread refuses them.
        const tx: Queryable = {
          query: (sql, params) => query(t, sql, params, true),
          exec: async (sql) => void (await t.call({ op: 'exec', sql, tx: true })),
        };
        let out;
        try {
          out = await fn(tx);
        } catch (e) {
          await t.call({ op: 'rollback' }).catch(() => {});
          throw e;
        }
        await t.call({ op: 'commit' });
        return out;
      }),
    async ping() {
      if (closed) return false;
      // A thread in the middle of a statement is working, not down: a health probe does not wait
      // behind a long write (storing a large model) for its own SELECT 1, unless that write has
      // held the database for longer than BUSY_AS_UP_MS.
      if (thread.alive && thread.busySince !== undefined && performance.now() - thread.busySince < BUSY_AS_UP_MS) return true;
      try {
        await serial(async () => query(await current(), 'SELECT 1', undefined, false));
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      await serial(async () => {
        closed = true;
        if (thread.alive) await thread.call({ op: 'close' }).catch(() => {});
        await thread.terminate();
      });
    },
  };
}
