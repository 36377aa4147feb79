// One instance of the WebAssembly power-flow core (build/powerflow.wasm) with
// its topology cache. The Piscina worker holds one per thread; tests and tools
// may use it directly. Not thread-safe (one solve at a time, synchronous).
import { WASM_PATH } from '../paths.js';
import { OUT } from '../powerflow/abi.js';
import { compileWasm, instantiateWasm } from './wasm.js';
import type { instantiate as instantiateCore } from '../../build/powerflow.js';

/** Values one sensitivity call may compute (assembly/index.ts MAX_SENSITIVITY_VALUES). */
export const SENSITIVITY_CHUNK_VALUES = 1 << 22;

// The core's exports as asc declares them at build:wasm (build/powerflow.d.ts, `bindings: raw`): a renamed or
// removed export of assembly/index.ts fails the TypeScript build here, not at run time.
type CoreExports = Awaited<ReturnType<typeof instantiateCore>>;

/** Raw result of runStudy (layouts: assembly/study/abi.ts). */
export interface StudyRun {
  done: number;
  records: Float64Array;
  violations: Float64Array;
  islands: Float64Array;
  monitor: Float64Array;
}

/** Called after every iteration; return non-zero to stop the solve. */
export type ProgressHook = (iteration: number, mismatch: number) => number;
/** Called after every OPF (MIPS) iteration; return non-zero to stop. */
export type OpfProgressHook = (iteration: number, feascond: number, gradcond: number, compcond: number, objective: number) => number;

export class PowerFlowEngine {
  private x: CoreExports;
  /** Replaceable progress hook (the worker points it at the current task). */
  onProgress: ProgressHook = () => 0;
  onOpfProgress: OpfProgressHook = () => 0;

  constructor() {
    this.x = this.instantiate();
  }

  private instantiate(): CoreExports {
    return instantiateWasm<CoreExports>(compileWasm(WASM_PATH), 'powerflow.wasm', {
      progress: (iteration: number, mismatch: number) => this.onProgress(iteration, mismatch) | 0,
      opfProgress: (iteration: number, feas: number, grad: number, comp: number, obj: number) => this.onOpfProgress(iteration, feas, grad, comp, obj) | 0,
    });
  }

  /** Solves one packed input (see abi.ts); returns a fresh copy of the output buffer.
   *  A trap (or a throwing progress hook) leaves the instance unusable: it is
   *  replaced by a fresh one (empty cache) and the error rethrown. */
  solve(input: Float64Array): Float64Array {
    return this.exchange(input, (x) => x.inputPtr(input.length), (x) => x.solve(), (x) => [x.outputPtr(), x.outputLength()]);
  }

  /** Copies input in, runs, copies the output out; a trap replaces the instance (see solve). */
  private exchange(input: Float64Array, inputPtr: (x: CoreExports) => number, run: (x: CoreExports) => void,
    output: (x: CoreExports) => [number, number]): Float64Array {
    try {
      const ptr = inputPtr(this.x);
      new Float64Array(this.x.memory.buffer, ptr, input.length).set(input);
      run(this.x);
      const [at, len] = output(this.x);
      return new Float64Array(this.x.memory.buffer, at, len).slice();
    } catch (e) {
      this.x = this.instantiate();
      throw e;
    }
  }

  /** Runs a study chunk (assembly/study/loop.ts): the network's input buffer, then the study buffer.
   *  recordFields / violationFields / monitorPerCase size the copies taken out of wasm memory. */
  runStudy(input: Float64Array, study: Float64Array, recordFields: number, violationFields: number, monitorPerCase: number): StudyRun {
    try {
      const ptr = this.x.inputPtr(input.length);
      new Float64Array(this.x.memory.buffer, ptr, input.length).set(input);
      const sptr = this.x.studyInputPtr(study.length);
      new Float64Array(this.x.memory.buffer, sptr, study.length).set(study);
      const done = this.x.studySolve();
      const mem = this.x.memory.buffer;
      const n = Math.max(done, 0) + 1;
      return {
        done,
        records: new Float64Array(mem, this.x.studyRecordsPtr(), done < 0 ? 0 : recordFields * n).slice(),
        violations: new Float64Array(mem, this.x.studyViolationsPtr(), violationFields * this.x.studyViolationCount()).slice(),
        islands: new Float64Array(mem, this.x.studyIslandsPtr(), this.x.studyIslandCount()).slice(),
        monitor: new Float64Array(mem, this.x.studyMonitorPtr(), done < 0 ? 0 : monitorPerCase * n).slice(),
      };
    } catch (e) {
      this.x = this.instantiate();
      throw e;
    }
  }

