// MATPOWER import without blocking the event loop: a case under OFF_LOOP_MIN_CHARS
// is read inline (a few milliseconds; a thread would cost more than it saves), a
// larger one in a worker thread of its own with a time budget and a heap cap
// (src/lib/offThreadRead.ts), so a pathological 16 MiB file can neither stall health
// checks nor exhaust the process.
import type { NetworkModel } from '../domain/networkModel.js';
import { readOffThread } from '../lib/offThreadRead.js';
import { AppError } from '../lib/errors.js';
import { checkImported, receivedStorable, storable, type AppErrorFields, type StorableModel } from '../domain/networkCheck.js';
import type { EncodedModel } from '../domain/modelBlob.js';
import { MatpowerParseError, parseMatpower } from './reader.js';

/** case300 is ~120 KB; cases from here on are read off the loop. */
export const OFF_LOOP_MIN_CHARS = 256 * 1024;
export const OFF_LOOP_TIME_BUDGET_MS = 30_000;

/**
 * The thread ids (never the main thread's 0) of the last reads done off the loop: where a
 * parse ran is what shows it did not block the loop, on any machine (tests, #21 item 5).
 */
export const readsOffLoop: number[] = [];

type WorkerReply =
  | { model: NetworkModel; threadId: number }
  | { stored: EncodedModel; threadId: number }
  | { invalid: AppErrorFields }
  | { error: { file: string; line: number; expected: string; found?: string } }
  | { failure: string };

interface ReadOptions {
  minChars?: number;
  timeBudgetMs?: number;
}

/** Reads a MATPOWER case; throws MatpowerParseError, or 422 VALIDATION_FAILED past the time or memory budget. */
export async function parseMatpowerOffLoop(text: string, file: string, opts: ReadOptions = {}): Promise<NetworkModel> {
  if (text.length < (opts.minChars ?? OFF_LOOP_MIN_CHARS)) return parseMatpower(text, file);
  const reply = await readOnThread(text, file, opts);
  if (!('model' in reply)) throw new Error('MATPOWER reader thread answered a read with a stored model');
  return reply.model;
}

/**
 * Reads a MATPOWER case, checks it for storing, named `name` (default: its function name), and encodes it as
 * it is stored: a large case is read, checked and encoded on its reader thread, and only its blob and its row's
 * columns come back (the main thread never holds the model). Throws as parseMatpowerOffLoop does, and the
 * storing checks' AppError.
 */
export async function importMatpowerOffLoop(text: string, file: string, name?: string, opts: ReadOptions = {}): Promise<StorableModel> {
  if (text.length < (opts.minChars ?? OFF_LOOP_MIN_CHARS)) return storable(checkImported(parseMatpower(text, file), name));
  const reply = await readOnThread(text, file, opts, { name });
  if (!('stored' in reply)) throw new Error('MATPOWER reader thread answered an import without a stored model');
  return receivedStorable(reply.stored);
}

async function readOnThread(text: string, file: string, opts: ReadOptions, check?: { name?: string }) {
  const reply = await readOffThread<WorkerReply>(
    'matpower',
    { text, file, check },
    'the MATPOWER case',
    opts.timeBudgetMs ?? OFF_LOOP_TIME_BUDGET_MS,
  );
  if ('model' in reply || 'stored' in reply) {
    readsOffLoop.push(reply.threadId);
    if (readsOffLoop.length > 16) readsOffLoop.shift();
    return reply;
  }
  if ('invalid' in reply) throw new AppError(reply.invalid.code, reply.invalid.message, reply.invalid.details);
  if ('error' in reply) throw new MatpowerParseError(reply.error.file, reply.error.line, reply.error.expected, reply.error.found);
  throw new Error(`MATPOWER reader thread failed: ${reply.failure}`);
}
