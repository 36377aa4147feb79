// Finished tasks answered before they are stored (issue 36: write-behind). A synchronous power
// flow solved at once (src/queue/direct.ts) is answered as soon as it is solved; its task, result
// and events go into the next group commit. Until that commit (and the alarm judgement after it)
// is done, the task is here: GET /tasks/{id} and every door's task read (src/domain/tasks.ts) find
// it here, and the readers of what the store changes (the task list, alarms, the event log) wait
// for the tenant's stores in flight first, so a client reads its own answers (docs/reliability.md).
import type { TaskRow } from './tasks.js';

interface Pending {
  task: TaskRow;
  stored: Promise<void>;
}

export class PendingTasks {
  private readonly byId = new Map<string, Pending>();
  private readonly byTenant = new Map<string, Set<Promise<void>>>();

  /** The task answered; `store` its write (it leaves when that settles; a failure was logged by the writer). */
  add(task: TaskRow, store: Promise<unknown>): void {
    const stored: Promise<void> = store.then(
      () => undefined,
      () => undefined,
    );
    const entry = { task, stored };
    this.byId.set(task.id, entry);
    const set = this.byTenant.get(task.tenant_id) ?? new Set<Promise<void>>();
    this.byTenant.set(task.tenant_id, set);
    set.add(stored);
    void stored.then(() => {
      if (this.byId.get(task.id) === entry) this.byId.delete(task.id);
      set.delete(stored);
      if (set.size === 0 && this.byTenant.get(task.tenant_id) === set) this.byTenant.delete(task.tenant_id);
    });
  }

  /** The tenant's task answered and not yet stored. */
  get(tenantId: string, id: string): TaskRow | undefined {
    const p = this.byId.get(id);
    return p && p.task.tenant_id === tenantId ? p.task : undefined;
  }

  /** How many answered tasks wait to be stored (all tenants). */
  get size(): number {
    return this.byId.size;
  }

  /** Resolves when the task's store (if any) has settled. */
  async stored(id: string): Promise<void> {
    await this.byId.get(id)?.stored;
  }

  /** Resolves when the tenant's stores in flight now have settled: a reader of tasks, alarms or events calls it first. */
  async settled(tenantId: string): Promise<void> {
    const set = this.byTenant.get(tenantId);
    if (set) await Promise.all([...set]);
  }

  /** Resolves when every store in flight has settled (shutdown, before the database closes). */
  async drain(): Promise<void> {
    while (this.byId.size > 0) await Promise.all([...this.byId.values()].map((p) => p.stored));
  }
}
