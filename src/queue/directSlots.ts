// The slots of synchronous power flows solved at once by several API processes (distributed,
// src/queue/direct.ts), kept in Redis so that the concurrent_powerflow quota and per-tenant FIFO
// stay exact across processes. Per tenant, three keys:
//
//   <prefix>:direct:<tenant>:state     hash: gen (bumped by every queue submission and dispatch
//                                      fence), clear (the gen at which a read of PostgreSQL found no
//                                      task of the tenant queued), active (its tasks dispatched or
//                                      running then), quota, held (a dispatch pass waits on direct runs)
//   <prefix>:direct:<tenant>:runs      sorted set: the direct runs in flight, task id -> lease end (ms)
//   <prefix>:direct:<tenant>:queueing  sorted set: queue submissions being stored, token -> lease end
//
// A reservation (RESERVE) succeeds only while clear = gen (nothing queued since the read) and
// runs + active < quota. A process's capacity read (OBSERVE) reads gen before it reads PostgreSQL
// and sets clear only if gen has not moved and no submission is being stored meanwhile, so a read
// that may have missed a queued task (or a dispatch) sets nothing. The dispatcher, holding its
// PostgreSQL advisory lock, FENCEs each tenant that has queued tasks after reading its counts:
// clear is dropped and gen bumped (no reservation succeeds after it) and the runs in flight are
// returned, which the pass subtracts from the tenant's free slots. The argument that the two never
// both take the last slot is in src/queue/direct.ts and docs/powerflow.md.
//
// Leases: a run's entry ends lease_ms after its last renewal (a process renews its runs every
// third of that), so a crashed process's slots come back; an expired entry is dropped by the next
// script that counts them. Times are Redis's own (TIME), so clocks of API hosts do not matter.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createBatcher } from '../lib/batcher.js';

/** A direct run's reservation: ok (solve it), or take the queue (full, or unknown: read PostgreSQL first). */
export type Reservation = 'ok' | 'full' | 'unknown';

const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// KEYS: state, runs. ARGV: id, lease_ms. The reservation proper (shared by RESERVE and OBSERVE).
const RESERVE_BODY = `
local s = redis.call('HMGET', KEYS[1], 'gen', 'clear', 'active', 'quota')
if not s[2] or s[2] ~= (s[1] or '0') then return 'unknown' end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local active = tonumber(s[3])
if redis.call('ZCARD', KEYS[2]) + active >= tonumber(s[4]) then
  -- the active count may be stale (tasks finished since): read PostgreSQL again next time
  if active > 0 then redis.call('HDEL', KEYS[1], 'clear') end
  return 'full'
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
return 'ok'`;

const RESERVE = `${NOW}${RESERVE_BODY}`;

