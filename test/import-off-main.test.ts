// Issue #35, the heavy drill's import row: a large import's model is read, checked and encoded for storing on its
// reader thread (workers/matpower.ts, workers/psse.ts), so the main thread neither stringifies nor holds the model's
// object graph. Checked where it happens, not by timing: JSON.stringify on the main thread (a worker thread has a
// JSON of its own) is watched while a case13659pegase import and a 10,000-bus PSS/E import run over the REST door;
// before the change, storeNetwork stringified the whole model here. The answers stay what they were.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { CASES_DIR, ROOT } from '../src/paths.js';
import { startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { parsePsse } from '../src/psse/reader.js';
import { checkImported } from '../src/domain/networkCheck.js';
import { OFF_LOOP_MIN_CHARS } from '../src/matpower/offLoop.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

let app: TestApp;
let h: Record<string, string>;
before(async () => {
  app = await startTestApp('embedded');
  h = await adminHeaders(app);
});
after(() => app?.close());

/** Runs f and lists what JSON.stringify was given on this (the main) thread meanwhile: the models among it. */
async function modelsStringifiedDuring<T>(f: () => Promise<T>): Promise<{ out: T; models: number[] }> {
  const original = JSON.stringify;
  const models: number[] = [];
  JSON.stringify = function (this: unknown, value: unknown, ...rest: unknown[]) {
    const buses = (value as { buses?: unknown } | null)?.buses;
    if (Array.isArray(buses)) models.push(buses.length);
    return (original as (...a: unknown[]) => string).call(this, value, ...rest);
  } as typeof JSON.stringify;
  try {
    return { out: await f(), models };
  } finally {
    JSON.stringify = original;
  }
}

async function importFile(text: string, query: string) {
  const r = await app.app!.inject({
    method: 'POST', url: `/api/v1/networks/import?${query}`, headers: { ...h, 'content-type': 'text/plain' }, payload: text,
  });
  assert.equal(r.statusCode, 201, r.body.slice(0, 300));
  return json(r).data as Record<string, unknown>;
}

/** The import's answer and the stored network are what the model read inline (on this thread, by the test) gives. */
async function assertAnswersFor(answer: Record<string, unknown>, model: NetworkModel) {
  const { id, created_at, updated_at, ...rest } = answer;
  assert.match(String(id), /^net_/);
  assert.ok(created_at && updated_at);
  const { name, description, base_kv, base_mva, tags, status, version } = rest;
  assert.deepEqual(
    { name, description, base_kv, base_mva, tags, status, version },
    { name: model.name, description: model.description, base_kv: model.base_kv, base_mva: model.base_mva, tags: model.tags, status: 'ready', version: 1 },
  );
  assert.deepEqual(
    [rest.bus_count, rest.branch_count, rest.generator_count, rest.load_count],
    [model.buses.length, model.branches.length, model.generators.length, model.loads.length],
  );
  const got = await app.app!.inject({ method: 'GET', url: `/api/v1/networks/${id}`, headers: h });
  assert.equal(got.statusCode, 200);
  const detail = json(got).data;
  const expected = JSON.parse(JSON.stringify(model)) as NetworkModel;
  for (const part of ['buses', 'branches', 'generators', 'loads', 'dc_lines'] as const) assert.deepEqual(detail[part], expected[part], part);
}

test('a large MATPOWER import: the model is neither stringified nor held on the main thread; the answers are unchanged', async () => {
  const text = readFileSync(join(CASES_DIR, 'case13659pegase.m'), 'utf8');
  assert.ok(text.length >= OFF_LOOP_MIN_CHARS, 'read on a reader thread');
  const { out: answer, models } = await modelsStringifiedDuring(() => importFile(text, 'format=matpower'));
  assert.deepEqual(models, [], 'no model stringified on the main thread during the import');
  await assertAnswersFor(answer, checkImported(parseMatpower(text, 'body')));
  // and the stored model solves as before: a power flow on it converges
  const pf = await app.app!.inject({ method: 'POST', url: `/api/v1/networks/${answer.id}/powerflow`, headers: h, payload: {} });
  assert.equal(pf.statusCode, 200, pf.body.slice(0, 300));
  assert.equal(json(pf).data.status, 'converged');
});

test('a large PSS/E import: the same, with its warnings in the answer', async () => {
  const raw = gunzipSync(readFileSync(join(ROOT, 'test', 'reference', 'psse', 'case_ACTIVSg10k.raw.gz'))).toString('utf8');
  const { out: answer, models } = await modelsStringifiedDuring(() => importFile(raw, 'format=psse&name=activsg10k'));
  assert.deepEqual(models, [], 'no model stringified on the main thread during the import');
  const inline = parsePsse(raw, { format: 'psse' });
  const { format, revision, warnings, ...network } = answer;
  assert.deepEqual([format, revision], ['psse', inline.revision]);
  assert.deepEqual(warnings, JSON.parse(JSON.stringify(inline.warnings)));
  await assertAnswersFor(network, checkImported(inline.model, 'activsg10k'));
});

test('a small import (read inline) is stored and answered as before', async () => {
  const text = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');
  await assertAnswersFor(await importFile(text, 'format=matpower'), checkImported(parseMatpower(text, 'body')));
});
