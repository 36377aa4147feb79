// PSS/E import without blocking the event loop, as src/matpower/offLoop.ts does for MATPOWER: a
// small file is read inline, a larger one in a worker thread of its own (workers/psse.ts) with a
// time budget and a heap cap (src/lib/offThreadRead.ts).
import { readOffThread } from '../lib/offThreadRead.js';
import { AppError } from '../lib/errors.js';
import { checkImported, receivedStorable, storable, type AppErrorFields, type StorableModel } from '../domain/networkCheck.js';
import type { EncodedModel } from '../domain/modelBlob.js';
import type { PsseImport } from './mapping.js';
import { parsePsse, type PsseFormat } from './reader.js';
import { PsseParseError } from './scanner.js';

export const OFF_LOOP_MIN_CHARS = 256 * 1024;
const TIME_BUDGET_MS = 30_000;

export type PsseWorkerReply =
  | { imported: PsseImport }
  | ({ stored: EncodedModel } & Omit<PsseImport, 'model'>)
  | { invalid: AppErrorFields }
  | { error: { line: number; record: string; expected: string; found?: string } }
  | { failure: string };

type PsseOptions = { format?: PsseFormat; fileName?: string };

/** Reads a RAW or RAWX file; throws PsseParseError, or 422 VALIDATION_FAILED past the time or memory budget. */
export async function parsePsseOffLoop(text: string, opts: PsseOptions = {}): Promise<PsseImport> {
  if (text.length < OFF_LOOP_MIN_CHARS) return parsePsse(text, opts);
  const reply = await readOnThread(text, opts);
  if (!('imported' in reply)) throw new Error('PSS/E reader thread answered a read with a stored model');
  return reply.imported;
}

/** An import's model in its stored form, with what the file could not hold. */
export type PsseStorable = Omit<PsseImport, 'model'> & { stored: StorableModel };

/**
 * Reads a RAW or RAWX file, checks its model for storing, named `name`, and encodes it as stored: a large
 * file on its reader thread, which sends back only the blob, the row's columns and the warnings.
 */
export async function importPsseOffLoop(text: string, opts: PsseOptions, name?: string): Promise<PsseStorable> {
  if (text.length < OFF_LOOP_MIN_CHARS) {
    const { model, ...rest } = parsePsse(text, opts);
    return { ...rest, stored: await storable(checkImported(model, name)) };
  }
  const reply = await readOnThread(text, opts, { name });
  if (!('stored' in reply)) throw new Error('PSS/E reader thread answered an import without a stored model');
  const { stored, ...rest } = reply;
  return { ...rest, stored: receivedStorable(stored) };
}

async function readOnThread(text: string, opts: PsseOptions, check?: { name?: string }) {
  const reply = await readOffThread<PsseWorkerReply>('psse', { text, opts, check }, 'the PSS/E file', TIME_BUDGET_MS);
  if ('imported' in reply || 'stored' in reply) return reply;
  if ('invalid' in reply) throw new AppError(reply.invalid.code, reply.invalid.message, reply.invalid.details);
  if ('error' in reply) throw new PsseParseError(reply.error.line, reply.error.record, reply.error.expected, reply.error.found);
  throw new Error(`PSS/E reader thread failed: ${reply.failure}`);
}
