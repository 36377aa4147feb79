// Access tokens (RS256 JWT, fast-jwt with a verification cache) and refresh
// tokens (opaque, single use, rotated within a family; a reused one revokes the
// whole family, including the family's access tokens still in their lifetime).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createSigner, createVerifier, TokenError } from 'fast-jwt';
import type { Permission, RoleName } from '../domain/caller.js';
import { ROLE_PERMISSIONS } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { KeyRing } from './keys.js';
import type { Queryable } from '../db/database.js';
import { broadcast, type SecurityState } from './context.js';

export const ISSUER = 'gridops';

export interface AccessClaims {
  sub: string;      // username
  uid: string;      // user id
  tenant: string;
  role: RoleName;
  scope: string;
  fam: string;      // refresh family (session)
  jti: string;
  iat: number;
  exp: number;
}

type Verify = (token: string) => AccessClaims;

export interface TokenVerifiers {
  byKid: Map<string, Verify>;
  sign?: (payload: Record<string, unknown>) => string;
  signingKid?: string;
}

export function buildVerifiers(ring: KeyRing): TokenVerifiers {
  const byKid = new Map<string, Verify>();
  for (const [kid, pem] of ring.verify) {
    byKid.set(
      kid,
      createVerifier({
        key: pem,
        algorithms: ['RS256'],
        cache: 10_000,
        allowedIss: ISSUER,
        requiredClaims: ['sub', 'tenant', 'role', 'exp', 'jti'],
      }) as Verify,
    );
  }
  return { byKid, signingKid: ring.signing?.kid };
}

export interface TokenSigner {
  kid: string;
  ttl: number;
  sign: (p: Record<string, unknown>) => string;
}

function signer(st: SecurityState) {
  const ttl = st.s.config.security.tokenTtlSeconds;
  const kid = st.keys.signing?.kid;
  let cur = st.signer;
  if (!cur || cur.kid !== kid || cur.ttl !== ttl) {
    if (!st.keys.signing)
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'this process has no JWT signing key (JWT_PRIVATE_KEY_FILE not set); it can verify tokens but not issue them',
      );
    cur = {
      kid: st.keys.signing.kid,
      ttl,
      sign: createSigner({
        algorithm: 'RS256',
        key: st.keys.signing.privatePem,
        kid: st.keys.signing.kid,
        iss: ISSUER,
        expiresIn: ttl * 1000,
      }),
    };
    st.signer = cur;
  }
  return cur.sign;
}

// ---------------------------------------------------------------- scope

const PERMISSIONS: readonly Permission[] = ['read', 'write', 'compute', 'command', 'audit', 'admin', 'cross_tenant'];
const permCache = new Map<string, ReadonlySet<Permission>>();

/** Scope "default" = every permission of the role; otherwise a space- or comma-separated
 *  list of permission names narrowing the token (never widening it). */
export function parseScope(scope: string | undefined): string {
  const s = (scope ?? 'default').trim();
  if (s === '' || s === 'default') return 'default';
  const parts = s.split(/[\s,]+/).filter(Boolean);
  for (const p of parts) {
    if (!PERMISSIONS.includes(p as Permission)) {
      throw new AppError('INVALID_FIELD', `scope "${p}" is not known; use "default" or permission names (${PERMISSIONS.join(', ')})`, {
        field: 'scope',
        allowed: ['default', ...PERMISSIONS],
      });
    }
  }
  return [...new Set(parts)].sort().join(' ');
}

export function permissionsFor(role: RoleName, scope: string): ReadonlySet<Permission> {
  const key = `${role}|${scope}`;
  let p = permCache.get(key);
  if (!p) {
    const base = ROLE_PERMISSIONS[role] ?? [];
    p = new Set(scope === 'default' ? base : base.filter((x) => scope.split(' ').includes(x)));
    permCache.set(key, p);
  }
  return p;
}

// ---------------------------------------------------------------- access tokens

function kidOfToken(token: string): string | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0) return undefined;
  try {
    const h = JSON.parse(Buffer.from(token.slice(0, dot), 'base64url').toString('utf8')) as { kid?: unknown; alg?: unknown };
    return typeof h.kid === 'string' && h.alg === 'RS256' ? h.kid : undefined;
  } catch {
    return undefined;
  }
}

let lastKeyReload = 0;

// Tokens whose signature was verified, by their exact text: a client sends the same token
// on every request until it expires, and an RS256 check (or even fast-jwt's own cache, which
// hashes the token each time) costs more than the rest of a cached list request. An entry
// counts only while its key is still in the ring (rotation) and the token has not expired;
// revocation is checked on every request below, hit or not.
const verified = new Map<string, { claims: AccessClaims; kid: string; verify: Verify }>();
const VERIFIED_MAX = 10_000;

