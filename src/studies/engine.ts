// The study engine's entry points (see types.ts for the whole interface).
//   solveStudyBase(pool, network, plan, hooks)                 -> StudyBaseSummary
//   solveStudyChunk(pool, network, plan, start, end, hooks)    -> StudyChunk
// Work in progress: the interface is fixed, the in-core loop lands next.
import type { NetworkModel } from '../domain/network.js';
import type { SolverPool } from '../powerflow/pool.js';
import type { StudyBaseSummary, StudyChunk, StudyChunkHooks, StudyPlan } from './types.js';

export async function solveStudyBase(_pool: SolverPool, _network: NetworkModel, _plan: StudyPlan, _hooks: { signal?: AbortSignal } = {}): Promise<StudyBaseSummary> {
  throw new Error('solveStudyBase: not implemented yet (interface commit)');
}

export async function solveStudyChunk(_pool: SolverPool, _network: NetworkModel, _plan: StudyPlan, _start: number, _end: number, _hooks: StudyChunkHooks = {}): Promise<StudyChunk> {
  throw new Error('solveStudyChunk: not implemented yet (interface commit)');
}