// KEYS: state, runs, queueing. ARGV: id, lease_ms, gen read before PostgreSQL, active, quota.
const OBSERVE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if (redis.call('HGET', KEYS[1], 'gen') or '0') ~= ARGV[3] or redis.call('ZCARD', KEYS[3]) > 0 then return 'unknown' end
redis.call('HSET', KEYS[1], 'gen', ARGV[3], 'clear', ARGV[3], 'active', ARGV[4], 'quota', ARGV[5])
${RESERVE_BODY}`;

// KEYS: state, runs. ARGV: id. Returns 1 when a dispatch pass waited on direct runs (it should run again).
const RELEASE = `
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HDEL', KEYS[1], 'held') == 1 then return 1 end
return 0`;

// KEYS: state, runs of tenant 1, state, runs of tenant 2, ... Returns the runs in flight of each.
const FENCE = `${NOW}
local out = {}
for i = 1, #KEYS, 2 do
  redis.call('HDEL', KEYS[i], 'clear')
  redis.call('HINCRBY', KEYS[i], 'gen', 1)
  redis.call('ZREMRANGEBYSCORE', KEYS[i + 1], '-inf', now)
  local n = redis.call('ZCARD', KEYS[i + 1])
  if n > 0 then redis.call('HSET', KEYS[i], 'held', 1) end
  out[#out + 1] = n
end
return out`;

// KEYS: state, queueing of tenant 1, of tenant 2, ... ARGV: lease_ms, token 1, token 2, ...
// Submissions (those of one moment together) begin to store queued tasks.
const QUEUEING = `${NOW}
for i = 1, #KEYS, 2 do
  redis.call('HINCRBY', KEYS[i], 'gen', 1)
  redis.call('HDEL', KEYS[i], 'clear')
  redis.call('ZADD', KEYS[i + 1], now + tonumber(ARGV[1]), ARGV[(i + 1) / 2 + 1])
end
return 1`;

// KEYS: state, queueing of tenant 1, ... ARGV: token 1, ... The submissions are stored (or failed).
const QUEUED = `
for i = 1, #KEYS, 2 do
  redis.call('ZREM', KEYS[i + 1], ARGV[(i + 1) / 2])
  redis.call('HINCRBY', KEYS[i], 'gen', 1)
end
return 1`;

// KEYS: runs. ARGV: lease_ms, id... Renews this process's runs in flight (and restores them after a Redis restart).
const RENEW = `${NOW}
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
return 1`;

interface Scripts {
  directReserve(state: string, runs: string, id: string, leaseMs: number): Promise<Reservation>;
  directObserve(state: string, runs: string, queueing: string, id: string, leaseMs: number, gen: string, active: number, quota: number): Promise<Reservation>;
  directRelease(state: string, runs: string, id: string): Promise<number>;
  directFence(numKeys: number, ...keys: string[]): Promise<number[]>;
  directQueueing(numKeys: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  directQueued(numKeys: number, ...keysThenArgs: string[]): Promise<number>;
  directRenew(runs: string, leaseMs: number, ...ids: string[]): Promise<number>;
}

/** How long a direct run's slot outlives its process's last renewal (GRIDOPS_DIRECT_LEASE_MS). */
export const DEFAULT_LEASE_MS = 10_000;

export class DirectSlots {
  private readonly redis: Redis & Scripts;
  /** This process's runs in flight, by tenant (renewed every third of the lease). */
  private readonly mine = new Map<string, Set<string>>();
  private readonly renewer: NodeJS.Timeout;

  constructor(url: string, private readonly prefix: string, readonly leaseMs = DEFAULT_LEASE_MS) {
    // Auto-pipelining: the reservations and releases of one event-loop turn share a write.
    const r = new Redis(url, { maxRetriesPerRequest: 1, enableAutoPipelining: true, connectionName: `gridops-direct-slots:${process.pid}` });
    r.on('error', () => {}); // a reservation that fails takes the queue; ioredis reconnects
    r.defineCommand('directReserve', { numberOfKeys: 2, lua: RESERVE });
    r.defineCommand('directObserve', { numberOfKeys: 3, lua: OBSERVE });
    r.defineCommand('directRelease', { numberOfKeys: 2, lua: RELEASE });
    r.defineCommand('directFence', { lua: FENCE });
    r.defineCommand('directQueueing', { lua: QUEUEING });
    r.defineCommand('directQueued', { lua: QUEUED });
    r.defineCommand('directRenew', { numberOfKeys: 1, lua: RENEW });
    this.redis = r as Redis & Scripts;
    this.renewer = setInterval(() => void this.renew(), Math.max(100, Math.floor(leaseMs / 3)));
    this.renewer.unref();
  }

  private key(tenantId: string, part: 'state' | 'runs' | 'queueing'): string {
    return `${this.prefix}:direct:${tenantId}:${part}`;
  }

  /** The tenant's queueing generation, read before a capacity read of PostgreSQL (for observe). */
  async generations(tenants: string[]): Promise<string[]> {
    const p = this.redis.pipeline();
    for (const t of tenants) p.hget(this.key(t, 'state'), 'gen');
    const res = (await p.exec()) ?? [];
    return tenants.map((_, i) => {
      const [err, v] = res[i] ?? [new Error('no reply'), null];
      if (err) throw err;
      return (v as string | null) ?? '0';
    });
  }

  /** Reserves a slot for run `id` if the tenant is known to have nothing queued and a free slot. */
  async reserve(tenantId: string, id: string): Promise<Reservation> {
    const r = await this.redis.directReserve(this.key(tenantId, 'state'), this.key(tenantId, 'runs'), id, this.leaseMs);
    if (r === 'ok') this.track(tenantId, id);
    return r;
  }

  /**
   * Records a read of PostgreSQL (the tenant's quota and tasks dispatched or running, none queued),
   * made after `gen` was read, and reserves a slot with it; unknown when the read may be stale.
   */
  async observe(tenantId: string, id: string, gen: string, active: number, quota: number): Promise<Reservation> {
    const r = await this.redis.directObserve(this.key(tenantId, 'state'), this.key(tenantId, 'runs'), this.key(tenantId, 'queueing'),
      id, this.leaseMs, gen, active, quota);
    if (r === 'ok') this.track(tenantId, id);
    return r;
  }

  /** Frees run `id`'s slot; true when a dispatch pass held the tenant's queued tasks for it. */
  async release(tenantId: string, id: string): Promise<boolean> {
    const set = this.mine.get(tenantId);
    set?.delete(id);
    if (set?.size === 0) this.mine.delete(tenantId);
    return (await this.redis.directRelease(this.key(tenantId, 'state'), this.key(tenantId, 'runs'), id)) === 1;
  }

  /** The dispatcher, under its lock, for tenants with queued tasks: no reservation after this; the runs in flight. */
  async fence(tenants: string[]): Promise<Map<string, number>> {
    if (tenants.length === 0) return new Map();
    const keys = tenants.flatMap((t) => [this.key(t, 'state'), this.key(t, 'runs')]);
    const counts = await this.redis.directFence(keys.length, ...keys);
    return new Map(tenants.map((t, i) => [t, Number(counts[i] ?? 0)]));
  }

  /** A submission is about to store a queued task of the tenant; call the returned function once stored (or failed). */
  async queueing(tenantId: string): Promise<() => void> {
    const token = randomBytes(8).toString('hex');
    await this.marks.add({ tenantId, token });
    // Not awaited: until it lands, the tenant's reads set nothing (safe), and its lease ends it after a crash.
    return () => void this.unmarks.add({ tenantId, token }).catch(() => {});
  }

  private keysOf(items: { tenantId: string }[]): string[] {
    return items.flatMap(({ tenantId }) => [this.key(tenantId, 'state'), this.key(tenantId, 'queueing')]);
  }

  // The submissions of a moment are marked (and unmarked) by one script: two Redis calls per group commit of submissions.
  // A submission's lease: long enough for an insert that rides out a database hiccup.
  private readonly marks = createBatcher(async (items: { tenantId: string; token: string }[]) => {
    const keys = this.keysOf(items);
    await this.redis.directQueueing(keys.length, ...keys, Math.max(this.leaseMs, 30_000), ...items.map((i) => i.token));
    return items.map(() => undefined);
  });

  private readonly unmarks = createBatcher(async (items: { tenantId: string; token: string }[]) => {
    const keys = this.keysOf(items);
    await this.redis.directQueued(keys.length, ...keys, ...items.map((i) => i.token));
    return items.map(() => undefined);
  });

  /** A changed quota (the quota_changed notice): the next run reads PostgreSQL again. */
  async forget(tenantId: string): Promise<void> {
    await this.redis.hincrby(this.key(tenantId, 'state'), 'gen', 1);
  }

  private track(tenantId: string, id: string): void {
    const set = this.mine.get(tenantId) ?? new Set<string>();
    set.add(id);
    this.mine.set(tenantId, set);
  }

  private async renew(): Promise<void> {
    try {
      await Promise.all([...this.mine].map(([t, ids]) => this.redis.directRenew(this.key(t, 'runs'), this.leaseMs, ...ids)));
    } catch {
      // Redis away: the next renewal (or the lease) settles it.
    }
  }

  async close(): Promise<void> {
    clearInterval(this.renewer);
    this.mine.clear();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
