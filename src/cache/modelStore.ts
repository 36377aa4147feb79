// Services.models: the network-model versions this process has read, frozen and shared by every
// reader (task runners, GraphQL loaders, study plans, the what-if check), with values derived from a
// version (a study's plan, a what-if base solution) kept beside it and evicted with it.
//
// A (network, version) pair never changes once stored, so nothing here is invalidated by hand: a new
// version is a new key, and an old one is dropped when it is the least recently used. The bound is a
// weight, not a count: one 70 000-bus model weighs as much as thousands of small ones.
import type { NetworkModel } from '../domain/networkModel.js';
import { deepFreeze } from '../lib/immutable.js';

/** A value derived from a version, read and written where it is computed (e.g. a base-case solution). */
export interface MemoSlot<T> {
  get(): T | undefined;
  set(value: T): void;
}

export interface ModelStoreStats {
  versions: number;
  /** Elements held: buses, branches, generators, loads and DC lines of the models, plus the memos' weights. */
  weight: number;
}

export interface ModelStore {
  /** The frozen model of a version, read with `read` once; concurrent callers share one read. */
  version(networkId: string, version: number, read: () => Promise<NetworkModel>): Promise<NetworkModel>;
  /** The frozen model of a version when it is held here, without reading it. */
  peek(networkId: string, version: number): NetworkModel | undefined;
  /** Holds a model read elsewhere (a batched read of several versions); returns the held, frozen copy. */
  put(networkId: string, version: number, model: NetworkModel): NetworkModel;
  /**
   * A value derived from a version's model (`model`: how to get it, usually version() of this store),
   * computed once while the version is held (a failed computation is forgotten). `weigh` says what the value counts toward the store's bound, in model
   * elements (1 when not given).
   */
  derived<T>(
    networkId: string,
    version: number,
    name: string,
    model: () => Promise<NetworkModel>,
    compute: (model: NetworkModel) => Promise<T>,
    weigh?: (value: T) => number,
  ): Promise<T>;
  /** A slot for a value derived from a version by its caller (the version need not be held yet). */
  memo<T>(networkId: string, version: number, name: string, weigh?: (value: T) => number): MemoSlot<T>;
  stats(): ModelStoreStats;
  /** Drops everything (closeServices). */
  close(): void;
}

export interface ModelStoreOptions {
  /** The bound, in model elements (~200 bytes each). The version used last is kept even when it alone is heavier. */
  maxWeight: number;
  /** Memos kept per version, least recently used dropped first. */
  memosPerVersion?: number;
}

/** Buses, branches, generators, loads and DC lines: what a model's memory grows with. */
export const modelWeight = (m: NetworkModel): number =>
  m.buses.length + m.branches.length + m.generators.length + m.loads.length + (m.dc_lines?.length ?? 0);

interface Memo {
  value: unknown;
  weight: number;
}

interface Held {
  model?: NetworkModel;
  memos: Map<string, Memo>;
}

export function createModelStore(opts: ModelStoreOptions): ModelStore {
  const memosPerVersion = opts.memosPerVersion ?? 16;
  // Insertion order is recency order: a use moves the version to the end.
  const held = new Map<string, Held>();
  const reading = new Map<string, Promise<NetworkModel>>();
  let weight = 0;
  const keyOf = (networkId: string, version: number) => `${networkId}@${version}`;

  const weightOf = (h: Held) => (h.model ? modelWeight(h.model) : 0) + [...h.memos.values()].reduce((w, m) => w + m.weight, 0);

  function touch(key: string, create: boolean): Held | undefined {
    let h = held.get(key);
    if (h) {
      held.delete(key);
      held.set(key, h);
    } else if (create) {
      h = { memos: new Map() };
      held.set(key, h);
    }
    return h;
  }

  function evict(): void {
    for (const [key, h] of held) {
      if (weight <= opts.maxWeight || held.size <= 1) return;
      held.delete(key);
      weight -= weightOf(h);
    }
  }

  function hold(key: string, model: NetworkModel): NetworkModel {
    const h = touch(key, true)!;
    if (h.model) return h.model;
    h.model = deepFreeze(model);
    weight += modelWeight(h.model);
    evict();
    return h.model;
  }

  function setMemo(key: string, name: string, value: unknown, w: number): void {
    const h = touch(key, true)!;
    const old = h.memos.get(name);
    if (old) {
      weight -= old.weight;
      h.memos.delete(name);
    }
    h.memos.set(name, { value, weight: w });
    weight += w;
    while (h.memos.size > memosPerVersion) {
      const [first, m] = h.memos.entries().next().value!;
      h.memos.delete(first);
      weight -= m.weight;
    }
    evict();
  }

  function getMemo(key: string, name: string): Memo | undefined {
    const h = touch(key, false);
    const m = h?.memos.get(name);
    if (h && m) {
      h.memos.delete(name);
      h.memos.set(name, m);
    }
    return m;
  }

  /** A derived value's weight once it is known (its promise was held at weight 1 meanwhile). */
  function reweigh(key: string, name: string, value: unknown, w: number): void {
    const m = held.get(key)?.memos.get(name);
    if (!m || m.value !== value) return;
    weight += w - m.weight;
    m.weight = w;
    evict();
  }

  function dropMemo(key: string, name: string, value: unknown): void {
    const m = held.get(key)?.memos.get(name);
    if (!m || m.value !== value) return;
    held.get(key)!.memos.delete(name);
    weight -= m.weight;
  }

  const store: ModelStore = {
    version(networkId, version, read) {
      const key = keyOf(networkId, version);
      const m = touch(key, false)?.model;
      if (m) return Promise.resolve(m);
      let p = reading.get(key);
      if (!p) {
        p = read()
          .then((model) => hold(key, model))
          .finally(() => reading.delete(key));
        reading.set(key, p);
      }
      return p;
    },
    peek(networkId, version) {
      return touch(keyOf(networkId, version), false)?.model;
    },
    put(networkId, version, model) {
      return hold(keyOf(networkId, version), model);
    },
    derived<T>(
      networkId: string,
      version: number,
      name: string,
      model: () => Promise<NetworkModel>,
      compute: (model: NetworkModel) => Promise<T>,
      weigh?: (value: T) => number,
    ): Promise<T> {
      const key = keyOf(networkId, version);
      const found = getMemo(key, name);
      if (found) return found.value as Promise<T>;
      const p = model().then(compute);
      setMemo(key, name, p, 1);
      p.then(
        (value) => reweigh(key, name, p, weigh ? weigh(value) : 1),
        () => dropMemo(key, name, p),
      );
      return p;
    },
    memo<T>(networkId: string, version: number, name: string, weigh?: (value: T) => number): MemoSlot<T> {
      const key = keyOf(networkId, version);
      return {
        get: () => getMemo(key, name)?.value as T | undefined,
        set: (value: T) => setMemo(key, name, value, weigh ? weigh(value) : 1),
      };
    },
    stats() {
      return { versions: held.size, weight };
    },
    close() {
      held.clear();
      reading.clear();
      weight = 0;
    },
  };
  return store;
}
