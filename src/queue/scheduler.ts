// Per-tenant FIFO with a live concurrency quota, shared by every API process.
//
// PostgreSQL is the source of truth: a task is inserted 'queued'; the dispatcher
// (under an advisory lock, so several API processes never over-dispatch) moves
// each tenant's oldest queued tasks to 'dispatched' while the tenant has fewer
// than quota.concurrent_powerflow tasks dispatched or running, then hands them to
// a transport: this process's solver pool (embedded) or BullMQ (distributed).
// Tenants are dispatched independently, so one tenant's backlog never holds
// another tenant's tasks back. Synchronous power flows solved at once (./direct.ts)
// hold slots too: a pass subtracts them (distributed, read from Redis by a fence
// that stops new ones for tenants with queued tasks), and every queue submission
// tells them first, so none overtakes a queued task.
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import type { SolveOptions } from '../powerflow/types.js';
import { newId } from '../lib/ids.js';
import { AppError } from '../lib/errors.js';
import { serviceUnavailable } from '../lib/unavailable.js';
import { FINISHED, findTask, taskById, taskFromRow, type StoredTaskRow, type TaskRow } from '../domain/tasks.js';
import { eventFromRow, insertEvent, publishEvents } from '../domain/eventLog.js';
import type { Queryable } from '../db/database.js';
import { createBatcher } from '../lib/batcher.js';
import { announceFinished } from './execute.js';
import { networksChanged } from '../domain/networks.js';
import { DirectRuns } from './direct.js';

const DISPATCH_LOCK = 7_310_443;
const DISPATCH_MIN_INTERVAL_MS = 10;
const DISPATCH_MAX_INTERVAL_MS = 50;
export const DEFAULT_CONCURRENT_POWERFLOW = 100;

export interface TaskTransport {
  readonly kind: 'embedded' | 'bullmq';
  send(tasks: { id: string; tenant_id: string }[]): Promise<void>;
  /** Hands the pieces of a running task to solvers (this process's pool, or BullMQ jobs any worker
   *  takes), by kind of piece: today the chunks of a study. */
  sendJobs<K extends JobKind>(kind: K, jobs: JobOf[K][]): Promise<void>;
  /** Stop a dispatched/running task wherever it runs. */
  cancel(taskId: string): Promise<void>;
  ping(): Promise<boolean>;
  /** False while the transport cannot take work (Redis away): submissions answer 503 instead of piling up. */
  available?(): boolean;
  close(): Promise<void>;
}

/** The pieces a running task hands to solvers, by kind (TaskTransport.sendJobs). */
export interface JobOf {
  study_chunk: StudyChunkJob;
}
export type JobKind = keyof JobOf;

/** One chunk of a study: cases [case_start, case_end) of study_id (src/queue/study.ts). */
export interface StudyChunkJob {
  studyId: string;
  chunk: number;
}

export class TaskScheduler {
  private dispatching = false;
  private again = false;
  private timer?: NodeJS.Timeout;
  private waiters = new Map<string, Set<(t: TaskRow) => void>>();
  private unsubscribe?: () => void;
  private closed = false;

  /**
   * Synchronous power flows solved at once when their tenant has a free slot (./direct.ts). Distributed,
   * their slots are kept in Redis, which every dispatcher reads (even with GRIDOPS_DIRECT_SYNC=off, or
   * without a solver pool, ROLE=api: another API process may solve at once).
   */
  readonly direct?: DirectRuns;

  /** `services` is late-bound: the scheduler is one of the services, and a cancel announces with all of them. */
  constructor(private readonly services: () => Services, readonly transport: TaskTransport) {
    // GRIDOPS_DIRECT_SYNC=off keeps every synchronous power flow on the queue (to compare the two in bench:http).
    const runs = process.env.GRIDOPS_DIRECT_SYNC !== 'off';
    if (transport.kind === 'bullmq') this.direct = new DirectRuns(services, DEFAULT_CONCURRENT_POWERFLOW, { shared: true, runs });
    else if (runs) this.direct = new DirectRuns(services, DEFAULT_CONCURRENT_POWERFLOW);
  }

  private get s(): Services {
    return this.services();
  }

  start(pollMs = 1000): void {
    // Any process's finished task frees a slot: dispatch again and wake waiters.
    this.unsubscribe = this.s.bus.subscribe('task', (m: { task_id: string; direct?: boolean }) => {
      if (!m.direct) this.kick(); // a direct run kicks when it frees its slot, before it is stored
      const w = this.waiters.get(m.task_id);
      if (w) void taskById(this.s.db, m.task_id).then((t) => t && this.wake(t));
    });
    // A periodic pass covers a missed notice or a process that died mid-dispatch.
    this.timer = setInterval(() => this.kick(), pollMs);
    this.timer.unref();
    this.kick();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.unsubscribe?.();
    while (this.dispatching) await new Promise((r) => setTimeout(r, 10));
    // Answered synchronous power flows not yet stored are stored before the database closes.
    await this.direct?.drain();
    await this.direct?.close();
  }

