// Packed float64 columns are stored uncompressed (src/db/migrations/021_float_columns_uncompressed.ts): pglz only
// spent the database's time on solved values it could not shrink. Both modes; a stored result still reads back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, json, startTestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';

const FLOAT_COLUMNS = [
  ['tasks', 'result_values'],
  ['study_cases', 'monitored'],
  ['sensitivity_rows', 'row_values'],
  ['network_versions', 'layout'],
  ['network_versions', 'model_z'],
];

for (const mode of MODES) {
  test(`${mode}: float64 value columns are stored without compression, and a result reads back`, async () => {
    const app = await startTestApp(mode);
    try {
      const { rows } = await app.services.db.query<{ table: string; column: string; storage: string }>(
        `SELECT c.relname AS table, a.attname AS column, a.attstorage AS storage
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND (c.relname, a.attname) IN (${FLOAT_COLUMNS.map(([t, c]) => `('${t}', '${c}')`).join(', ')})`,
      );
      assert.equal(rows.length, FLOAT_COLUMNS.length);
      for (const r of rows) assert.equal(r.storage, 'e', `${r.table}.${r.column} is EXTERNAL (out of line, not compressed)`);

      const h = await adminHeaders(app);
      const imported = await app.app!.inject({
        method: 'POST', url: '/api/v1/networks/import?format=matpower', headers: { ...h, 'content-type': 'text/plain' },
        payload: readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'),
      });
      assert.equal(imported.statusCode, 201, imported.body);
      const id = json(imported).data.id;
      const solved = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${id}/powerflow`, headers: h, payload: {} });
      assert.equal(solved.statusCode, 200, solved.body);
      const answer = json(solved).data;
      assert.equal(answer.buses.length, 118);
      const stored = await app.app!.inject({ method: 'GET', url: `/api/v1/tasks/${answer.task_id}?include=result`, headers: h });
      assert.equal(stored.statusCode, 200, stored.body);
      assert.deepEqual(json(stored).data.result.buses, answer.buses, 'the stored values read back as answered');
    } finally {
      await app.close();
    }
  });
}
