// When a solver thread gives its WebAssembly memory back (it grows, never shrinks). An instance that grew past
// maxBytes in a task (a large OPF, a matrix) is replaced right after it. One still above idleBytes is replaced
// when the pool has been idle for IDLE_RELEASE_MS (src/engine/pool.ts sends each thread a `release` job: Piscina
// pauses its threads between tasks, so a timer on the thread would not fire until the next task): the memory of a
// large case's caches goes back when nobody is using them (the heavy drill ended with 130 MB of WebAssembly memory
// above its start, issue 35), and a thread solving the same large case over and over keeps its analysis (a new
// instance analyses again, tens of ms). An instance holds every topology it analysed: about 8 MB after
// case2383wp, 32 MB after case9241pegase. The old instance's memory is freed by the next collection, run at once
// where the process allows (--expose-gc).

export const MAX_INSTANCE_BYTES = 256 << 20;
export const IDLE_INSTANCE_BYTES = 16 << 20;
export const IDLE_RELEASE_MS = 3_000;

interface Recyclable {
  readonly memoryBytes: number;
  recycleAbove(maxBytes: number): boolean;
}

export class InstanceRecycling {
  constructor(
    private readonly engine: Recyclable,
    private readonly limits = { maxBytes: MAX_INSTANCE_BYTES, idleBytes: IDLE_INSTANCE_BYTES },
    private readonly collect: () => void = () => (globalThis as { gc?: () => void }).gc?.(),
  ) {}

  /** A task ended: an instance that grew past maxBytes is replaced now. */
  taskEnded(): void {
    if (this.engine.recycleAbove(this.limits.maxBytes)) this.collect();
  }

  /** The pool is idle: an instance above idleBytes is replaced. Its memory in bytes afterwards. */
  release(): number {
    if (this.engine.recycleAbove(this.limits.idleBytes)) this.collect();
    return this.engine.memoryBytes;
  }
}
