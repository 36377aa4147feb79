// The app's services: what every door (REST, GraphQL, SSE, WebSocket), the CLI and the
// queue workers share. Every component is a field here, built in one place
// (src/bootstrap.ts createServices, in dependency order) and closed in one place
// (closeServices, in reverse order): reading bootstrap.ts shows the whole application.
import type { TaskRunners } from './queue/runner.js';
import type { PowerFlowJudge } from './queue/finishedPowerFlows.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import type { EventBus } from './events/bus.js';
import type { SolverPool } from './engine/pool.js';
import type { TaskScheduler } from './queue/scheduler.js';
import type { TaskLifecycle } from './queue/execute.js';
import type { LocalRuns } from './queue/localRuns.js';
import type { ListCache } from './cache/listCache.js';
import type { ModelStore } from './cache/modelStore.js';
import type { PendingTasks } from './domain/pendingTasks.js';
import type { SecurityState } from './security/context.js';
import type { AuditWriter } from './security/audit.js';
import type { DenialCounter } from './security/denials.js';
import type { NetworkStateMemo } from './cache/networkVersions.js';
import type { EventRetention } from './domain/eventHistory.js';
import type { ResultRetention } from './domain/resultStorage.js';
import type { RealtimeHub } from './realtime/hub.js';
import type { ConnectionRegistry } from './security/connections.js';
import type { ProgressHub } from './graphql/streams.js';
import type { Metrics } from './metrics/registry.js';

/** The stores and channels every other component is built from. */
export interface ServiceCore {
  config: Config;
  db: Database;
  bus: EventBus;
  log: Logger;
  /** Present in processes that solve (ROLE all or worker). */
  solver?: SolverPool;
  /** List pages by tenant, invalidated by every writer of their collection (src/cache/listCache.ts). */
  lists: ListCache;
  /** Frozen network-model versions read by this process and the values derived from them, bounded by weight (src/cache/modelStore.ts). */
  models: ModelStore;
  /** Synchronous power flows answered before their task is stored (write-behind, src/domain/pendingTasks.ts). */
  pendingTasks: PendingTasks;
  startedAt: Date;
}

export interface Services extends ServiceCore {
  /** Keys, token verifiers, caches, rate-limit buckets, connection slots, the notice channel (src/security/context.ts). */
  security: SecurityState;
  /** Group-commits audit entries written outside a caller's transaction (src/security/audit.ts). */
  audit: AuditWriter;
  /** Rate-limit refusals counted in memory and written in aggregate (src/security/denials.ts). */
  denials: DenialCounter;
  /** Network status and version for power-flow submissions: a memo over batched reads (src/cache/networkVersions.ts). */
  networkStates: NetworkStateMemo;
  /** The per-tenant FIFO queue: submission and dispatch (src/queue/scheduler.ts). */
  tasks: TaskScheduler;
  /** Batched claims and finishes of executed tasks (src/queue/execute.ts). */
  taskLifecycle: TaskLifecycle;
  /** The task runs and study chunks going on in this process, for cancel requests to stop (src/queue/localRuns.ts). */
  localRuns: LocalRuns;
  /** Periodic purge of old events (src/domain/eventHistory.ts). */
  eventRetention: EventRetention;
  /** Periodic removal of finished tasks and their stored results past RESULT_RETENTION_DAYS (src/domain/resultStorage.ts). */
  resultRetention: ResultRetention;
  /** Live fan-out of events to SSE and WebSocket subscribers; subscribes to the bus on first use (src/realtime/hub.ts). */
  live: RealtimeHub;
  /** Concurrent live connections per credential (src/realtime/access.ts). */
  liveCredentials: ConnectionRegistry;
  /** Recent power-flow progress for GraphQL subscribers; started by the GraphQL door (src/graphql/streams.ts). */
  progress: ProgressHub;
  /** Prometheus instruments of this process (src/metrics/registry.ts, docs/observability.md). */
  metrics: Metrics;
  /** What runs a claimed task, by kind: power flow, study, OPF (src/queue/runner.ts, filled in bootstrap.ts). */
  runners: TaskRunners;
  /** The subscriber of finished power flows: the alarm rules (src/queue/finishedPowerFlows.ts, src/domain/alarmJudge.ts). */
  powerFlowJudge: PowerFlowJudge;
}