  /** Stores a queued task (group-committed with the submissions of the moment) and dispatches. */
  async submit(caller: Caller, networkId: string, version: number, options: SolveOptions): Promise<TaskRow> {
    // Refused before anything is stored, so a client told 503 has no task it does not know of.
    if (this.transport.available && !this.transport.available()) throw serviceUnavailable('redis', 'accepting the power flow (nothing was stored)');
    const stored = await this.queueing(caller.tenantId);
    const { row, event } = await this.submissions.add({ tenantId: caller.tenantId, networkId, version, options }).finally(stored);
    await publishEvents(this.s.bus, [event]);
    this.kick();
    return row;
  }

  /**
   * Stores a queued task of another kind (a study) in one transaction with what `within`
   * writes beside it, so no dispatcher can pick the task before its own rows exist.
   */
  async submitWith(caller: Caller, networkId: string, version: number, kind: string, options: Record<string, unknown>,
    within: (tx: Queryable, task: TaskRow) => Promise<void>): Promise<TaskRow> {
    const stored = await this.queueing(caller.tenantId);
    const { task, event } = await this.s.db.transaction(async (tx) => {
      const { rows } = await tx.query<TaskRow>(
        `INSERT INTO tasks (id, tenant_id, network_id, network_version, kind, status, options) VALUES ($1, $2, $3, $4, $5, 'queued', $6) RETURNING *`,
        [newId('task'), caller.tenantId, networkId, version, kind, JSON.stringify(options)]);
      const task = rows[0]!;
      await within(tx, task);
      const event = await insertEvent(tx, {
        tenantId: task.tenant_id,
        topic: 'task',
        kind: 'task.queued',
        networkId,
        payload: { task_id: task.id, network_id: networkId, status: 'queued', kind },
      });
      return { task, event };
    }).finally(stored);
    await publishEvents(this.s.bus, [event]);
    this.kick();
    return task;
  }

  /**
   * Tells the direct runs a task of the tenant is about to be queued (FIFO: none starts at once until it
   * is dispatched); the returned function, once it is stored or failed. Distributed, a submission that
   * cannot tell Redis is refused before anything is stored.
   */
  private async queueing(tenantId: string): Promise<() => void> {
    try {
      return (await this.direct?.queueing(tenantId)) ?? (() => {});
    } catch {
      throw serviceUnavailable('redis', 'accepting the task (nothing was stored)');
    }
  }

  // One statement for every submission that arrives while the previous ones are being
  // stored (src/lib/batcher.ts): the tasks and their task.queued events are inserted by one
  // INSERT and a data-modifying WITH, atomic without a transaction's BEGIN and COMMIT
  // round trips. Event seq follows task seq (submission order).
  private readonly submissions = createBatcher(async (subs: { tenantId: string; networkId: string; version: number; options: SolveOptions }[]) => {
    const ids = subs.map(() => newId('task'));
    const { rows } = await this.s.db.query<TaskRow & { event_seq: string; event_created_at: Date; event_payload: Record<string, unknown> }>(
      `WITH t AS (
         INSERT INTO tasks (id, tenant_id, network_id, network_version, kind, status, options)
         SELECT x.id, x.tenant_id, x.network_id, x.version, 'powerflow', 'queued', x.options
         FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::jsonb[]) WITH ORDINALITY AS x(id, tenant_id, network_id, version, options, ord)
         ORDER BY x.ord RETURNING *),
       e AS (
         INSERT INTO events (tenant_id, topic, kind, payload, network_id)
         SELECT t.tenant_id, 'task', 'task.queued', jsonb_build_object('task_id', t.id, 'network_id', t.network_id, 'status', 'queued'), t.network_id
         FROM t ORDER BY t.seq RETURNING seq, created_at, payload)
       SELECT t.*, e.seq AS event_seq, e.created_at AS event_created_at, e.payload AS event_payload
       FROM t JOIN e ON e.payload->>'task_id' = t.id ORDER BY t.seq`,
      [ids, subs.map((t) => t.tenantId), subs.map((t) => t.networkId), subs.map((t) => t.version), subs.map((t) => JSON.stringify(t.options))]);
    const byId = new Map(
      rows.map(({ event_seq, event_created_at, event_payload, ...task }) => [
        task.id,
        {
          row: task as TaskRow,
          event: eventFromRow({
            seq: Number(event_seq),
            tenant_id: task.tenant_id,
            topic: 'task',
            kind: 'task.queued',
            payload: event_payload,
            network_id: task.network_id,
            agent_id: null,
            severity: null,
            created_at: event_created_at,
          }),
        },
      ]),
    );
    return ids.map((id) => byId.get(id)!);
  });

  kick(): void {
    if (this.closed) return;
    if (this.dispatching) {
      this.again = true;
      return;
    }
    this.dispatching = true;
    void this.dispatchLoop();
  }

