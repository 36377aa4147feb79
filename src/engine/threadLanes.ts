// A solver thread kept for short work. With every thread holding a long solve (a 13,659-bus power
// flow, an AC-OPF of thousands of buses, a security-constrained OPF, a block of sensitivities), a
// case9 power flow of another tenant waited up to seconds for its 0.1 ms (issue 35's heavy drill).
// Long work may hold all threads but one; short work and study chunks (each chunk is bounded: the
// queue interleaves them) take any thread. With one thread there is nothing to keep.
//
// Long or short is judged before the work starts, from its packed input: what a thread will hold.

/** Packed inputs from this many float64 values (about an 800-bus network) count as long work. */
export const LONG_WORK_INPUT_FLOATS = 20_000;

function abortError(reason: unknown): Error {
  return Object.assign(new Error('The task has been aborted', { cause: reason }), { name: 'AbortError' });
}

export class ThreadLanes {
  /** Threads long work may hold at once */
  readonly longMax: number;
  private long = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(threads: number) {
    this.longMax = Math.max(1, threads - 1);
  }

  /** Long work in progress (tests and metrics) */
  get longRunning(): number {
    return this.long;
  }

  /**
   * Runs `work` when a long-work slot is free (at once for short work). Waiting is withdrawn, with
   * the AbortError a pool gives a withdrawn task, when `signal` aborts first.
   */
  async run<T>(isLong: boolean, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    if (!isLong) return work();
    if (signal?.aborted) throw abortError(signal.reason);
    if (this.long >= this.longMax) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', withdraw);
          resolve();
        };
        const withdraw = () => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(abortError(signal?.reason));
        };
        signal?.addEventListener('abort', withdraw, { once: true });
        this.waiting.push(go);
      });
    }
    this.long++;
    try {
      return await work();
    } finally {
      this.long--;
      this.waiting.shift()?.();
    }
  }
}
