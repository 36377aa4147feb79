// Builds the process's services from the configuration, in dependency order, and
// closes them in reverse: storage and migrations, the event bus, the solver pool,
// the list cache, then the components built on them (security, audit, the task
// queue and its lifecycle, the live hubs). Embedded or distributed (CONTRACT).
import pino, { type Logger } from 'pino';
import { mkdirSync } from 'node:fs';
import type { Config } from './config.js';
import type { ServiceCore, Services } from './services.js';
import { openDatabase } from './db/database.js';
import { migrate } from './db/migrate.js';
import { createMemoryBus, createRedisBus } from './events/bus.js';
import { TaskScheduler, type TaskTransport } from './queue/scheduler.js';
import { createEmbeddedTransport } from './queue/embedded.js';
import { createTaskLifecycle } from './queue/execute.js';
import { LocalRuns } from './queue/localRuns.js';
import { runStudyTask } from './queue/study.js';
import { runOpfTask } from './queue/opf.js';
import { runStateEstimationTask } from './queue/stateEstimation.js';
import { runPowerFlowTask } from './queue/powerflow.js';
import { runSensitivitiesTask } from './queue/sensitivities.js';
import { createListCache } from './cache/listCache.js';
import { PendingTasks } from './domain/pendingTasks.js';
import { createModelStore } from './cache/modelStore.js';
import { startEventRetention } from './domain/eventHistory.js';
import { startResultRetention } from './domain/resultStorage.js';
import { createNetworkStateReader } from './domain/networks.js';
import { createSecurity, closeSecurity } from './security/state.js';
import { createAuditWriter } from './security/audit.js';
import { memoNetworkStates, listenNetworkNotices } from './cache/networkVersions.js';
import { createDenialCounter, flushDenials, stopDenials } from './security/denials.js';
import { createConnectionRegistry } from './security/connections.js';
import { startSweeper } from './security/quotas.js';
import { RealtimeHub } from './realtime/hub.js';
import { ProgressHub } from './graphql/streams.js';
import { createMetrics } from './metrics/registry.js';
import { alarmJudge } from './domain/alarmJudge.js';

/** Logs a recurring store failure at most once per 10 s (not once per message or request). */
function throttledWarning(logger: Logger, message: string) {
  let warnedAt = 0;
  let count = 0;
  return (err: unknown, n = 1) => {
    count += n;
    if (Date.now() - warnedAt < 10_000) return;
    warnedAt = Date.now();
    logger.warn({ err, count }, message);
    count = 0;
  };
}

async function createCore(config: Config, logger: Logger): Promise<ServiceCore> {
  const inMemory = config.dataDir === ':memory:'; // tests: PGlite without files
  if (!config.databaseUrl && !inMemory) mkdirSync(config.dataDir, { recursive: true });
  const db = await openDatabase({ url: config.databaseUrl, schema: config.dbSchema, dataDir: config.databaseUrl || inMemory ? undefined : config.dataDir });
  await migrate(db);
  const busDropped = throttledWarning(logger, 'event bus: Redis did not take live messages; they are stored, clients catch up from the event log');
  const bus = config.redisUrl ? await createRedisBus(config.redisUrl, config.redisPrefix, (err, n) => busDropped(err, n)) : createMemoryBus();
  let solver: ServiceCore['solver'];
  if (config.role !== 'api') {
    const { createSolverPool } = await import('./engine/pool.js');
    solver = createSolverPool({ threads: config.workers });
  }
  const listMiss = throttledWarning(logger, 'list cache: Redis did not answer; lists are read from the database until it does');
  const lists = createListCache({
    maxEntries: config.listCacheEntries, maxAgeMs: config.listCacheMaxAgeMs, redisUrl: config.redisUrl, redisPrefix: config.redisPrefix,
    onError: (err) => listMiss(err),
  });
  await lists.ready();
  const models = createModelStore({ maxWeight: config.modelStoreElements });
  return { config, db, bus, log: logger, solver, lists, models, pendingTasks: new PendingTasks(), startedAt: new Date() };
}

export async function createServices(config: Config, log?: Logger): Promise<Services> {
  const core = await createCore(config, log ?? pino({ level: config.logLevel }));
  if (config.role === 'api' && !config.redisUrl) throw new Error('ROLE=api without REDIS_URL has nowhere to run power flows; set REDIS_URL or ROLE=all');
  const security = await createSecurity(core);
  // The transports run tasks with the finished services (late-bound: the scheduler is one of them).
  let transport: TaskTransport;
  if (config.redisUrl) {
    const { createBullTransport } = await import('./queue/bullmq.js');
    transport = await createBullTransport(core, () => services);
  } else {
    transport = createEmbeddedTransport(() => services);
  }
  const metrics = createMetrics({ role: config.role, db: core.db });
  const services: Services = {
    ...core,
    security,
    audit: createAuditWriter(core.db),
    denials: createDenialCounter(),
    networkStates: memoNetworkStates(createNetworkStateReader(core.db)),
    tasks: new TaskScheduler(() => services, transport),
    taskLifecycle: createTaskLifecycle(() => services),
    localRuns: new LocalRuns(),
    eventRetention: startEventRetention(core), // periodic purge of old events (docs/events.md)
    resultRetention: startResultRetention(core), // finished tasks and their results past RESULT_RETENTION_DAYS (docs/security.md)
    live: new RealtimeHub({ ...core, metrics }),
    liveCredentials: createConnectionRegistry(security.redis, `${config.redisPrefix}:tokconn`),
    progress: new ProgressHub(core),
    metrics,
    runners: { powerflow: runPowerFlowTask, study: runStudyTask, opf: runOpfTask, sensitivities: runSensitivitiesTask,
      state_estimation: runStateEstimationTask },
    powerFlowJudge: alarmJudge,
  };
  listenNetworkNotices(security, services.networkStates); // other processes' network writes
  startSweeper(services); // expired temporary quotas, audit retention (src/security/quotas.ts)
  return services;
}

export async function closeServices(s: Services): Promise<void> {
  s.metrics.registry.clear();
  s.progress.close();
  s.live.close();
  await s.liveCredentials.close();
  s.eventRetention.stop();
  s.resultRetention.stop();
  await s.tasks.close();
  await s.tasks.transport.close();
  stopDenials(s);
  await flushDenials(s).catch((err) => s.log.error({ err }, 'rate-limit refusals counted at shutdown could not be written'));
  await closeSecurity(s.security);
  await s.solver?.close();
  await s.bus.close();
  await s.lists.close();
  s.models.close();
  await s.db.close();
}
