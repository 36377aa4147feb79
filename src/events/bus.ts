// Live fan-out between processes: stored events, power-flow progress, task
// completion and cancel requests. In-process when there is no REDIS_URL; Redis
// pub/sub otherwise, so a client on one API process sees what another process
// or a worker did. Durable history lives in the events table, not here.
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

export type BusChannel = 'event' | 'progress' | 'task' | 'cancel';

export interface EventBus {
  readonly kind: 'memory' | 'redis';
  publish(channel: BusChannel, message: unknown): Promise<void>;
  /** handler gets each message as published (JSON across processes); M is what the subscriber expects to read,
   *  not a check: subscribers of untrusted channels (src/realtime/hub.ts) check each field. */
  subscribe<M = unknown>(channel: BusChannel, handler: (message: M) => void): () => void;
  /** Resolves once messages published on channel from now on reach this process's subscribers
   *  (Redis: the SUBSCRIBE is acknowledged). Live doors wait for it before replaying history. */
  ready(channel: BusChannel): Promise<void>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export function createMemoryBus(): EventBus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    kind: 'memory',
    async publish(channel, message) {
      // Asynchronous like Redis, so publishers never run subscribers re-entrantly.
      queueMicrotask(() => emitter.emit(channel, message));
    },
    subscribe(channel, handler) {
      emitter.on(channel, handler);
      return () => emitter.off(channel, handler);
    },
    async ready() {},
    async ping() {
      return true;
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/**
 * Fan-out through Redis is best effort: what it carries is either stored already (events,
 * task rows) or advisory (progress, wake-ups), so while Redis is away a publish is dropped
 * at once (reported through onDropped) instead of failing a write that has committed.
 * Subscriptions are renewed by ioredis when Redis returns; live clients catch up from the
 * event log (docs/reliability.md).
 */
export async function createRedisBus(url: string, prefix: string, onDropped: (err: unknown, messages: number) => void = () => {}): Promise<EventBus> {
  // Auto-pipelining: the PUBLISHes of one flush (below) share a write.
  const pub = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true, enableAutoPipelining: true });
  const sub = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  pub.on('error', () => {});
  sub.on('error', () => {});
  await Promise.all([pub.connect(), sub.connect()]);
  const local = new EventEmitter();
  local.setMaxListeners(0);
  const name = (c: BusChannel) => `${prefix}:bus:${c}`;
  const subscribed = new Map<string, Promise<void>>();
  const ensure = (channel: BusChannel) => {
    let p = subscribed.get(channel);
    if (!p) {
      p = sub.subscribe(name(channel)).then(() => undefined);
      p.catch(() => subscribed.delete(channel));
      subscribed.set(channel, p);
    }
    return p;
  };
  sub.on('message', (ch: string, raw: string) => {
    const channel = ch.slice(prefix.length + 5);
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    // A JSON array is a run of messages published together (messages themselves are objects).
    if (Array.isArray(msg)) for (const m of msg) local.emit(channel, m);
    else local.emit(channel, msg);
  });

  // Publishes are coalesced: the messages of one event-loop turn leave as one PUBLISH per
  // run of the same channel (a JSON array when there are several), in publish order. A busy
  // worker publishes many small messages per task (events, progress, completion); one
  // socket write and one delivery per run instead of one per message is what keeps
  // Redis and the subscribers cheap (bench/README.md). Order is kept exactly: runs are
  // cut wherever the channel changes.
  type Run = { channel: BusChannel; messages: string[]; done: Promise<void>; resolve: () => void };
  let runs: Run[] = [];
  const flush = () => {
    const out = runs;
    runs = [];
    for (const r of out) {
      if (pub.status !== 'ready') {
        onDropped(new Error(`Redis is ${pub.status}`), r.messages.length);
        r.resolve();
        continue;
      }
      const body = r.messages.length === 1 ? r.messages[0]! : `[${r.messages.join(',')}]`;
      pub.publish(name(r.channel), body).then(() => r.resolve(), (err) => {
        onDropped(err, r.messages.length);
        r.resolve();
      });
    }
  };
  return {
    kind: 'redis',
    publish(channel, message) {
      const text = JSON.stringify(message);
      let run = runs[runs.length - 1];
      if (!run || run.channel !== channel) {
        if (runs.length === 0) setImmediate(flush);
        let resolve!: () => void;
        const done = new Promise<void>((res) => { resolve = res; });
        run = { channel, messages: [], done, resolve };
        runs.push(run);
      }
      run.messages.push(text);
      return run.done;
    },
    subscribe(channel, handler) {
      void ensure(channel).catch(() => {});
      local.on(channel, handler);
      return () => {
        local.off(channel, handler);
        // The last listener gone: leave the channel, so this process no longer receives and parses its messages
        // (progress is wanted only while a live client watches, src/realtime/hub.ts). Redis keeps the order of a
        // SUBSCRIBE that follows on this connection.
        if (local.listenerCount(channel) === 0 && subscribed.delete(channel)) void sub.unsubscribe(name(channel)).catch(() => {});
      };
    },
    ready(channel) {
      return ensure(channel);
    },
    async ping() {
      if (pub.status !== 'ready') return false;
      try {
        return (await pub.ping()) === 'PONG';
      } catch {
        return false;
      }
    },
    async close() {
      local.removeAllListeners();
      pub.disconnect();
      sub.disconnect();
    },
  };
}
