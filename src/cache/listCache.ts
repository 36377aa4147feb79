// A read cache of list pages. Lists are the hottest reads (dashboards poll them),
// and a page only changes when something of its tenant's collection changes.
//
// Each (tenant, collection) has a generation. Writers bump it after their change
// committed and before they answer; a page is served from the cache only when it
// was computed under the current generation, and the generation is read before
// the query runs. So a page computed from a snapshot older than a completed write
// is never served after that write: a read that raced with the write stored its
// page under the old generation, which no longer matches.
//
// Embedded (no REDIS_URL) the generation lives in this process, the only one that
// writes. Distributed it lives in Redis (GET per read, INCR per change), so a page
// cached by one API process is never served after another process or a worker
// committed a change. If Redis cannot answer, the cache is bypassed (the database
// answers) and this process's pages are dropped; a page also expires after maxAgeMs,
// which bounds staleness should a bump itself have been lost (docs/api-conventions.md).
import { Redis } from 'ioredis';
import { deepFreeze } from '../lib/immutable.js';

/** Collections whose list pages are cached; each names what changes it (docs/api-conventions.md). */
export type CachedCollection = 'networks';

export interface ListCache {
  readonly kind: 'off' | 'memory' | 'redis';
  /** The page for `key`: from the cache when computed under the current generation, else computed and kept. */
  read<T extends object>(tenantId: string, collection: CachedCollection, key: string, compute: () => Promise<T>): Promise<T>;
  /** Call after a committed change of the tenants' collection, before answering the caller. */
  invalidate(collection: CachedCollection, tenantIds: Iterable<string>): Promise<void>;
  /** Resolves once the cache can serve pages (Redis connected); rejects when Redis cannot be reached. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface ListCacheOptions {
  /** Pages kept per process (least recently used go first); 0 turns the cache off. */
  maxEntries: number;
  /** A page older than this is recomputed even if no change was seen. */
  maxAgeMs: number;
  redisUrl?: string;
  redisPrefix?: string;
  onError?: (err: unknown) => void;
}

interface Entry {
  generation: string;
  at: number;
  value: object;
}

/** Where generations live: this process (embedded) or Redis (several processes). */
interface Generations {
  ready(): Promise<void>;
  current(slot: string): Promise<string> | string;
  bump(slots: string[]): Promise<void>;
  close(): Promise<void>;
}

function memoryGenerations(): Generations {
  const gens = new Map<string, number>();
  return {
    ready: async () => {},
    current: (slot) => String(gens.get(slot) ?? 0),
    async bump(slots) {
      for (const s of slots) gens.set(s, (gens.get(s) ?? 0) + 1);
    },
    async close() {},
  };
}

function redisGenerations(url: string, prefix: string): Generations {
  // Auto-pipelining folds the GETs of concurrent requests into one write to Redis.
  // No offline queue: while Redis is away a read fails at once and goes to the database.
  const r = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    lazyConnect: true,
    connectionName: 'gridops-list-cache',
  });
  r.on('error', () => {}); // reads bypass the cache while Redis is away
  const connected = r.connect();
  connected.catch(() => {}); // ready() reports it; reconnects happen on their own
  const key = (slot: string) => `${prefix}:listgen:${slot}`;
  return {
    ready: () => connected,
    current: async (slot) => (await r.get(key(slot))) ?? '0',
    async bump(slots) {
      if (slots.length === 1) await r.incr(key(slots[0]));
      else if (slots.length > 1) await slots.reduce((m, s) => m.incr(key(s)), r.multi()).exec();
    },
    async close() {
      r.disconnect();
    },
  };
}

export function createListCache(o: ListCacheOptions): ListCache {
  if (o.maxEntries <= 0) {
    return {
      kind: 'off',
      read: (_t, _c, _k, compute) => compute(),
      async invalidate() {},
      async ready() {},
      async close() {},
    };
  }
  const gens = o.redisUrl ? redisGenerations(o.redisUrl, o.redisPrefix ?? 'gridops') : memoryGenerations();
  const pages = new Map<string, Entry>(); // insertion order = least recently used first
  const slotOf = (tenantId: string, collection: CachedCollection) => `${collection}:${tenantId}`;

  return {
    kind: o.redisUrl ? 'redis' : 'memory',
    async read(tenantId, collection, key, compute) {
      const slot = slotOf(tenantId, collection);
      let generation: string;
      try {
        generation = await gens.current(slot);
      } catch (err) {
        pages.clear(); // a bump may be missed while Redis is away
        o.onError?.(err);
        return compute();
      }
      const k = `${slot}\n${key}`;
      const hit = pages.get(k);
      const now = Date.now();
      if (hit && hit.generation === generation && now - hit.at < o.maxAgeMs) {
        pages.delete(k);
        pages.set(k, hit);
        return hit.value as Awaited<ReturnType<typeof compute>>;
      }
      const value = deepFreeze(await compute());
      pages.set(k, { generation, at: now, value });
      if (pages.size > o.maxEntries) pages.delete(pages.keys().next().value!);
      return value;
    },
    async invalidate(collection, tenantIds) {
      const slots = [...new Set(tenantIds)].map((t) => slotOf(t, collection));
      if (slots.length === 0) return;
      try {
        await gens.bump(slots);
      } catch (err) {
        // Other processes may keep serving their pages until maxAgeMs; say so loudly.
        o.onError?.(err);
      }
    },
    ready: () => gens.ready(),
    close: () => gens.close(),
  };
}
