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

  get analyses(): number { return this.x.analysisCount(); }
  get cachedTopologies(): number { return this.x.cacheSize(); }
  clearCache(): void { this.x.clearCache(); }
}

export { OUT };
