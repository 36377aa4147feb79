// The contract between a transport and the calculations that hand it pieces of a running task (type-only, as
// BullMQ's interface modules). A transport carries pieces: on this process's solver pool (embedded.ts) or as BullMQ
// jobs any worker takes (bullmq.ts). What a piece is, how it runs, what its failure means and when the work it
// belongs to is finished is the calculation's: study chunks are src/queue/studyChunks.ts. A new kind of piece is
// one entry in pieces.ts and no change to either transport.
import type { Services } from '../services.js';

export type PieceFailure = { code: string; message: string; details?: Record<string, unknown> };

export interface PieceKind<P> {
  /** The kind of task that hands out these pieces: once they are sent, its running task has no job of its own. */
  readonly taskKind: string;
  /** The BullMQ queue its pieces travel on (a queue of their own, so a worker takes about one per solver thread). */
  readonly queue: string;
  /** Solves and stores one piece on this process. Throws when it could not be stored (the transport retries). */
  run(s: Services, piece: P): Promise<void>;
  /** A piece failed for good (its retries spent, or it could not be stored): fails the work it belongs to. */
  failed(s: Services, piece: P, failure: PieceFailure): Promise<void>;
  /** The failure of a piece that ended because of `why` (a sentence fragment: "the worker solving it stopped"). */
  failure(piece: P, why: string, details?: Record<string, unknown>): PieceFailure;
  /** A piece's stable name: its queue job id, and its key between sweeps. */
  key(piece: P): string;
  /** Records the queue jobs its pieces were sent as, before they are queued (the sweep reads them back). */
  sent(s: Services, jobs: { piece: P; jobId: string }[]): Promise<void>;
  /** One sweep pass: finishes the work whose pieces are all done, and lists the unfinished pieces that were sent
   *  as queue jobs, each with its job, for the transport to check. */
  unfinished(s: Services): Promise<{ piece: P; jobId: string }[]>;
}
