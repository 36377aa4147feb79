// Concurrent WebSocket / SSE connection slots per tenant (quota) and per user
// (SPEC 8.1: 5 WS, 10 SSE per user). Redis sorted sets (member = connection id,
// score = lease expiry) shared by every API process, in memory otherwise. A held
// slot renews its lease every 20 s; a crashed process's slots lapse after 60 s.
import type { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';

export type ConnKind = 'ws' | 'sse';

export interface Slot {
  id: string;
  /** Connections of the tenant (this one included) when acquired. */
  tenantCount: number;
  userCount: number;
  release(): Promise<void>;
}

export type AcquireResult = { ok: true; slot: Slot } | { ok: false; scope: 'tenant' | 'user'; count: number; limit: number };

export interface ConnectionRegistry {
  acquire(kind: ConnKind, tenant: string, user: string, tenantLimit: number, userLimit: number): Promise<AcquireResult>;
  count(kind: ConnKind, tenant: string): Promise<number>;
  close(): Promise<void>;
}

const LEASE_MS = 60_000;
const RENEW_MS = 20_000;

const ACQUIRE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local nt = redis.call('ZCARD', KEYS[1])
local nu = redis.call('ZCARD', KEYS[2])
if nt >= tonumber(ARGV[4]) then return {0, 1, nt} end
if nu >= tonumber(ARGV[5]) then return {0, 2, nu} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ${LEASE_MS * 2})
redis.call('PEXPIRE', KEYS[2], ${LEASE_MS * 2})
return {1, nt + 1, nu + 1}
`;

export function createConnectionRegistry(redis: Redis | undefined, prefix: string): ConnectionRegistry {
  const renewals = new Set<NodeJS.Timeout>();
  const keyT = (k: ConnKind, t: string) => `${prefix}:conn:${k}:t:${t}`;
  const keyU = (k: ConnKind, t: string, u: string) => `${prefix}:conn:${k}:u:${t}:${u}`;
  if (redis) {
    return {
      async acquire(kind, tenant, user, tl, ul) {
        const id = randomBytes(8).toString('hex');
        const kt = keyT(kind, tenant);
        const ku = keyU(kind, tenant, user);
        const now = Date.now();
        const r = (await redis.eval(ACQUIRE, 2, kt, ku, now, now + LEASE_MS, id, tl, ul)) as number[];
        if (r[0] === 0) return { ok: false, scope: r[1] === 1 ? 'tenant' : 'user', count: r[2], limit: r[1] === 1 ? tl : ul };
        const timer = setInterval(() => {
          const exp = Date.now() + LEASE_MS;
          void redis.multi().zadd(kt, 'XX', exp, id).zadd(ku, 'XX', exp, id).pexpire(kt, LEASE_MS * 2).pexpire(ku, LEASE_MS * 2).exec().catch(() => {});
        }, RENEW_MS);
        timer.unref();
        renewals.add(timer);
        let released = false;
        return {
          ok: true,
          slot: {
            id, tenantCount: r[1], userCount: r[2],
            async release() {
              if (released) return;
              released = true;
              clearInterval(timer);
              renewals.delete(timer);
              await redis.multi().zrem(kt, id).zrem(ku, id).exec().catch(() => {});
            },
          },
        };
      },
      async count(kind, tenant) {
        const kt = keyT(kind, tenant);
        try {
          return await redis.zcount(kt, Date.now(), '+inf');
        } catch {
          return 0;
        }
      },
      async close() {
        for (const t of renewals) clearInterval(t);
        renewals.clear();
      },
    };
  }
  const sets = new Map<string, Set<string>>();
  const get = (k: string) => {
    let s = sets.get(k);
    if (!s) sets.set(k, (s = new Set()));
    return s;
  };
  return {
    async acquire(kind, tenant, user, tl, ul) {
      const t = get(keyT(kind, tenant));
      const u = get(keyU(kind, tenant, user));
      if (t.size >= tl) return { ok: false, scope: 'tenant', count: t.size, limit: tl };
      if (u.size >= ul) return { ok: false, scope: 'user', count: u.size, limit: ul };
      const id = randomBytes(8).toString('hex');
      t.add(id);
      u.add(id);
      return { ok: true, slot: { id, tenantCount: t.size, userCount: u.size, async release() { t.delete(id); u.delete(id); } } };
    },
    async count(kind, tenant) {
      return sets.get(keyT(kind, tenant))?.size ?? 0;
    },
    async close() {},
  };
}
