// The distributed transport: BullMQ on Redis carries dispatched power-flow tasks
// from the API processes (whose TaskScheduler owns FIFO order and quotas in
// PostgreSQL) to any number of solver processes (ROLE=all or ROLE=worker), on
// any machine that reaches the same Redis and PostgreSQL.
//
// BullMQ only moves work; PostgreSQL stays the source of truth. A job carries one
// task, with jobId = task id, or, when a dispatch pass hands over many tasks at once,
// several: each BullMQ job costs some sixty Redis commands through its life, more than
// a small solve costs to run. The tasks of a job run side by side on the worker and
// finish independently; tasks.job_id names such a job so the sweeper can follow it.
// Either way a task is never queued twice (job ids are unique).
//
// Failure handling (docs/deployment.md):
// - A worker that dies mid-solve stops renewing its job lock (lockDuration).
//   Another live worker's stalled checker (every stalledInterval) moves the job
//   back to wait and a worker runs it again (executeTask re-claims a 'running'
//   task). After maxStalledCount recoveries the next worker to take it fails it
//   with "job stalled more than allowable limit"; the 'failed' handler then
//   marks the task failed: "the worker solving this task stopped (attempt N of M)".
// - A processor that throws (database or Redis trouble, not a solver error:
//   executeTask stores those as the task's outcome) is retried `attempts` times.
// - A sweeper in the API processes fails tasks left 'dispatched'/'running'
//   whose job failed or vanished, and re-sends 'dispatched' tasks whose job was
//   never added (Redis was down when the dispatcher handed them over).
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { ServiceCore, Services } from '../services.js';
import type { JobKind, JobOf, TaskTransport } from './scheduler.js';
import type { PieceKind } from './pieceKind.js';
import { taskFromRow, type StoredTaskRow } from '../domain/tasks.js';
import { announceFinished, executeTask } from './execute.js';
import { pieceKinds } from './pieces.js';

export const QUEUE_NAME = 'powerflow';
const STALLED_REASON = 'job stalled more than allowable limit';

export interface JobData {
  /** A job of one task. */
  taskId?: string;
  /** A job of several tasks, in dispatch order. */
  taskIds?: string[];
  tenantId?: string;
}

/** The tasks a job carries. */
export function jobTasks(data: JobData): string[] {
  return data.taskIds ?? (data.taskId ? [data.taskId] : []);
}

/** A dispatch pass hands over at least this many jobs (when it has as many tasks), so a burst is shared by workers. */
export const JOBS_PER_PASS = 4;

/**
 * Jobs for the tasks of one dispatch pass, in order: one task per job while a pass hands
 * over few (so that several workers share them), and up to maxPerJob per job when it hands
 * over many, keeping at least `spread` jobs per pass.
 */
export function groupIntoJobs<T>(tasks: T[], maxPerJob: number, spread = JOBS_PER_PASS): T[][] {
  const n = tasks.length;
  const count = Math.min(n, Math.max(spread, Math.ceil(n / Math.max(1, maxPerJob))));
  // count nearly equal groups: the first n % count hold one task more.
  const jobs: T[][] = [];
  for (let j = 0, at = 0; j < count; j++) {
    const size = Math.floor(n / count) + (j < n % count ? 1 : 0);
    jobs.push(tasks.slice(at, at + size));
    at += size;
  }
  return jobs;
}

/** Timings of the queue; the environment may override them (docs/deployment.md). */
export interface QueueTuning {
  /** A job's lock lives this long unless its worker renews it (every half of it). */
  lockDurationMs: number;
  /** How often each worker looks for jobs whose lock expired. */
  stalledIntervalMs: number;
  /** How many times a job whose worker died is put back to run again. */
  maxStalledCount: number;
  /** Runs of a job whose processor throws (infrastructure errors, not solver errors). */
  attempts: number;
  /** Delay before such a retry. */
  retryDelayMs: number;
  /** How often API processes look for tasks whose job failed or vanished. */
  sweepMs: number;
  /** Jobs per worker process, as a multiple of its solver threads (I/O overlaps solves). */
  concurrencyPerThread: number;
  /** Most tasks one job carries when a dispatch pass hands over many (1: one job per task). */
  tasksPerJob: number;
}

function envInt(env: NodeJS.ProcessEnv, name: string, dflt: number, min = 0): number {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${v}"`);
  return n;
}

