// The per-process security context: its shape, where a process finds it, and
// how a change is told to every process. This module is a leaf of security/
// (type-only imports): tokens, quotas, users, rate limits and API keys depend
// on it, and state.ts builds it, so nothing in security/ imports state.ts.
import type { Redis } from 'ioredis';
import type { ServiceCore } from '../services.js';
import type { RateLimitTable } from './settings.js';
import type { SecurityChannel, SecurityNotice } from './channel.js';
import type { KeyRing } from './keys.js';
import type { TokenVerifiers } from './tokens.js';
import type { BucketStore } from './ratelimit.js';
import type { ConnectionRegistry } from './connections.js';
import type { ApiKeyRecord } from './apikeys.js';
import type { TenantQuotaState } from './quotas.js';
import type { TokenSigner } from './tokens.js';
import type { RatePlan } from './ratelimit.js';
import type { WatchRegistry } from './revocation.js';

export interface SecurityState {
  s: ServiceCore;
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
  /** The JWT signer of the current signing key and TTL, rebuilt when either changes (tokens.ts). */
  signer?: TokenSigner;
  /** Rate-limit bucket plans by address class, address, caller and endpoint, bounded (ratelimit.ts). */
  ratePlans: Map<string, RatePlan>;
  /** Open connections watched for revocation, set up by the first watch (revocation.ts). */
  watches?: WatchRegistry;
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
