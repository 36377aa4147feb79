// The large-model path in ONE embedded process (issue #35): import case13659pegase, then the first power flow
// of the freshly imported model, timing the steps, the event loop's longest stall and how long a one-row
// query (another tenant's) waits behind PGlite's single connection meanwhile. Also times the storage itself:
// the model as jsonb (before migration 019) against the deflated bytea that replaced it.
// Run: node dist/bench/largeModel.js  (add --cpu-prof for a profile of the main thread)
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { CASES_DIR } from '../src/paths.js';
import { startTestApp, json } from '../test/helpers/app.js';
import { adminHeaders } from '../test/helpers/auth.js';
import { encodeModel, decodeModel } from '../src/domain/modelBlob.js';

const app = await startTestApp('embedded');
const h = await adminHeaders(app);
const db = app.services.db;
const text = readFileSync(join(CASES_DIR, 'case13659pegase.m'), 'utf8');

// A probe: one tiny query after another; its worst wait is what another tenant sees.
async function probed<T>(label: string, f: () => Promise<T>): Promise<T> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let stop = false;
  let worstQuery = 0;
  let queries = 0;
  const probe = (async () => {
    while (!stop) {
      const t = performance.now();
      await db.query('SELECT 1');
      worstQuery = Math.max(worstQuery, performance.now() - t);
      queries++;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const t0 = performance.now();
  const out = await f();
  const ms = performance.now() - t0;
  stop = true;
  await probe;
  loop.disable();
  console.log(`${label}: ${ms.toFixed(0)} ms; loop max stall ${(loop.max / 1e6).toFixed(0)} ms; ` +
    `one-row query worst wait ${worstQuery.toFixed(0)} ms (${queries} queries)`);
  return out;
}

for (let round = 1; round <= 2; round++) {
  const id = await probed(`import #${round}`, async () => {
    const r = await app.app!.inject({
      method: 'POST', url: '/api/v1/networks/import?format=matpower', headers: { ...h, 'content-type': 'text/plain' }, payload: text,
    });
    if (r.statusCode !== 201) throw new Error(`import: ${r.statusCode} ${r.body}`);
    return json(r).data.id as string;
  });
  await probed(`first power flow #${round}`, async () => {
    const r = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${id}/powerflow`, headers: h, payload: {} });
    if (r.statusCode >= 300) throw new Error(`powerflow: ${r.statusCode} ${r.body.slice(0, 200)}`);
  });
  await probed(`second power flow #${round}`, async () => {
    await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${id}/powerflow`, headers: h, payload: {} });
  });
}

// The storage step alone: jsonb (as before 019) against deflated bytea, same model, same connection.
const { rows: [v] } = await db.query<{ model_z: Uint8Array }>('SELECT model_z FROM network_versions ORDER BY created_at DESC LIMIT 1');
const model = await decodeModel({ model: null, model_z: v.model_z });
const t1 = performance.now();
const js = JSON.stringify(model);
const tStringify = performance.now() - t1;
await db.query('CREATE TEMP TABLE IF NOT EXISTS lm_probe (k int, j jsonb, z bytea)');
await probed('jsonb INSERT (before 019)', () => db.query('INSERT INTO lm_probe (k, j) VALUES (1, $1)', [js]));
await probed('jsonb SELECT (before 019)', () => db.query('SELECT j FROM lm_probe WHERE k = 1'));
const blob = await probed('deflate (libuv pool)', () => encodeModel(model));
await probed('bytea INSERT (019)', () => db.query('INSERT INTO lm_probe (k, z) VALUES (2, $1)', [blob.z]));
const zr = await probed('bytea SELECT (019)', () => db.query<{ z: Uint8Array }>('SELECT z FROM lm_probe WHERE k = 2'));
await probed('inflate + JSON.parse', () => decodeModel({ model: null, model_z: zr.rows[0].z }));
const mib = (n: number) => (n / 2 ** 20).toFixed(1);
console.log(`JSON.stringify of the model: ${tStringify.toFixed(0)} ms; JSON ${mib(js.length)} MB, deflated ${mib(blob.z.length)} MB`);
await app.close();
