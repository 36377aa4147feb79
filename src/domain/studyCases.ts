// A study's case rows in storage (migration 010): a solved chunk's typed columns go
// into study_cases in one multi-row statement, and stored rows come back as the
// entries of GET /studies/{id}/cases (CONTRACT), field for field what the engine's
// studyChunkRows gives, or as CSV lines.
import { STUDY_CASE_STATUSES, type StudyCaseStatus } from '../schemas/vocabulary.js';
import type { Queryable } from '../db/database.js';
import {
  CASE_CODE, VIOLATION_CODE, VIOLATION_KIND_CODE, caseReason, violationKindName, type StudyRequest, type StudyCaseMetrics, type StudyCaseRow,
  type StudyChunk, type StudyViolation, type StudyViolationType,
} from '../studies/index.js';
import { MON_BR, MON_BUS } from '../studies/abi.js';

const VIOLATION_TYPES: StudyViolationType[] = ['branch_overload', 'low_voltage', 'high_voltage'];
/** study_cases.status: the public case status as a small number (filters use its index). */
export { STUDY_CASE_STATUSES as CASE_STATUSES, type StudyCaseStatus as CaseStatus };
/** study_cases.violation_mask bit of each violation type. */
export const VIOLATION_BITS: Record<StudyViolationType, number> = { branch_overload: 1, low_voltage: 2, high_voltage: 4 };

function statusOf(code: number): number {
  return code === CASE_CODE.CONVERGED ? 0 : code === CASE_CODE.ISLANDED ? 2 : code === CASE_CODE.SCREENED ? 3 : 1;
}

const num = (x: number): number | null => (Number.isNaN(x) ? null : x);
const id = (x: number): number | null => (x < 0 ? null : x);

/** Where case k sits in the study: its scenario and contingency position (src/studies/types.ts case order). */
export function casePosition(k: number, scenarioCount: number | null, contingencyCount: number): { scenario: number | null; contingency: number | null } {
  if (scenarioCount === null) return { scenario: null, contingency: k };
  if (contingencyCount === 0) return { scenario: k, contingency: null };
  return { scenario: Math.floor(k / contingencyCount), contingency: k % contingencyCount };
}

export interface StudyShape {
  scenarioCount: number | null;
  contingencyCount: number;
  monitor: { branches: number[]; buses: number[] };
}

/**
 * Stores cases [chunk.start, chunk.end) of a study; rows already there stay as they are
 * (a chunk solved again after its worker died gives the same values). Returns how many
 * rows this call inserted.
 */
