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
// Only with the in-process transport: this process is then the only dispatcher, and the
// dispatcher subtracts the direct runs in flight from each tenant's free slots, so the quota is
// exact. A run is counted (reserved) before its tenant's slots are read, and PGlite runs one
// statement at a time, so a dispatch pass and a capacity read never both miss a slot.
//
// The slot read is skipped for a tenant known to have no task on the queue: the last read found
// none queued, dispatched or running, and the scheduler stored none for it since (it tells this
// class before each insert, so a read that may have missed that insert marks nothing). Only the
// scheduler puts tasks on the queue, so the tenant's slots are then its quota less its direct runs.
// The quota read with them is kept until a quota_changed notice (the admin API, the sweeper) drops it.
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

  constructor(
    private readonly services: () => Services,
    private readonly defaultQuota: number,
  ) {}

  /** Slots of the tenant's quota taken by direct runs (the dispatcher counts them as running). */
  active(tenantId: string): number {
    return this.inFlight.get(tenantId) ?? 0;
  }

  /** The scheduler is about to store a task on the tenant's queue: its slots must be read again. */
  queueing(tenantId: string): void {
    this.changed(tenantId);
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
    if (!s.solver) return undefined;
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
      const now = new Date();
      const task: TaskRow = {
        id: newId('task'),
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
    } finally {
      release();
    }
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
      if (n.kind === 'quota_changed') this.changed(n.tenant);
    });
  }

  // Each tenant's quota, unfinished tasks dispatched or running, and queued: one statement for
  // the direct runs that start together.
  private readonly capacity = createBatcher(async (tenants: string[]): Promise<Capacity[]> => {
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
  });

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
