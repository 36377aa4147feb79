// The process's Prometheus metrics (prom-client): one registry per Services, the
// instruments every component records into, and the gauges read at scrape time.
// docs/observability.md lists every series with its labels and meaning.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/database.js';

/** Seconds buckets from 1 ms to 60 s: HTTP requests, tasks, solves. */
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const ITERATIONS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100];
/** Publish lag is small when healthy: 0.1 ms to 5 s. */
const LAG = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

export type LiveTransport = 'sse' | 'ws' | 'graphql-ws';

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  tasks: Counter<'kind' | 'status'>;
  taskDuration: Histogram<'kind' | 'method'>;
  solverIterations: Histogram<'method'>;
  solveDuration: Histogram<'method'>;
  publishLag: Histogram<'topic'>;
  rateLimitRejections: Counter<'layer'>;
  liveConnections: Gauge<'transport'>;
}

/** The instruments of one process. `db`: read at scrape time for the queue depth (absent: no such series). */
export function createMetrics(opts: { role: string; db?: Database }): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ role: opts.role });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const m: Metrics = {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS,
      registers,
    }),
    tasks: new Counter({
      name: 'gridops_tasks_total',
      help: 'Tasks finished in this process, by kind and final status',
      labelNames: ['kind', 'status'],
      registers,
    }),
    taskDuration: new Histogram({
      name: 'gridops_task_duration_seconds',
      help: 'Task run time (started to finished) by kind and method',
      labelNames: ['kind', 'method'],
      buckets: SECONDS,
      registers,
    }),
    solverIterations: new Histogram({
      name: 'gridops_solver_iterations',
      help: 'Iterations of each power-flow solve by method',
      labelNames: ['method'],
      buckets: ITERATIONS,
      registers,
    }),
    solveDuration: new Histogram({
      name: 'gridops_solve_duration_seconds',
      help: 'Solver time of each power flow (in the solver thread) by method',
      labelNames: ['method'],
      buckets: SECONDS,
      registers,
    }),
    publishLag: new Histogram({
      name: 'gridops_event_publish_lag_seconds',
      help: "From an event's creation to its delivery to the live subscribers of this process",
      labelNames: ['topic'],
      buckets: LAG,
      registers,
    }),
    rateLimitRejections: new Counter({
      name: 'gridops_rate_limit_rejections_total',
      help: 'Requests refused by a rate limit, by layer',
      labelNames: ['layer'],
      registers,
    }),
    liveConnections: new Gauge({
      name: 'gridops_live_connections',
      help: 'Open live connections of this process by transport',
      labelNames: ['transport'],
      registers,
    }),
  };
  for (const t of ['sse', 'ws', 'graphql-ws'] as const) m.liveConnections.set({ transport: t }, 0);
  if (opts.db) {
    const db = opts.db;
    new Gauge({
      name: 'gridops_queue_depth',
      help: 'Tasks waiting (queued) and running (dispatched or running) per tenant, read from the task table at scrape time',
      labelNames: ['tenant', 'state'],
      registers,
      async collect() {
        // One grouped statement per scrape over the partial index of unfinished tasks: bounded by tenants x 2.
        const { rows } = await db.query<{ tenant_id: string; state: string; n: string }>(
          `SELECT tenant_id, CASE WHEN status = 'queued' THEN 'queued' ELSE 'running' END AS state, count(*) AS n
             FROM tasks WHERE status IN ('queued', 'dispatched', 'running') GROUP BY 1, 2`);
        this.reset();
        for (const r of rows) this.set({ tenant: r.tenant_id, state: r.state }, Number(r.n));
      },
    });
  }
  return m;
}
