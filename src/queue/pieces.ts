// Every kind of piece a running task may hand to a transport (./pieceKind.ts), by the name sendJobs takes.
import type { PieceKind } from './pieceKind.js';
import type { JobKind, JobOf } from './scheduler.js';
import { studyChunks } from './studyChunks.js';

export const pieceKinds: { [K in JobKind]: PieceKind<JobOf[K]> } = {
  study_chunk: studyChunks,
};