export function queueTuning(env: NodeJS.ProcessEnv = process.env): QueueTuning {
  return {
    lockDurationMs: envInt(env, 'GRIDOPS_QUEUE_LOCK_MS', 10_000, 1000),
    stalledIntervalMs: envInt(env, 'GRIDOPS_QUEUE_STALLED_MS', 5_000, 500),
    maxStalledCount: envInt(env, 'GRIDOPS_QUEUE_MAX_STALLED', 1, 0),
    attempts: envInt(env, 'GRIDOPS_QUEUE_ATTEMPTS', 2, 1),
    retryDelayMs: 2_000,
    sweepMs: envInt(env, 'GRIDOPS_QUEUE_SWEEP_MS', 15_000, 100),
    // Small solves spend most of their time in database and Redis round trips, so a
    // worker keeps many jobs in flight per solver thread: Piscina queues the solves and
    // the claims and results of the jobs in flight are group-committed (execute.ts).
    concurrencyPerThread: envInt(env, 'GRIDOPS_QUEUE_CONCURRENCY_PER_THREAD', 64, 1),
    tasksPerJob: envInt(env, 'GRIDOPS_QUEUE_TASKS_PER_JOB', 16, 1),
  };
}

function connect(url: string, role: 'queue' | 'worker'): Redis {
  // Workers block on Redis and must ride out reconnects (BullMQ requires
  // maxRetriesPerRequest null there); the producer fails fast instead, so a
  // dispatch during a Redis outage errors and the sweeper re-sends it later.
  const r = new Redis(url, role === 'worker'
    ? { maxRetriesPerRequest: null, connectionName: `gridops-worker:${hostname()}:${process.pid}` }
    : { maxRetriesPerRequest: 2, connectionName: `gridops-queue:${hostname()}:${process.pid}` });
  r.on('error', () => {}); // reconnects on its own; BullMQ reports what matters
  return r;
}

type Failure = { code: string; message: string; details: Record<string, unknown> };

/** The task error for a job that failed for good. */
export function jobFailure(job: Pick<Job, 'failedReason' | 'stalledCounter' | 'attemptsMade' | 'opts'>, tuning: QueueTuning, taskAttempts?: number): Failure {
  if (job.failedReason === STALLED_REASON) {
    const max = tuning.maxStalledCount + 1;
    const n = Math.max(job.stalledCounter ?? 0, taskAttempts ?? 0, 1);
    return {
      code: 'INTERNAL_ERROR',
      message: `the worker solving this task stopped (attempt ${Math.min(n, max)} of ${max}); no attempts remain, submit the power flow again`,
      details: { reason: 'worker_stopped', attempt: Math.min(n, max), max_attempts: max },
    };
  }
  const max = job.opts?.attempts ?? tuning.attempts;
  const n = Math.min(Math.max(job.attemptsMade ?? 0, 1), max);
  return {
    code: 'INTERNAL_ERROR',
    message: `the worker could not run this task: ${job.failedReason ?? 'unknown error'} (attempt ${n} of ${max})`,
    details: { reason: 'worker_error', attempt: n, max_attempts: max },
  };
}

/** The error of a piece (a study chunk) whose job failed for good, in its kind's words. */
export function pieceFailure<P>(
  kind: PieceKind<P>,
  piece: P,
  job: Pick<Job, 'failedReason' | 'stalledCounter' | 'attemptsMade' | 'opts'>,
  tuning: QueueTuning,
) {
  const f = jobFailure(job, tuning);
  const why =
    f.details.reason === 'worker_stopped'
      ? 'the worker solving it stopped'
      : `the worker could not run it: ${job.failedReason ?? 'unknown error'}`;
  return kind.failure(piece, `${why} (attempt ${f.details.attempt} of ${f.details.max_attempts})`, f.details);
}

type AnyPieceKind = PieceKind<unknown>;
const kindsOfPieces = () => Object.values(pieceKinds) as AnyPieceKind[];

/** Fails a task that is still dispatched or running; true when this call did it. */
export async function failTask(s: Pick<Services, 'bus' | 'db' | 'lists' | 'metrics'>, taskId: string, failure: Failure): Promise<boolean> {
  const { rows } = await s.db.query<StoredTaskRow>(
    `UPDATE tasks SET status = 'failed', completed_at = now(), error = $2
     WHERE id = $1 AND status IN ('dispatched', 'running') RETURNING *`,
    [taskId, JSON.stringify(failure)]);
  if (!rows[0]) return false;
  await announceFinished(s, taskFromRow(rows[0]));
  return true;
}

export interface BullTransport extends TaskTransport {
  readonly queue: Queue<JobData>;
  /** One sweeper pass (exposed for tests and tools). */
  sweep(): Promise<void>;
}

