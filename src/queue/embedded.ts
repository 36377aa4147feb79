// The in-process transport: dispatched tasks run on this process's solver pool.
// Same FIFO and quota rules as BullMQ (they live in the scheduler), no Redis.
import type { Services } from '../services.js';
import type { TaskTransport } from './scheduler.js';
import { abortLocal, executeTask } from './execute.js';

export function createEmbeddedTransport(getServices: () => Services): TaskTransport {
  const inflight = new Set<Promise<void>>();
  return {
    kind: 'embedded',
    async send(tasks) {
      const s = getServices();
      for (const t of tasks) {
        const p = executeTask(s, t.id)
          .catch((err) => s.log.error({ err, task: t.id }, 'task execution failed'))
          .finally(() => inflight.delete(p));
        inflight.add(p);
      }
    },
    async cancel(taskId) {
      abortLocal(taskId);
    },
    async ping() {
      return true;
    },
    async close() {
      await Promise.allSettled([...inflight]);
    },
  };
}
