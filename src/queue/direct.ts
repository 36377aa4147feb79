// Synchronous power flows solved at once (issue 36). Through the queue, a synchronous power flow
// of 0.1 ms costs four writes (insert, dispatch pass, claim, finish), a read of the stored result
// and several wake-ups. When the tenant has no queued task and a free slot of its
// concurrent_powerflow quota, it is solved at once on this process's pool instead, and the task
// (its id drawn before the solve), its result and its events are written afterwards by one
// statement, group-committed with the other direct runs that finish meanwhile. The answer does not
// wait for that statement (write-behind, SYNC_POWERFLOW_STORE=after, the default): until it is stored,
// the finished task is in Services.pendingTasks (src/domain/pendingTasks.ts), where every door's task
// read finds it, and the readers of the task list, alarms and events wait for the tenant's stores in
// flight, so GET /tasks/{id} finds the task as soon as the caller knows its id. A solved run has left
// its slot (it is finished, not running) before it is stored: the quota counts running power flows.
// Shutdown stores what was answered (TaskScheduler.close); what a crash loses: docs/reliability.md.
// SYNC_POWERFLOW_STORE=before stores it before the answer, as before issue 36's round five.
//
// With the in-process transport this process is the only dispatcher, and the dispatcher
// subtracts the direct runs in flight from each tenant's free slots, so the quota is
// exact. A run is counted (reserved) before its tenant's slots are read, and PGlite runs one
// statement at a time, so a dispatch pass and a capacity read never both miss a slot.
//
// The slot read is skipped for a tenant known to have no task on the queue: the last read found
// none queued, dispatched or running, and the scheduler stored none for it since (it tells this
// class before each insert, so a read that may have missed that insert marks nothing). Only the
// scheduler puts tasks on the queue, so the tenant's slots are then its quota less its direct runs.
// The quota read with them is kept until a quota_changed notice (the admin API, the sweeper) drops it.
//
// Distributed (BullMQ), several API processes solve at once, each on its own pool (ROLE=all), and
// several dispatchers share the queue: the slots are then kept in Redis (./directSlots.ts). A run
// reserves a slot there by one script that succeeds only while its tenant is known to have nothing
// queued and its runs in flight plus its tasks dispatched or running (as last read) are below the
// quota; when not known (first run, or anything queued or dispatched since), the process reads
// PostgreSQL (batched) and records that read in Redis only if nothing was queued or fenced since it
// began (a generation read before the read, and the submissions being stored). The exact quota:
// - a dispatch pass reads each tenant's counts under its advisory lock, then FENCEs the tenants with
//   queued tasks in Redis: no reservation succeeds after the fence, and the runs in flight at the
//   fence are subtracted from the free slots. A reservation before the fence is counted; one after it
//   needs a new read of PostgreSQL begun after the fence, which sees the pass's queued tasks (pass
//   not committed: no record) or its dispatched ones (committed: counted). So the two never both take
//   the last slot, whatever the interleaving of processes;
// - while a tenant is known to have nothing queued its tasks dispatched or running can only finish
//   (only a dispatch pass adds to them, and it fences first), so the count read is an upper bound.
// FIFO: every submission to the queue bumps the generation (and is listed as being stored) before its
// insert, so a run after any part of it takes the queue; a tenant with a queued task never runs at once.
// Leases: a run's slot is renewed by its process and lapses 10 s after a crash (GRIDOPS_DIRECT_LEASE_MS).
// Redis away: no direct run (the queue path answers). What a Redis restart forgets: docs/powerflow.md.
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import type { SolveOptions } from '../powerflow/types.js';
import type { TaskRow } from '../domain/tasks.js';
import { newId } from '../lib/ids.js';
import { createBatcher } from '../lib/batcher.js';
import { eventFromRow, publishEvents, type EventRow, type NewEvent } from '../domain/eventLog.js';
import { networksChanged } from '../domain/networks.js';
import { countFinished, packFinishes, rideOutOutage, type Finish } from './execute.js';
import { solvePowerFlow } from './powerflow.js';
import { DEFAULT_LEASE_MS, DirectSlots, type Reservation } from './directSlots.js';

