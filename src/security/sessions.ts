// Ending sessions (refresh families) on purpose: logout, and an admin's change to a user
// (disabled, deleted, a role that loses permissions). The families are revoked in the
// database (their refresh tokens are refused; revoked_sessions keeps them with the reason
// while their access tokens can live), then a notice tells every API process, which
// refuses their access tokens at once and closes the open connections using them
// (src/security/revocation.ts). Refresh-token reuse revokes its family in tokens.ts.
import type { Queryable } from '../db/database.js';
import { broadcast, type SecurityState } from './context.js';
import type { RevocationReason } from './channel.js';

/** Seconds an access token issued now can be used: the revocation must outlive it. */
const liveSeconds = (st: SecurityState) => st.s.config.security.tokenTtlSeconds + 60;

/**
 * Revokes the user's families (or one of them) inside the caller's transaction and
 * records those whose access tokens may still be alive; returns them for announce().
 */
export async function revokeFamilies(
  st: SecurityState,
  q: Queryable,
  by: { userId: string; family?: string; tenant?: string },
  reason: RevocationReason,
): Promise<string[]> {
  const live = liveSeconds(st);
  const { rows } = await q.query<{ family_id: string; tenant_id: string }>(
    `UPDATE refresh_tokens SET revoked_at = now()
      WHERE user_id = $1 AND revoked_at IS NULL ${by.family ? 'AND family_id = $3' : ''} AND created_at > now() - make_interval(secs => $2)
      RETURNING family_id, tenant_id`,
    by.family ? [by.userId, live, by.family] : [by.userId, live],
  );
  // Older rows cannot belong to a live access token; they are only closed for refresh.
  await q.query(
    `UPDATE refresh_tokens SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL ${by.family ? 'AND family_id = $2' : ''}`,
    by.family ? [by.userId, by.family] : [by.userId],
  );
  const byFamily = new Map(rows.map((r) => [r.family_id, r.tenant_id]));
  if (by.family && !byFamily.has(by.family)) {
    // Logout with a live token whose family's refresh tokens were all used or revoked already.
    byFamily.set(by.family, by.tenant ?? '');
  }
  const families = [...byFamily.keys()];
  if (families.length > 0) {
    await q.query(
      `INSERT INTO revoked_sessions (family_id, user_id, tenant_id, reason)
       SELECT f, $2, t, $4 FROM unnest($1::text[], $3::text[]) AS x(f, t) ON CONFLICT (family_id) DO NOTHING`,
      [families, by.userId, families.map((f) => byFamily.get(f) ?? ''), reason],
    );
  }
  await q.query('DELETE FROM revoked_sessions WHERE revoked_at < now() - make_interval(secs => $1)', [live * 2]);
  return families;
}

/** After the transaction committed: every API process refuses the families' access tokens and closes their connections. */
export async function announceRevoked(st: SecurityState, userId: string, families: string[], reason: RevocationReason): Promise<void> {
  await broadcast(st, { kind: 'user_revoked', user: userId, families, until: Date.now() + liveSeconds(st) * 1000, reason });
}

/** POST /auth/logout: ends the session of the presented access token, or every session of its user. */
export async function logout(
  st: SecurityState,
  session: { userId: string; family: string; tenant: string },
  allSessions: boolean,
): Promise<{ sessions: number }> {
  const families = await st.s.db.transaction((tx) => revokeFamilies(st, tx, allSessions ? { userId: session.userId } : session, 'logout'));
  if (allSessions) await announceRevoked(st, session.userId, families, 'logout');
  else
    await broadcast(st, { kind: 'family_revoked', family: session.family, until: Date.now() + liveSeconds(st) * 1000, reason: 'logout' });
  return { sessions: families.length };
}
