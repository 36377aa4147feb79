// A large import is read and checked for storing on its reader thread (src/domain/networkCheck.ts,
// workers/matpower.ts, workers/psse.ts): the same model and the same refusals as the inline check, and the
// same stored bytes as the main thread's encoding (src/domain/modelBlob.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';
import { CASES_DIR, ROOT } from '../src/paths.js';
import { importMatpowerOffLoop, readsOffLoop } from '../src/matpower/offLoop.js';
import { importPsseOffLoop } from '../src/psse/offLoop.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { parsePsse } from '../src/psse/reader.js';
import { checkImported, storable, type StorableModel } from '../src/domain/networkCheck.js';
import { decodeModel, modelHead } from '../src/domain/modelBlob.js';
import { AppError } from '../src/lib/errors.js';

const case9 = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8');
const onThread = { minChars: 0 }; // every size read on a thread

/** The model a stored form holds. */
const held = (m: StorableModel) => decodeModel({ model: null, model_z: m.blob.z });

/** The thread's stored form equals the main thread's for the inline check's model: columns, bus ids and deflated bytes. */
async function assertStoredAs(m: StorableModel, inline: ReturnType<typeof checkImported>) {
  const main = await storable(inline);
  assert.deepEqual(m.head, modelHead(inline));
  assert.deepEqual(m.blob.busIds, main.blob.busIds);
  assert.ok(Buffer.isBuffer(m.blob.z));
  assert.ok(m.blob.z.equals(main.blob.z), 'the same deflated bytes as the main thread would store');
  assert.deepEqual(await held(m), inline);
}

function refusal(f: () => unknown): { code: string; message: string; details: unknown } {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof AppError, String(e));
    return { code: e.code, message: e.message, details: e.details };
  }
  throw new Error('expected a refusal');
}

test('a case checked on its reader thread equals the inline check: defaults, name, cut name', async () => {
  const before = readsOffLoop.length;
  const m = await importMatpowerOffLoop(case9, 'case9.m', 'renamed', onThread);
  assert.ok(readsOffLoop.length > before && readsOffLoop.at(-1)! > 0, 'read on a thread, not the main one');
  await assertStoredAs(m, checkImported(parseMatpower(case9, 'case9.m'), 'renamed'));
  const long = await importMatpowerOffLoop(case9, 'case9.m', undefined, onThread);
  assert.equal(long.head.name, 'case9');
  const cut = await importMatpowerOffLoop(
    case9.replace('function mpc = case9', `function mpc = ${'c'.repeat(80)}`),
    'x.m',
    undefined,
    onThread,
  );
  assert.equal(cut.head.name, 'c'.repeat(64));
  assert.equal((await held(cut)).name, 'c'.repeat(64));
});

test("a model the storing checks refuse is refused from the thread with the inline check's error", async () => {
  // a branch whose angle difference limits are reversed (angmin > angmax): the OPF-field check refuses it
  const bad = case9.replace('1\t-360\t360;', '1\t360\t-360;');
  assert.notEqual(bad, case9);
  const inline = refusal(() => checkImported(parseMatpower(bad, 'bad.m')));
  await assert.rejects(importMatpowerOffLoop(bad, 'bad.m', undefined, onThread), (e: unknown) => {
    assert.ok(e instanceof AppError);
    assert.deepEqual({ code: e.code, message: e.message, details: e.details }, inline);
    return true;
  });
  // a control character in the requested name: INVALID_FIELD, as from the JSON door
  await assert.rejects(
    importMatpowerOffLoop(case9, 'case9.m', 'a\u0001b', onThread),
    (e: unknown) => e instanceof AppError && e.code === 'INVALID_FIELD',
  );
});

test('a large PSS/E file is read and checked on its thread, equal to the inline check', async () => {
  const raw = gunzipSync(readFileSync(join(ROOT, 'test', 'reference', 'psse', 'case_ACTIVSg10k.raw.gz'))).toString('utf8');
  assert.ok(raw.length > 256 * 1024);
  const large = await importPsseOffLoop(raw, { format: 'psse', fileName: 'case_ACTIVSg10k.raw' }, 'activsg10k');
  assert.equal(large.stored.head.name, 'activsg10k');
  const inline = parsePsse(raw, { format: 'psse', fileName: 'case_ACTIVSg10k.raw' });
  await assertStoredAs(large.stored, checkImported(inline.model, 'activsg10k'));
  assert.equal(large.revision, inline.revision);
  assert.deepEqual(large.warnings, inline.warnings);
});
