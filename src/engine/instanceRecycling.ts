// When a solver thread gives its WebAssembly memory back (it grows, never shrinks). An instance that grew past
// maxBytes in a task (a large OPF, a matrix) is replaced right after it; one that is still above idleBytes once its
// thread has had no task for idleMs is replaced then: the memory of a large case's caches goes back when nobody
// is using them (the heavy drill ended 130 MB of WebAssembly memory above its start, issue 35), and a thread
// solving the same large case over and over keeps its analysis (a new instance analyses again, tens of ms). An
// instance holds every topology it analysed: about 8 MB after case2383wp, 32 MB after case9241pegase.
// The old instance's memory is freed by the next collection, run at once where the process allows (--expose-gc).

export const MAX_INSTANCE_BYTES = 256 << 20;
export const IDLE_INSTANCE_BYTES = 16 << 20;
export const IDLE_RECYCLE_MS = 3_000;

interface Recyclable {
  readonly memoryBytes: number;
  recycleAbove(maxBytes: number): boolean;
}

export class InstanceRecycling {
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly engine: Recyclable,
    private readonly limits = { maxBytes: MAX_INSTANCE_BYTES, idleBytes: IDLE_INSTANCE_BYTES, idleMs: IDLE_RECYCLE_MS },
    private readonly collect: () => void = () => (globalThis as { gc?: () => void }).gc?.(),
  ) {}

  /** A task starts on the thread: the instance (and its caches) is in use. */
  taskStarts(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
  }

  /** A task ended: replace a grown instance now, or a large one if the thread stays idle. */
  taskEnded(): void {
    if (this.engine.recycleAbove(this.limits.maxBytes)) {
      this.collect();
      return;
    }
    if (this.engine.memoryBytes <= this.limits.idleBytes) return;
    clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.engine.recycleAbove(this.limits.idleBytes)) this.collect();
    }, this.limits.idleMs);
    this.idle.unref();
  }
}
