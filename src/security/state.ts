// Builds and closes the per-process security state (key ring and verifiers,
// caches, rate-limit store, connection registry, the notice channel, timers):
// created once per process by createServices (src/bootstrap.ts). Its shape lives
// in context.ts, so the modules it builds from never import this one.
import { Redis } from 'ioredis';
import type { ServiceCore } from '../services.js';
import { effectiveLimits } from './settings.js';
import { buildBlockList } from './ip.js';
import { memoryChannel, redisChannel, type SecurityNotice } from './channel.js';
import { loadKeyRing } from './keys.js';
import { buildVerifiers, loadRevokedFamilies } from './tokens.js';
import { createMemoryStore, createRedisStore } from './ratelimit.js';
import { createConnectionRegistry } from './connections.js';
import { ensureBootstrapAdmin } from './users.js';
import type { SecurityState } from './context.js';

export { broadcast, type SecurityState } from './context.js';

/** Builds the security context of a process (createServices calls it once, before the doors exist). */
export async function createSecurity(s: ServiceCore): Promise<SecurityState> {
  const st = await openSecurity(s);
  await loadRevokedFamilies(st);
  await ensureBootstrapAdmin(st);
  if (s.config.security.authDisabled) s.log.warn('GRIDOPS_AUTH=off: every request acts as the bootstrap admin (benchmark baseline only)');
  if (!s.config.security.rateLimitsEnabled) s.log.warn('RATE_LIMITS=off: the four rate-limit layers are off');
  return st;
}

async function openSecurity(s: ServiceCore): Promise<SecurityState> {
  const c = s.config;
  let redis: Redis | undefined;
  if (c.redisUrl) {
    redis = new Redis(c.redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: true });
    redis.on('error', (err) => s.log.debug({ err }, 'security redis connection error'));
    await redis.connect();
  }
  const channel = redis ? await redisChannel(redis, c.redisUrl!, c.redisPrefix) : memoryChannel();
  const keys = await loadKeyRing(s);
  const st: SecurityState = {
    s,
    keys,
    tokens: buildVerifiers(keys),
    revokedFamilies: new Map(),
    apiKeyCache: new Map(),
    quotaCache: new Map(),
    limits: effectiveLimits(c.security),
    store: redis ? createRedisStore(redis, c.redisPrefix, s.log) : createMemoryStore(),
    conns: createConnectionRegistry(redis, c.redisPrefix),
    channel,
    redis,
    isBlocked: buildBlockList(c.security.blockedIps),
    applyNotice: (n) => applyNotice(st, n),
    auditFailing: false,
    timers: [],
    noticeListeners: [],
    closed: false,
    ratePlans: new Map(),
  };
  channel.subscribe((n) => applyNotice(st, n));
  return st;
}

export function applyNotice(st: SecurityState, n: SecurityNotice): void {
  switch (n.kind) {
    case 'family_revoked':
      st.revokedFamilies.set(n.family, n.until);
      break;
    case 'user_revoked':
      for (const f of n.families) st.revokedFamilies.set(f, n.until);
      break;
    case 'api_key_revoked':
      st.apiKeyCache.delete(n.hash);
      break;
    case 'quota_changed':
      st.quotaCache.delete(n.tenant);
      break;
    case 'keys_changed':
      void loadKeyRing(st.s).then((k) => {
        st.keys = k;
        st.tokens = buildVerifiers(k);
      }).catch((err) => st.s.log.error({ err }, 'reloading JWT keys failed'));
      break;
  }
  for (const fn of st.noticeListeners) fn(n);
}

/** Closes the context (closeServices calls it after the doors and before the stores). */
export async function closeSecurity(st: SecurityState): Promise<void> {
  if (st.closed) return;
  st.closed = true;
  for (const t of st.timers) clearInterval(t);
  await st.conns.close();
  await st.channel.close();
  st.store.close();
  st.redis?.disconnect();
}