function verifiedBefore(st: SecurityState, token: string): AccessClaims | undefined {
  const v = verified.get(token);
  if (!v) return undefined;
  if (st.tokens.byKid.get(v.kid) === v.verify && v.claims.exp * 1000 > Date.now()) return v.claims;
  verified.delete(token);
  return undefined;
}

/** Verifies signature, issuer, expiry and revocation; throws 401 UNAUTHORIZED or TOKEN_EXPIRED. */
export function verifyAccessToken(st: SecurityState, token: string): AccessClaims {
  const known = verifiedBefore(st, token);
  if (known) return checkRevocation(st, known);
  const kid = kidOfToken(token);
  const verify = kid ? st.tokens.byKid.get(kid) : undefined;
  if (!verify) {
    // Another process may have started signing with a newer key: reload the ring (at most every 10 s).
    if (kid && st.keys.source === 'database' && Date.now() - lastKeyReload > 10_000) {
      lastKeyReload = Date.now();
      void broadcast(st, { kind: 'keys_changed' });
    }
    throw new AppError('UNAUTHORIZED', 'the bearer token is not valid (malformed or signed with an unknown key)');
  }
  let claims: AccessClaims;
  try {
    claims = verify(token);
  } catch (e) {
    if (e instanceof TokenError && e.code === TokenError.codes.expired)
      throw new AppError('TOKEN_EXPIRED', 'the bearer token has expired; obtain a new one with POST /api/v1/auth/refresh or /auth/token');
    throw new AppError('UNAUTHORIZED', 'the bearer token is not valid (bad signature, claims or format)');
  }
  if (!ROLE_PERMISSIONS[claims.role]) throw new AppError('UNAUTHORIZED', 'the bearer token carries an unknown role');
  if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  verified.set(token, { claims: Object.freeze(claims), kid: kid!, verify });
  return checkRevocation(st, claims);
}

function checkRevocation(st: SecurityState, claims: AccessClaims): AccessClaims {
  const revoked = claims.fam ? st.revokedFamilies.get(claims.fam) : undefined;
  if (revoked !== undefined && revoked > Date.now())
    throw new AppError(
      'UNAUTHORIZED',
      'the bearer token was revoked (its session was ended: logout, refresh-token reuse or a change of the account); log in again',
    );
  return claims;
}

export interface TokenPair {
  token: string;
  refresh_token: string;
  expires_in: number;
  refresh_expires_in: number;
  token_type: 'Bearer';
  scope: string;
}

