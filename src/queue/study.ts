// Running a study (docs/studies.md). A study is one task (kind 'study') on the tenant's
// FIFO queue, so it counts once against concurrent_powerflow; whichever process runs
// that task solves the base case and hands the study's pending chunks to solvers (this
// process's pool when embedded, BullMQ jobs any worker takes when distributed).
//
// A chunk is solved from (network version, request, case range) alone: every process
// plans the study the same way (planStudy is deterministic) and each chunk solves the
// base case again inside its worker, so nothing passes between chunks and rows do not
// depend on how many workers there are or which one solved what. Rows are keyed by
// case index and inserted with ON CONFLICT DO NOTHING, so a chunk run twice (its worker
// was killed) stores each row once. The chunk that completes a study's last pending
// chunk finishes the study (the counter is updated under the study row's lock).
import { hostname } from 'node:os';
import type { Services } from '../services.js';
import type { NetworkModel } from '../domain/networkModel.js';
import { insertEvent, publishEvents } from '../domain/eventLog.js';
import { taskFromRow, type StoredTaskRow, type TaskRow } from '../domain/tasks.js';
import { insertChunkRows, shapeOf, studyCounts, type StudyRow } from '../domain/studyCases.js';
import { planStudy, solveStudyBase, solveStudyChunk, type StudyPlan } from '../studies/index.js';
import { announceFinished, cachedModel } from './execute.js';
import { AppError } from '../lib/errors.js';
import { modelWeight } from '../cache/modelStore.js';
import { addStudyRowBytes, CASE_ROW_BYTES, checkStorageQuota } from '../domain/resultStorage.js';
import { estimatedModel, estimateForStudy } from '../stateEstimation/studyBase.js';
import { claimChunk, completeChunk, completeStudy, pendingChunks, setStudyBase, studyByTask } from '../db/stores/studies.js';
import { monitoredPerRecord } from '../studies/abi.js';

/** A study's model and plan, derived from its network version in Services.models: the same for every
 *  chunk of the study (network version + request are immutable), so computed once per process. */
function studyContext(s: Pick<Services, 'db' | 'log' | 'models'>, st: StudyRow): Promise<{ model: NetworkModel; plan: StudyPlan }> {
  return s.models.derived(st.network_id, st.network_version, `study:${st.id}`, () => cachedModel(s, st.network_id, st.network_version),
    async (stored) => {
      // base: {state_estimation}: the estimated state replaces the version's loads and generation (studyBase.ts)
      const base = st.request.base;
      const model = base
        ? estimatedModel(stored, await estimateForStudy(s.db, st.tenant_id, st.network_id, st.network_version, base.state_estimation))
        : stored;
      return { model, plan: planStudy(model, st.request) };
    },
    // The plan grows with its cases and monitored elements; an estimated model is a model of its own.
    ({ model, plan }) => plan.caseCount + plan.monitor.branches.length + plan.monitor.buses.length
      + (st.request.base ? modelWeight(model) : 0));
}

const isAbort = (e: unknown) => (e as Error)?.name === 'AbortError';

type Failure = { code: string; message: string; details?: Record<string, unknown> };

/** Fails a study's task while it is unfinished (finished cases stay readable); true when this call did it. */
export async function failStudy(s: Pick<Services, 'bus' | 'db' | 'lists' | 'metrics'>, taskId: string, failure: Failure): Promise<boolean> {
  const { rows } = await s.db.query<StoredTaskRow>(
    `UPDATE tasks SET status = 'failed', completed_at = now(), error = $2 WHERE id = $1 AND status IN ('dispatched', 'running') RETURNING *`,
    [taskId, JSON.stringify(failure)]);
  if (!rows[0]) return false;
  await announceFinished(s, taskFromRow(rows[0]));
  return true;
}