/** Answered direct runs not yet stored, at most: beyond, an answer waits for its store (back-pressure). */
export const MAX_PENDING_ANSWERS = 1_000;

/** How long an answered run's store waits to start (its request's audit entry goes to the database before it). */
const STORE_DELAY_MS = 1;

/** A finish with this many bus, branch and generator records or more is stored by a group commit of its own. */
export const LARGE_FINISH_RECORDS = 5_000;

function isLargeFinish(f: Finish): boolean {
  const r = f.result;
  return !!r && r.buses.length + r.branches.length + r.generators.length >= LARGE_FINISH_RECORDS;
}

interface Capacity {
  quota: number;
  active: number;
  waiting: number;
}

/** The finished task of a direct run, as stored (seq: its queue order, known once stored; 0 before). */
function finishedTask(f: Finish, seq = 0): TaskRow {
  return {
    ...f.task,
    seq,
    status: f.status,
    error: f.failure,
    completed_at: f.completedAt,
    result: f.result as unknown as Record<string, unknown> | null,
  };
}

/**
 * The task as a read of its stored row gives it: the result's header and the error are JSON there (a
 * timed-out run's NaN mismatch reads null), its per-element values binary (the same numbers).
 */
function asRead(t: TaskRow): TaskRow {
  const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
  const r = t.result;
  if (!r) return { ...t, error: json(t.error) };
  const { buses: _b, branches: _l, generators: _g, ...header } = r;
  const read = json(header);
  // in the result's own order (buses, branches and generators before losses, as taskFromRow gives them)
  const result: Record<string, unknown> = {};
  for (const k of Object.keys(r)) {
    if (k === 'buses' || k === 'branches' || k === 'generators') result[k] = r[k];
    else if (k in read) result[k] = read[k];
  }
  return { ...t, error: json(t.error), result };
}

export class DirectRuns {
  /** Direct runs in flight, by tenant: reserved before the capacity read, released when solved. */
  private readonly inFlight = new Map<string, number>();
  /** Of those, the ones admitted after their read (the rest are still reading, or leave for the queue). */
  private readonly admitted = new Map<string, number>();
  /** Tenants whose queued tasks a dispatch pass left waiting for slots the direct runs hold. */
  private readonly holding = new Set<string>();
  /** Tenants whose last slot read found no task on the queue, with none stored since (no read needed), and their quota. */
  private readonly offQueue = new Map<string, number>();
  /** Per tenant, queue tasks begun to be stored and quota changes noticed (a read spanning one marks nothing). */
  private readonly changes = new Map<string, number>();

  /** Distributed: the slots shared with the other API processes (created at first use; undefined: in-process). */
  private slotsInRedis?: DirectSlots;

  constructor(
    private readonly services: () => Services,
    private readonly defaultQuota: number,
    /** Whether the slots are shared through Redis (distributed), and whether this process solves at once at all. */
    private readonly mode: { shared: boolean; runs: boolean } = { shared: false, runs: true },
  ) {}

  private get slots(): DirectSlots | undefined {
    if (!this.mode.shared) return undefined;
    if (!this.slotsInRedis) {
      const c = this.services().config;
      const lease = Number(process.env.GRIDOPS_DIRECT_LEASE_MS ?? DEFAULT_LEASE_MS);
      this.slotsInRedis = new DirectSlots(c.redisUrl!, c.redisPrefix, Number.isInteger(lease) && lease >= 100 ? lease : DEFAULT_LEASE_MS);
      this.listen();
    }
    return this.slotsInRedis;
  }

  /** Slots of the tenant's quota taken by direct runs (the dispatcher counts them as running). */
  active(tenantId: string): number {
    return this.inFlight.get(tenantId) ?? 0;
  }

