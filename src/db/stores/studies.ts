// The SQL of the study tables (studies, study_contingencies, study_chunks; migration
// 010_studies.ts), in one module: the domain (src/domain/studies.ts), the study runner
// (src/queue/study.ts) and both transports (src/queue/embedded.ts, bullmq.ts) call these
// functions instead of writing their own statements. The case rows (study_cases) have
// theirs in src/domain/studyCases.ts.
import type { Queryable } from '../database.js';
import type { StoredTaskRow, TaskRow, TaskState } from '../../domain/tasks.js';
import type { StudyRow } from '../../domain/studyCases.js';

export type StudyWithTask = StudyRow & {
  task_status: TaskState;
  started_at: Date | null;
  completed_at: Date | null;
  error: TaskRow['error'];
  attempts: number;
};

export interface NewStudy {
  id: string; tenantId: string; taskId: string; networkId: string; networkVersion: number;
  kind: string; request: unknown; caseCount: number; scenarioCount: number | null; monitor: unknown;
  chunkSize: number; chunkCount: number; createdBy: string;
  contingencies: { id: string; branches: number[]; generators: number[] }[];
}

/** The study row, its contingencies and its chunk rows, in the submitting transaction. */
export async function insertStudy(tx: Queryable, n: NewStudy): Promise<void> {
  await tx.query(
    `INSERT INTO studies (id, tenant_id, task_id, network_id, network_version, kind, request, case_count, contingency_count, scenario_count, monitor,
                          chunk_size, chunk_count, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      n.id,
      n.tenantId,
      n.taskId,
      n.networkId,
      n.networkVersion,
      n.kind,
      JSON.stringify(n.request),
      n.caseCount,
      n.contingencies.length,
      n.scenarioCount,
      JSON.stringify(n.monitor),
      n.chunkSize,
      n.chunkCount,
      n.createdBy,
    ],
  );
  if (n.contingencies.length > 0) {
    await tx.query(
      `INSERT INTO study_contingencies (study_id, position, id, branches, generators)
       SELECT $1, x.ord - 1, x.id, ARRAY(SELECT jsonb_array_elements_text(x.b)::int), ARRAY(SELECT jsonb_array_elements_text(x.g)::int)
       FROM unnest($2::text[], $3::jsonb[], $4::jsonb[]) WITH ORDINALITY AS x(id, b, g, ord)`,
      [
        n.id,
        n.contingencies.map((c) => c.id),
        n.contingencies.map((c) => JSON.stringify(c.branches)),
        n.contingencies.map((c) => JSON.stringify(c.generators)),
      ],
    );
  }
  await tx.query(
    `INSERT INTO study_chunks (study_id, chunk, case_start, case_end)
     SELECT $1, c, c * $2, least((c + 1) * $2, $3) FROM generate_series(0, $4 - 1) AS c`, [n.id, n.chunkSize, n.caseCount, n.chunkCount]);
}

/** A tenant's study with its task's state, or undefined. */
export async function studyWithTask(q: Queryable, id: string, tenantId: string): Promise<StudyWithTask | undefined> {
  const { rows } = await q.query<StudyWithTask>(
    `SELECT st.*, t.status AS task_status, t.started_at, t.completed_at, t.error, t.attempts
     FROM studies st JOIN tasks t ON t.id = st.task_id WHERE st.id = $1 AND st.tenant_id = $2`, [id, tenantId]);
  return rows[0];
}

export async function studyByTask(q: Queryable, taskId: string): Promise<StudyRow | undefined> {
  return (await q.query<StudyRow>('SELECT * FROM studies WHERE task_id = $1', [taskId])).rows[0];
}

/** The task that runs a study, or undefined when the study is gone. */
export async function studyTaskId(q: Queryable, studyId: string): Promise<string | undefined> {
  return (await q.query<{ task_id: string }>('SELECT task_id FROM studies WHERE id = $1', [studyId])).rows[0]?.task_id;
}

export async function setStudyBase(q: Queryable, studyId: string, base: unknown): Promise<void> {
  await q.query('UPDATE studies SET base = $2 WHERE id = $1', [studyId, JSON.stringify(base)]);
}

/** The chunks of a study still to solve, in order. */
export async function pendingChunks(q: Queryable, studyId: string): Promise<number[]> {
  const { rows } = await q.query<{ chunk: number }>(`SELECT chunk FROM study_chunks WHERE study_id = $1 AND status = 'pending' ORDER BY chunk`, [studyId]);
  return rows.map((r) => r.chunk);
}

export type ClaimedChunk = StudyRow & { task_status: string; case_start: number; case_end: number; chunk_status: string };

/** Counts an attempt at a pending chunk of a running study; undefined when there is nothing to do. */
export async function claimChunk(q: Queryable, studyId: string, chunk: number, worker: string): Promise<ClaimedChunk | undefined> {
  const { rows } = await q.query<ClaimedChunk>(
    `UPDATE study_chunks c SET attempts = c.attempts + 1, solved_by = $3
     FROM studies s JOIN tasks t ON t.id = s.task_id
     WHERE c.study_id = $1 AND c.chunk = $2 AND s.id = c.study_id AND t.status = 'running' AND c.status = 'pending'
     RETURNING s.*, t.status AS task_status, c.case_start, c.case_end, c.status AS chunk_status`, [studyId, chunk, worker]);
  return rows[0];
}

/** Marks a chunk done (once, and only when `complete`) and adds its cases to the study's counters,
 *  under the study row's lock: newly_done tells the one caller that completed it. */
export async function completeChunk(q: Queryable, studyId: string, chunk: number, solveMs: number, inserted: number, complete: boolean):
  Promise<{ chunks_done: number; chunk_count: number; cases_done: number; newly_done: boolean }> {
  const { rows } = await q.query<{ chunks_done: number; chunk_count: number; cases_done: number; newly_done: boolean }>(
    `WITH c AS (UPDATE study_chunks SET status = 'done', solve_ms = $3, completed_at = now()
                WHERE study_id = $1 AND chunk = $2 AND status <> 'done' AND $5::boolean RETURNING 1)
     UPDATE studies SET chunks_done = chunks_done + (SELECT count(*) FROM c)::int, cases_done = cases_done + $4,
            solve_ms = solve_ms + CASE WHEN EXISTS (SELECT 1 FROM c) THEN $3 ELSE 0 END
     WHERE id = $1 RETURNING chunks_done, chunk_count, cases_done, EXISTS (SELECT 1 FROM c) AS newly_done`,
    [studyId, chunk, solveMs, inserted, complete]);
  return rows[0]!;
}

/** Stores a study's counts and completes its task, once every chunk is done and the task still runs. */
export async function completeStudy(q: Queryable, studyId: string, counts: unknown): Promise<StoredTaskRow | undefined> {
  const { rows } = await q.query<StoredTaskRow>(
    `WITH st AS (UPDATE studies SET counts = $2 WHERE id = $1 AND chunks_done = chunk_count RETURNING task_id, case_count)
     UPDATE tasks t SET status = 'completed', completed_at = now(),
                        result = jsonb_build_object('study_id', $1::text, 'cases', st.case_count, 'counts', $2::jsonb)
     FROM st WHERE t.id = st.task_id AND t.status = 'running' RETURNING t.*`,
    [studyId, JSON.stringify(counts)],
  );
  return rows[0];
}

/** Remembers which queue job carries each chunk (the BullMQ sweeper looks them up). */
export async function setChunkJobs(q: Queryable, jobs: { studyId: string; chunk: number; jobId: string }[]): Promise<void> {
  await q.query(
    'UPDATE study_chunks SET job_id = x.job_id FROM unnest($1::text[], $2::int[], $3::text[]) AS x(study_id, chunk, job_id) WHERE ' +
      'study_chunks.study_id = x.study_id AND study_chunks.chunk = x.chunk',
    [jobs.map((j) => j.studyId), jobs.map((j) => j.chunk), jobs.map((j) => j.jobId)],
  );
}

/** Running studies with their pending chunks that have a queue job (one row per study without any). */
export async function runningStudyChunks(
  q: Queryable,
  limit = 5000,
): Promise<{ study_id: string; task_id: string; chunk: number | null; job_id: string | null; all_done: boolean }[]> {
  const { rows } = await q.query<{ study_id: string; task_id: string; chunk: number | null; job_id: string | null; all_done: boolean }>(
    `SELECT st.id AS study_id, st.task_id, c.chunk, c.job_id, st.chunks_done = st.chunk_count AS all_done
     FROM studies st JOIN tasks t ON t.id = st.task_id AND t.kind = 'study' AND t.status = 'running'
     LEFT JOIN study_chunks c ON c.study_id = st.id AND c.status = 'pending' AND c.job_id IS NOT NULL
     ORDER BY st.created_at, c.chunk LIMIT ${Math.trunc(limit)}`,
  );
  return rows;
}
