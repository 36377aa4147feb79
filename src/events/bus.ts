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
  subscribe(channel: BusChannel, handler: (message: any) => void): () => void;
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

export async function createRedisBus(url: string, prefix: string): Promise<EventBus> {
  // Auto-pipelining: the many small PUBLISHes of a busy process (progress of every iteration) share writes.
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
    local.emit(channel, msg);
  });
  return {
    kind: 'redis',
    async publish(channel, message) {
      await pub.publish(name(channel), JSON.stringify(message));
    },
    subscribe(channel, handler) {
      void ensure(channel).catch(() => {});
      local.on(channel, handler);
      return () => local.off(channel, handler);
    },
    ready(channel) {
      return ensure(channel);
    },
    async ping() {
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
