// The three drills of the task queue under faults (docs/reliability.md): a worker killed
// with kill -9, Redis restarted, PostgreSQL restarted, each while async power flows (mixed
// case118 / case2383wp) flow through BullMQ to two ROLE=worker processes.
import type { PrivateStore } from '../../test/helpers/stores.js';
import { Deployment, PowerFlowLoad, call, log, settle, sleep, Tally, waitFor, type DrillResult, type Ledger } from './common.js';

export interface QueueDrillOptions {
  /** Power flows accepted in all. */
  tasks: number;
  /** How long the store stays away (restart drills). */
  outageMs: number;
  /** Bound on waiting for every accepted task to finish. */
  settleMs: number;
  /** Extra environment of the gridops processes (e.g. shorter BullMQ lock timings in tests). */
  env?: Record<string, string>;
}

export interface Stores { redis: PrivateStore; postgres: PrivateStore }

function row(drill: string, load: PowerFlowLoad, l: Ledger, recoveredS: number | null, details: Record<string, unknown>): DrillResult {
  return {
    drill, submitted: l.accepted, completed: l.completed, lost: l.lost, duplicated: l.finishedTwice + l.unacknowledged,
    http_5xx: load.tally.unexpected5xx + load.tally.noAnswer, recovered_s: recoveredS,
    details: { answers: load.tally.summary(), no_answer: load.tally.noAnswer, reruns: l.reruns, lost_by_status: l.lostByStatus, finished_twice: l.finishedTwice, unacknowledged: l.unacknowledged, missing_events: l.missingEvents, ...details },
  };
}

async function withDeployment<T>(stores: Stores, opts: QueueDrillOptions, fn: (d: Deployment, nets: string[]) => Promise<T>): Promise<T> {
  const d = new Deployment({ databaseUrl: stores.postgres.url, redisUrl: stores.redis.url }, opts.env);
  try {
    await d.start(2);
    const nets = [await d.importCase('case118'), await d.importCase('case2383wp')];
    return await fn(d, nets);
  } finally {
    await d.destroy();
  }
}

/** kill -9 one of two workers once a third of the tasks has completed; start a new one. */
export function workerKilledDrill(stores: Stores, opts: QueueDrillOptions): Promise<DrillResult> {
  return withDeployment(stores, opts, async (d, nets) => {
    const load = new PowerFlowLoad(d, nets, opts.tasks).start();
    await waitFor('a third of the tasks to complete', async () => {
      const [r] = await d.sql<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE status = 'completed'`);
      return r!.n >= opts.tasks / 3;
    }, opts.settleMs);
    const inFlight = (await d.sql<{ id: string }>(`SELECT id FROM tasks WHERE status IN ('dispatched', 'running')`)).map((r) => r.id);
    const victim = d.workers[0]!;
    log(`worker killed: kill -9 ${victim.pid} with ${inFlight.length} tasks dispatched or running`);
    const killedAt = Date.now();
    await victim.kill();
    await d.startWorker();
    // Recovered: every task that was in flight at the kill has finished.
    const recovered = await waitFor('the tasks in flight at the kill to finish', async () => {
      const [r] = await d.sql<{ n: number }>(`SELECT count(*)::int AS n FROM tasks WHERE id = ANY($1) AND status NOT IN ('completed', 'failed', 'cancelled')`, [inFlight]);
      return r!.n === 0 ? Date.now() : undefined;
    }, opts.settleMs, 250).catch(() => undefined);
    await load.done();
    const l = await settle(d, load.accepted, opts.settleMs);
    const alive = d.alive();
    return row('worker killed', load, l, recovered ? (recovered - killedAt) / 1000 : null, { in_flight_at_kill: inFlight.length, api_alive: alive.api, workers_alive: alive.workers });
  });
}

/**
 * Takes a store away (kill -9 / immediate shutdown) once a third of the tasks is accepted,
 * for outageMs, while submissions and reads continue; then starts it again.
 */
function restartDrill(name: string, which: 'redis' | 'postgres') {
  return (stores: Stores, opts: QueueDrillOptions): Promise<DrillResult> => withDeployment(stores, opts, async (d, nets) => {
    const store = stores[which];
    const load = new PowerFlowLoad(d, nets, opts.tasks).start();
    await waitFor('a third of the tasks to be accepted', async () => load.accepted.length >= opts.tasks / 3, opts.settleMs, 50);
    log(`${name}: stopping ${which} on ${store.port} with ${load.accepted.length} tasks accepted`);
    await store.crash();
    const downAt = Date.now();
    // Reads during the outage: they must answer (200 or 503), never hang or 500.
    const reads = new Tally();
    const readLoop = (async () => {
      while (Date.now() - downAt < opts.outageMs) {
        await call(reads, `${d.url}/api/v1/networks`, { headers: d.headers }, 10_000);
        await call(reads, `${d.url}/api/v1/tasks/${load.accepted[load.accepted.length - 1]}`, { headers: d.headers }, 10_000);
        await sleep(50);
      }
    })();
    const acceptedBeforeOutage = load.accepted.length;
    await sleep(opts.outageMs);
    await readLoop;
    const acceptedDuringOutage = load.accepted.length - acceptedBeforeOutage;
    await store.start();
    load.mark();
    log(`${name}: ${which} is back after ${((Date.now() - downAt) / 1000).toFixed(1)} s`);
    const backAt = Date.now();
    await waitFor('a submission to be accepted again', async () => load.firstAcceptedAfterMark ?? (load.accepted.length >= opts.tasks ? backAt : undefined), opts.settleMs, 100).catch(() => undefined);
    const recoveredS = load.firstAcceptedAfterMark ? (load.firstAcceptedAfterMark - backAt) / 1000 : null;
    await load.done();
    const l = await settle(d, load.accepted, opts.settleMs);
    const alive = d.alive();
    const r = row(name, load, l, recoveredS, {
      outage_s: opts.outageMs / 1000, accepted_during_outage: acceptedDuringOutage, reads_during_outage: reads.summary(), reads_no_answer: reads.noAnswer,
      api_alive: alive.api, workers_alive: alive.workers, sample_503: load.sample503,
    });
    r.http_5xx += reads.unexpected5xx + reads.noAnswer;
    return r;
  });
}

export const redisRestartDrill = restartDrill('redis restart', 'redis');
export const postgresRestartDrill = restartDrill('postgresql restart', 'postgres');
