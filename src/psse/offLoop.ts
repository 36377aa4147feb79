// PSS/E import without blocking the event loop, as src/matpower/offLoop.ts does for MATPOWER: a
// small file is read inline, a larger one in a worker thread of its own (workers/psse.ts) with a
// time budget and a heap cap (src/lib/offThreadRead.ts).
import { readOffThread } from '../lib/offThreadRead.js';
import { AppError } from '../lib/errors.js';
import { checkImported, type AppErrorFields, type CheckedModel } from '../domain/networkCheck.js';
import type { PsseImport } from './mapping.js';
import { parsePsse, type PsseFormat } from './reader.js';
import { PsseParseError } from './scanner.js';

export const OFF_LOOP_MIN_CHARS = 256 * 1024;
const TIME_BUDGET_MS = 30_000;

export type PsseWorkerReply =
  | { imported: PsseImport; checked: boolean }
  | { invalid: AppErrorFields }
  | { error: { line: number; record: string; expected: string; found?: string } }
  | { failure: string };

type PsseOptions = { format?: PsseFormat; fileName?: string };

/** Reads a RAW or RAWX file; throws PsseParseError, or 422 VALIDATION_FAILED past the time or memory budget. */
export async function parsePsseOffLoop(text: string, opts: PsseOptions = {}): Promise<PsseImport> {
  if (text.length < OFF_LOOP_MIN_CHARS) return parsePsse(text, opts);
  return (await readOnThread(text, opts)).imported;
}

/** Reads a RAW or RAWX file and checks its model for storing, named `name`: a large file on its reader thread. */
export async function importPsseOffLoop(text: string, opts: PsseOptions, name?: string): Promise<PsseImport & { model: CheckedModel }> {
  if (text.length < OFF_LOOP_MIN_CHARS) {
    const imported = parsePsse(text, opts);
    return { ...imported, model: checkImported(imported.model, name) };
  }
  const { imported, checked } = await readOnThread(text, opts, { name });
  return { ...imported, model: checked ? (imported.model as CheckedModel) : checkImported(imported.model, name) };
}

async function readOnThread(text: string, opts: PsseOptions, check?: { name?: string }) {
  const reply = await readOffThread<PsseWorkerReply>('psse', { text, opts, check }, 'the PSS/E file', TIME_BUDGET_MS);
  if ('imported' in reply) return reply;
  if ('invalid' in reply) throw new AppError(reply.invalid.code, reply.invalid.message, reply.invalid.details);
  if ('error' in reply) throw new PsseParseError(reply.error.line, reply.error.record, reply.error.expected, reply.error.found);
  throw new Error(`PSS/E reader thread failed: ${reply.failure}`);
}
