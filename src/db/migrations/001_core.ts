// Tenants, versioned networks, tasks and the event log: what the service core needs.
export const sql = `
CREATE TABLE tenants (
  id          text PRIMARY KEY,
  plan        text NOT NULL DEFAULT 'pro',
  quotas      jsonb NOT NULL DEFAULT '{}'::jsonb,   -- overrides of the plan's presets
  created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO tenants (id, plan) VALUES ('default', 'pro');

CREATE TABLE networks (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants(id),
  name             text NOT NULL,
  description      text NOT NULL DEFAULT '',
  base_kv          double precision NOT NULL,
  base_mva         double precision NOT NULL,
  status           text NOT NULL,
  tags             jsonb NOT NULL DEFAULT '{}'::jsonb,
  bus_count        integer NOT NULL,
  branch_count     integer NOT NULL,
  generator_count  integer NOT NULL,
  load_count       integer NOT NULL,
  version          integer NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX networks_tenant_created ON networks (tenant_id, created_at DESC, id);
CREATE INDEX networks_tags ON networks USING gin (tags);

-- Every accepted update is a new immutable version; a power flow reads the
-- version current when it was submitted.
CREATE TABLE network_versions (
  network_id  text NOT NULL REFERENCES networks(id) ON DELETE CASCADE,
  version     integer NOT NULL,
  model       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (network_id, version)
);

CREATE TABLE tasks (
  id               text PRIMARY KEY,
  seq              bigserial UNIQUE,              -- submission order (FIFO per tenant)
  tenant_id        text NOT NULL REFERENCES tenants(id),
  network_id       text NOT NULL,
  network_version  integer NOT NULL,
  kind             text NOT NULL DEFAULT 'powerflow',
  status           text NOT NULL,                 -- queued, dispatched, running, completed, failed, cancelled
  options          jsonb NOT NULL,
  progress         jsonb,
  result           jsonb,
  error            jsonb,
  attempts         integer NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  started_at       timestamptz,
  completed_at     timestamptz
);
CREATE INDEX tasks_tenant_queue ON tasks (tenant_id, status, seq);
CREATE INDEX tasks_network_status ON tasks (network_id, status);

-- The durable, ordered event log (SSE replay, GraphQL eventStream, GET /events).
CREATE TABLE events (
  seq         bigserial PRIMARY KEY,
  tenant_id   text NOT NULL,
  topic       text NOT NULL,
  kind        text NOT NULL,
  payload     jsonb NOT NULL,
  network_id  text,
  agent_id    text,
  severity    smallint,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_tenant_seq ON events (tenant_id, seq);
CREATE INDEX events_tenant_topic_time ON events (tenant_id, topic, created_at);
`;
