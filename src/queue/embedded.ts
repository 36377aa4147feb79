// The in-process transport: dispatched tasks run on this process's solver pool.
// Same FIFO and quota rules as BullMQ (they live in the scheduler), no Redis.
import type { Services } from '../services.js';
import type { JobKind, JobOf, TaskTransport } from './scheduler.js';
import type { PieceKind } from './pieceKind.js';
import { executeTask } from './execute.js';
import { pieceKinds } from './pieces.js';

export function createEmbeddedTransport(getServices: () => Services): TaskTransport {
  const inflight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  // Pieces of running tasks (a study's chunks) wait here and run as many at a time as the pool has threads (one
  // more, so storing a piece's rows overlaps the next solve), in the order they were sent. What a piece is and what
  // its failure means is its kind's (./pieceKind.ts).
  const pieces: { kind: PieceKind<unknown>; piece: unknown }[] = [];
  let active = 0;
  const pump = () => {
    const s = getServices();
    const limit = Math.max(1, s.solver?.threads ?? s.config.workers) + 1;
    while (active < limit && pieces.length > 0) {
      const { kind, piece } = pieces.shift()!;
      active++;
      track(kind.run(s, piece)
        .catch(async (err) => {
          s.log.error({ err, piece: kind.key(piece) }, 'a piece of a running task could not be stored');
          await kind.failed(s, piece, kind.failure(piece, `it could not be stored: ${(err as Error).message}`));
        })
        .catch(() => {})
        .finally(() => {
          active--;
          pump();
        }));
    }
  };
  return {
    kind: 'embedded',
    async send(tasks) {
      const s = getServices();
      for (const t of tasks) {
        track(executeTask(s, t.id).catch((err) => s.log.error({ err, task: t.id }, 'task execution failed')));
      }
    },
    async sendJobs<K extends JobKind>(name: K, jobs: JobOf[K][]) {
      const kind = pieceKinds[name] as PieceKind<unknown>;
      for (const piece of jobs) pieces.push({ kind, piece });
      pump();
    },
    async cancel(taskId) {
      getServices().localRuns.abort(taskId);
    },
    async ping() {
      return true;
    },
    async close() {
      pieces.length = 0;
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
  };
}
