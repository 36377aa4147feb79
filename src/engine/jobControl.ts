// The control of one job on a solver thread, written once for every kind (power flow, study chunk, OPF, security
// constraint generation, state estimation). A job shares three Int32 slots with its thread:
//   JOB.STOP      0 runs; STOP_CODE.CANCEL or STOP_CODE.TIMEOUT: stop at the next iteration (read by the core's
//                 progress hook between iterations, Atomics.load)
//   JOB.STARTED   set to 1 by the thread when the job starts
//   JOB.PROGRESS  what the job reports as it runs (a study's cases done, an estimate's iteration)
// Stopping a job: one still queued is withdrawn from Piscina's queue; a running one that does not reach its next
// iteration within STOP_GRACE_MS has its thread ended (Piscina replaces it), so no job holds a thread for long
// after it was stopped.

/** The slots of a job's shared flags. */
export const JOB = { STOP: 0, STARTED: 1, PROGRESS: 2, SLOTS: 3 } as const;
/** Why a job was stopped (the value of JOB.STOP). */
export const STOP_CODE = { CANCEL: 1, TIMEOUT: 2 } as const;

/** How long a stopped job may take to reach its next iteration before its thread is terminated. */
export const STOP_GRACE_MS = 2000;

export type StopReason = 'cancelled' | 'timeout';

/** The flags a job shares with its thread (over a SharedArrayBuffer). */
export function jobFlags(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * JOB.SLOTS));
}

/** Marks, on the thread, that the job started; true when it was stopped before (answer at once). */
export function jobStarting(flags: Int32Array): boolean {
  Atomics.store(flags, JOB.STARTED, 1);
  return Atomics.load(flags, JOB.STOP) !== 0;
}

/** A job as its thread sees it (workers/solver.ts makes one per task, for every kind): marked started once, its
 *  stop read and its progress written only through here. A kind that cannot stop between iterations (a
 *  sensitivity chunk, a layout) is not marked started, so stopping it ends its thread at once instead of after
 *  the grace. */
export class ThreadJob {
  /** stopped before it started: answer at once */
  readonly stoppedBefore: boolean;

  constructor(
    private readonly flags: Int32Array,
    stoppable: boolean,
  ) {
    this.stoppedBefore = stoppable ? jobStarting(flags) : Atomics.load(flags, JOB.STOP) !== 0;
  }

  /** 0 runs, else a STOP_CODE: what the core's progress hook returns between iterations. */
  get stop(): number {
    return Atomics.load(this.flags, JOB.STOP);
  }

  /** What the job reports as it runs (JobControl.progress on the caller's side). */
  progress(value: number): void {
    Atomics.store(this.flags, JOB.PROGRESS, value);
  }
}

/** The stop protocol of one job: `stop` asks it to stop (once), withdrawing it when still queued and ending its
 *  thread when it does not stop within the grace; `ended` is called when its run settled (nothing to end). */
export class JobControl {
  readonly flags = jobFlags();
  private readonly abort = new AbortController();
  private grace: NodeJS.Timeout | undefined;

  /** The signal given to Piscina for this job: aborting it withdraws or ends the job. */
  get threadSignal(): AbortSignal {
    return this.abort.signal;
  }

  get stopped(): boolean {
    return Atomics.load(this.flags, JOB.STOP) !== 0;
  }

  get progress(): number {
    return Atomics.load(this.flags, JOB.PROGRESS);
  }

  stop(reason: StopReason): void {
    if (this.stopped) return;
    Atomics.store(this.flags, JOB.STOP, reason === 'timeout' ? STOP_CODE.TIMEOUT : STOP_CODE.CANCEL);
    if (Atomics.load(this.flags, JOB.STARTED) === 0) this.abort.abort();
    else {
      this.grace = setTimeout(() => this.abort.abort(), STOP_GRACE_MS);
      this.grace.unref();
    }
  }

  /** The run settled (its result or its error arrived): its thread needs no ending. */
  ended(): void {
    if (this.grace) clearTimeout(this.grace);
  }
}

export type Stoppable<T> = { stopped: false; value: T } | { stopped: StopReason };

/**
 * Runs a job under timeout_ms and the caller's signal: resolved at once with `{stopped}` when either fires first
 * (the job is stopped as above), else with the run's value; the run's error rejects. `run` gets the job's control
 * (its flags go to the thread, its threadSignal to Piscina).
 */
export function runStoppable<T>(
  limits: { timeoutMs?: number; signal?: AbortSignal },
  run: (job: JobControl) => Promise<T>,
  job: JobControl = new JobControl(),
): Promise<Stoppable<T>> {
  const { timeoutMs, signal } = limits;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const interrupt = (reason: StopReason) => {
      if (!settle()) return;
      job.stop(reason);
      resolve({ stopped: reason });
    };
    const onAbort = () => interrupt('cancelled');
    const timer = timeoutMs !== undefined ? setTimeout(() => interrupt('timeout'), timeoutMs) : undefined;
    if (signal?.aborted) {
      interrupt('cancelled');
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    run(job).then(
      (value) => {
        job.ended();
        if (settle()) resolve({ stopped: false, value });
      },
      (err: unknown) => {
        job.ended();
        if (settle()) reject(err as Error);
      },
    );
  });
}
