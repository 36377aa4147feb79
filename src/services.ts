// The app's services: what every door (REST, GraphQL, SSE, WebSocket) and the
// queue workers share. Built once per process in src/app.ts / src/server.ts.
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { EventBus } from './events/bus.js';
import type { SolverPool } from './powerflow/pool.js';
import type { TaskScheduler } from './queue/scheduler.js';
import type { ListCache } from './cache/listCache.js';

export interface Services {
  config: Config;
  db: Database;
  bus: EventBus;
  log: Logger;
  /** Present in processes that solve (ROLE all or worker). */
  solver?: SolverPool;
  tasks: TaskScheduler;
  /** List pages by tenant, invalidated by every writer of their collection (src/cache/listCache.ts). */
  lists: ListCache;
  startedAt: Date;
}
