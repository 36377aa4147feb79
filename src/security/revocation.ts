// Revocation reaching open connections (docs/security.md "Revocation and open connections").
// A WebSocket (/ws), a graphql-ws connection or an SSE stream authenticates once, when
// it connects. Its credential is watched here: a revocation notice (applied in this
// process by broadcast(), arriving from the other API processes over the security
// channel) ends it at once, and each WebSocket command / subscription and each GraphQL
// operation asks checkCredential() again before it runs (map lookups; an API key is
// looked up through the 30-second key cache that every revocation empties).
// In distributed mode a sweep re-reads recent revocations from the database, so a
// notice lost while Redis was away still ends the connections within RESYNC_MS.
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import type { SecurityState } from './context.js';
import { bearerToken } from './authenticate.js';
import { hashKey, lookupApiKey } from './apikeys.js';
import type { RevocationReason, SecurityNotice } from './channel.js';

/** What a connection authenticated with, as far as it can be revoked. Certificates cannot (docs/security.md). */
export interface RevocableCredential {
  /** Refresh family (session) of a bearer token: logout, refresh-token reuse, user changes revoke it. */
  family?: string;
  /** User id of a bearer token. */
  userId?: string;
  /** An API key as presented (looked up again per operation, through the key cache). */
  apiKey?: string;
  apiKeyHash?: string;
}

export interface Revocation {
  reason: RevocationReason;
  /** 401 UNAUTHORIZED (close 4401) when the credential is gone, 403 FORBIDDEN (4403) when only its permissions changed. */
  code: 'UNAUTHORIZED' | 'FORBIDDEN';
  closeCode: 4401 | 4403;
  message: string;
}

const MESSAGES: Record<RevocationReason, string> = {
  refresh_token_reused: 'the session of this connection was revoked: one of its refresh tokens was used twice; log in again',
  logout: 'the session of this connection was ended (logout); log in again',
  api_key_revoked: 'the API key of this connection was revoked',
  user_disabled: 'the account of this connection was disabled',
  user_deleted: 'the account of this connection was deleted',
  role_changed: 'the role of this account changed; reconnect with a new token to act with the new role',
  session_revoked: 'the session of this connection was revoked; log in again',
};

export function revocation(reason: RevocationReason): Revocation {
  const lostPermission = reason === 'role_changed';
  return { reason, code: lostPermission ? 'FORBIDDEN' : 'UNAUTHORIZED', closeCode: lostPermission ? 4403 : 4401, message: MESSAGES[reason] };
}

/** The AppError of a refused operation (WebSocket error frame, GraphQL error). */
export function revocationError(r: Revocation): AppError {
  return new AppError(r.code, r.message, { reason: r.reason });
}

/** fam and uid of a JWT that authenticate() has already verified. */
function tokenSession(token: string): { family?: string; userId?: string } {
  try {
    const p = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { fam?: unknown; uid?: unknown };
    return { family: typeof p.fam === 'string' ? p.fam : undefined, userId: typeof p.uid === 'string' ? p.uid : undefined };
  } catch {
    return {};
  }
}

/** The revocable part of the credential authenticate() used: a bearer token wins over an API key, as there. */
export function revocableCredential(input: { authorization?: string; token?: string; apiKey?: string }): RevocableCredential {
  const token = input.authorization ? bearerToken(input.authorization) : input.token;
  if (token) return tokenSession(token);
  if (input.apiKey) return { apiKey: input.apiKey, apiKeyHash: hashKey(input.apiKey) };
  return {};
}

// ---------------------------------------------------------------- watchers of this process

interface Watch {
  cred: RevocableCredential;
  onRevoked(r: Revocation): void;
  done: boolean;
}

export interface WatchRegistry {
  byFamily: Map<string, Set<Watch>>;
  byUser: Map<string, Set<Watch>>;
  byKey: Map<string, Set<Watch>>;
  /** Why a family was revoked (for the per-operation answer), bounded. */
  reasons: Map<string, RevocationReason>;
}

const RESYNC_MS = 15_000;
const MAX_REASONS = 10_000;

function registry(st: SecurityState): WatchRegistry {
  let r = st.watches;
  if (r) return r;
  r = { byFamily: new Map(), byUser: new Map(), byKey: new Map(), reasons: new Map() };
  st.watches = r;
  const reg = r;
  st.noticeListeners.push((n) => onNotice(reg, n));
  if (st.redis) {
    const t = setInterval(() => void resync(st).catch((err) => st.s.log.warn({ err }, 'revocation sweep failed')), RESYNC_MS);
    t.unref();
    st.timers.push(t);
  }
  return r;
}

function add(m: Map<string, Set<Watch>>, k: string | undefined, w: Watch): void {
  if (!k) return;
  let set = m.get(k);
  if (!set) m.set(k, (set = new Set()));
  set.add(w);
}

function remove(m: Map<string, Set<Watch>>, k: string | undefined, w: Watch): void {
  if (!k) return;
  const set = m.get(k);
  if (!set) return;
  set.delete(w);
  if (set.size === 0) m.delete(k);
}

function unregister(reg: WatchRegistry, w: Watch): void {
  w.done = true;
  remove(reg.byFamily, w.cred.family, w);
  remove(reg.byUser, w.cred.userId, w);
  remove(reg.byKey, w.cred.apiKeyHash, w);
}

