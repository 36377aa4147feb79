// A per-operation batching loader: every load() of one tick becomes one call
// of the batch function, and each key is loaded once per operation. (mercurius
// loaders only work through reply.graphql(); ours also serve graphql-ws
// operations, which run outside any HTTP reply.)
export class BatchLoader<K, V> {
  private cache = new Map<string, Promise<V>>();
  private queue: { key: K; id: string; resolve: (v: V) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;
  /** How many times the batch function ran (tests check that nested fields do not cause N+1 queries). */
  batches = 0;

  constructor(
    private readonly batch: (keys: K[]) => Promise<V[]>,
    private readonly keyOf: (k: K) => string = (k) => String(k),
  ) {}

  load(key: K): Promise<V> {
    const id = this.keyOf(key);
    const hit = this.cache.get(id);
    if (hit) return hit;
    const p = new Promise<V>((resolve, reject) => this.queue.push({ key, id, resolve, reject }));
    this.cache.set(id, p);
    if (!this.scheduled) {
      this.scheduled = true;
      // After the current resolver wave: graphql-js resolves sibling fields in one
      // synchronous pass, so setImmediate collects every load of that pass.
      setImmediate(() => this.dispatch());
    }
    return p;
  }

  /** Seeds a value (e.g. networks already read by a list query). */
  prime(key: K, value: V): void {
    const id = this.keyOf(key);
    if (!this.cache.has(id)) this.cache.set(id, Promise.resolve(value));
  }

  private async dispatch(): Promise<void> {
    const q = this.queue;
    this.queue = [];
    this.scheduled = false;
    this.batches++;
    try {
      const values = await this.batch(q.map((x) => x.key));
      q.forEach((x, i) => x.resolve(values[i]));
    } catch (e) {
      for (const x of q) {
        this.cache.delete(x.id);
        x.reject(e);
      }
    }
  }
}
