// Security and tenancy: users, API keys, refresh-token families, the shared JWT
// key pair, quota history, daily usage and the append-only audit log.
export const sql = `
-- tenants.quotas stays the EFFECTIVE override set (what the scheduler reads live);
-- base_quotas holds the permanent overrides, temporary ones live in tenant_quota_overrides
-- and are folded into quotas until they expire (src/security/quotas.ts).
ALTER TABLE tenants ADD COLUMN base_quotas jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE tenants ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
UPDATE tenants SET base_quotas = quotas;

CREATE TABLE tenant_quota_overrides (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants(id),
  quotas      jsonb NOT NULL,
  reason      text NOT NULL,
  actor       text NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  expired_at  timestamptz
);
CREATE INDEX tenant_quota_overrides_active ON tenant_quota_overrides (expires_at) WHERE expired_at IS NULL;

CREATE TABLE tenant_usage_daily (
  tenant_id  text NOT NULL,
  day        date NOT NULL,
  points     bigint NOT NULL DEFAULT 0,
  bytes      bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, day)
);

CREATE TABLE users (
  id             text PRIMARY KEY,
  tenant_id      text NOT NULL REFERENCES tenants(id),
  username       text NOT NULL UNIQUE,
  password_hash  text NOT NULL,
  role           text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer', 'auditor')),
  disabled       boolean NOT NULL DEFAULT false,
  created_by     text,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id          text PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants(id),
  name        text NOT NULL,
  role        text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer', 'auditor')),
  key_hash    text NOT NULL UNIQUE,
  created_by  text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  revoked_at  timestamptz
);

-- Refresh tokens are opaque, stored as sha256; each login starts a family, each
-- refresh marks its token used and issues the next one in the same family.
CREATE TABLE refresh_tokens (
  id          text PRIMARY KEY,
  family_id   text NOT NULL,
  user_id     text NOT NULL REFERENCES users(id),
  tenant_id   text NOT NULL,
  scope       text NOT NULL,
  token_hash  text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  revoked_at  timestamptz
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_revoked ON refresh_tokens (revoked_at) WHERE revoked_at IS NOT NULL;

-- Generated RS256 key pair shared by every process of a deployment (used when
-- JWT_PRIVATE_KEY_FILE is not set and the store is PostgreSQL).
CREATE TABLE jwt_keys (
  kid          text PRIMARY KEY,
  private_pem  text NOT NULL,
  public_pem   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  retired_at   timestamptz
);

-- The audit trail: append-only. UPDATE, DELETE and TRUNCATE raise, except the
-- retention purge, which sets gridops.audit_purge=on for its transaction and may
-- then delete only rows older than the 365-day retention.
CREATE TABLE audit_log (
  seq           bigserial PRIMARY KEY,
  id            text NOT NULL UNIQUE,
  ts            timestamptz NOT NULL DEFAULT now(),
  tenant_id     text NOT NULL,
  actor_type    text NOT NULL,
  actor_id      text NOT NULL,
  actor_tenant  text NOT NULL,
  action        text NOT NULL,
  resource_type text,
  resource_id   text,
  request_id    text,
  ip            text,
  user_agent    text,
  interface     text,
  result        text NOT NULL CHECK (result IN ('success', 'failure', 'denied')),
  status        integer,
  details       jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_tenant_ts ON audit_log (tenant_id, ts DESC, seq DESC);
CREATE INDEX audit_log_tenant_actor ON audit_log (tenant_id, actor_id, ts DESC);
CREATE INDEX audit_log_tenant_action ON audit_log (tenant_id, action, ts DESC);
CREATE INDEX audit_log_tenant_resource ON audit_log (tenant_id, resource_type, resource_id);
CREATE INDEX audit_log_request ON audit_log (request_id);
CREATE INDEX audit_log_ts ON audit_log (ts);

CREATE FUNCTION audit_log_guard() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('gridops.audit_purge', true) = 'on'
     AND OLD.ts < now() - interval '365 days' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = '42501';
END
$fn$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_guard();

CREATE FUNCTION audit_log_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only: TRUNCATE refused' USING ERRCODE = '42501';
END
$fn$;
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_no_truncate();
`;