function fire(reg: WatchRegistry, w: Watch, r: Revocation): void {
  if (w.done) return;
  unregister(reg, w);
  try {
    w.onRevoked(r);
  } catch {
    /* the connection was closing anyway */
  }
}

function fireAll(reg: WatchRegistry, set: Set<Watch> | undefined, r: Revocation): void {
  if (set) for (const w of [...set]) fire(reg, w, r);
}

function rememberReason(reg: WatchRegistry, family: string, reason: RevocationReason): void {
  if (reg.reasons.size >= MAX_REASONS) reg.reasons.clear();
  reg.reasons.set(family, reason);
}

function onNotice(reg: WatchRegistry, n: SecurityNotice): void {
  switch (n.kind) {
    case 'family_revoked': {
      // Notices from before reasons existed were all refresh-token reuse.
      const reason = n.reason ?? 'refresh_token_reused';
      rememberReason(reg, n.family, reason);
      fireAll(reg, reg.byFamily.get(n.family), revocation(reason));
      break;
    }
    case 'user_revoked': {
      const r = revocation(n.reason);
      for (const f of n.families) {
        rememberReason(reg, f, n.reason);
        fireAll(reg, reg.byFamily.get(f), r);
      }
      fireAll(reg, reg.byUser.get(n.user), r);
      break;
    }
    case 'api_key_revoked':
      fireAll(reg, reg.byKey.get(n.hash), revocation('api_key_revoked'));
      break;
    default:
      break;
  }
}

/**
 * Whether the credential of an open connection still holds. Tokens: the in-memory
 * revoked-family table kept current by the notices. API keys: the key lookup (cached
 * 30 s; a revocation empties the entry in every process). A database failure does
 * not refuse (the operation itself will report it).
 */
export async function checkCredential(s: Pick<Services, 'security'>, cred: RevocableCredential): Promise<Revocation | undefined> {
  const st = s.security;
  if (cred.family) {
    const until = st.revokedFamilies.get(cred.family);
    if (until !== undefined && until > Date.now()) return revocation(registry(st).reasons.get(cred.family) ?? 'session_revoked');
  }
  if (cred.apiKey) {
    let rec;
    try {
      rec = await lookupApiKey(st, cred.apiKey);
    } catch {
      return undefined;
    }
    if (!rec) return revocation('api_key_revoked');
  }
  return undefined;
}

/**
 * Calls onRevoked once when the credential is revoked (in any API process) while the
 * connection is open; the returned function stops watching (call it on close). The
 * credential is checked once right after registering, so a revocation that happened
 * between authentication and this call is not missed.
 */
export function watchCredential(s: Pick<Services, 'security'>, cred: RevocableCredential, onRevoked: (r: Revocation) => void): () => void {
  if (!cred.family && !cred.apiKeyHash && !cred.userId) return () => {};
  const st = s.security;
  const reg = registry(st);
  const w: Watch = { cred, onRevoked, done: false };
  add(reg.byFamily, cred.family, w);
  add(reg.byUser, cred.userId, w);
  add(reg.byKey, cred.apiKeyHash, w);
  void checkCredential(s, cred).then((r) => r && fire(reg, w, r), () => {});
  return () => unregister(reg, w);
}

/** Connections of this process being watched (tests, health). */
export function watchedCount(s: Pick<Services, 'security'>): number {
  const reg = s.security.watches;
  if (!reg) return 0;
  const all = new Set<Watch>();
  for (const m of [reg.byFamily, reg.byKey, reg.byUser]) for (const set of m.values()) for (const w of set) all.add(w);
  return all.size;
}

/** Re-reads recent revocations from the database and applies any this process missed. */
async function resync(st: SecurityState): Promise<void> {
  if (st.closed) return;
  const reg = registry(st);
  const window = Math.ceil((RESYNC_MS * 3) / 1000);
  const until = Date.now() + (st.s.config.security.tokenTtlSeconds + 60) * 1000;
  const { rows } = await st.s.db.query<{ family_id: string; reason: RevocationReason | null }>(
    `SELECT family_id, max(reason) AS reason FROM (
       SELECT family_id, NULL AS reason FROM refresh_tokens WHERE revoked_at > now() - make_interval(secs => $1)
       UNION ALL SELECT family_id, reason FROM revoked_sessions WHERE revoked_at > now() - make_interval(secs => $1)) r
     GROUP BY family_id`, [window]);
  for (const r of rows) {
    if (!st.revokedFamilies.has(r.family_id))
      st.applyNotice({
        kind: 'family_revoked',
        family: r.family_id,
        until,
        reason: r.reason ?? reg.reasons.get(r.family_id) ?? 'session_revoked',
      });
  }
  const hashes = [...reg.byKey.keys()];
  if (hashes.length === 0) return;
  const { rows: gone } = await st.s.db.query<{ key_hash: string }>(
    'SELECT key_hash FROM api_keys WHERE key_hash = ANY($1::text[]) AND revoked_at IS NOT NULL', [hashes]);
  for (const k of gone) st.applyNotice({ kind: 'api_key_revoked', hash: k.key_hash });
}