  /** DC sensitivities of the packed network (assembly/sensitivity.ts): kind 0 PTDF rows of the internal
   *  branches in `items` (items.length × nb values), kind 1 their outages' flow shifts (× nl), kind 2 PTDF
   *  columns of the internal buses in `items` (× nl). At most SENSITIVITY_CHUNK_VALUES values a call. Throws
   *  on a bad buffer or a larger call; a singular reduced Bbus answers null. */
  sensitivity(input: Float64Array, kind: 0 | 1 | 2, items: Float64Array): Float64Array | null {
    try {
      const at = this.x.inputPtr(input.length);
      new Float64Array(this.x.memory.buffer, at, input.length).set(input);
      const it = this.x.sensitivityInputPtr(Math.max(items.length, 1));
      new Float64Array(this.x.memory.buffer, it, items.length).set(items);
      const n = this.x.sensitivitySolve(kind, items.length);
      if (n === -2) return null;
      if (n === -3) throw new Error(`a sensitivity call of more than ${SENSITIVITY_CHUNK_VALUES} values (ask in chunks)`);
      if (n < 0) throw new Error('the power-flow core rejected the sensitivity request (ABI mismatch)');
      return new Float64Array(this.x.memory.buffer, this.x.sensitivityOutputPtr(), n).slice();
    } catch (e) {
      this.x = this.instantiate();
      throw e;
    }
  }

  /** Solves one packed OPF input (src/opf/abi.ts); returns a fresh copy of the output buffer. */
  solveOpf(input: Float64Array): Float64Array {
    return this.exchange(input, (x) => x.opfInputPtr(input.length), (x) => x.opfSolve(), (x) => [x.opfOutputPtr(), x.opfOutputLength()]);
  }

  /** One packed state-estimation input (src/stateEstimation/abi.ts); a fresh copy of the output buffer. Progress
   *  (iteration, ‖Hᵀ W r‖∞) goes through onProgress, as a power flow's. */
  solveStateEstimation(input: Float64Array): Float64Array {
    return this.exchange(input, (x) => x.seInputPtr(input.length), (x) => x.seSolve(), (x) => [x.seOutputPtr(), x.seOutputLength()]);
  }

  /** The last estimate's gain matrix: n, nnz(G), nnz(L), nnz(U), pivoting fallbacks, and how Ω's diagonal was found
   *  (0 not at all, 1 G⁻¹'s sparse inverse subset, 2 one solve per measurement) (bench:se, tests). */
  get seGainStats(): number[] { return [0, 1, 2, 3, 4, 5].map((k) => this.x.seGainStats(k)); }

  /** The DC-OPF of a packed OPF input as a linear programme (assembly/opf/entry.ts opfLpBuild), or null
   *  when its costs are not linear (then solveOpf). The input stays in the core for finishOpfLp. */
  buildOpfLp(input: Float64Array): Float64Array | null {
    try {
      const at = this.x.opfInputPtr(input.length); // may grow the memory: views after it
      new Float64Array(this.x.memory.buffer, at, input.length).set(input);
      const n = this.x.opfLpBuild();
      if (n <= 0) return null;
      return new Float64Array(this.x.memory.buffer, this.x.opfLpDataPtr(), n).slice();
    } catch (e) {
      this.x = this.instantiate();
      throw e;
    }
  }

  /** The output buffer of the LP built last, from its solution: x, then the lower- and upper-side
   *  multipliers of [I; A] (non-negative, MATPOWER's mu_l / mu_u). */
  finishOpfLp(solution: Float64Array, status: number, iterations: number, objective: number): Float64Array {
    try {
      const at = this.x.opfLpSolutionPtr();
      new Float64Array(this.x.memory.buffer, at, solution.length).set(solution);
      this.x.opfLpFinish(status, iterations, objective);
      return new Float64Array(this.x.memory.buffer, this.x.opfOutputPtr(), this.x.opfOutputLength()).slice();
    } catch (e) {
      this.x = this.instantiate();
      throw e;
    }
  }

  /** Bytes of the instance's WebAssembly memory (it grows, never shrinks). */
  get memoryBytes(): number { return this.x.memory.buffer.byteLength; }

  /** Replaces the instance by a fresh one (empty caches) when its memory grew past maxBytes, so the memory a
   *  large task took goes back once the old instance is collected; true when it did. */
  recycleAbove(maxBytes: number): boolean {
    if (this.memoryBytes <= maxBytes) return false;
    this.x = this.instantiate();
    return true;
  }

  get analyses(): number { return this.x.analysisCount(); }
  /** Pivoting factorisations the Newton Jacobian's scalar fallback did (assembly/sparse/blockLU.ts). */
  get pivotings(): number { return this.x.pivotingCount(); }
  get cachedTopologies(): number { return this.x.cacheSize(); }
  /** OPF solves that reused the kept KKT analysis (assembly/opf/analysisCache.ts). */
  get keptOpfAnalysisHits(): number { return this.x.opfKeptAnalysisHits(); }
  clearCache(): void { this.x.clearCache(); }
}

export { OUT };
