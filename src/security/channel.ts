// Notices between the API processes of one deployment about security state that
// each process caches: revoked refresh families (their access tokens stop working
// at once, open connections using them close), revoked API keys, changed tenant quotas, written networks. In-process without Redis;
// Redis pub/sub on <prefix>:security otherwise (own connections: the event bus
// carries client-visible events only).
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

/** Why a credential stopped working (docs/security.md "Revocation and open connections"). */
export type RevocationReason = 'refresh_token_reused' | 'logout' | 'api_key_revoked' | 'user_disabled' | 'user_deleted' | 'role_changed' | 'session_revoked';

export type SecurityNotice =
  | { kind: 'family_revoked'; family: string; until: number; reason?: RevocationReason }
  | { kind: 'user_revoked'; user: string; families: string[]; until: number; reason: RevocationReason }
  | { kind: 'api_key_revoked'; hash: string }
  | { kind: 'quota_changed'; tenant: string }
  /** A network's version or status was written (src/cache/networkVersions.ts). */
  | { kind: 'network_changed'; network: string }
  | { kind: 'keys_changed' };

export interface SecurityChannel {
  publish(n: SecurityNotice): Promise<void>;
  subscribe(fn: (n: SecurityNotice) => void): void;
  close(): Promise<void>;
}

export function memoryChannel(): SecurityChannel {
  const e = new EventEmitter();
  e.setMaxListeners(0);
  return {
    async publish(n) {
      e.emit('n', n);
    },
    subscribe(fn) {
      e.on('n', fn);
    },
    async close() {
      e.removeAllListeners();
    },
  };
}

export async function redisChannel(pub: Redis, url: string, prefix: string): Promise<SecurityChannel> {
  const sub = new Redis(url, { maxRetriesPerRequest: 2, lazyConnect: true });
  sub.on('error', () => {});
  await sub.connect();
  const name = `${prefix}:security`;
  const e = new EventEmitter();
  e.setMaxListeners(0);
  sub.on('message', (_ch: string, raw: string) => {
    try {
      e.emit('n', JSON.parse(raw));
    } catch {
      /* ignore malformed */
    }
  });
  await sub.subscribe(name);
  return {
    async publish(n) {
      await pub.publish(name, JSON.stringify(n));
    },
    subscribe(fn) {
      e.on('n', fn);
    },
    async close() {
      e.removeAllListeners();
      sub.disconnect();
    },
  };
}
