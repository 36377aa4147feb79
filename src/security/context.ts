// The per-process security context: its shape, where a process finds it, and
// how a change is told to every process. This module is a leaf of security/
// (type-only imports): tokens, quotas, users, rate limits and API keys depend
// on it, and state.ts builds it, so nothing in security/ imports state.ts.
import type { Redis } from 'ioredis';
import type { Services } from '../services.js';
import type { RateLimitTable } from './settings.js';
import type { SecurityChannel, SecurityNotice } from './channel.js';
import type { KeyRing } from './keys.js';
import type { TokenVerifiers } from './tokens.js';
import type { BucketStore } from './ratelimit.js';
import type { ConnectionRegistry } from './connections.js';
import type { ApiKeyRecord } from './apikeys.js';
import type { TenantQuotaState } from './quotas.js';

export interface SecurityState {
  s: Services;
  keys: KeyRing;
  tokens: TokenVerifiers;
  /** family id -> epoch ms until which its access tokens are refused. */
  revokedFamilies: Map<string, number>;
  apiKeyCache: Map<string, { rec: ApiKeyRecord | null; until: number }>;
  quotaCache: Map<string, { value: Promise<TenantQuotaState | null>; until: number }>;
  limits: RateLimitTable;
  store: BucketStore;
  conns: ConnectionRegistry;
  channel: SecurityChannel;
  redis?: Redis;
  isBlocked(ip: string): boolean;
  /** Applies a notice to this process's caches (set by state.ts, which knows how to reload keys). */
  applyNotice(n: SecurityNotice): void;
  /** Set when an audit write failed; mutating requests get 403 AUDIT_REQUIRED until one succeeds. */
  auditFailing: boolean;
  timers: NodeJS.Timeout[];
  /** Called after each notice is applied (src/security/revocation.ts closes open connections). */
  noticeListeners: ((n: SecurityNotice) => void)[];
  closed: boolean;
}

const states = new WeakMap<Services, SecurityState>();

export function sec(s: Services): SecurityState {
  const st = states.get(s);
  if (!st) throw new Error('security is not initialised in this process (initSecurity runs when the API starts)');
  return st;
}

/** The context of these services, if initSecurity has finished. */
export function findSecurity(s: Services): SecurityState | undefined {
  return states.get(s);
}

export function registerSecurity(s: Services, st: SecurityState): void {
  states.set(s, st);
}

export function forgetSecurity(s: Services): void {
  states.delete(s);
}

/** Applies a notice here at once and tells the other processes. */
export async function broadcast(st: SecurityState, n: SecurityNotice): Promise<void> {
  st.applyNotice(n);
  try {
    await st.channel.publish(n);
  } catch (err) {
    st.s.log.error({ err, notice: n.kind }, 'security notice not delivered to other processes');
  }
}
