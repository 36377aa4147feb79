// Applies src/db/migrations/NNN_name.(ts|js) in order, each once, at start.
// An advisory lock keeps two processes starting together from racing.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Database } from './database.js';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
const LOCK_KEY = 7_310_442; // arbitrary, constant: "gridops migrations"

export async function migrate(db: Database): Promise<string[]> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.js$/.test(f))
    .sort();
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
    for (const file of files) {
      const id = file.replace(/\.js$/, '');
      if (done.has(id)) continue;
      const mod = (await import(pathToFileURL(join(MIGRATIONS_DIR, file)).href)) as { sql: string };
      await tx.exec(mod.sql);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [id]);
      applied.push(id);
    }
  });
  return applied;
}
