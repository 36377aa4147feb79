// Live sources of the subscriptions: the bus channels 'event' (stored events)
// and 'progress' (every solver iteration, published by whichever process runs
// the task; Redis pub/sub across processes), turned into async iterators.
import type { ServiceCore, Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import { FINISHED, findTask } from '../domain/tasks.js';
import { listEvents, type EventListQuery } from '../domain/eventHistory.js';
import { AppError } from '../lib/errors.js';
import { normalizeEvent, type LiveEvent } from './resolvers/map.js';

/** Push-fed async iterator with a bounded buffer; return() unsubscribes. */
export class PushIterator<T> implements AsyncIterableIterator<T> {
  private buffer: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void)[] = [];
  private done = false;
  private failure?: unknown;
  private cleanups: (() => void)[] = [];

  constructor(private readonly maxBuffer = 10_000) {}

  onClose(fn: () => void): void {
    if (this.done) fn();
    else this.cleanups.push(fn);
  }

  push(v: T): void {
    if (this.done) return;
    const w = this.waiting.shift();
    if (w) return w({ value: v, done: false });
    if (this.buffer.length >= this.maxBuffer) {
      this.fail(
        new AppError('RATE_LIMITED', `the subscriber reads too slowly: more than ${this.maxBuffer} messages are waiting; subscribe again`, {
          buffered: this.maxBuffer,
        }),
      );
      return;
    }
    this.buffer.push(v);
  }

  /** Ends the stream after what is buffered. */
  end(): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    for (const w of this.waiting.splice(0)) w({ value: undefined as never, done: true });
  }

  fail(e: unknown): void {
    if (this.done) return;
    this.failure = e;
    this.buffer = [];
    this.end();
  }

  private cleanup(): void {
    for (const f of this.cleanups.splice(0)) {
      try {
        f();
      } catch {
        /* ignore */
      }
    }
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.buffer.length > 0) return { value: this.buffer.shift()!, done: false };
    if (this.failure) {
      const e = this.failure;
      this.failure = undefined;
      throw e;
    }
    if (this.done) return { value: undefined as never, done: true };
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  async return(): Promise<IteratorResult<T>> {
    this.buffer = [];
    this.end();
    return { value: undefined as never, done: true };
  }

  async throw(e?: unknown): Promise<IteratorResult<T>> {
    this.fail(e);
    return this.next();
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

// ------------------------------------------------------------------ stored events

export const REPLAY_LIMIT = 100;

export interface EventStreamOptions {
  /** Only events this filter accepts (tenant is already checked). */
  filter: (e: LiveEvent) => boolean;
  /** Replay the latest 100 matching stored events first. */
  replay: boolean;
  /** Replay only events after this event id (implies replay). */
  after?: string;
  /** Domain filters for the replay read (listEvents), matching `filter`. */
  history: EventListQuery;
}

/**
 * Live events of the caller's tenant; with replay, first the latest 100 stored
 * matching events (oldest first). Subscribes before reading the log and drops
 * live events already replayed (by sequence), so nothing is lost or doubled.
 */
export async function eventStream(s: Pick<Services, 'bus' | 'db' | 'pendingTasks'>, caller: Caller, o: EventStreamOptions): Promise<PushIterator<LiveEvent>> {
  const it = new PushIterator<LiveEvent>();
  let pending: LiveEvent[] | null = o.replay || o.after ? [] : null;
  const unsubscribe = s.bus.subscribe('event', (m: Record<string, unknown>) => {
    if (m.tenant_id !== caller.tenantId) return;
    const e = normalizeEvent(m);
    if (!o.filter(e)) return;
    if (pending) pending.push(e);
    else it.push(e);
  });
  it.onClose(unsubscribe);
  if (!pending) return it;
  try {
    await s.bus.ready('event');
    const { items } = await listEvents(s, caller, { ...o.history, after: o.after, page: 1, page_size: REPLAY_LIMIT, sort: '-id' });
    const replayed = items.map((x) => normalizeEvent(x as unknown as Record<string, unknown>)).filter(o.filter).reverse();
    let last = 0;
    for (const e of replayed) {
      it.push(e);
      last = e.seq;
    }
    const live = pending;
    pending = null;
    for (const e of live) if (e.seq > last) it.push(e);
  } catch (e) {
    void it.return();
    throw e;
  }
  return it;
}

// ------------------------------------------------------------------ power-flow progress

export interface ProgressMessage {
  task_id: string;
  tenant_id: string;
  network_id?: string;
  iteration: number;
  max_iterations: number;
  mismatch: number;
  timestamp: string;
}

interface TaskTrack {
  messages: ProgressMessage[];
  finished: boolean;
  touched: number;
  listeners: Set<PushIterator<ProgressMessage>>;
}

const KEEP_MS = 10 * 60_000;
const MAX_TASKS = 2000;
/** max_iterations is at most 1000 (Q-limit rounds can repeat them a few times). */
const MAX_MESSAGES = 5000;

/**
 * Keeps every progress message of recent tasks while a GraphQL client is connected to
 * this API process (from the moment the first one connected), so a client that
 * subscribes just after runPowerFlow(async: true) returned still receives every
 * iteration, including those solved before its subscription arrived. With no client
 * connected it does not listen: each solver iteration is a bus message, and receiving
 * and parsing them for nobody was a measurable share of an async task's CPU
 * (bench/README.md, round six b). Finished tasks are forgotten after 10 minutes.
 */
export class ProgressHub {
  private tasks = new Map<string, TaskTrack>();
  private unsubscribe: (() => void)[] = [];
  private sweep?: NodeJS.Timeout;
  private holders = 0;

  constructor(private readonly s: Pick<ServiceCore, 'bus' | 'db' | 'pendingTasks'>) {}

  get started(): boolean {
    return this.sweep !== undefined;
  }

  /** Whether progress and task notices reach the hub now (a client holds it). */
  get listening(): boolean {
    return this.unsubscribe.length > 0;
  }

  /** The GraphQL door opened: the hub listens while a client holds it (hold). */
  async start(): Promise<void> {
    if (!this.sweep) {
      this.sweep = setInterval(() => this.evict(), 30_000);
      this.sweep.unref();
    }
  }

  /**
   * Listens to progress and task notices until the returned release is called (a GraphQL WebSocket connection
   * holds the hub while it is open; a subscription while it runs). Resolves once the bus delivers them here.
   */
  async hold(): Promise<() => void> {
    if (this.holders++ === 0 && this.unsubscribe.length === 0) {
      this.unsubscribe.push(this.s.bus.subscribe('progress', (m: ProgressMessage) => this.onProgress(m)));
      this.unsubscribe.push(this.s.bus.subscribe('task', (m: { task_id: string; status?: string }) => this.onFinished(m.task_id)));
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      if (--this.holders > 0) return;
      for (const u of this.unsubscribe) u();
      this.unsubscribe = [];
      // What was kept covers only the time listened: a later client would take a partial history for a whole one.
      for (const t of this.tasks.values()) for (const l of t.listeners) l.end();
      this.tasks.clear();
    };
    try {
      await Promise.all([this.s.bus.ready('progress'), this.s.bus.ready('task')]);
    } catch (e) {
      release();
      throw e;
    }
    return release;
  }

  private track(id: string): TaskTrack {
    let t = this.tasks.get(id);
    if (!t) {
      t = { messages: [], finished: false, touched: Date.now(), listeners: new Set() };
      this.tasks.set(id, t);
      if (this.tasks.size > MAX_TASKS) this.trim();
    }
    t.touched = Date.now();
    return t;
  }

  private onProgress(m: ProgressMessage): void {
    if (!m || typeof m.task_id !== 'string') return;
    const t = this.track(m.task_id);
    if (t.messages.length < MAX_MESSAGES) t.messages.push(m);
    for (const l of t.listeners) l.push(m);
  }

  private onFinished(id: string): void {
    if (typeof id !== 'string') return;
    const t = this.tasks.get(id);
    if (!t) {
      // Remember the end even without progress (a task cancelled while queued).
      this.track(id).finished = true;
      return;
    }
    t.finished = true;
    t.touched = Date.now();
    for (const l of t.listeners) l.end();
    t.listeners.clear();
  }

  private evict(): void {
    const now = Date.now();
    for (const [id, t] of this.tasks) {
      if (t.listeners.size === 0 && now - t.touched > KEEP_MS) this.tasks.delete(id);
    }
  }

  /** Over MAX_TASKS: forget the oldest tracked tasks nobody listens to (Map order = first seen). */
  private trim(): void {
    const target = Math.floor(MAX_TASKS * 0.9);
    for (const [id, t] of this.tasks) {
      if (this.tasks.size <= target) break;
      if (t.listeners.size === 0) this.tasks.delete(id);
    }
  }

  /** Every iteration of the task so far, then live ones; ends when the task ends. */
  async subscribe(caller: Caller, taskId: string): Promise<PushIterator<ProgressMessage>> {
    const release = await this.hold(); // held by the client's connection already, unless it came another way
    try {
      const it = await this.follow(caller, taskId);
      it.onClose(release);
      return it;
    } catch (e) {
      release();
      throw e;
    }
  }

  private async follow(caller: Caller, taskId: string): Promise<PushIterator<ProgressMessage>> {
    const task = await findTask(this.s, caller, taskId); // NOT_FOUND for another tenant's task
    const it = new PushIterator<ProgressMessage>();
    const t = this.track(taskId);
    // Snapshot and listener in one synchronous step: no gap, no duplicate.
    for (const m of t.messages) if (m.tenant_id === caller.tenantId) it.push(m);
    if (t.messages.length === 0 && task.progress && FINISHED.includes(task.status)) {
      // Finished before this process saw it (or long ago): its last stored progress.
      const p = task.progress;
      it.push({
        task_id: task.id,
        tenant_id: task.tenant_id,
        iteration: p.iteration,
        max_iterations: p.max_iterations,
        mismatch: p.mismatch,
        timestamp: p.updated_at ?? new Date().toISOString(),
      });
    }
    if (t.finished || FINISHED.includes(task.status)) {
      it.end();
      return it;
    }
    t.listeners.add(it);
    it.onClose(() => t.listeners.delete(it));
    return it;
  }

  close(): void {
    clearInterval(this.sweep);
    this.sweep = undefined;
    this.holders = 0;
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    for (const t of this.tasks.values()) for (const l of t.listeners) l.end();
    this.tasks.clear();
  }
}