export interface TokenSubject {
  userId: string;
  username: string;
  tenant: string;
  role: RoleName;
  scope: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

async function newRefresh(st: SecurityState, subj: TokenSubject, family: string, q: Queryable = st.s.db): Promise<string> {
  const id = newId('rt');
  const secret = randomBytes(32).toString('base64url');
  await q.query(
    `INSERT INTO refresh_tokens (id, family_id, user_id, tenant_id, scope, token_hash, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))`,
    [id, family, subj.userId, subj.tenant, subj.scope, sha256(secret), st.s.config.security.refreshTtlSeconds]);
  return `${id}.${secret}`;
}

function access(st: SecurityState, subj: TokenSubject, family: string): string {
  return signer(st)({
    sub: subj.username,
    uid: subj.userId,
    tenant: subj.tenant,
    role: subj.role,
    scope: subj.scope,
    fam: family,
    jti: randomBytes(12).toString('base64url'),
  });
}

/** A new session (login): a new refresh family. */
export async function issueTokenPair(st: SecurityState, subj: TokenSubject): Promise<TokenPair> {
  const family = newId('rt').replace(/^rt_/, 'fam_');
  const token = access(st, subj, family);
  const refresh = await newRefresh(st, subj, family);
  const c = st.s.config.security;
  return { token, refresh_token: refresh, expires_in: c.tokenTtlSeconds, refresh_expires_in: c.refreshTtlSeconds, token_type: 'Bearer', scope: subj.scope };
}

export type RefreshOutcome =
  | { ok: true; pair: TokenPair; subject: TokenSubject; family: string }
  | { ok: false; error: AppError; reuse?: { family: string; userId: string; username?: string; tenant: string } };

/** Rotates a refresh token. Used before = reuse: the family is revoked (and stays so). */
export async function rotateRefreshToken(st: SecurityState, presented: string): Promise<RefreshOutcome> {
  const m = /^(rt_[0-9a-f]{20})\.([A-Za-z0-9_-]{20,100})$/.exec(presented);
  const invalid = (): RefreshOutcome => ({ ok: false, error: new AppError('UNAUTHORIZED', 'the refresh token is not valid') });
  if (!m) return invalid();
  const [, id, secret] = m;
  const out = await st.s.db.transaction(async (tx): Promise<RefreshOutcome> => {
    const { rows } = await tx.query<{
      family_id: string;
      user_id: string;
      tenant_id: string;
      scope: string;
      token_hash: string;
      expired: boolean;
      used_at: Date | null;
      revoked_at: Date | null;
      username: string | null;
      role: RoleName | null;
      disabled: boolean | null;
      home: string | null;
    }>(
      `SELECT r.family_id, r.user_id, r.tenant_id, r.scope, r.token_hash, r.expires_at <= now() AS expired, r.used_at, r.revoked_at,
              u.username, u.role, u.disabled, u.tenant_id AS home
         FROM refresh_tokens r LEFT JOIN users u ON u.id = r.user_id WHERE r.id = $1 FOR UPDATE OF r`,
      [id],
    );
    const r = rows[0];
    const given = Buffer.from(sha256(secret), 'hex');
    if (!r || !timingSafeEqual(given, Buffer.from(r.token_hash, 'hex'))) return invalid();
    if (r.revoked_at) return { ok: false, error: new AppError('UNAUTHORIZED', 'the refresh token was revoked; log in again') };
    if (r.used_at) {
      await tx.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [r.family_id]);
      await tx.query(
        `INSERT INTO revoked_sessions (family_id, user_id, tenant_id, reason) VALUES ($1, $2, $3, 'refresh_token_reused') ON CONFLICT (family_id) DO NOTHING`,
        [r.family_id, r.user_id, r.tenant_id],
      );
      return {
        ok: false,
        error: new AppError('UNAUTHORIZED', 'the refresh token was already used; its session has been revoked, log in again', {
          reason: 'refresh_token_reused',
        }),
        reuse: { family: r.family_id, userId: r.user_id, username: r.username ?? undefined, tenant: r.tenant_id },
      };
    }
    if (r.expired) return { ok: false, error: new AppError('TOKEN_EXPIRED', 'the refresh token has expired; log in again') };
    if (!r.username || !r.role || r.disabled) return { ok: false, error: new AppError('UNAUTHORIZED', 'the account of this refresh token is disabled') };
    await tx.query('UPDATE refresh_tokens SET used_at = now() WHERE id = $1', [id]);
    // The role is read again (a changed role applies from the next refresh on).
    const tenant = r.tenant_id !== r.home && !ROLE_PERMISSIONS[r.role].includes('cross_tenant') ? r.home! : r.tenant_id;
    const subject: TokenSubject = { userId: r.user_id, username: r.username, tenant, role: r.role, scope: r.scope };
    const refresh = await newRefresh(st, subject, r.family_id, tx);
    const c = st.s.config.security;
    return {
      ok: true,
      subject,
      family: r.family_id,
      pair: {
        token: access(st, subject, r.family_id),
        refresh_token: refresh,
        expires_in: c.tokenTtlSeconds,
        refresh_expires_in: c.refreshTtlSeconds,
        token_type: 'Bearer',
        scope: r.scope,
      },
    };
  });
  if (!out.ok && out.reuse) {
    await broadcast(st, {
      kind: 'family_revoked',
      family: out.reuse.family,
      until: Date.now() + (st.s.config.security.tokenTtlSeconds + 60) * 1000,
      reason: 'refresh_token_reused',
    });
  }
  return out;
}

/** At start: families revoked recently enough that their access tokens may still be alive. */
export async function loadRevokedFamilies(st: SecurityState): Promise<void> {
  const ttl = st.s.config.security.tokenTtlSeconds + 60;
  // revoked_sessions also holds the families of deleted users (their refresh tokens are gone).
  const { rows } = await st.s.db.query<{ family_id: string; until: number }>(
    `SELECT family_id, (extract(epoch FROM max(revoked_at)) * 1000)::bigint + $1::bigint * 1000 AS until
       FROM (SELECT family_id, revoked_at FROM refresh_tokens WHERE revoked_at > now() - make_interval(secs => $1)
             UNION ALL SELECT family_id, revoked_at FROM revoked_sessions WHERE revoked_at > now() - make_interval(secs => $1)) r
      GROUP BY family_id`, [ttl]);
  for (const r of rows) st.revokedFamilies.set(r.family_id, Number(r.until));
}
