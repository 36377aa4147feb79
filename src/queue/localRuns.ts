// What runs in this process, so that a cancel request (DELETE /tasks/{id}, the bus `cancel` notice) can stop it: a
// task's own run, and the pieces of a task running here besides it (a study's chunks). A service (Services.localRuns),
// so two apps in one process (the tests) never abort each other's work.
export class LocalRuns {
  private readonly runs = new Map<string, AbortController>();
  private readonly pieces = new Map<string, Set<AbortController>>();

  /** A task's own run starts here (registered before its claim, so a cancel at any point after finds it). */
  start(taskId: string): AbortController {
    const c = new AbortController();
    this.runs.set(taskId, c);
    return c;
  }

  /** The task's own run ended here. */
  end(taskId: string): void {
    this.runs.delete(taskId);
  }

  /** A piece of task `taskId` starts here: a cancel of the task aborts its signal until release(). */
  track(taskId: string): { signal: AbortSignal; release(): void } {
    const c = new AbortController();
    let set = this.pieces.get(taskId);
    if (!set) this.pieces.set(taskId, (set = new Set()));
    set.add(c);
    return {
      signal: c.signal,
      release: () => {
        set!.delete(c);
        if (set!.size === 0 && this.pieces.get(taskId) === set) this.pieces.delete(taskId);
      },
    };
  }

  /** Stops the task's run and pieces here; false when none runs here. */
  abort(taskId: string): boolean {
    const c = this.runs.get(taskId);
    const p = this.pieces.get(taskId);
    for (const x of p ?? []) x.abort();
    if (!c) return p !== undefined;
    c.abort();
    return true;
  }

  /** Task runs going on here. */
  get size(): number {
    return this.runs.size;
  }
}
