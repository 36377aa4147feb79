// A failure inside a solver thread that is not the caller's doing: a trap or an `abort` of the WebAssembly core
// (`powerflow.wasm abort at line:col`), a thread that died. The pool (./pool.ts) turns every such rejection into a
// SolverCoreError, whose message says what happened without the core's internals; the internals stay in `detail`,
// for the log. The doors answer it as 500 INTERNAL_ERROR with that message, and a task's error carries it.
export class SolverCoreError extends Error {
  constructor(
    readonly work: string,
    readonly detail: string,
  ) {
    super(`the calculation core failed on this ${work} (an internal error, logged; the solver thread was reset): retry, or ask for less`);
    this.name = 'SolverCoreError';
  }
}

/** A rejection of a solver-thread call as a SolverCoreError; a withdrawn (aborted) call is passed on as it is. */
export function asCoreFailure(work: string): (e: unknown) => never {
  return (e: unknown) => {
    if (e instanceof Error && (e.name === 'AbortError' || e instanceof SolverCoreError)) throw e;
    throw new SolverCoreError(work, e instanceof Error ? e.message : String(e));
  };
}