/** `services` is late-bound: the sweeps that fail or finish tasks need the whole app, which includes this transport. */
export async function createBullTransport(s: ServiceCore, services: () => Services): Promise<BullTransport> {
  const tuning = queueTuning();
  const conn = connect(s.config.redisUrl!, 'queue');
  // Both queues keep finished jobs a while and retry a processor that throws (docs/deployment.md).
  const queueOptions = {
    connection: conn,
    prefix: s.config.redisPrefix,
    defaultJobOptions: {
      attempts: tuning.attempts,
      backoff: { type: 'fixed', delay: tuning.retryDelayMs },
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
    },
  };
  const queue = new Queue<JobData>(QUEUE_NAME, queueOptions);
  queue.on('error', (err) => s.log.warn({ err }, 'BullMQ queue error'));
  // The pieces of running tasks (a study's chunks): a queue per kind (./pieceKind.ts).
  const pieceQueues = new Map<AnyPieceKind, Queue>();
  for (const kind of kindsOfPieces()) {
    const q = new Queue(kind.queue, queueOptions);
    q.on('error', (err) => s.log.warn({ err, queue: kind.queue }, 'BullMQ queue error'));
    pieceQueues.set(kind, q);
  }
  // Job id: the piece's key, or a fresh one when the piece's earlier job failed or vanished.
  const sendPieces = async (kind: AnyPieceKind, pieces: unknown[], fresh = false) => {
    if (pieces.length === 0) return;
    const jobs = pieces.map((piece) => ({ piece, jobId: `${kind.key(piece)}${fresh ? `_${randomBytes(4).toString('hex')}` : ''}` }));
    await kind.sent(services(), jobs);
    await pieceQueues.get(kind)!.addBulk(jobs.map((j) => ({ name: kind.queue, data: j.piece, opts: { jobId: j.jobId } })));
  };

  // resend: the tasks may name a job (job_id) that is gone; their new jobs replace it.
  const send = async (tasks: { id: string; tenant_id: string }[], resend = false) => {
    if (tasks.length === 0) return;
    const jobs = groupIntoJobs(tasks, tuning.tasksPerJob).map((group) => ({
      group,
      job:
        group.length === 1
          ? { name: QUEUE_NAME, data: { taskId: group[0]!.id, tenantId: group[0]!.tenant_id } as JobData, opts: { jobId: group[0]!.id } }
          : // A re-sent group gets a fresh id: its old job may be gone while its id is still remembered.
            {
              name: QUEUE_NAME,
              data: { taskIds: group.map((t) => t.id) } as JobData,
              opts: { jobId: `batch_${group[0]!.id}${resend ? `_${randomBytes(4).toString('hex')}` : ''}` },
            },
    }));
    // The sweeper must find each task's job before the job can run (and finish) without it.
    const shared = jobs.filter((j) => resend || j.group.length > 1)
      .flatMap((j) => j.group.map((t) => [t.id, j.group.length > 1 ? j.job.opts.jobId : null] as const));
    if (shared.length > 0) {
      await s.db.query('UPDATE tasks SET job_id = x.job_id FROM unnest($1::text[], $2::text[]) AS x(id, job_id) WHERE tasks.id = x.id',
        [shared.map(([id]) => id), shared.map(([, job]) => job)]);
    }
    // One MULTI: the jobs enter the wait list in dispatch (FIFO) order.
    await queue.addBulk(jobs.map((j) => j.job));
  };

  // Sweeper (processes that dispatch, i.e. not ROLE=worker). A task looks
  // suspicious when its job is gone (or completed while the task is not
  // finished); it is acted on only when it still looks so one pass later, so a
  // dispatch between its commit and its addBulk is never mistaken for a loss.
  let suspects = new Set<string>();
  let sweeping: Promise<void> | undefined;
  let closed = false;
  const sweepOnce = async () => {
    const { rows } = await s.db.query<{ id: string; tenant_id: string; status: string; attempts: number; job_id: string }>(
      // A running task that hands out pieces (a study) has ended its own job once they were sent; they are swept below.
      `SELECT id, tenant_id, status, attempts, COALESCE(job_id, id) AS job_id FROM tasks
       WHERE status IN ('dispatched', 'running') AND NOT (kind = ANY($1::text[]) AND status = 'running') ORDER BY seq LIMIT 1000`,
      [kindsOfPieces().map((k) => k.taskKind)]);
    const next = new Set<string>();
    const resend: { id: string; tenant_id: string }[] = [];
    const states = new Map<string, Promise<string>>(); // a job of several tasks is looked up once per pass
    for (const t of rows) {
      if (closed) return;
      let lookup = states.get(t.job_id);
      if (!lookup) states.set(t.job_id, lookup = queue.getJobState(t.job_id));
      const state = await lookup;
      if (state === 'failed') {
        const job = await queue.getJob(t.job_id);
        if (job && (await failTask(services(), t.id, jobFailure(job, tuning, t.attempts))))
          s.log.warn({ task: t.id, reason: job.failedReason }, 'task failed: its queue job failed');
        continue;
      }
      if (state !== 'unknown' && state !== 'completed') continue; // waiting, active, delayed...: healthy
      if (!suspects.has(t.id)) {
        next.add(t.id);
        continue;
      }
      // Re-check: it may have finished in the meantime.
      const { rows: now } = await s.db.query<{ status: string }>('SELECT status FROM tasks WHERE id = $1', [t.id]);
      if (!now[0] || !['dispatched', 'running'].includes(now[0].status)) continue;
      if (now[0].status === 'dispatched' && state === 'unknown') {
        resend.push({ id: t.id, tenant_id: t.tenant_id });
      } else {
        const ok = await failTask(services(), t.id, {
          code: 'INTERNAL_ERROR',
          message: `the queue no longer holds this task's job (it ` +
            `${state === 'completed' ? 'completed without recording a result' : 'was lost'}) while the task was ` +
            `${now[0].status}; submit the power flow again`,
          details: { reason: 'job_lost', job_state: state },
        });
        if (ok) s.log.warn({ task: t.id, state }, 'task failed: its queue job is gone');
      }
    }
    if (resend.length > 0) {
      s.log.warn({ tasks: resend.map((t) => t.id) }, 're-sending dispatched tasks that have no queue job');
      await send(resend, true);
    }
    suspects = next;
    await sweepPieces();
  };

  // The pieces of running tasks: one whose job failed fails its work; one whose job is gone (two passes in a row) is
  // sent again. Each kind finishes the work whose pieces are all done as it lists the unfinished ones.
  let pieceSuspects = new Set<string>();
  const sweepPieces = async () => {
    const next = new Set<string>();
    for (const kind of kindsOfPieces()) {
      const queue = pieceQueues.get(kind)!;
      const resend: unknown[] = [];
      for (const { piece, jobId } of await kind.unfinished(services())) {
        if (closed) return;
        const state = await queue.getJobState(jobId);
        if (state === 'failed') {
          const job = await queue.getJob(jobId);
          if (job) await kind.failed(services(), piece, pieceFailure(kind, piece, job, tuning));
          continue;
        }
        if (state !== 'unknown' && state !== 'completed') continue;
        const key = `${kind.queue}/${kind.key(piece)}`;
        if (pieceSuspects.has(key)) resend.push(piece);
        else next.add(key);
      }
      if (resend.length > 0) {
        s.log.warn({ queue: kind.queue, pieces: resend.map((p) => kind.key(p)) }, 're-sending pieces of running tasks that have no queue job');
        await sendPieces(kind, resend, true);
      }
    }
    pieceSuspects = next;
  };
  const sweepTimer = s.config.role === 'worker' ? undefined : setInterval(() => {
    if (sweeping || closed) return;
    sweeping = sweepOnce()
      .catch((err) => s.log.warn({ err }, 'queue sweep failed; retrying on the next pass'))
      .finally(() => { sweeping = undefined; });
  }, tuning.sweepMs);
  sweepTimer?.unref();

  return {
    kind: 'bullmq',
    queue,
    send,
    async sendJobs<K extends JobKind>(name: K, jobs: JobOf[K][]) {
      await sendPieces(pieceKinds[name] as AnyPieceKind, jobs);
    },
    async cancel(taskId) {
      // Whichever process runs it aborts it; a job of this task alone still waiting is
      // dropped (if a worker takes it first, or it shares a job, executeTask's claim finds
      // the task cancelled and skips it).
      await s.bus.publish('cancel', { task_id: taskId });
      try {
        await queue.remove(taskId);
      } catch {
        // locked by a worker: the cancel notice stops it
      }
    },
    available: () => conn.status === 'ready',
    async ping() {
      if (conn.status !== 'ready') return false;
      try {
        return (await conn.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async sweep() {
      await sweepOnce();
    },
    async close() {
      closed = true;
      if (sweepTimer) clearInterval(sweepTimer);
      await sweeping;
      await queue.close().catch(() => {});
      await Promise.all([...pieceQueues.values()].map((q) => q.close().catch(() => {})));
      conn.disconnect();
    },
  };
}

/** Consumes the queue on this process's solver pool (ROLE all or worker, with REDIS_URL). */
export async function startBullWorker(s: Services): Promise<{ worker: Worker<JobData>; close(): Promise<void> }> {
  if (!s.solver) throw new Error('startBullWorker needs a solver pool (ROLE all or worker)');
  const tuning = queueTuning();
  const conn = connect(s.config.redisUrl!, 'worker');
  const threads = Math.max(1, s.solver.threads ?? s.config.workers ?? 1);
  // Both queues' workers: the same lock and stalled-check timings (docs/deployment.md).
  const workerOptions = (connection: Redis, concurrency: number) => ({
    connection, concurrency, prefix: s.config.redisPrefix, name: `${hostname()}:${process.pid}`,
    lockDuration: tuning.lockDurationMs, stalledInterval: tuning.stalledIntervalMs, maxStalledCount: tuning.maxStalledCount,
  });
  const worker = new Worker<JobData>(QUEUE_NAME, async (job) => {
    // The tasks of a job run side by side and finish independently. A task that could not
    // be run (database or Redis trouble) fails the job once the others have finished, so
    // BullMQ retries it; on that run the finished tasks are skipped (their claim finds
    // them finished) and only the others run again.
    const outcomes = await Promise.allSettled(jobTasks(job.data).map((id) => executeTask(s, id)));
    const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  }, workerOptions(conn, threads * tuning.concurrencyPerThread));
  worker.on('error', (err) => s.log.warn({ err }, 'BullMQ worker error'));
  worker.on('stalled', (jobId) => s.log.warn({ task: jobId }, 'the worker running this task stopped; its job goes back to the queue'));
  worker.on('failed', (job, err) => {
    if (!job) return;
    if (!job.finishedOn) {
      s.log.warn({ task: job.id, err, attempt: job.attemptsMade }, 'task job failed; it will be retried');
      return;
    }
    void (async () => {
      for (const taskId of jobTasks(job.data)) {
        const { rows } = await s.db.query<{ attempts: number }>('SELECT attempts FROM tasks WHERE id = $1', [taskId]);
        const failure = jobFailure(job, tuning, rows[0]?.attempts);
        if (await failTask(s, taskId, failure)) s.log.error({ task: taskId, job: job.id, reason: job.failedReason }, failure.message);
      }
    })().catch((e) => s.log.error({ err: e, job: job.id }, 'could not mark the tasks of a failed job; the sweeper will'));
  });
  // Pieces of running tasks (study chunks): per kind, about one job per solver thread (and one more, so storing a
  // piece's rows overlaps the next solve), so the pieces of a task spread over every worker.
  const pieceConns: Redis[] = [];
  const pieceWorkers = kindsOfPieces().map((kind) => {
    const pieceConn = connect(s.config.redisUrl!, 'worker');
    pieceConns.push(pieceConn);
    const w = new Worker(kind.queue, async (job) => {
      await kind.run(s, job.data);
    }, workerOptions(pieceConn, threads + 1));
    w.on('error', (err) => s.log.warn({ err, queue: kind.queue }, 'BullMQ worker error'));
    w.on('stalled', (jobId) => s.log.warn({ job: jobId, queue: kind.queue }, 'the worker running this piece stopped; its job goes back to the queue'));
    w.on('failed', (job, err) => {
      if (!job) return;
      if (!job.finishedOn) {
        s.log.warn({ job: job.id, queue: kind.queue, err, attempt: job.attemptsMade }, 'piece job failed; it will be retried');
        return;
      }
      kind.failed(s, job.data, pieceFailure(kind, job.data, job, tuning))
        .catch((e) => s.log.error({ err: e, job: job.id }, 'could not fail the work of a failed piece job; the sweeper will'));
    });
    return w;
  });
  // Cancel requests reach every process; the one solving the task stops it.
  const unsubscribe = s.bus.subscribe('cancel', (m: { task_id?: string }) => {
    if (m?.task_id) s.localRuns.abort(m.task_id);
  });
  await Promise.all([worker.waitUntilReady(), ...pieceWorkers.map((w) => w.waitUntilReady())]);
  s.log.info(
    {
      queue: QUEUE_NAME,
      prefix: s.config.redisPrefix,
      concurrency: worker.opts.concurrency,
      lockDurationMs: tuning.lockDurationMs,
      stalledIntervalMs: tuning.stalledIntervalMs,
      maxStalledCount: tuning.maxStalledCount,
    },
    'BullMQ worker consuming',
  );

  let closing: Promise<void> | undefined;
  return {
    worker,
    close() {
      closing ??= (async () => {
        // Graceful: take no new jobs, let the running ones finish (a worker
        // killed instead leaves them to the other workers' stalled checks).
        await Promise.all([worker.close(), ...pieceWorkers.map((w) => w.close())]);
        unsubscribe();
        conn.disconnect();
        for (const c of pieceConns) c.disconnect();
      })();
      return closing;
    },
  };
}
