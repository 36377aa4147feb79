// One instance of the WebAssembly power-flow core (build/powerflow.wasm) with
// its topology cache. The Piscina worker holds one per thread; tests and tools
// may use it directly. Not thread-safe (one solve at a time, synchronous).
import { readFileSync } from 'node:fs';
import { WASM_PATH } from '../paths.js';
import { OUT } from './abi.js';

// lib ES2023 + @types/node do not declare the WebAssembly namespace: type what we use.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

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
  opfInputPtr(len: number): number;
  opfOutputPtr(): number;
  opfOutputLength(): number;
  opfSolve(): number;
}

let compiled: object | undefined;
function wasmModule(): object {
  compiled ??= new WA.Module(readFileSync(WASM_PATH));
  return compiled;
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
    const inst = new WA.Instance(wasmModule(), {
      env: {
        abort: (_msg: number, _file: number, line: number, col: number) => {
          throw new Error(`powerflow.wasm abort at ${line}:${col}`);
        },
        progress: (iteration: number, mismatch: number) => this.onProgress(iteration, mismatch) | 0,
        opfProgress: (iteration: number, feas: number, grad: number, comp: number, obj: number) => this.onOpfProgress(iteration, feas, grad, comp, obj) | 0,
      },
    });
    return inst.exports as unknown as CoreExports;
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

  /** Solves one packed OPF input (src/opf/abi.ts); returns a fresh copy of the output buffer. */
  solveOpf(input: Float64Array): Float64Array {
    return this.exchange(input, (x) => x.opfInputPtr(input.length), (x) => x.opfSolve(), (x) => [x.opfOutputPtr(), x.opfOutputLength()]);
  }

  get analyses(): number { return this.x.analysisCount(); }
  get cachedTopologies(): number { return this.x.cacheSize(); }
  clearCache(): void { this.x.clearCache(); }
}

export { OUT };