  private async dispatchLoop(): Promise<void> {
    try {
      do {
        this.again = false;
        const started = Date.now();
        const picked = await this.dispatchOnce();
        if (picked.length > 0) {
          // Their networks are locked now: lists must show it.
          await networksChanged(this.s, picked.map((t) => t.tenant_id));
          await this.transport.send(picked);
        }
        // A pass counts every unfinished task; under a stream of submissions and results
        // passes are spaced (at least 10 ms, and 4 times the last pass's own duration, up
        // to 50 ms), so one pass serves everything that arrived meanwhile and dispatching
        // never takes more than a fifth of a database connection.
        const took = Date.now() - started;
        const wait = Math.min(DISPATCH_MAX_INTERVAL_MS, Math.max(DISPATCH_MIN_INTERVAL_MS, 5 * took)) - took;
        if (this.again && wait > 0) await new Promise((r) => setTimeout(r, wait));
      } while (this.again && !this.closed);
    } catch (e) {
      this.s.log.error({ err: e }, 'task dispatch failed; retrying on the next pass');
    } finally {
      this.dispatching = false;
    }
  }

  /** One transaction: pick each tenant's oldest queued tasks that fit its live quota. */
  private async dispatchOnce(): Promise<{ id: string; tenant_id: string }[]> {
    return this.s.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [DISPATCH_LOCK]);
      const { rows: tenants } = await tx.query<{ tenant_id: string; active: number; quotas: Record<string, number> | null }>(
        `SELECT q.tenant_id, q.active, t.quotas FROM (
           SELECT tenant_id, count(*) FILTER (WHERE status IN ('dispatched', 'running'))::int AS active,
                  count(*) FILTER (WHERE status = 'queued')::int AS waiting
           FROM tasks WHERE status IN ('queued', 'dispatched', 'running') GROUP BY tenant_id) q
         JOIN tenants t ON t.id = q.tenant_id WHERE q.waiting > 0`);
      const picked: { id: string; tenant_id: string }[] = [];
      // After the counts are read: the direct runs in flight, and (distributed) none starts after this (./direct.ts).
      const direct = await this.direct?.inFlightOf(tenants.map((t) => t.tenant_id));
      for (const t of tenants) {
        const quota = Number(t.quotas?.concurrent_powerflow ?? DEFAULT_CONCURRENT_POWERFLOW);
        const free = quota - t.active - (direct?.get(t.tenant_id) ?? 0);
        if (free <= 0) continue;
        const { rows } = await tx.query<{ id: string; tenant_id: string }>(
          // status is re-checked on the row itself so a cancel that commits first wins.
          `UPDATE tasks SET status = 'dispatched' WHERE status = 'queued' AND id IN (
             SELECT id FROM tasks WHERE tenant_id = $1 AND status = 'queued' ORDER BY seq LIMIT $2)
           RETURNING id, tenant_id, seq`, [t.tenant_id, free]);
        rows.sort((a, b) => Number((a as unknown as { seq: number }).seq) - Number((b as unknown as { seq: number }).seq));
        picked.push(...rows.map((r) => ({ id: r.id, tenant_id: r.tenant_id })));
      }
      return picked;
    });
  }

  async cancel(caller: Caller, taskId: string): Promise<TaskRow> {
    const task = await findTask(this.s, caller, taskId);
    if (FINISHED.includes(task.status)) {
      throw new AppError('CONFLICT', `task ${taskId} is already ${task.status}; only queued or running tasks can be cancelled`, {
        task_id: taskId,
        status: task.status,
      });
    }
    const { rows } = await this.s.db.query<StoredTaskRow>(
      `UPDATE tasks SET status = 'cancelled', completed_at = now(),
         error = $2 WHERE id = $1 AND status IN ('queued', 'dispatched', 'running') RETURNING *`,
      [taskId, JSON.stringify({ code: 'CANCELLED', message: `cancelled by ${caller.actor.type} ${caller.actor.id}` })]);
    if (!rows[0]) return findTask(this.s, caller, taskId);
    const cancelled = taskFromRow(rows[0]);
    if (task.status !== 'queued') await this.transport.cancel(taskId);
    await announceFinished(this.s, cancelled);
    return cancelled;
  }

  /** Resolves with the finished task, or undefined after timeoutMs. */
  async waitFor(taskId: string, timeoutMs: number): Promise<TaskRow | undefined> {
    return new Promise<TaskRow | undefined>((resolve) => {
      const set = this.waiters.get(taskId) ?? new Set();
      this.waiters.set(taskId, set);
      const timer = setTimeout(() => {
        set.delete(done);
        if (set.size === 0) this.waiters.delete(taskId);
        resolve(undefined);
      }, timeoutMs);
      const done = (t: TaskRow) => {
        clearTimeout(timer);
        resolve(t);
      };
      set.add(done);
      // It may have finished before we started listening.
      void taskById(this.s.db, taskId).then((t) => t && this.wake(t));
    });
  }

  private wake(t: TaskRow): void {
    if (!FINISHED.includes(t.status)) return;
    const set = this.waiters.get(t.id);
    if (!set) return;
    this.waiters.delete(t.id);
    for (const f of set) f(t);
  }

  /** Position of a queued task in its tenant's FIFO (1 = next), for the task view. */
  async queuePosition(t: TaskRow): Promise<number | null> {
    if (t.status !== 'queued') return null;
    const { rows } = await this.s.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM tasks WHERE tenant_id = $1 AND status = 'queued' AND seq <= $2`,
      [t.tenant_id, t.seq],
    );
    return rows[0].n;
  }
}
