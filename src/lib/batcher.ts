// Group commit: writes that arrive while one is being stored (or in the same turn of
// the event loop) are stored together by one flush: one transaction, a few multi-row
// statements, instead of a transaction per item. Under load, batches grow by
// themselves; alone, an item waits no longer than one turn of the event loop.
//
// Each caller gets its own item's outcome. When a batch fails, its items are retried
// one by one, so one bad item (a row whose parent was deleted meanwhile) fails alone.

export interface Batcher<I, O> {
  add(item: I): Promise<O>;
  /** Resolves when every item added so far has been flushed. */
  drain(): Promise<void>;
}

export function createBatcher<I, O>(flush: (items: I[]) => Promise<O[]>, maxBatch = 200): Batcher<I, O> {
  type Pending = { item: I; resolve: (o: O) => void; reject: (e: unknown) => void };
  let queue: Pending[] = [];
  let running: Promise<void> | undefined;

  const settle = async (batch: Pending[]) => {
    try {
      const out = await flush(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(out[i]));
    } catch (err) {
      if (batch.length === 1) {
        batch[0].reject(err);
        return;
      }
      for (const p of batch) {
        try {
          p.resolve((await flush([p.item]))[0]);
        } catch (e) {
          p.reject(e);
        }
      }
    }
  };

  const run = async () => {
    while (queue.length > 0) {
      const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
      queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
      await settle(batch);
    }
    running = undefined;
  };

  return {
    add(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        // setImmediate: the requests of the same I/O phase join this batch.
        running ??= new Promise<void>((r) => setImmediate(r)).then(run);
      });
    },
    async drain() {
      while (running) await running;
    },
  };
}
