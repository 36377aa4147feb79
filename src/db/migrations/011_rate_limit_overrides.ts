// Live rate-limit overrides per tenant (a load test, a migration), and rate-limit refusals
// audited in aggregate: one row per minute, tenant, caller, layer and address with a count,
// instead of one immutable audit_log row per refused request (a 10 s load test wrote 42,898).
export const sql = `
CREATE TABLE tenant_rate_limit_overrides (
  tenant_id   text PRIMARY KEY REFERENCES tenants(id),
  factor      double precision CHECK (factor IS NULL OR factor > 0), -- multiplies every rate and burst; NULL = limits lifted
  reason      text NOT NULL,
  actor       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  expires_at  timestamptz NOT NULL
);

CREATE TABLE audit_rate_limited (
  minute        timestamptz NOT NULL,
  tenant_id     text NOT NULL,
  actor_type    text NOT NULL,
  actor_id      text NOT NULL,
  layer         text NOT NULL,   -- ip, tenant, user, endpoint
  ip            text NOT NULL,
  interface     text NOT NULL,
  count         integer NOT NULL,
  first_at      timestamptz NOT NULL,
  last_at       timestamptz NOT NULL,
  last_request_id text,
  actions       jsonb NOT NULL DEFAULT '{}'::jsonb,  -- refused requests per action ("GET /api/v1/networks": 40123)
  PRIMARY KEY (tenant_id, minute, actor_type, actor_id, layer, ip, interface)
);
CREATE INDEX audit_rate_limited_minute ON audit_rate_limited (minute);
`;
