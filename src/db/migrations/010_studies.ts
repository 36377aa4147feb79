// Studies (CONTRACT "Studies", docs/studies.md). A study is a task (tasks.kind 'study')
// plus this row; its cases are solved in chunks by any solver process and stored as
// they finish, one compact row per case, so a study's size is bounded by disk, not RAM.
//
// study_cases keeps the columns GET /studies/{id}/cases filters and sorts on as scalars
// (code, extremes, a violation bit mask) and the rest compactly: violations and islanded
// buses as JSON only when present, monitored values as little-endian float64 (bytea).
// Its key is (study_id, case_index): a chunk solved twice (a worker killed mid-chunk)
// inserts nothing new (ON CONFLICT DO NOTHING), so rows never depend on who solved what.
export const sql = `
CREATE TABLE studies (
  id                 text PRIMARY KEY,
  tenant_id          text NOT NULL REFERENCES tenants(id),
  task_id            text NOT NULL UNIQUE,          -- the tasks row (kind 'study'), inserted in the same transaction
  network_id         text NOT NULL,
  network_version    integer NOT NULL,
  kind               text NOT NULL,
  request            jsonb NOT NULL,
  case_count         integer NOT NULL,
  contingency_count  integer NOT NULL,
  scenario_count     integer,
  monitor            jsonb NOT NULL,            -- {branches:[...], buses:[...]} as planned
  chunk_size         integer NOT NULL,
  chunk_count        integer NOT NULL,
  chunks_done        integer NOT NULL DEFAULT 0,
  cases_done         integer NOT NULL DEFAULT 0,
  base               jsonb,                     -- the base case summary
  solve_ms           double precision NOT NULL DEFAULT 0,  -- summed over chunks, inside the workers
  counts             jsonb,                     -- by status and violation type, when finished
  created_by         text,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX studies_tenant ON studies (tenant_id, created_at DESC);

-- The contingency list as planned (case rows name a position in it).
CREATE TABLE study_contingencies (
  study_id    text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  position    integer NOT NULL,
  id          text NOT NULL,
  branches    integer[] NOT NULL,
  generators  integer[] NOT NULL,
  PRIMARY KEY (study_id, position)
);

-- Chunks: [case_start, case_end). status pending | done; a chunk is done once its rows are in.
CREATE TABLE study_chunks (
  study_id     text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  chunk        integer NOT NULL,
  case_start   integer NOT NULL,
  case_end     integer NOT NULL,
  status       text NOT NULL DEFAULT 'pending',
  attempts     integer NOT NULL DEFAULT 0,
  job_id       text,                  -- its BullMQ job (distributed mode), for the sweeper
  solved_by    text,
  solve_ms     double precision,
  completed_at timestamptz,
  PRIMARY KEY (study_id, chunk)
);

CREATE TABLE study_cases (
  study_id            text NOT NULL REFERENCES studies(id) ON DELETE CASCADE,
  case_index          integer NOT NULL,
  scenario            integer,
  contingency         integer,                 -- position in study_contingencies
  code                smallint NOT NULL,       -- src/studies/types.ts CASE_CODE
  status              smallint NOT NULL,       -- 0 converged, 1 diverged, 2 islanded
  iterations          smallint NOT NULL,
  max_loading_percent double precision,
  max_loading_branch  integer,
  min_v               double precision,
  min_v_bus           integer,
  max_v               double precision,
  max_v_bus           integer,
  violation_mask      smallint NOT NULL,       -- 1 branch_overload, 2 low_voltage, 4 high_voltage
  violation_count     integer NOT NULL,
  violations          jsonb,                   -- [[type, element, value, limit], ...] when any
  islanded            jsonb,                   -- {buses, load_mw, generation_mw} when islanded
  monitored           bytea,                   -- float64 LE: branches x 5, then buses x 2
  PRIMARY KEY (study_id, case_index)
);
ALTER TABLE study_cases ALTER COLUMN monitored SET STORAGE EXTERNAL;
CREATE INDEX study_cases_loading ON study_cases (study_id, max_loading_percent DESC NULLS LAST, case_index);
CREATE INDEX study_cases_min_v ON study_cases (study_id, min_v NULLS LAST, case_index);
CREATE INDEX study_cases_max_v ON study_cases (study_id, max_v DESC NULLS LAST, case_index);
CREATE INDEX study_cases_status ON study_cases (study_id, status, case_index);
CREATE INDEX study_cases_violating ON study_cases (study_id, violation_mask, case_index) WHERE violation_mask <> 0;
`;
