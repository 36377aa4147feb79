// Builds the process's services from the configuration: storage, migrations,
// event bus, solver pool and task queue, embedded or distributed (CONTRACT).
import pino, { type Logger } from 'pino';
import { mkdirSync } from 'node:fs';
import type { Config } from './config.js';
import type { Services } from './services.js';
import { openDatabase } from './db/database.js';
import { migrate } from './db/migrate.js';
import { createMemoryBus, createRedisBus } from './events/bus.js';
import { TaskScheduler, type TaskTransport } from './queue/scheduler.js';
import { createEmbeddedTransport } from './queue/embedded.js';
import { registerStudyRunner } from './queue/study.js';
import { createListCache } from './cache/listCache.js';
import { startEventRetention, stopEventRetention } from './domain/eventHistory.js';

export async function createServices(config: Config, log?: Logger): Promise<Services> {
  const logger = log ?? pino({ level: config.logLevel });
  const inMemory = config.dataDir === ':memory:'; // tests: PGlite without files
  if (!config.databaseUrl && !inMemory) mkdirSync(config.dataDir, { recursive: true });
  const db = await openDatabase({ url: config.databaseUrl, schema: config.dbSchema, dataDir: config.databaseUrl || inMemory ? undefined : config.dataDir });
  await migrate(db);
  let droppedAt = 0;
  let dropped = 0;
  const bus = config.redisUrl ? await createRedisBus(config.redisUrl, config.redisPrefix, (err, n) => {
    dropped += n;
    if (Date.now() - droppedAt < 10_000) return; // once per 10 s, not once per message
    droppedAt = Date.now();
    logger.warn({ err, dropped }, 'event bus: Redis did not take live messages; they are stored, clients catch up from the event log');
    dropped = 0;
  }) : createMemoryBus();
  let solver: Services['solver'];
  if (config.role !== 'api') {
    const { createSolverPool } = await import('./powerflow/pool.js');
    solver = createSolverPool({ threads: config.workers });
  }
  let warnedAt = 0;
  const lists = createListCache({
    maxEntries: config.listCacheEntries, maxAgeMs: config.listCacheMaxAgeMs, redisUrl: config.redisUrl, redisPrefix: config.redisPrefix,
    onError: (err) => {
      if (Date.now() - warnedAt < 10_000) return; // once per 10 s, not once per request
      warnedAt = Date.now();
      logger.warn({ err }, 'list cache: Redis did not answer; lists are read from the database until it does');
    },
  });
  await lists.ready();
  const services = { config, db, bus, log: logger, solver, lists, startedAt: new Date() } as Services;
  let transport: TaskTransport;
  if (config.redisUrl) {
    const { createBullTransport } = await import('./queue/bullmq.js');
    transport = await createBullTransport(services);
  } else {
    if (config.role === 'api') throw new Error('ROLE=api without REDIS_URL has nowhere to run power flows; set REDIS_URL or ROLE=all');
    transport = createEmbeddedTransport(() => services);
  }
  services.tasks = new TaskScheduler(services, transport);
  registerStudyRunner(); // tasks of kind 'study' (src/queue/study.ts)
  startEventRetention(services); // periodic purge of old events (docs/events.md)
  return services;
}

export async function closeServices(s: Services): Promise<void> {
  stopEventRetention(s);
  await s.tasks.close();
  await s.tasks.transport.close();
  await s.solver?.close();
  await s.bus.close();
  await s.lists.close();
  await s.db.close();
}
