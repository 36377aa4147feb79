// Device registry, time series and the event log's retention index.
// Plain PostgreSQL 15 (no extensions): runs on a PostgreSQL server and on PGlite.
export const sql = `
CREATE TABLE devices (
  id            text PRIMARY KEY,
  tenant_id     text NOT NULL REFERENCES tenants(id),
  name          text NOT NULL,
  type          text NOT NULL,                        -- PV, WIND, BESS, EV, LOAD, TRANSFORMER, BREAKER
  status        text NOT NULL DEFAULT 'offline',      -- online, offline, maintenance, fault (docs/devices.md)
  network_id    text REFERENCES networks(id) ON DELETE SET NULL,
  bus           integer,
  capacity_mw   double precision,
  metadata      jsonb NOT NULL DEFAULT '{}'::jsonb,
  last_seen_at  timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX devices_tenant_created ON devices (tenant_id, created_at DESC, id);
CREATE INDEX devices_tenant_type_status ON devices (tenant_id, type, status);
CREATE INDEX devices_network ON devices (network_id) WHERE network_id IS NOT NULL;

-- A bus number means something only within a network: when the network goes
-- (ON DELETE SET NULL above) or is unset, the bus goes with it.
CREATE FUNCTION devices_bus_needs_network() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.network_id IS NULL THEN NEW.bus := NULL; END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER devices_bus_needs_network BEFORE INSERT OR UPDATE ON devices
  FOR EACH ROW EXECUTE FUNCTION devices_bus_needs_network();

-- One row per series (tenant, metric, tag set); points refer to it by a bigint,
-- so each stored point is 8 + 8 + 8 bytes plus tuple overhead and the primary key
-- (series_id, ts) serves both upserts and one-series time-range scans.
-- No foreign key from points to series: its per-row check more than doubled the
-- cost of a 10,000-point insert; series are only created, never deleted, and
-- whoever deletes one must delete its points (docs/timeseries.md).
CREATE TABLE timeseries_series (
  id          bigserial PRIMARY KEY,
  tenant_id   text NOT NULL REFERENCES tenants(id),
  metric      text NOT NULL,
  tags        jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, metric, tags)
);

CREATE TABLE timeseries_points (
  series_id  bigint NOT NULL,
  ts         timestamptz NOT NULL,
  value      double precision NOT NULL,
  PRIMARY KEY (series_id, ts)
);

-- The daily write quota counts into tenant_usage_daily (002_security).

-- Event retention purges by time; rows are appended in time order, so a BRIN
-- index is tiny and cheap to maintain.
CREATE INDEX events_created_brin ON events USING brin (created_at);
`;
