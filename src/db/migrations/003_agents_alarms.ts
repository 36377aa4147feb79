// Agents, their commands (actions, one-time confirmation tokens) and alarms.
// Plain PostgreSQL that PGlite runs too.
export const sql = `
CREATE TABLE agents (
  id                      text PRIMARY KEY,
  tenant_id               text NOT NULL REFERENCES tenants(id),
  name                    text NOT NULL,
  type                    text NOT NULL,
  -- No foreign key: an agent whose network was deleted keeps the id and moves
  -- to status error on its next network command (docs/agents.md).
  network_id              text,
  status                  text NOT NULL,
  status_reason           text,
  config                  jsonb NOT NULL DEFAULT '{}'::jsonb,
  tools                   jsonb NOT NULL DEFAULT '[]'::jsonb,
  reasoning_model         text NOT NULL DEFAULT 'default',
  max_actions_per_minute  integer NOT NULL DEFAULT 60,
  -- The command slot: at most one command executes per agent, across processes.
  -- A lease, so a process that dies mid-command cannot keep the agent busy forever.
  busy_command_id         text,
  busy_until              timestamptz,
  -- Last executed control command (switch_branch, set_generation): 100 ms spacing.
  last_control_at         timestamptz,
  created_at              timestamptz NOT NULL DEFAULT now(),
  updated_at              timestamptz NOT NULL DEFAULT now(),
  started_at              timestamptz,
  last_active_at          timestamptz
);
CREATE INDEX agents_tenant_created ON agents (tenant_id, created_at DESC, id);

-- Every admitted command is an action (its history); command_id is what the
-- caller sees as command_id, id (act_) the history entry.
CREATE TABLE agent_actions (
  id            text PRIMARY KEY,
  seq           bigserial UNIQUE,
  tenant_id     text NOT NULL,
  agent_id      text NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  command_id    text NOT NULL UNIQUE,
  command       text NOT NULL,
  params        jsonb NOT NULL DEFAULT '{}'::jsonb,
  priority      text NOT NULL DEFAULT 'normal',
  -- running, completed, failed, refused, timeout, cancelled, confirmation_required
  status        text NOT NULL,
  result        jsonb,
  error         jsonb,
  control       boolean NOT NULL DEFAULT false,
  actor         jsonb,
  audit_id      text,
  duration_ms   integer,
  created_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  executed_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  completed_at  timestamptz
);
CREATE INDEX agent_actions_agent_time ON agent_actions (agent_id, created_at DESC);

-- One-time confirmation tokens of control commands (only a hash is stored).
CREATE TABLE command_confirmations (
  token_hash   text PRIMARY KEY,
  tenant_id    text NOT NULL,
  agent_id     text NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
  command      text NOT NULL,
  params_hash  text NOT NULL,
  command_id   text NOT NULL,
  requested_by text,
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX command_confirmations_expiry ON command_confirmations (expires_at);

CREATE TABLE alarms (
  id               text PRIMARY KEY,
  tenant_id        text NOT NULL REFERENCES tenants(id),
  severity         smallint NOT NULL,         -- 0 info, 1 warn, 2 error, 3 critical
  status           text NOT NULL,             -- active, acknowledged, cleared
  type             text NOT NULL,
  message          text NOT NULL,
  network_id       text,
  source_type      text NOT NULL,
  source_id        text NOT NULL,
  details          jsonb NOT NULL DEFAULT '{}'::jsonb,
  occurrences      integer NOT NULL DEFAULT 1,
  raised_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
  last_seen_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  acknowledged_at  timestamptz,
  acknowledged_by  text,
  note             text,
  cleared_at       timestamptz,
  updated_at       timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- Exactly one open (active or acknowledged) alarm per condition.
CREATE UNIQUE INDEX alarms_open_condition ON alarms (tenant_id, (coalesce(network_id, '')), type, source_type, source_id) WHERE status <> 'cleared';
CREATE INDEX alarms_tenant_raised ON alarms (tenant_id, raised_at DESC, id);
CREATE INDEX alarms_network_open ON alarms (network_id) WHERE status <> 'cleared';

-- The newest power-flow result whose alarms were evaluated, per network, so an
-- older result finishing late cannot raise or clear alarms again.
CREATE TABLE alarm_evaluations (
  network_id  text PRIMARY KEY,
  task_seq    bigint NOT NULL,
  evaluated_at timestamptz NOT NULL DEFAULT now()
);
`;
