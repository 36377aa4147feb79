// Who gets the next solver thread. Work is handed to Piscina only when a thread is free, so the order is
// decided here and not in Piscina's queue (which queues any task with an abort signal, that is every one
// of ours, in plain arrival order).
//
// - Short work (a case9 power flow, a small OPF: judged before it starts from its packed input) goes first.
//   In arrival order an operator's case9 power flow waited behind the study chunks queued before it, each
//   up to a few hundred ms (issue 35's heavy drill, the other tenant during two N-1 studies: 100–540 ms).
// - Long work (a 13,659-bus power flow, a large AC-OPF, a security-constrained OPF, a block of
//   sensitivities) may hold all threads but one, so short work always finds one soon. With one thread there
//   is nothing to keep back.
// - Bulk work (study chunks: each bounded, many of them) takes any thread, except while short work has
//   come in the last SHORT_RECENT_MS: then it too leaves one thread free. A chunk holds its thread for
//   tens to hundreds of ms, so with every thread in chunks a short task still waited for one to end
//   (p50 150 ms in the same drill); while operators are active a study runs on one thread less, and on all
//   of them again a second after the last short request. So that a flood of short requests (a load
//   tester) never starves a study, one waiting bulk or long task goes after every SHORT_BEFORE_BULK short
//   ones taken while it waited.

/** Packed inputs from this many float64 values (about an 800-bus network) count as long work. */
export const LONG_WORK_INPUT_FLOATS = 20_000;

/** Short tasks given a thread in a row while other work waits, before the oldest of that goes. */
export const SHORT_BEFORE_BULK = 8;

/** For this long after a short task arrived, bulk work leaves a thread free for the next one. */
export const SHORT_RECENT_MS = 1000;

export type Lane = 'short' | 'long' | 'bulk';

function abortError(reason: unknown): Error {
  return Object.assign(new Error('The task has been aborted', { cause: reason }), { name: 'AbortError' });
}

interface Waiter {
  lane: Lane;
  go: () => void;
}

export class ThreadLanes {
  /** Threads long work may hold at once */
  readonly longMax: number;
  private long = 0;
  private busy = 0;
  private shortsInARow = 0;
  /** Short work waiting, in arrival order */
  private readonly shortWaiting: Waiter[] = [];
  /** Long and bulk work waiting, in arrival order */
  private readonly otherWaiting: Waiter[] = [];

  /** When the last short task arrived (never: -Infinity) */
  private lastShortAt = Number.NEGATIVE_INFINITY;

  /** now: the clock, in ms (tests pass their own) */
  constructor(
    readonly threads: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.longMax = Math.max(1, threads - 1);
  }

  /** Long work in progress (tests and metrics) */
  get longRunning(): number {
    return this.long;
  }

  /** Work holding a thread (tests and metrics) */
  get running(): number {
    return this.busy;
  }

  /** Work waiting for a thread (tests and metrics) */
  get waiting(): number {
    return this.shortWaiting.length + this.otherWaiting.length;
  }

  /**
   * Runs `work` once its lane may take a thread. Waiting is withdrawn, with the AbortError a pool gives a
   * withdrawn task, when `signal` aborts first.
   */
  async run<T>(lane: Lane, signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T> {
    if (signal?.aborted) throw abortError(signal.reason);
    if (lane === 'short') this.lastShortAt = this.now();
    if (!this.mayStart(lane) || this.waiting > 0) {
      await new Promise<void>((resolve, reject) => {
        const queue = lane === 'short' ? this.shortWaiting : this.otherWaiting;
        const waiter: Waiter = {
          lane,
          go: () => {
            signal?.removeEventListener('abort', withdraw);
            resolve();
          },
        };
        const withdraw = () => {
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(abortError(signal?.reason));
          this.next(); // a long waiter withdrawn may have kept bulk work behind it waiting
        };
        signal?.addEventListener('abort', withdraw, { once: true });
        queue.push(waiter);
        this.next();
      });
    } else {
      this.take(lane);
    }
    try {
      return await work();
    } finally {
      this.busy--;
      if (lane === 'long') this.long--;
      this.next();
    }
  }

  private mayStart(lane: Lane): boolean {
    if (this.busy >= this.threads) return false;
    if (lane === 'long') return this.long < this.longMax;
    if (lane === 'bulk') return this.busy < this.threads - 1 || this.threads === 1 || this.now() - this.lastShortAt > SHORT_RECENT_MS;
    return true;
  }

  private take(lane: Lane): void {
    this.busy++;
    if (lane === 'long') this.long++;
  }

  /** Gives free threads to waiting work: short first, the others in arrival order (a long one only where it may). */
  private next(): void {
    while (this.busy < this.threads) {
      const other = this.otherWaiting.findIndex((w) => this.mayStart(w.lane));
      const shortFirst = this.shortWaiting.length > 0 && (other < 0 || this.shortsInARow < SHORT_BEFORE_BULK);
      let w: Waiter | undefined;
      if (shortFirst) {
        w = this.shortWaiting.shift();
        this.shortsInARow = other >= 0 ? this.shortsInARow + 1 : 0;
      } else if (other >= 0) {
        w = this.otherWaiting.splice(other, 1)[0];
        this.shortsInARow = 0;
      }
      if (!w) return this.wakeWhenReservationEnds();
      this.take(w.lane);
      w.go();
    }
  }

  private wake: ReturnType<typeof setTimeout> | undefined;

  /** Bulk work kept waiting only for the thread left to short work starts when that reservation ends. */
  private wakeWhenReservationEnds(): void {
    if (this.wake || this.otherWaiting.length === 0 || this.busy >= this.threads) return;
    const left = SHORT_RECENT_MS - (this.now() - this.lastShortAt);
    if (left <= 0) return;
    this.wake = setTimeout(() => {
      this.wake = undefined;
      this.next();
    }, left + 1);
    this.wake.unref();
  }
}
