// Sessions (refresh families) ended by logout, refresh-token reuse or an admin's change
// to the user, with the reason. Their access tokens stay refused until they expire,
// also after a restart and after the user row (and with it its refresh tokens) is
// deleted; the reason tells an open connection why it was closed (docs/security.md).
export const sql = `
CREATE TABLE revoked_sessions (
  family_id   text PRIMARY KEY,
  user_id     text NOT NULL,
  tenant_id   text NOT NULL,
  reason      text NOT NULL,
  revoked_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX revoked_sessions_at ON revoked_sessions (revoked_at);

ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_user_id_fkey;
ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE;
`;
