// A study's chunks as pieces a transport carries (./pieceKind.ts). The study owns their life cycle: a chunk runs
// with executeStudyChunk, a chunk that failed for good fails its study (finished cases stay readable), and the
// sweep finishes a study whose chunks are all done (the chunk that completed the last one normally did).
import type { Services } from '../services.js';
import type { PieceFailure, PieceKind } from './pieceKind.js';
import type { StudyChunkJob } from './scheduler.js';
import { executeStudyChunk, failStudy, finishStudy } from './study.js';
import { runningStudyChunks, setChunkJobs, studyTaskId } from '../db/stores/studies.js';

export const studyChunks: PieceKind<StudyChunkJob> = {
  taskKind: 'study',
  queue: 'study',
  run: (s, c) => executeStudyChunk(s, c.studyId, c.chunk),
  async failed(s: Pick<Services, 'bus' | 'db' | 'lists' | 'metrics'>, c, failure: PieceFailure) {
    const taskId = await studyTaskId(s.db, c.studyId);
    if (taskId) await failStudy(s, taskId, failure);
  },
  failure: (c, why, details = {}) => ({
    code: 'INTERNAL_ERROR',
    message: `chunk ${c.chunk} of study ${c.studyId} failed: ${why}; finished cases stay readable, submit the study again for the rest`,
    details: { ...details, study_id: c.studyId, chunk: c.chunk },
  }),
  key: (c) => `${c.studyId}_${c.chunk}`,
  sent: (s, jobs) => setChunkJobs(s.db, jobs.map((j) => ({ studyId: j.piece.studyId, chunk: j.piece.chunk, jobId: j.jobId }))),
  async unfinished(s) {
    const out: { piece: StudyChunkJob; jobId: string }[] = [];
    for (const r of await runningStudyChunks(s.db)) {
      if (r.all_done) await finishStudy(s, r.study_id);
      else if (r.chunk !== null && r.job_id) out.push({ piece: { studyId: r.study_id, chunk: r.chunk }, jobId: r.job_id });
    }
    return out;
  },
};
