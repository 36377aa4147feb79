// Studies (CONTRACT "Studies", docs/studies.md): one domain function per operation,
// called by REST, GraphQL and every other door. A study is stored with its task (kind
// 'study') in one transaction, queued under the tenant's quota like a power flow, and
// run in chunks by src/queue/study.ts; its case rows are read back page by page or as a
// CSV stream, never all at once.
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError, notFound } from '../lib/errors.js';
import { CASE_ROW_BYTES, checkStorageQuota } from './resultStorage.js';
import { newId } from '../lib/ids.js';
import { pageMeta, paging, selectPage, } from '../lib/paging.js';
import { getModel, getNetworkState } from './networks.js';
import { FINISHED, publicStatus, type TaskRow, } from './tasks.js';
import { insertStudy, studyWithTask, type StudyWithTask } from '../db/stores/studies.js';
import { getQuotas } from '../security/quotas.js';
import { estimatedModel, estimateForStudy } from '../stateEstimation/studyBase.js';
import { planStudy, studyCsvHeader, studyCsvLines, type StudyCaseRow, type StudyRequest } from '../studies/index.js';
import {
  CASE_COLUMNS, CASE_FROM, CASE_STATUSES, VIOLATION_BITS, caseRow, chunkSize, shapeOf, studyCounts,
  type StoredCase, type StudyCounts, 
} from './studyCases.js';
import type { Static } from '@sinclair/typebox';
import type { CaseQuery as CaseQuerySchema } from '../schemas/studies.js';
import { monitoredPerRecord } from '../studies/abi.js';

function requirePermission(caller: Caller, p: 'read' | 'compute', what: string): void {
  if (!caller.permissions.has(p)) {
    throw new AppError(
      'FORBIDDEN',
      `${what} needs the ${p} permission (roles ` +
        `${p === 'compute' ? 'operator and admin' : 'viewer, auditor, operator and admin'}); your role is ${caller.role}`,
      { required: p, role: caller.role },
    );
  }
}

export interface StudyView {
  study_id: string;
  task_id: string;
  network_id: string;
  network_version: number;
  kind: string;
  status: ReturnType<typeof publicStatus>;
  poll_url: string;
  cases_url: string;
  csv_url: string;
  progress: { done: number; total: number };
  chunks: { done: number; total: number; size: number };
  request: StudyRequest;
  base: Record<string, unknown> | null;
  counts: StudyCounts;
  timings: { created_at: Date; started_at: Date | null; completed_at: Date | null; queued_ms: number | null; wall_ms: number | null; solve_ms: number };
  error: TaskRow['error'];
  attempts: number;
}

async function findStudy(s: Pick<Services, 'db'>, caller: Caller, id: string): Promise<StudyWithTask> {
  const st = await studyWithTask(s.db, id, caller.tenantId);
  if (!st) throw notFound('study', id);
  return st;
}

async function view(s: Pick<Services, 'db'>, st: StudyWithTask): Promise<StudyView> {
  const created = new Date(st.created_at),
    started = st.started_at ? new Date(st.started_at) : null,
    completed = st.completed_at ? new Date(st.completed_at) : null;
  return {
    study_id: st.id,
    task_id: st.task_id,
    network_id: st.network_id,
    network_version: st.network_version,
    kind: st.kind,
    status: publicStatus(st.task_status),
    poll_url: `/api/v1/studies/${st.id}`,
    cases_url: `/api/v1/studies/${st.id}/cases`,
    csv_url: `/api/v1/studies/${st.id}/cases.csv`,
    progress: { done: st.cases_done, total: st.case_count },
    chunks: { done: st.chunks_done, total: st.chunk_count, size: st.chunk_size },
    request: st.request,
    base: st.base,
    // Stored when the study completes; counted from the stored rows before (and after a cancel).
    counts: st.counts ?? await studyCounts(s.db, st.id),
    timings: {
      created_at: created, started_at: started, completed_at: completed,
      queued_ms: started ? started.getTime() - created.getTime() : null,
      wall_ms: started && completed ? completed.getTime() - started.getTime() : null,
      solve_ms: Math.round(Number(st.solve_ms)),
    },
    error: st.error,
    attempts: st.attempts,
  };
}

export interface SubmittedStudy {
  study_id: string;
  task_id: string;
  network_id: string;
  status: 'queued';
  poll_url: string;
}

/**
 * POST /networks/{id}/studies: checks the request against the network's current version
 * (planStudy: INVALID_FIELD naming the field), the tenant's study_cases quota, and queues it.
 */
