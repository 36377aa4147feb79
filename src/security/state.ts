// Builds and closes the per-process security state (key ring and verifiers,
// caches, rate-limit store, connection registry, the notice channel, timers):
// created once by initSecurity() when the API starts. Its shape and lookup live
// in context.ts, so the modules it builds from never import this one.
import { Redis } from 'ioredis';
import type { Services } from '../services.js';
import { effectiveLimits } from './settings.js';
import { buildBlockList } from './ip.js';
import { memoryChannel, redisChannel, type SecurityNotice } from './channel.js';
import { loadKeyRing } from './keys.js';
import { buildVerifiers, loadRevokedFamilies } from './tokens.js';
import { createMemoryStore, createRedisStore } from './ratelimit.js';
import { createConnectionRegistry } from './connections.js';
import { ensureBootstrapAdmin } from './users.js';
import { startSweeper } from './quotas.js';
import { flushDenials, stopDenials } from './denials.js';
import { broadcast, findSecurity, forgetSecurity, registerSecurity, sec, type SecurityState } from './context.js';

export { broadcast, sec, type SecurityState };

const starting = new WeakMap<Services, Promise<SecurityState>>();

export function initSecurity(s: Services): Promise<SecurityState> {
  const have = findSecurity(s);
  if (have) return Promise.resolve(have);
  let p = starting.get(s);
  if (!p) {
    p = doInit(s);
    starting.set(s, p);
  }
  return p;
}

async function doInit(s: Services): Promise<SecurityState> {
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
  };
  channel.subscribe((n) => applyNotice(st, n));
  registerSecurity(s, st);
  await loadRevokedFamilies(st);
  await ensureBootstrapAdmin(st);
  startSweeper(st);
  if (c.security.authDisabled) s.log.warn('GRIDOPS_AUTH=off: every request acts as the bootstrap admin (benchmark baseline only)');
  if (!c.security.rateLimitsEnabled) s.log.warn('RATE_LIMITS=off: the four rate-limit layers are off');
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

export async function closeSecurity(s: Services): Promise<void> {
  const st = findSecurity(s);
  if (!st || st.closed) return;
  st.closed = true;
  for (const t of st.timers) clearInterval(t);
  stopDenials(s);
  await flushDenials(s).catch((err) => s.log.error({ err }, 'rate-limit refusals counted at shutdown could not be written'));
  await st.conns.close();
  await st.channel.close();
  st.store.close();
  st.redis?.disconnect();
  forgetSecurity(s);
  starting.delete(s);
}