export async function insertChunkRows(q: Queryable, studyId: string, shape: StudyShape, chunk: StudyChunk): Promise<number> {
  const n = chunk.end - chunk.start;
  if (n <= 0) return 0;
  const cols = {
    k: new Array<number>(n), scenario: new Array<number | null>(n), contingency: new Array<number | null>(n),
    code: new Array<number>(n), status: new Array<number>(n), iterations: new Array<number>(n),
    maxLoading: new Array<number | null>(n), maxLoadingBranch: new Array<number | null>(n),
    newViolations: new Array<number>(n), maxNewLoading: new Array<number | null>(n),
    minV: new Array<number | null>(n), minVBus: new Array<number | null>(n), maxV: new Array<number | null>(n), maxVBus: new Array<number | null>(n),
    mask: new Array<number>(n), count: new Array<number>(n), violations: new Array<string | null>(n), islanded: new Array<string | null>(n),
    monitoredAt: new Array<number>(n),
  };
  const perCaseB = shape.monitor.branches.length * 5, perCaseU = shape.monitor.buses.length * 2;
  const monitoredLen = (perCaseB + perCaseU) * 8;
  const monitored = monitoredLen > 0 ? Buffer.alloc(monitoredLen * n) : Buffer.alloc(0);
  let mAt = 0;
  for (let i = 0; i < n; i++) {
    const k = chunk.start + i;
    const code = chunk.code[i]!;
    const pos = casePosition(k, shape.scenarioCount, shape.contingencyCount);
    cols.k[i] = k;
    cols.scenario[i] = pos.scenario;
    cols.contingency[i] = pos.contingency;
    cols.code[i] = code;
    cols.status[i] = statusOf(code);
    cols.iterations[i] = chunk.iterations[i]!;
    cols.maxLoading[i] = num(chunk.maxLoading[i]!);
    cols.maxLoadingBranch[i] = id(chunk.maxLoadingBranch[i]!);
    cols.minV[i] = num(chunk.minV[i]!);
    cols.minVBus[i] = id(chunk.minVBus[i]!);
    cols.maxV[i] = num(chunk.maxV[i]!);
    cols.maxVBus[i] = id(chunk.maxVBus[i]!);
    const v0 = chunk.violationStart[i]!, v1 = chunk.violationStart[i + 1]!;
    let mask = 0, nNew = 0, maxNew: number | null = null;
    const vs: StoredViolation[] = [];
    for (let v = v0; v < v1; v++) {
      const t = chunk.violationType[v]!, kind = chunk.violationKind[v] ?? VIOLATION_KIND_CODE.new, value = chunk.violationValue[v]!;
      mask |= 1 << t;
      vs.push([t, chunk.violationElement[v]!, value, chunk.violationLimit[v]!, num(chunk.violationBase[v] ?? Number.NaN), kind]);
      if (kind === VIOLATION_KIND_CODE.pre_existing) continue;
      nNew++;
      if (t === VIOLATION_CODE.branch_overload && (maxNew === null || value > maxNew)) maxNew = value;
    }
    cols.newViolations[i] = nNew;
    cols.maxNewLoading[i] = maxNew;
    cols.mask[i] = mask;
    cols.count[i] = v1 - v0;
    cols.violations[i] = vs.length ? JSON.stringify(vs) : null;
    cols.islanded[i] =
      code === CASE_CODE.ISLANDED || chunk.islandStart[i + 1]! > chunk.islandStart[i]!
        ? JSON.stringify({
            buses: Array.from(chunk.islandBuses.subarray(chunk.islandStart[i]!, chunk.islandStart[i + 1]!)),
            load_mw: chunk.islandLoadMw[i]!,
            generation_mw: chunk.islandGenerationMw[i]!,
          })
        : null;
    cols.monitoredAt[i] = -1;
    if (monitoredLen > 0 && code === CASE_CODE.CONVERGED) {
      // One case's values: its monitored branches (5 each), then its buses (2 each).
      const b = chunk.monitoredBranches.subarray(i * perCaseB, (i + 1) * perCaseB);
      const u = chunk.monitoredBuses.subarray(i * perCaseU, (i + 1) * perCaseU);
      for (let j = 0; j < b.length; j++) monitored.writeDoubleLE(b[j]!, mAt + 8 * j);
      for (let j = 0; j < u.length; j++) monitored.writeDoubleLE(u[j]!, mAt + 8 * (perCaseB + j));
      cols.monitoredAt[i] = mAt;
      mAt += monitoredLen;
    }
  }
  const res = await q.query(
    `INSERT INTO study_cases (study_id, case_index, scenario, contingency, code, status, iterations, max_loading_percent, max_loading_branch,
       min_v, min_v_bus, max_v, max_v_bus, violation_mask, violation_count, violations, islanded, monitored, new_violations, max_new_loading_percent)
     SELECT $1, x.k, x.scenario, x.contingency, x.code, x.status, x.iterations, x.max_loading, x.max_loading_branch,
       x.min_v, x.min_v_bus, x.max_v, x.max_v_bus, x.mask, x.count, x.violations::jsonb, x.islanded::jsonb,
       CASE WHEN x.m_at >= 0 THEN substring($18::bytea FROM x.m_at + 1 FOR $19) END, x.new_violations, x.max_new_loading
     FROM unnest($2::int[], $3::int[], $4::int[], $5::smallint[], $6::smallint[], $7::smallint[], $8::float8[], $9::int[],
       $10::float8[], $11::int[], $12::float8[], $13::int[], $14::smallint[], $15::int[], $16::text[], $17::text[], $20::int[], $21::int[], $22::float8[])
       AS x(k, scenario, contingency, code, status, iterations, max_loading, max_loading_branch, min_v, min_v_bus, max_v, max_v_bus, mask, count, violations,
         islanded, m_at, new_violations, max_new_loading)
     ON CONFLICT (study_id, case_index) DO NOTHING`,
    [studyId, cols.k, cols.scenario, cols.contingency, cols.code, cols.status, cols.iterations, cols.maxLoading, cols.maxLoadingBranch,
      cols.minV, cols.minVBus, cols.maxV, cols.maxVBus, cols.mask, cols.count, cols.violations, cols.islanded,
      monitored.subarray(0, mAt), monitoredLen, cols.monitoredAt,
      cols.newViolations, cols.maxNewLoading]);
  return res.rowCount;
}

