// Loading the project's WebAssembly modules (build/*.wasm, compiled by asc):
// the one place that types the WebAssembly API, compiles a module once per
// process and instantiates it with AssemblyScript's `env.abort` turned into an
// Error. engine/solverInstance.ts, the sparse LU bench and its test use it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../paths.js';

// lib ES2023 + @types/node do not declare the WebAssembly namespace: type what we use.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const WA = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A compiled module; compile once, instantiate many times. */
export type WasmModule = object;

const compiled = new Map<string, WasmModule>();

/** Compiles the .wasm file at path (cached per process). */
export function compileWasm(path: string): WasmModule {
  let m = compiled.get(path);
  if (!m) {
    m = new WA.Module(readFileSync(path));
    compiled.set(path, m);
  }
  return m;
}

/**
 * A new instance with its own memory. `env` adds imports next to `abort`, which
 * AssemblyScript calls on a failed assertion or trap: it throws `<name> abort at line:col`.
 */
export function instantiateWasm<Exports>(module: WasmModule, name: string, env: Record<string, unknown> = {}): Exports {
  const inst = new WA.Instance(module, {
    env: {
      abort: (_msg: number, _file: number, line: number, col: number) => {
        throw new Error(`${name} abort at ${line}:${col}`);
      },
      ...env,
    },
  });
  return inst.exports as Exports;
}

export const SPARSE_WASM_PATH = join(ROOT, 'build', 'sparse.wasm');

/** Exports of build/sparse.wasm (assembly/sparse/exports.ts): CSC buffers in, LU factors and solves. */
export interface SparseLuExports {
  memory: { buffer: ArrayBuffer };
  allocBuffers(n: number, nnz: number): void;
  allocBlockBuffers(n: number): void;
  blockOfPtr(): number;
  posOfPtr(): number;
  analyzeBlocksFromBuffers(n: number, nb: number): void;
  scalarFallbacks(): number;
  resetFromBuffers(): void;
  solveStepsFromBuffers(): void;
  colPtrPtr(): number;
  rowIdxPtr(): number;
  valuesPtr(): number;
  rhsPtr(): number;
  analyzeFromBuffers(n: number): void;
  factorFromBuffers(): number;
  solveFromBuffers(): void;
  isSingular(): number;
  nnzL(): number;
  nnzU(): number;
  fallbacks(): number;
  flops(): number;
  setSupernodes(on: number): void;
}

/** A fresh build/sparse.wasm instance. */
export function sparseLuInstance(): SparseLuExports {
  return instantiateWasm<SparseLuExports>(compileWasm(SPARSE_WASM_PATH), 'sparse.wasm');
}
