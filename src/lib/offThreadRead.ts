// Reading an imported file in a worker thread of its own (workers/<name>.ts), so a large or hostile
// file can neither stall the event loop nor exhaust the process: a time budget ends the thread, a heap
// cap bounds it, and at most OFF_THREAD_READS files (of any format) are read at once; the rest wait
// their turn. The MATPOWER and PSS/E importers (src/matpower/offLoop.ts, src/psse/offLoop.ts) share it.
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { AppError } from './errors.js';

export const OFF_THREAD_READS = 2;
const WORKER_HEAP_MB = 512;

let running = 0;
const waiting: (() => void)[] = [];
async function slot(): Promise<() => void> {
  if (running >= OFF_THREAD_READS) await new Promise<void>((r) => waiting.push(r));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

function workerFile(name: string): string {
  const here = import.meta.url;
  return fileURLToPath(new URL(`../../workers/${name}${here.endsWith('.ts') ? '.ts' : '.js'}`, here));
}

/**
 * The one message worker `name` answers for `workerData`. `what` names the file in the 422
 * VALIDATION_FAILED refusals (reason IMPORT_TIME_BUDGET past `timeBudgetMs`, IMPORT_MEMORY_BUDGET
 * past the heap cap: the file, not the service, is the problem).
 */
export async function readOffThread<Reply>(
  name: 'matpower' | 'psse',
  workerData: unknown,
  what: string,
  timeBudgetMs: number,
): Promise<Reply> {
  const release = await slot();
  try {
    return await new Promise<Reply>((resolve, reject) => {
      const worker = new Worker(workerFile(name), { workerData, resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB } });
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(
          new AppError(
            'VALIDATION_FAILED',
            `${what} was not read within ${Math.round(timeBudgetMs / 1000)} s; it is too large or malformed`,
            { reason: 'IMPORT_TIME_BUDGET', budget_ms: timeBudgetMs },
          ),
        );
      }, timeBudgetMs);
      worker.once('message', (m: Reply) => {
        clearTimeout(timer);
        resolve(m);
        void worker.terminate();
      });
      worker.once('error', (e) => {
        clearTimeout(timer);
        const heap = (e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
        reject(
          heap
            ? new AppError('VALIDATION_FAILED', `${what} needs more memory to read than an import may use`, {
                reason: 'IMPORT_MEMORY_BUDGET',
              })
            : e,
        );
      });
    });
  } finally {
    release();
  }
}