  /**
   * The scheduler is about to store a task on the tenant's queue: its slots must be read again, and
   * no run starts at once until that task is dispatched. Distributed, the returned function says the
   * task is stored (or failed); a submission that cannot tell Redis is refused, as with Redis away.
   */
  async queueing(tenantId: string): Promise<(() => void) | undefined> {
    this.changed(tenantId);
    return this.slots?.queueing(tenantId);
  }

  /**
   * The direct runs in flight of tenants with queued tasks, for a dispatch pass (under its lock): the
   * pass subtracts them from the free slots. Distributed, no run of these tenants starts at once after
   * this (the fence, ./directSlots.ts) until a read of PostgreSQL after the pass says nothing is queued.
   */
  async inFlightOf(tenants: string[]): Promise<Map<string, number>> {
    if (this.mode.shared) return this.slots!.fence(tenants);
    for (const t of tenants) this.held(t);
    return new Map(tenants.map((t) => [t, this.active(t)]));
  }

  async close(): Promise<void> {
    await this.slotsInRedis?.close();
  }

  private changed(tenantId: string): void {
    this.offQueue.delete(tenantId);
    this.changes.set(tenantId, (this.changes.get(tenantId) ?? 0) + 1);
  }

  /** Resolves when every direct run answered so far is stored (shutdown: before the database closes). */
  async drain(): Promise<void> {
    await this.services().pendingTasks.drain();
    await this.records.drain();
    await this.largeRecords.drain();
  }

  /** Whether the tenant's next direct run skips the slot read (for tests and the bench's profile). */
  knownOffQueue(tenantId: string): boolean {
    return this.offQueue.has(tenantId);
  }

  /** A dispatch pass found queued tasks of the tenant while it has direct runs: the release dispatches again. */
  held(tenantId: string): void {
    if (this.active(tenantId) > 0) this.holding.add(tenantId);
  }

  /**
   * Solves a synchronous power flow at once if the tenant has a free slot and nothing queued
   * (FIFO: a queued task goes first), and returns its stored task; undefined: use the queue.
   */
  async run(caller: Caller, networkId: string, version: number, options: SolveOptions): Promise<TaskRow | undefined> {
    const s = this.services();
    if (!s.solver || !this.mode.runs) return undefined;
    if (this.mode.shared) return this.runShared(caller, networkId, version, options);
    const tenantId = caller.tenantId;
    let reserved = true;
    let admitted = false;
    const count = (m: Map<string, number>, d: number) => {
      const n = (m.get(tenantId) ?? 0) + d;
      if (n > 0) m.set(tenantId, n);
      else m.delete(tenantId);
    };
    count(this.inFlight, 1);
    const release = () => {
      if (!reserved) return;
      reserved = false;
      count(this.inFlight, -1);
      if (admitted) count(this.admitted, -1);
      // A queued task may have waited for this slot.
      if (this.holding.delete(tenantId)) s.tasks.kick();
    };
    try {
      const quota = this.offQueue.get(tenantId);
      const c = quota === undefined ? await this.readCapacity(tenantId) : { quota, active: 0, waiting: 0 };
      // The dispatcher counts every reservation, admitted or not; admission counts the runs admitted
      // before it, so of a burst read together the first free slots' worth go at once.
      if (c.waiting > 0 || c.active + (this.admitted.get(tenantId) ?? 0) >= c.quota) return undefined;
      admitted = true;
      count(this.admitted, 1);
      return await this.solveAndAnswer(tenantId, newId('task'), networkId, version, options, release);
    } finally {
      release();
    }
  }

