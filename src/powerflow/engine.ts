// One instance of the WebAssembly power-flow core (build/powerflow.wasm) with
// its topology cache. The Piscina worker holds one per thread; tests and tools
// may use it directly. Not thread-safe (one solve at a time, synchronous).
import { WASM_PATH } from '../paths.js';
import { OUT } from './abi.js';
import { compileWasm, instantiateWasm } from './wasm.js';

interface CoreExports {
  memory: { buffer: ArrayBuffer };
  inputPtr(len: number): number;
  outputPtr(): number;
  outputLength(): number;
  analysisCount(): number;
  cacheSize(): number;
  clearCache(): void;
  abiVersion(): number;
  solve(): number;
  studyInputPtr(len: number): number;
  studySolve(): number;
  studyRecordsPtr(): number;
  studyViolationsPtr(): number;
  studyViolationCount(): number;
  studyIslandsPtr(): number;
  studyIslandCount(): number;
  studyMonitorPtr(): number;
}

/** Raw result of runStudy (layouts: assembly/studyLayout.ts). */
export interface StudyRun {
  done: number;
  records: Float64Array;
  violations: Float64Array;
  islands: Float64Array;
  monitor: Float64Array;
}

/** Called after every iteration; return non-zero to stop the solve. */
export type ProgressHook = (iteration: number, mismatch: number) => number;

export class PowerFlowEngine {
  private x: CoreExports;
  /** Replaceable progress hook (the worker points it at the current task). */
  onProgress: ProgressHook = () => 0;

  constructor() {
    this.x = this.instantiate();
  }

  private instantiate(): CoreExports {
    return instantiateWasm<CoreExports>(compileWasm(WASM_PATH), 'powerflow.wasm', {
      progress: (iteration: number, mismatch: number) => this.onProgress(iteration, mismatch) | 0,
    });
  }

  /** Solves one packed input (see abi.ts); returns a fresh copy of the output buffer.
   *  A trap (or a throwing progress hook) leaves the instance unusable: it is
   *  replaced by a fresh one (empty cache) and the error rethrown. */
  solve(input: Float64Array): Float64Array {
    try {
      const ptr = this.x.inputPtr(input.length);
      new Float64Array(this.x.memory.buffer, ptr, input.length).set(input);
      this.x.solve();
      const len = this.x.outputLength();
      return new Float64Array(this.x.memory.buffer, this.x.outputPtr(), len).slice();
    } catch (e) {
      this.x = this.instantiate();
      throw e;
    }
  }

  /** Runs a study chunk (assembly/study.ts): the network's input buffer, then the study buffer.
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

  get analyses(): number { return this.x.analysisCount(); }
  get cachedTopologies(): number { return this.x.cacheSize(); }
  clearCache(): void { this.x.clearCache(); }
}

export { OUT };
