// PSS/E import without blocking the event loop, as src/matpower/offLoop.ts does for MATPOWER: a
// small file is read inline, a larger one in a worker thread of its own (workers/psse.ts) with a
// time budget and a heap cap, at most two at once.
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { AppError } from '../lib/errors.js';
import type { PsseImport } from './mapping.js';
import { parsePsse, type PsseFormat } from './reader.js';
import { PsseParseError } from './scanner.js';

export const OFF_LOOP_MIN_CHARS = 256 * 1024;
const TIME_BUDGET_MS = 30_000;
const MAX_THREADS = 2;
const WORKER_HEAP_MB = 512;

let running = 0;
const waiting: (() => void)[] = [];
async function slot(): Promise<() => void> {
  if (running >= MAX_THREADS) await new Promise<void>((r) => waiting.push(r));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

function workerFile(): string {
  const here = import.meta.url;
  return fileURLToPath(new URL(`../../workers/psse${here.endsWith('.ts') ? '.ts' : '.js'}`, here));
}

export type PsseWorkerReply =
  | { imported: PsseImport }
  | { error: { line: number; record: string; expected: string; found?: string } }
  | { failure: string };

/** Reads a RAW or RAWX file; throws PsseParseError, or 422 VALIDATION_FAILED past the time or memory budget. */
export async function parsePsseOffLoop(text: string, opts: { format?: PsseFormat; fileName?: string } = {}): Promise<PsseImport> {
  if (text.length < OFF_LOOP_MIN_CHARS) return parsePsse(text, opts);
  const release = await slot();
  try {
    const reply = await new Promise<PsseWorkerReply>((resolve, reject) => {
      const worker = new Worker(workerFile(), { workerData: { text, opts }, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(
          new AppError('VALIDATION_FAILED', `the PSS/E file was not read within ${TIME_BUDGET_MS / 1000} s; it is too large or malformed`, {
            reason: 'IMPORT_TIME_BUDGET',
          }),
        );
      }, TIME_BUDGET_MS);
      worker.once('message', (m: PsseWorkerReply) => {
        clearTimeout(timer);
        resolve(m);
        void worker.terminate();
      });
      worker.once('error', (e) => {
        clearTimeout(timer);
        const heap = (e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        reject(
          heap
            ? new AppError('VALIDATION_FAILED', 'the PSS/E file needs more memory to read than an import may use', {
                reason: 'IMPORT_MEMORY_BUDGET',
              })
            : e,
        );
      });
    });
    if ('imported' in reply) return reply.imported;
    if ('error' in reply) throw new PsseParseError(reply.error.line, reply.error.record, reply.error.expected, reply.error.found);
    throw new Error(`PSS/E reader thread failed: ${reply.failure}`);
  } finally {
    release();
  }
}