  /** Distributed: the slot reserved in Redis (./directSlots.ts), shared with the other API processes. */
  private async runShared(caller: Caller, networkId: string, version: number, options: SolveOptions): Promise<TaskRow | undefined> {
    const s = this.services();
    const slots = this.slots!;
    const tenantId = caller.tenantId;
    const id = newId('task');
    let r: Reservation;
    try {
      r = await slots.reserve(tenantId, id);
      if (r === 'unknown') r = await this.observations.add({ tenantId, id });
    } catch (err) {
      // Redis away or slow: the queue path (which answers 503 while BullMQ cannot take the task).
      s.log.debug({ err, tenant: tenantId }, 'no slot reserved for a direct run; the power flow takes the queue');
      return undefined;
    }
    if (r !== 'ok') return undefined;
    let reserved = true;
    const release = () => {
      if (!reserved) return;
      reserved = false;
      // A dispatch pass that held the tenant's queued tasks for this slot is run again (any process's pass will do).
      slots.release(tenantId, id).then(
        (held) => held && s.tasks.kick(),
        (err) => s.log.warn({ err, task: id }, "a direct run's slot was not released; its lease ends it"),
      );
    };
    try {
      return await this.solveAndAnswer(tenantId, id, networkId, version, options, release);
    } finally {
      release();
    }
  }

  // A tenant not known to be off the queue: its capacity read (batched), recorded in Redis with the
  // generation read before it, which reserves a slot when nothing was queued or fenced meanwhile.
  private readonly observations = createBatcher(async (items: { tenantId: string; id: string }[]): Promise<Reservation[]> => {
    const slots = this.slots!;
    const tenants = [...new Set(items.map((i) => i.tenantId))];
    const gens = new Map(tenants.map((t, i) => [t, i]));
    const read = await slots.generations(tenants);
    const caps = await this.readCapacities(tenants);
    return Promise.all(items.map(async ({ tenantId, id }) => {
      const i = gens.get(tenantId)!;
      const c = caps[i]!;
      if (c.waiting > 0 || c.active >= c.quota) return 'full';
      return slots.observe(tenantId, id, read[i]!, c.active, c.quota);
    }));
  });

  /** Solves the task on this process's pool, frees its slot, answers and writes it behind (or before). */
  private async solveAndAnswer(tenantId: string, id: string, networkId: string, version: number, options: SolveOptions,
    release: () => void): Promise<TaskRow> {
    const s = this.services();
    const now = new Date();
    const task: TaskRow = {
      id,
      seq: 0,
      tenant_id: tenantId,
      network_id: networkId,
      network_version: version,
      kind: 'powerflow',
      status: 'running',
      options: options as unknown as Record<string, unknown>,
      progress: null,
      result: null,
      error: null,
      attempts: 1,
      created_at: now,
      started_at: now,
      completed_at: null,
    };
    const finish = await solvePowerFlow(s, task);
    release();
    const store = isLargeFinish(finish) ? this.largeRecords : this.records;
    const write = () => rideOutOutage(s, 'store the result', () => store.add(finish));
    // Stored before the answer when so configured, and when the stores fall behind (a database outage
    // ridden out, in which answers would otherwise pile up in memory): the answers then wait, as before.
    if (s.config.syncPowerflowStore === 'before' || s.pendingTasks.size >= MAX_PENDING_ANSWERS) return await write();
    // Write-behind: answered now; until stored, the task is read from Services.pendingTasks. The store
    // starts on a timer: the answer's audit entry (onSend, in this turn of the event loop, sent to the
    // database at its end) goes first, so the answer does not wait behind its own task's statement.
    const answered = finishedTask(finish);
    const stored = new Promise<void>((r) => setTimeout(r, STORE_DELAY_MS)).then(write);
    s.pendingTasks.add(
      asRead(answered),
      stored.catch((err) => s.log.error({ err, task: task.id }, 'an answered synchronous power flow could not be stored; its task is lost')),
    );
    return answered;
  }

  private async readCapacity(tenantId: string): Promise<Capacity> {
    this.listen();
    const seen = this.changes.get(tenantId) ?? 0;
    const c = await this.capacity.add(tenantId);
    if (c.quota > 0 && c.active === 0 && c.waiting === 0 && (this.changes.get(tenantId) ?? 0) === seen) this.offQueue.set(tenantId, c.quota);
    return c;
  }