/** A stored violation: type, element, value, limit, then (migration 018) base value and VIOLATION_KIND_CODE. */
type StoredViolation = [number, number, number, number] | [number, number, number, number, number | null, number];

/** A stored case row joined with its contingency (SELECT of listCaseRows). */
/** Stored as the engine reports them (StudyCaseMetrics), the violations as raw tuples. */
type StoredMetrics = Omit<StudyCaseMetrics, 'violations' | 'reason' | 'monitored'> & Pick<StudyCaseRow, 'new_violations' | 'max_new_loading_percent'>;

export interface StoredCase extends StoredMetrics {
  case_index: number;
  scenario: number | null;
  contingency: number | null;
  code: number;
  violations: StoredViolation[] | null;
  islanded: { buses: number[]; load_mw: number; generation_mw: number } | null;
  monitored: Uint8Array | null;
  c_id: string | null;
  c_branches: number[] | null;
  c_generators: number[] | null;
}

/** Columns of a case page: the row and its contingency. */
export const CASE_COLUMNS = `c.case_index, c.scenario, c.contingency, c.code, c.iterations, c.max_loading_percent, c.max_loading_branch,
  c.min_v, c.min_v_bus, c.max_v, c.max_v_bus, c.violations, c.islanded, c.monitored, c.new_violations, c.max_new_loading_percent,
  k.id AS c_id, k.branches AS c_branches, k.generators AS c_generators`;
export const CASE_FROM = `study_cases c LEFT JOIN study_contingencies k ON k.study_id = c.study_id AND k.position = c.contingency`;

/** A stored row as CONTRACT's case entry (the same fields, in the same order, as the engine's rows). */
export function caseRow(r: StoredCase, monitor: StudyShape['monitor']): StudyCaseRow {
  const cid = r.c_id;
  const caseId = r.scenario === null ? cid! : cid === null ? `scenario:${r.scenario}` : `scenario:${r.scenario}/${cid}`;
  const code = Number(r.code);
  const row: StudyCaseRow = {
    case_id: caseId,
    status: STUDY_CASE_STATUSES[statusOf(code)]!,
    iterations: Number(r.iterations),
    max_loading_percent: r.max_loading_percent === null ? null : Number(r.max_loading_percent),
    max_loading_branch: r.max_loading_branch,
    min_v: r.min_v === null ? null : Number(r.min_v),
    min_v_bus: r.min_v_bus,
    max_v: r.max_v === null ? null : Number(r.max_v),
    max_v_bus: r.max_v_bus,
    violations: (r.violations ?? []).map(([t, element, value, limit, base, kind]): StudyViolation => ({
      type: VIOLATION_TYPES[t]!, element, value, limit, base_value: base ?? null, kind: violationKindName(kind ?? VIOLATION_KIND_CODE.new),
    })),
    new_violations: Number(r.new_violations),
    max_new_loading_percent: r.max_new_loading_percent === null ? null : Number(r.max_new_loading_percent),
  };
  // Key order as the engine's rows: case_id, scenario, contingency, status...
  const ordered: StudyCaseRow = { case_id: row.case_id } as StudyCaseRow;
  if (r.scenario !== null) ordered.scenario = r.scenario;
  if (cid !== null) ordered.contingency = { id: cid, branches: r.c_branches ?? [], generators: r.c_generators ?? [] };
  Object.assign(ordered, row);
  if (r.islanded) ordered.islanded = r.islanded;
  if (r.monitored && r.monitored.length > 0) {
    const buf = Buffer.from(r.monitored.buffer, r.monitored.byteOffset, r.monitored.byteLength);
    // stored as the core wrote them (src/studies/abi.ts MON_BR, MON_BUS)
    const b0 = MON_BR.FIELDS * monitor.branches.length;
    const br = (q: number, c: number) => buf.readDoubleLE(8 * (MON_BR.FIELDS * q + c));
    const bus = (q: number, c: number) => buf.readDoubleLE(8 * (b0 + MON_BUS.FIELDS * q + c));
    ordered.monitored = {
      branches: monitor.branches.map((index, q) => ({
        index, p_from: br(q, MON_BR.PF), q_from: br(q, MON_BR.QF), p_to: br(q, MON_BR.PT), q_to: br(q, MON_BR.QT), loading: br(q, MON_BR.LOADING),
      })),
      buses: monitor.buses.map((busId, q) => ({ id: busId, v: bus(q, MON_BUS.VM), theta: bus(q, MON_BUS.VA) })),
    };
  }
  const reason = caseReason(code);
  if (reason) ordered.reason = reason;
  return ordered;
}

