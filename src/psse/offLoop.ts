// PSS/E import without blocking the event loop, as src/matpower/offLoop.ts does for MATPOWER: a
// small file is read inline, a larger one in a worker thread of its own (workers/psse.ts) with a
// time budget and a heap cap (src/lib/offThreadRead.ts).
import { readOffThread } from '../lib/offThreadRead.js';
import type { PsseImport } from './mapping.js';
import { parsePsse, type PsseFormat } from './reader.js';
import { PsseParseError } from './scanner.js';

export const OFF_LOOP_MIN_CHARS = 256 * 1024;
const TIME_BUDGET_MS = 30_000;

export type PsseWorkerReply =
  | { imported: PsseImport }
  | { error: { line: number; record: string; expected: string; found?: string } }
  | { failure: string };

/** Reads a RAW or RAWX file; throws PsseParseError, or 422 VALIDATION_FAILED past the time or memory budget. */
export async function parsePsseOffLoop(text: string, opts: { format?: PsseFormat; fileName?: string } = {}): Promise<PsseImport> {
  if (text.length < OFF_LOOP_MIN_CHARS) return parsePsse(text, opts);
  const reply = await readOffThread<PsseWorkerReply>('psse', { text, opts }, 'the PSS/E file', TIME_BUDGET_MS);
  if ('imported' in reply) return reply.imported;
  if ('error' in reply) throw new PsseParseError(reply.error.line, reply.error.record, reply.error.expected, reply.error.found);
  throw new Error(`PSS/E reader thread failed: ${reply.failure}`);
}