export async function submitStudy(s: Services, caller: Caller, networkId: string, request: StudyRequest): Promise<SubmittedStudy> {
  requirePermission(caller, 'compute', 'running a study');
  const net = await getNetworkState(s, caller, networkId);
  if (net.status === 'archived')
    throw new AppError('CONFLICT', `network ${networkId} is archived; restore it (status "ready") before running a study`, {
      network_id: networkId,
      status: net.status,
    });
  if (net.status === 'draft')
    throw new AppError('CONFLICT', `network ${networkId} is a draft; set its status to "ready" before running a study`, {
      network_id: networkId,
      status: net.status,
    });
  const { summary, model: stored } = await getModel(s, caller, networkId);
  const model = request.base
    ? estimatedModel(stored, await estimateForStudy(s.db, caller.tenantId, networkId, summary.version, request.base.state_estimation))
    : stored;
  const plan = planStudy(model, request);
  const limit = (await getQuotas(s, caller.tenantId)).study_cases;
  if (plan.caseCount > limit) {
    const field = plan.scenarios ? 'scenarios.count' : 'contingencies';
    throw new AppError(
      'INVALID_FIELD',
      `${field}: this study has ${plan.caseCount} cases, more than tenant ${caller.tenantId} may run in one study (quota ` +
        `study_cases = ${limit}); split it into several studies or ask an administrator to raise the quota`,
      { field, cases: plan.caseCount, limit, quota: 'study_cases' },
    );
  }
  // its case rows, as they will be stored (violations aside): refused at once over the tenant's storage quota
  const perCase = CASE_ROW_BYTES + 8 * monitoredPerRecord(plan.monitor.branches.length, plan.monitor.buses.length);
  await checkStorageQuota(s, caller.tenantId, plan.caseCount * perCase, `this study of ${plan.caseCount} cases`);
  const size = chunkSize(plan.caseCount, s.config.studyChunkCases);
  const chunkCount = Math.ceil(plan.caseCount / size);
  const studyId = newId('study');
  const task = await s.tasks.submitWith(
    caller,
    networkId,
    summary.version,
    'study',
    { study_id: studyId, kind: plan.kind, cases: plan.caseCount },
    async (tx, t) => {
      await insertStudy(tx, {
        id: studyId,
        tenantId: caller.tenantId,
        taskId: t.id,
        networkId,
        networkVersion: summary.version,
        kind: plan.kind,
        request,
        caseCount: plan.caseCount,
        scenarioCount: plan.scenarios?.count ?? null,
        monitor: plan.monitor,
        chunkSize: size,
        chunkCount,
        createdBy: `${caller.actor.type}:${caller.actor.id}`,
        contingencies: plan.contingencies,
      });
    },
  );
  return { study_id: studyId, task_id: task.id, network_id: networkId, status: 'queued', poll_url: `/api/v1/studies/${studyId}` };
}

/** GET /studies/{id}: status, progress, timings, base case summary and counts. */
export async function getStudy(s: Pick<Services, 'db'>, caller: Caller, id: string): Promise<StudyView> {
  requirePermission(caller, 'read', 'reading a study');
  return view(s, await findStudy(s, caller, id));
}

/** GET /studies/{id}/cases's query (src/schemas/studies.ts): status and violation comma-separated lists. */
export type CaseQuery = Static<typeof CaseQuerySchema>;

const SORTS: Record<string, string> = {
  case_index: 'c.case_index',
  max_loading_percent: 'c.max_loading_percent',
  min_v: 'c.min_v',
  max_v: 'c.max_v',
  iterations: 'c.iterations',
  violation_count: 'c.violation_count',
  max_new_loading_percent: 'c.max_new_loading_percent',
  new_violations: 'c.new_violations',
};