/** The run of a claimed study task: base case, then its pending chunks to the solvers. */
export async function runStudyTask(s: Services, task: TaskRow, signal: AbortSignal): Promise<void> {
  const st = await studyByTask(s.db, task.id);
  if (!st) {
    await failStudy(s, task.id, { code: 'INTERNAL_ERROR', message: `task ${task.id} names no stored study` });
    return;
  }
  if (!st.base) {
    let base;
    try {
      const { model, plan } = await studyContext(s, st);
      base = await solveStudyBase(s.solver!, model, plan, { signal });
    } catch (e) {
      if (isAbort(e) || signal.aborted) return; // cancelled: the cancel finished the task
      s.log.error({ err: e, study: st.id }, 'study base case failed');
      await failStudy(s, task.id, {
        code: 'INTERNAL_ERROR',
        message: `the study engine failed on the base case: ${(e as Error).message}`,
        details: { study_id: st.id },
      });
      return;
    }
    await setStudyBase(s.db, st.id, base);
    // A contingency is judged against a solved base (PowSyBl stops there too); scenarios start
    // like power flows of their own and do not need it.
    if (base.status !== 'converged' && st.kind === 'contingency') {
      await failStudy(s, task.id, {
        code: 'POWERFLOW_DIVERGED',
        message:
          `the base case of study ${st.id} did not converge in ${base.iterations} iterations${base.reason ? ` (${base.reason})` : ''}; ` +
          'no case was solved: check the network with a single power flow first',
        details: { study_id: st.id, iterations: base.iterations, reason: base.reason ?? null },
      });
      return;
    }
  }
  await publishProgress(s, st, st.cases_done);
  const pending = await pendingChunks(s.db, st.id);
  if (pending.length === 0) {
    await finishStudy(s, st.id);
    return;
  }
  await s.tasks.transport.sendJobs('study_chunk', pending.map((chunk) => ({ studyId: st.id, chunk })));
}

async function publishProgress(
  s: Pick<Services, 'bus' | 'db'>,
  st: Pick<StudyRow, 'id' | 'task_id' | 'tenant_id' | 'network_id' | 'case_count'>,
  done: number,
  chunks?: { done: number; total: number },
): Promise<void> {
  const e = await insertEvent(s.db, {
    tenantId: st.tenant_id,
    topic: 'powerflow',
    kind: 'study.progress',
    networkId: st.network_id,
    payload: {
      study_id: st.id,
      task_id: st.task_id,
      network_id: st.network_id,
      status: 'running',
      done,
      total: st.case_count,
      ...(chunks ? { chunks_done: chunks.done, chunks_total: chunks.total } : {}),
    },
  });
  await publishEvents(s.bus, [e]);
}

const WORKER_NAME = `${hostname()}:${process.pid}`;

/**
 * Solves and stores one chunk of a study, wherever it runs. A chunk of a study that is no
 * longer running (cancelled, failed) or already done is skipped. Engine errors fail the
 * study; storage errors are thrown (BullMQ retries the job).
 */
export async function executeStudyChunk(s: Services, studyId: string, chunk: number): Promise<void> {
  if (!s.solver) throw new Error('this process has no solver pool (ROLE=api)');
  const st = await claimChunk(s.db, studyId, chunk, WORKER_NAME);
  if (!st) return;
  const piece = s.localRuns.track(st.task_id);
  try {
    let result;
    try {
      const { model, plan } = await studyContext(s, st);
      result = await solveStudyChunk(s.solver, model, plan, st.case_start, st.case_end, { signal: piece.signal });
    } catch (e) {
      if (isAbort(e) || piece.signal.aborted) return;
      s.log.error({ err: e, study: studyId, chunk }, 'study chunk failed in the engine');
      await failStudy(s, st.task_id, {
        code: 'INTERNAL_ERROR',
        message: `the study engine failed on cases ${st.case_start} to ${st.case_end - 1}: ${(e as Error).message}`,
        details: { study_id: studyId, chunk },
      });
      return;
    }
    const complete = !result.cancelled && result.end === st.case_end;
    // the tenant's storage quota, checked before the rows are stored (other tasks store meanwhile)
    const perCase = CASE_ROW_BYTES + 8 * monitoredPerRecord(st.monitor.branches.length, st.monitor.buses.length);
    try {
      const what = `cases ${result.start} to ${result.end - 1} of study ${studyId}`;
      await checkStorageQuota(s, st.tenant_id, (result.end - result.start) * perCase, what);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      await failStudy(s, st.task_id, { code: e.code, message: e.message, details: { study_id: studyId, ...e.details } });
      return;
    }
    const after = await s.db.transaction(async (tx) => {
      const inserted = await insertChunkRows(tx, studyId, shapeOf(st), result);
      if (inserted > 0) await addStudyRowBytes(tx, st.task_id, studyId, result.start, result.end);
      return completeChunk(tx, studyId, chunk, result.solveMs, inserted, complete);
    });
    if (!complete) return; // cancelled midway: its finished cases are stored
    if (after.newly_done) await publishProgress(s, st, after.cases_done, { done: after.chunks_done, total: after.chunk_count });
    if (after.newly_done && after.chunks_done === after.chunk_count) await finishStudy(s, studyId);
  } finally {
    piece.release();
  }
}

/** Completes a study whose chunks are all done (once: the task row must still be running). */
export async function finishStudy(s: Pick<Services, 'bus' | 'db' | 'lists' | 'metrics'>, studyId: string): Promise<void> {
  const counts = await studyCounts(s.db, studyId);
  const done = await completeStudy(s.db, studyId, counts);
  if (done) await announceFinished(s, taskFromRow(done));
}

