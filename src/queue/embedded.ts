// The in-process transport: dispatched tasks run on this process's solver pool.
// Same FIFO and quota rules as BullMQ (they live in the scheduler), no Redis.
import type { Services } from '../services.js';
import type { StudyChunkJob, TaskTransport } from './scheduler.js';
import { abortLocal, executeTask } from './execute.js';
import { executeStudyChunk, failStudy } from './study.js';
import { studyTaskId } from '../db/stores/studies.js';

export function createEmbeddedTransport(getServices: () => Services): TaskTransport {
  const inflight = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  };
  // Study chunks wait here and run as many at a time as the pool has threads (one more,
  // so storing a chunk's rows overlaps the next solve), in the order they were sent.
  const chunks: StudyChunkJob[] = [];
  let active = 0;
  const pump = () => {
    const s = getServices();
    const limit = Math.max(1, s.solver?.threads ?? s.config.workers) + 1;
    while (active < limit && chunks.length > 0) {
      const c = chunks.shift()!;
      active++;
      track(executeStudyChunk(s, c.studyId, c.chunk)
        .catch(async (err) => {
          s.log.error({ err, study: c.studyId, chunk: c.chunk }, 'study chunk could not be stored');
          const taskId = await studyTaskId(s.db, c.studyId);
          if (taskId) await failStudy(s, taskId, { code: 'INTERNAL_ERROR', message: `study chunk ${c.chunk} could not be stored: ${(err as Error).message}`, details: { study_id: c.studyId, chunk: c.chunk } });
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
    async sendJobs(kind, jobs) {
      if (kind !== 'study_chunk') throw new Error(`no embedded runner for jobs of kind '${kind}'`);
      chunks.push(...(jobs as StudyChunkJob[]));
      pump();
    },
    async cancel(taskId) {
      abortLocal(taskId);
    },
    async ping() {
      return true;
    },
    async close() {
      chunks.length = 0;
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
  };
}
