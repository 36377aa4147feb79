// Holds the statement that stores a network's finished direct power flows (src/queue/direct.ts) until the test
// opens the gate: what answers, reads and other stores do meanwhile is then observable without timing.
import type { Database } from '../../src/db/database.js';

export interface StoreGate {
  /** Resolves when a store of the network's tasks reached the gate. */
  readonly holding: Promise<void>;
  /** Lets the held store (and every later one) through. */
  open(): void;
  /** Opens the gate and gives the database its own query back. */
  restore(): void;
}

export function holdTaskStore(db: Database, networkId: string): StoreGate {
  const query = db.query;
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let held!: () => void;
  const holding = new Promise<void>((r) => (held = r));
  (db as { query: typeof db.query }).query = (async (sql: string, params?: unknown[]) => {
    if (sql.includes('INSERT INTO tasks') && typeof params?.[0] === 'string' && params[0].includes(networkId)) {
      held();
      await opened;
    }
    return query.call(db, sql, params as never);
  }) as typeof db.query;
  return {
    holding,
    open,
    restore() {
      open();
      (db as { query: typeof db.query }).query = query;
    },
  };
}