/** ORDER BY of a case page: unsolved cases (no value) last either way; ties in case order. */
function caseOrder(sort: string | undefined): string {
  const parts = (sort ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  const cols: string[] = [];
  for (const p of parts) {
    const desc = p.startsWith('-');
    const name = desc || p.startsWith('+') ? p.slice(1) : p;
    const col = SORTS[name];
    if (!col)
      throw new AppError(
        'INVALID_FIELD',
        `cannot sort cases by "${name}"; sortable fields: ${Object.keys(SORTS).join(', ')} (a leading - sorts descending)`,
        { field: 'sort', allowed: Object.keys(SORTS) },
      );
    cols.push(`${col} ${desc ? 'DESC' : 'ASC'} NULLS LAST`);
  }
  if (!cols.some((c) => c.startsWith('c.case_index '))) cols.push('c.case_index ASC');
  return cols.join(', ');
}

function caseFilter(studyId: string, q: CaseQuery): { where: string; params: unknown[] } {
  const where = ['c.study_id = $1'];
  const params: unknown[] = [studyId];
  if (q.status) {
    const wanted = q.status.split(',').map((x) => x.trim()).filter(Boolean).map((x) => {
      const i = CASE_STATUSES.indexOf(x as (typeof CASE_STATUSES)[number]);
      if (i < 0)
        throw new AppError(
          'INVALID_FIELD',
          `status "${x}" is not a case status; use ${CASE_STATUSES.join(', ')} (comma-separated for several)`,
          { field: 'status', allowed: CASE_STATUSES },
        );
      return i;
    });
    params.push(wanted);
    where.push(`c.status = ANY($${params.length}::smallint[])`);
  }
  if (q.violation) {
    const names = q.violation.split(',').map((x) => x.trim()).filter(Boolean);
    const ors: string[] = [];
    let mask = 0;
    for (const n of names) {
      if (n === 'any') ors.push('c.violation_mask <> 0');
      else if (n === 'new') ors.push('c.new_violations > 0'); // a new or worsened violation (CONTRACT)
      else if (n === 'none') ors.push('c.violation_mask = 0');
      else if (n in VIOLATION_BITS) mask |= VIOLATION_BITS[n as keyof typeof VIOLATION_BITS];
      else {
        const allowed = [...Object.keys(VIOLATION_BITS), 'any', 'none', 'new'];
        const message = `violation "${n}" is not a violation type; use ${Object.keys(VIOLATION_BITS).join(', ')}, any, none or new `
          + '(comma-separated for several)';
        throw new AppError('INVALID_FIELD', message, { field: 'violation', allowed });
      }
    }
    if (mask) ors.push(`c.violation_mask & ${mask} <> 0`);
    if (ors.length) where.push(`(${ors.join(' OR ')})`);
  }
  return { where: where.join(' AND '), params };
}

/** GET /studies/{id}/cases: one page of case rows (CONTRACT), filtered and sorted. */
export async function listStudyCases(
  s: Pick<Services, 'db'>,
  caller: Caller,
  id: string,
  q: CaseQuery,
): Promise<{ items: StudyCaseRow[]; meta: Record<string, unknown> }> {
  requirePermission(caller, 'read', 'reading study results');
  const st = await findStudy(s, caller, id);
  const p = paging(q);
  const f = caseFilter(st.id, q);
  const { rows, total } = await selectPage<StoredCase>(
    s.db,
    { from: CASE_FROM, columns: CASE_COLUMNS, where: f.where, params: f.params, order: caseOrder(q.sort) },
    p,
  );
  const monitor = shapeOf(st).monitor;
  return { items: rows.map((r) => caseRow(r, monitor)), meta: { ...pageMeta(p, total, rows.length), study_status: publicStatus(st.task_status) } };
}

const CSV_BATCH = 2000;

/**
 * GET /studies/{id}/cases.csv: the study is checked first (404 before any byte is sent),
 * then rows are read CSV_BATCH at a time and yielded as text, so memory stays flat
 * whatever the study's size. Filters and sort as listStudyCases.
 */
export async function studyCasesCsv(
  s: Pick<Services, 'db'>,
  caller: Caller,
  id: string,
  q: Omit<CaseQuery, 'page' | 'page_size' | 'cursor'>,
): Promise<{ study: StudyView; lines: AsyncIterable<string> }> {
  requirePermission(caller, 'read', 'reading study results');
  const st = await findStudy(s, caller, id);
  const f = caseFilter(st.id, q);
  const order = caseOrder(q.sort);
  const monitor = shapeOf(st).monitor;
  const byIndex = !q.sort || order === 'c.case_index ASC';
  async function* lines(): AsyncGenerator<string> {
    yield studyCsvHeader(); // the CLI's columns (src/studies/csv.ts)
    let after = -1;
    for (let offset = 0; ; offset += CSV_BATCH) {
      // In case order the next batch starts after the last index (keyset); other orders page by offset.
      const where = byIndex ? `${f.where} AND c.case_index > ${after}` : f.where;
      const { rows } = await s.db.query<StoredCase>(
        `SELECT ${CASE_COLUMNS} FROM ${CASE_FROM} WHERE ${where} ORDER BY ${order} LIMIT ${CSV_BATCH}${byIndex ? '' : ` OFFSET ${offset}`}`,
        f.params,
      );
      if (rows.length > 0) yield studyCsvLines(rows.map((r) => caseRow(r, monitor)));
      if (rows.length < CSV_BATCH) return;
      after = rows[rows.length - 1]!.case_index;
    }
  }
  return { study: await view(s, st), lines: lines() };
}

/** DELETE /studies/{id}: stops every chunk wherever it runs; the cases finished so far stay readable. */
export async function cancelStudy(s: Pick<Services, 'db' | 'tasks'>, caller: Caller, id: string): Promise<StudyView> {
  requirePermission(caller, 'compute', 'cancelling a study');
  const st = await findStudy(s, caller, id);
  if (FINISHED.includes(st.task_status)) {
    throw new AppError('CONFLICT', `study ${id} is already ${st.task_status}; only queued or running studies can be cancelled`, {
      study_id: id,
      status: st.task_status,
    });
  }
  await s.tasks.cancel(caller, st.task_id).catch((e) => {
    if ((e as AppError).code !== 'CONFLICT') throw e; // finished in the meantime: report its state
  });
  return view(s, await findStudy(s, caller, id));
}

