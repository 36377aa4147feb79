// MATPOWER import without blocking the event loop: a case under OFF_LOOP_MIN_CHARS
// is read inline (a few milliseconds; a thread would cost more than it saves), a
// larger one in a worker thread of its own with a time budget and a heap cap, so a
// pathological 16 MiB file can neither stall health checks nor exhaust the process.
// Few at once: more large imports than OFF_LOOP_MAX_THREADS wait their turn.
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import type { NetworkModel } from '../domain/networkModel.js';
import { AppError } from '../lib/errors.js';
import { MatpowerParseError, parseMatpower } from './reader.js';

/** case300 is ~120 KB; cases from here on are read off the loop. */
export const OFF_LOOP_MIN_CHARS = 256 * 1024;
export const OFF_LOOP_TIME_BUDGET_MS = 30_000;
export const OFF_LOOP_MAX_THREADS = 2;
const WORKER_HEAP_MB = 512;

function workerFile(): string {
  const here = import.meta.url;
  const ext = here.endsWith('.ts') ? '.ts' : '.js';
  return fileURLToPath(new URL(`../../workers/matpower${ext}`, here));
}

/**
 * The thread ids (never the main thread's 0) of the last reads done off the loop: where a
 * parse ran is what shows it did not block the loop, on any machine (tests, #21 item 5).
 */
export const readsOffLoop: number[] = [];

let running = 0;
const waiting: (() => void)[] = [];
async function slot(): Promise<() => void> {
  if (running >= OFF_LOOP_MAX_THREADS) await new Promise<void>((r) => waiting.push(r));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

type WorkerReply = { model: NetworkModel; threadId: number } | { error: { file: string; line: number; expected: string; found?: string } } | { failure: string };

/** Reads a MATPOWER case; throws MatpowerParseError, or 422 VALIDATION_FAILED when the time budget runs out. */
export async function parseMatpowerOffLoop(text: string, file: string, opts: { minChars?: number; timeBudgetMs?: number } = {}): Promise<NetworkModel> {
  if (text.length < (opts.minChars ?? OFF_LOOP_MIN_CHARS)) return parseMatpower(text, file);
  const budget = opts.timeBudgetMs ?? OFF_LOOP_TIME_BUDGET_MS;
  const release = await slot();
  try {
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      const worker = new Worker(workerFile(), { workerData: { text, file }, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new AppError('VALIDATION_FAILED', `the MATPOWER case was not read within ${Math.round(budget / 1000)} s; it is too large or malformed`, { reason: 'IMPORT_TIME_BUDGET', budget_ms: budget }));
      }, budget);
      worker.once('message', (m: WorkerReply) => {
        clearTimeout(timer);
        resolve(m);
        void worker.terminate();
      });
      worker.once('error', (e) => {
        clearTimeout(timer);
        // Out of the worker's heap cap: the file, not the service, is the problem.
        const heap = (e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        reject(heap ? new AppError('VALIDATION_FAILED', 'the MATPOWER case needs more memory to read than an import may use', { reason: 'IMPORT_MEMORY_BUDGET' }) : e);
      });
    });
    if ('model' in reply) {
      readsOffLoop.push(reply.threadId);
      if (readsOffLoop.length > 16) readsOffLoop.shift();
      return reply.model;
    }
    if ('error' in reply) throw new MatpowerParseError(reply.error.file, reply.error.line, reply.error.expected, reply.error.found);
    throw new Error(`MATPOWER reader thread failed: ${reply.failure}`);
  } finally {
    release();
  }
}
