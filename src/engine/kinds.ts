// The kinds of job the solver threads run, as types only: what a caller hands pool.run (./pool.ts) for each kind,
// what the thread receives (workers/solver.ts exports one function per kind, under the same name) and what it
// answers. Shared by both sides so that neither can drift from the other; type-only, so no runtime import crosses
// the layers (each calculation packs and unpacks its own buffers beside its domain).
import type { KeptCasesTask, StudyTaskResult } from '../studies/screenRule.js';
import type { LayoutInput } from '../layout/stressLayout.js';
import type { ScopfPayload, ScopfWorkerResult } from '../opf/securityWorker.js';

/** Where a thread posts a long job's live progress: the pool's BroadcastChannel and the job's key on it. */
export interface LiveRoute {
  channel: string;
  key: number;
}

/** What pool.run adds to every payload: the job's flags (./jobControl.ts) and, when the caller listens, its live route. */
export interface JobSlots {
  stop: Int32Array;
  live?: LiveRoute;
}

export interface Kinds {
  /** One packed power flow (src/powerflow/solve.ts): the ABI output buffer, then its progress trailer. */
  powerflow: { payload: { input: Float64Array; qlim: boolean }; result: Float64Array };
  /** One study chunk in the core's loop (src/studies/solve.ts); JOB.PROGRESS: cases done. With `kept`, the chunk's
   *  screen estimate, then the cases it keeps in AC in the same task (src/studies/screenRule.ts). */
  study: { payload: { input: Float64Array; study: Float64Array; monitorPerCase: number; kept?: KeptCasesTask }; result: StudyTaskResult };
  /** One OPF (src/opf/solve.ts): the output buffer, then its progress trailer (src/opf/worker.ts). */
  opf: { payload: { input: Float64Array }; result: Float64Array };
  /** DC sensitivities (src/sensitivities/): kind 0 PTDF rows, 1 outage flow shifts, 2 PTDF columns of the items;
   *  null when the reduced Bbus is singular. */
  sensitivity: { payload: { input: Float64Array; kind: 0 | 1 | 2; items: Float64Array }; result: Float64Array | null };
  /** One state estimate (src/stateEstimation/solve.ts); JOB.PROGRESS: the last Gauss–Newton iteration. */
  stateEstimation: { payload: { input: Float64Array }; result: Float64Array };
  /** A network drawing's bus positions (src/layout/): x, y per bus. */
  layout: { payload: LayoutInput; result: Float64Array };
  /** The constraint generation of a security-constrained DC-OPF (src/opf/security.ts, src/opf/securityWorker.ts). */
  scopf: { payload: ScopfPayload; result: ScopfWorkerResult };
  /** The pool is idle: the thread replaces a large instance (./instanceRecycling.ts); its memory in bytes after. */
  release: { payload: Record<string, never>; result: number };
}

export type Kind = keyof Kinds;
export type Payload<K extends Kind> = Kinds[K]['payload'];
export type Result<K extends Kind> = Kinds[K]['result'];
/** What the thread's function for kind K receives. */
export type Task<K extends Kind> = Payload<K> & JobSlots;