// ------------------------------------------------------------------ the study row

export interface StudyRow {
  id: string;
  tenant_id: string;
  task_id: string;
  network_id: string;
  network_version: number;
  kind: string;
  request: StudyRequest;
  case_count: number;
  contingency_count: number;
  scenario_count: number | null;
  monitor: { branches: number[]; buses: number[] };
  chunk_size: number;
  chunk_count: number;
  chunks_done: number;
  cases_done: number;
  base: Record<string, unknown> | null;
  solve_ms: number;
  counts: StudyCounts | null;
  created_by: string | null;
  created_at: Date;
}

export interface StudyCounts {
  by_status: { converged: number; diverged: number; islanded: number; screened: number };
  /** cases with at least one violation of the type */
  by_violation: { branch_overload: number; low_voltage: number; high_voltage: number };
  with_violations: number;
  /** cases with at least one new or worsened violation (CONTRACT "Violations relative to the base case") */
  cases_with_new_violations: number;
  /** cases that lost load: solved on what stayed energized (or, with islanding skip, not solved) */
  cases_with_lost_load: number;
}

export const shapeOf = (st: StudyRow): StudyShape => ({ scenarioCount: st.scenario_count, contingencyCount: st.contingency_count, monitor: st.monitor });

/** Cases per chunk: GRIDOPS_STUDY_CHUNK_CASES, else about 32 chunks a study, 16 to 2,000 cases each. */
export function chunkSize(caseCount: number, configured: number): number {
  if (configured > 0) return configured;
  return Math.min(2000, Math.max(16, Math.ceil(caseCount / 32)));
}

export async function studyCounts(q: Queryable, studyId: string): Promise<StudyCounts> {
  const { rows } = await q.query<Record<string, number>>(
    `SELECT count(*) FILTER (WHERE status = 0)::int AS converged, count(*) FILTER (WHERE status = 1)::int AS diverged,
            count(*) FILTER (WHERE status = 2)::int AS islanded, count(*) FILTER (WHERE status = 3)::int AS screened,
            count(*) FILTER (WHERE violation_mask & 1 <> 0)::int AS branch_overload, count(*) FILTER (WHERE violation_mask & 2 <> 0)::int AS low_voltage,
            count(*) FILTER (WHERE violation_mask & 4 <> 0)::int AS high_voltage, count(*) FILTER (WHERE violation_mask <> 0)::int AS with_violations,
            count(*) FILTER (WHERE (islanded->>'load_mw')::float8 > 0)::int AS cases_with_lost_load,
            count(*) FILTER (WHERE new_violations > 0)::int AS cases_with_new_violations
     FROM study_cases WHERE study_id = $1`, [studyId]);
  const r = rows[0]!;
  return {
    by_status: { converged: r.converged!, diverged: r.diverged!, islanded: r.islanded!, screened: r.screened! },
    by_violation: { branch_overload: r.branch_overload!, low_voltage: r.low_voltage!, high_voltage: r.high_voltage! },
    with_violations: r.with_violations!,
    cases_with_new_violations: r.cases_with_new_violations!,
    cases_with_lost_load: r.cases_with_lost_load!,
  };
}
