// The live doors' use of the security layer (src/security): which credential a
// connection used (for the per-token limit), when it expires, the concurrent
// connection slots (per token, per user, per tenant quota; in Redis when
// REDIS_URL so every API process counts the same connections) and audit entries.
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { acquireConnection, recordAudit, logAuditFailure, fromCaller, type AuditInput } from '../security/index.js';
import type { ConnKind } from '../security/connections.js';
import { revocableCredential, type RevocableCredential } from '../security/revocation.js';

export interface Credential {
  /** Stable key of the credential (hash), for the per-token connection limit. */
  key: string;
  /** Epoch ms at which the credential stops being valid (JWT exp), if it expires. */
  expiresAt?: number;
  /** What a revocation of this credential is recognised by (src/security/revocation.ts). */
  revocable: RevocableCredential;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 32);

/** exp of a JWT (already verified by authenticate()), in epoch ms. */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The credential a request authenticated with: bearer token (header or ?token=), API key, or client identity. */
export function requestCredential(req: FastifyRequest, caller: Caller): Credential {
  const auth = req.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  const q = (req.query as Record<string, unknown> | undefined)?.token;
  const token = m?.[1] ?? (typeof q === 'string' && q !== '' ? q : undefined);
  if (token) return tokenCredential(token);
  const apiKey = req.headers['x-api-key'];
  if (typeof apiKey === 'string' && apiKey) return { key: `key:${sha(apiKey)}`, revocable: revocableCredential({ apiKey }) };
  return { key: `id:${caller.actor.type}:${caller.actor.id}`, revocable: {} };
}

export function tokenCredential(token: string): Credential {
  return { key: `tok:${sha(token)}`, expiresAt: jwtExpiry(token), revocable: revocableCredential({ token }) };
}

export interface ConnectionLease {
  /** Connections of the tenant (this one included) when taken: X-RateLimit-Concurrent. */
  concurrent: number;
  release(): Promise<void>;
}

/**
 * Takes the connection slots of a new SSE stream or WebSocket: per credential
 * (perToken, SSE only), then the security layer's per-user limit and the tenant's
 * quota. Throws 429 RATE_LIMITED with details.current (X-RateLimit-Concurrent).
 */
export async function acquireSlots(
  s: Pick<Services, 'liveCredentials' | 'security'>,
  kind: ConnKind,
  caller: Caller,
  cred: Credential,
  perToken?: number,
): Promise<ConnectionLease> {
  let tokenSlot: { release(): Promise<void> } | undefined;
  if (perToken !== undefined) {
    const r = await s.liveCredentials.acquire(kind, cred.key, cred.key, perToken, perToken);
    if (!r.ok) {
      throw new AppError(
        'RATE_LIMITED',
        `this token already has ${r.count} ${kind === 'sse' ? 'SSE' : 'WebSocket'} connections, the per-token limit of ${perToken}`,
        {
          scope: 'user',
          limit: perToken,
          current: r.count,
          per: 'token',
          retry_after: 5,
          window_seconds: 0,
          reset_at: new Date(Date.now() + 5000).toISOString(),
        },
      );
    }
    tokenSlot = r.slot;
  }
  try {
    const slot = await acquireConnection(s, caller, kind);
    return {
      concurrent: slot.tenantCount,
      async release() {
        await Promise.all([slot.release(), tokenSlot?.release()]);
      },
    };
  } catch (e) {
    await tokenSlot?.release();
    throw e;
  }
}

/** Count of the tenant's connections of this kind across processes. */
export function connectionCount(s: Pick<Services, 'security'>, kind: ConnKind, tenantId: string): Promise<number> {
  return s.security.conns.count(kind, tenantId);
}

/** Writes an audit entry; a failure is logged, never thrown (the stream is already open). */
export function auditLive(
  s: Services,
  caller: Caller,
  entry: Omit<AuditInput, 'actor' | 'tenantId' | 'requestId' | 'ip' | 'userAgent' | 'interface'> & Partial<AuditInput>,
): Promise<void> {
  return recordAudit(s, { ...fromCaller(caller), ...entry }).then(
    () => undefined,
    (err) => logAuditFailure(s.log, err),
  );
}
