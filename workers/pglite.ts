// The embedded database's own thread: PGlite (PostgreSQL compiled to WebAssembly) runs its
// statements here, so a long write (storing a 13,659-bus model, a study's rows) no longer holds
// the service's event loop, and the main thread spends its CPU on requests, not on SQL.
// src/db/pgliteThread.ts is the other end; the protocol is PgliteRequest / PgliteReply there.
// One transaction at a time: the main side serialises them, this side keeps PGlite's own
// transaction() open between 'begin' and 'commit' so its write-back to disk happens once, at COMMIT.
import { parentPort, workerData } from 'node:worker_threads';
import { mkdirSync } from 'node:fs';
import type { PgliteReply, PgliteRequest, PgliteWorkerData } from '../src/db/pgliteProtocol.js';
import { errorFields } from '../src/db/pgliteProtocol.js';

const BYTEA_OID = 17;

/**
 * A bytea parameter as it is: PGlite's protocol layer binds a Buffer in binary format, which saves
 * the hex text (twice the bytes) and PostgreSQL's decoding of it (a third of storing a result's arrays).
 */
function byteaParam(v: unknown): Buffer {
  if (!(v instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** A bytea value from its text form (hex, as PostgreSQL sends it by default). */
function byteaFromText(s: string): Uint8Array {
  return Buffer.from(s.slice(2), 'hex');
}

interface Session {
  query(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: unknown[]; affectedRows?: number; fields: { name: string; dataTypeID: number }[] }>;
  exec(sql: string): Promise<unknown>;
}

const { dir, schema } = workerData as PgliteWorkerData;
const port = parentPort!;

async function main() {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dir) mkdirSync(dir, { recursive: true });
  // PGlite's types say a serializer returns text; its bind takes a Buffer as binary too (above).
  const options = { serializers: { [BYTEA_OID]: byteaParam as unknown as (v: unknown) => string }, parsers: { [BYTEA_OID]: byteaFromText } };
  const lite = dir ? new PGlite(dir, options) : new PGlite(options);
  await lite.waitReady;
  await lite.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}", public;`);

  // The open transaction: PGlite's transaction() runs until `end` settles.
  let open: { tx: Session; end: (commit: boolean) => void; done: Promise<unknown> } | undefined;

  const handle = async (m: PgliteRequest): Promise<PgliteReply> => {
    switch (m.op) {
      case 'query': {
        const r = await (open && m.tx ? open.tx : lite).query(m.sql, m.params);
        // bytea columns: the main side turns these back into Buffers (structured clone gives Uint8Arrays)
        const bytea = r.fields.filter((f) => f.dataTypeID === BYTEA_OID).map((f) => f.name);
        return { id: m.id, rows: r.rows, rowCount: r.affectedRows ?? r.rows.length, bytea: bytea.length ? bytea : undefined };
      }
      case 'exec':
        await (open && m.tx ? open.tx : lite).exec(m.sql);
        return { id: m.id };
      case 'begin': {
        if (open) throw new Error('a transaction is already open on the embedded database');
        await new Promise<void>((opened, failed) => {
          let started = false;
          const done: Promise<unknown> = lite.transaction(
            (tx) =>
              new Promise<void>((commit, rollback) => {
                started = true;
                open = { tx, end: (ok) => (ok ? commit() : rollback(new Error('rolled back'))), done };
                opened();
              }),
          );
          // BEGIN itself failed: this request's error. Later failures belong to 'commit'.
          done.catch((e) => {
            if (!started) failed(e);
          });
        });
        return { id: m.id };
      }
      case 'commit':
      case 'rollback': {
        const t = open;
        if (!t) throw new Error('no transaction is open on the embedded database');
        t.end(m.op === 'commit');
        try {
          await t.done;
        } catch (e) {
          if (m.op === 'commit') throw e;
        } finally {
          open = undefined;
        }
        return { id: m.id };
      }
      case 'close':
        await lite.close();
        return { id: m.id };
    }
  };

  // Requests run one after another, in arrival order (PGlite is one connection).
  let chain: Promise<unknown> = Promise.resolve();
  port.on('message', (m: PgliteRequest) => {
    chain = chain.then(async () => {
      let reply: PgliteReply;
      try {
        reply = await handle(m);
      } catch (e) {
        reply = { id: m.id, error: errorFields(e) };
      }
      try {
        port.postMessage(reply);
      } catch (e) {
        // a value the structured clone refuses: the request fails, the chain (every later request) goes on
        port.postMessage({ id: m.id, error: errorFields(e) } satisfies PgliteReply);
      }
    });
  });
  port.postMessage({ id: 0 } satisfies PgliteReply);
}

main().catch((e) => port.postMessage({ id: 0, error: errorFields(e) } satisfies PgliteReply));