  // A changed quota (the admin API, an expired temporary override) is read again, from the row the dispatcher reads.
  private listening = false;
  private listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.services().security.noticeListeners.push((n) => {
      if (n.kind !== 'quota_changed') return;
      this.changed(n.tenant);
      this.slotsInRedis?.forget(n.tenant).catch(() => {}); // if Redis is away, so are the runs it would admit
    });
  }

  // Each tenant's quota, unfinished tasks dispatched or running, and queued: one statement for
  // the direct runs that start together.
  private readonly capacity = createBatcher((tenants: string[]) => this.readCapacities(tenants));

  private async readCapacities(tenants: string[]): Promise<Capacity[]> {
    const s = this.services();
    const { rows } = await s.db.query<{ id: string; quota: string | null; active: number; waiting: number }>(
      `SELECT tn.id, tn.quotas->>'concurrent_powerflow' AS quota,
              count(t.id) FILTER (WHERE t.status IN ('dispatched', 'running'))::int AS active,
              count(t.id) FILTER (WHERE t.status = 'queued')::int AS waiting
       FROM tenants tn LEFT JOIN tasks t ON t.tenant_id = tn.id AND t.status IN ('queued', 'dispatched', 'running')
       WHERE tn.id = ANY($1::text[]) GROUP BY tn.id`,
      [[...new Set(tenants)]],
    );
    const byId = new Map(
      rows.map((r) => [r.id, { quota: r.quota === null ? this.defaultQuota : Number(r.quota), active: r.active, waiting: r.waiting }]),
    );
    // An unknown tenant: no slot here (the queue path says why).
    return tenants.map((t) => byId.get(t) ?? { quota: 0, active: 0, waiting: 0 });
  }

  // The finished tasks with their results and events, and the alarm judgement of quiet results: one
  // statement (atomic) for the direct runs that finish together; then other alarms, lists and subscribers.
  // Large results are stored by a group commit of their own, so that a case9 run's finish neither joins nor
  // waits for the batch of a 13,659-bus one (its 1.7 MB of values and the judgement of its alarms): in the
  // heavy drill the other tenant's case9 power flows waited up to 260 ms for that batch (issue 35).
  private readonly records = createBatcher((items: Finish[]) => this.storeFinishes(items));
  private readonly largeRecords = createBatcher((items: Finish[]) => this.storeFinishes(items));

  private async storeFinishes(items: Finish[]): Promise<TaskRow[]> {
    const s = this.services();
    const { rowsIn, values } = packFinishes(items);
    const tasks = items.map((f, i) => ({
      ...rowsIn[i]!,
      tenant_id: f.task.tenant_id,
      network_id: f.task.network_id,
      network_version: f.task.network_version,
      options: f.task.options,
      created_at: (f.task.created_at as Date).toISOString(),
    }));
    // A direct run is never seen queued or running: its finish and its power flow's are its events.
    const news: NewEvent[] = [];
    for (const f of items) {
      const t = f.task;
      const base = { task_id: t.id, network_id: t.network_id };
      news.push({
        tenantId: t.tenant_id,
        topic: 'task',
        kind: `task.${f.status}`,
        networkId: t.network_id,
        payload: { ...base, status: f.status, ...(f.failure ? { error: f.failure } : {}) },
      });
      if (f.result || f.status !== 'cancelled') {
        news.push({
          tenantId: t.tenant_id,
          topic: 'powerflow',
          kind: 'powerflow.finished',
          networkId: t.network_id,
          payload: { ...base, status: f.result?.status ?? f.status, iterations: f.result?.iterations ?? null },
        });
      }
    }
    // The newest finished task of each network is judged (Services.powerFlowJudge: the alarm rules); what the
    // judge can judge in this same statement (a quiet result) is, so that a request costs two statements
    // (this one, its audit entry).
    const newestOf = new Map<string, Finish>();
    for (const f of items) if (f.status === 'completed') newestOf.set(f.task.network_id, f);
    const inStatement = s.powerFlowJudge.inStatement;
    const taken = new Set<string>();
    for (const f of newestOf.values()) {
      if (inStatement && f.model && inStatement.takes(finishedTask(f), f.model)) taken.add(f.task.id);
    }
    const judge = inStatement?.sql(items.filter((f) => taken.has(f.task.id)).map((f) => finishedTask(f)), 't', 4) ?? { ctes: '', select: '', params: [] };
    const events = news.map((e, ord) => ({
      ord,
      tenant_id: e.tenantId,
      topic: e.topic,
      kind: e.kind,
      payload: e.payload,
      network_id: e.networkId ?? null,
    }));
    const { rows } = await s.db.query<EventRow & { task_seqs: Record<string, string> }>(
      `WITH t AS (
         INSERT INTO tasks (id, tenant_id, network_id, network_version, kind, status, options, result, error, attempts, created_at, started_at,
                            completed_at, result_values,
                           result_bytes)
         SELECT x.id, x.tenant_id, x.network_id, x.network_version, 'powerflow', x.status, x.options, x.result, x.error, 1, x.created_at, x.created_at,
                x.completed_at,
                CASE WHEN x.values_len > 0 THEN substring($2::bytea FROM x.values_at + 1 FOR x.values_len) END,
                coalesce(octet_length(x.result::text), 0) + x.values_len -- the tenant's stored results (resultStorage.ts)
         FROM json_to_recordset($1::json) AS x(id text, tenant_id text, network_id text, network_version int, status text, options jsonb, result jsonb,
                                               error jsonb, created_at timestamptz, completed_at timestamptz, values_at int, values_len int)
         RETURNING id, seq),
       e AS (
         INSERT INTO events (tenant_id, topic, kind, payload, network_id)
         SELECT x.tenant_id, x.topic, x.kind, x.payload, x.network_id
         FROM jsonb_to_recordset($3::jsonb) AS x(ord int, tenant_id text, topic text, kind text, payload jsonb, network_id text)
         ORDER BY x.ord RETURNING *)${judge.ctes ? `,
       ${judge.ctes}` : ''}
       SELECT e.*, (SELECT jsonb_object_agg(t.id, t.seq) FROM t) AS task_seqs${judge.select ? `, ${judge.select}` : ''} FROM e ORDER BY e.seq`,
      [JSON.stringify(tasks), values, JSON.stringify(events), ...judge.params],
    );
    const seqs = rows[0]?.task_seqs ?? {};
    const finals: TaskRow[] = items.map((f) => finishedTask(f, Number(seqs[f.task.id] ?? 0)));
    // What follows is retried on its own if the database goes away now (the rows are stored).
    await rideOutOutage(s, 'announce the results', () =>
      networksChanged(
        s,
        finals.map((t) => t.tenant_id),
      ),
    );
    // Judged above: a result taken in the statement is judged again only if the judge asks (alarms to clear).
    const models = new Map(items.map((f) => [f.task.id, f.model]));
    for (const t of finals) {
      if (newestOf.get(t.network_id)?.task.id !== t.id) continue;
      const judged = taken.has(t.id);
      if (judged && !inStatement!.followUp(rows[0] as unknown as Record<string, unknown> | undefined, t.network_id)) continue;
      await s.powerFlowJudge.judge(s, { task: t, model: models.get(t.id) }, { judgedInStatement: judged });
    }
    for (const t of finals) countFinished(s, t);
    await publishEvents(
      s.bus,
      rows.map(({ task_seqs, ...e }) => eventFromRow(e)),
    );
    await Promise.all(finals.map((t) => s.bus.publish('task', { task_id: t.id, tenant_id: t.tenant_id, status: t.status, direct: true })));
    return finals;
  }
}
