// Services.models (src/cache/modelStore.ts): the weight bound and the least-recently-used order on their
// own, and through the service in both modes: a task reads its version from the store, and a new version
// of a network is a new entry (the old one keeps its model) that the next power flow solves.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createModelStore, modelWeight } from '../src/cache/modelStore.js';
import type { NetworkModel } from '../src/domain/networkModel.js';
import { MODES, startTestApp, json, waitForTaskStatus, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';

/** A radial model of `n` buses: weight n buses + (n - 1) branches + 1 generator + 1 load = 2n + 1. */
function radial(n: number, loadMw = 10): NetworkModel {
  return {
    name: `radial-${n}`,
    base_mva: 100,
    buses: Array.from({ length: n }, (_, i) => ({ id: i + 1, type: i === 0 ? 'slack' : 'pq', vmin: 0.9, vmax: 1.1 })),
    branches: Array.from({ length: n - 1 }, (_, i) => ({ from: i + 1, to: i + 2, r: 0.01, x: 0.1, status: 'closed' })),
    generators: [{ bus: 1, mw: 0, in_service: true }],
    loads: [{ bus: n, mw: loadMw, mvar: 0, in_service: true }],
  } as unknown as NetworkModel;
}

describe('model store: bound and order', () => {
  it('weighs a model by its elements and keeps the total under the bound, least recently used out first', () => {
    const store = createModelStore({ maxWeight: 30 });
    assert.equal(modelWeight(radial(5)), 11);
    store.put('a', 1, radial(5));
    store.put('b', 1, radial(5));
    assert.deepEqual(store.stats(), { versions: 2, weight: 22 });
    assert.ok(store.peek('a', 1), 'a is used: b is now the least recently used');
    store.put('c', 1, radial(5));
    assert.equal(store.peek('b', 1), undefined, 'b went out');
    assert.ok(store.peek('a', 1) && store.peek('c', 1));
    assert.deepEqual(store.stats(), { versions: 2, weight: 22 });
  });

  it('keeps the version used last even when it alone is over the bound', () => {
    const store = createModelStore({ maxWeight: 30 });
    store.put('small', 1, radial(3));
    store.put('large', 1, radial(20));
    assert.deepEqual(store.stats(), { versions: 1, weight: 41 });
    assert.ok(store.peek('large', 1));
  });

  it('holds models frozen, reads a version once for concurrent callers, and forgets a failed read', async () => {
    const store = createModelStore({ maxWeight: 1000 });
    let reads = 0;
    const read = async () => {
      reads++;
      return radial(4);
    };
    const [x, y] = await Promise.all([store.version('n', 3, read), store.version('n', 3, read)]);
    assert.equal(reads, 1);
    assert.equal(x, y);
    assert.ok(Object.isFrozen(x) && Object.isFrozen(x.buses[0]));
    assert.throws(() => {
      (x.loads as unknown[]).push({});
    });
    await assert.rejects(
      store.version('n', 4, async () => {
        throw new Error('gone');
      }),
      /gone/,
    );
    assert.equal((await store.version('n', 4, read)).buses.length, 4, 'the next caller reads again');
  });

  it('a new version is a new entry; the old one keeps its model', async () => {
    const store = createModelStore({ maxWeight: 1000 });
    const v1 = await store.version('n', 1, async () => radial(4, 10));
    const v2 = await store.version('n', 2, async () => radial(4, 25));
    assert.equal(v1.loads[0]!.mw, 10);
    assert.equal(v2.loads[0]!.mw, 25);
    assert.equal(store.peek('n', 1), v1);
  });

  it('derived values count toward the bound and go with their version', async () => {
    const store = createModelStore({ maxWeight: 40 });
    const read = async () => radial(5);
    let computed = 0;
    const plan = () =>
      store.derived(
        'a',
        1,
        'plan',
        () => store.version('a', 1, read),
        async (m) => {
          computed++;
          return { buses: m.buses.length };
        },
        () => 9,
      );
    assert.deepEqual(await plan(), { buses: 5 });
    assert.deepEqual(await plan(), { buses: 5 });
    assert.equal(computed, 1);
    assert.deepEqual(store.stats(), { versions: 1, weight: 11 + 9 });
    // a failed derivation is forgotten and computed again by the next caller
    let tries = 0;
    const flaky = () =>
      store.derived(
        'a',
        1,
        'flaky',
        () => store.version('a', 1, read),
        async () => {
          if (++tries === 1) throw new Error('once');
          return tries;
        },
      );
    await assert.rejects(flaky(), /once/);
    assert.equal(await flaky(), 2);
    // a slot written by its caller (the what-if base solution) weighs what it says
    const slot = store.memo<number[]>('b', 7, 'base', (v) => v.length);
    assert.equal(slot.get(), undefined);
    slot.set([1, 2, 3]);
    assert.deepEqual(slot.get(), [1, 2, 3]);
    assert.deepEqual(store.stats(), { versions: 2, weight: 11 + 9 + 1 + 3 });
    // a heavy model pushes out both versions with everything derived from them
    store.put('c', 1, radial(19));
    assert.deepEqual(store.stats(), { versions: 1, weight: 39 });
    assert.equal(store.memo('b', 7, 'base').get(), undefined);
    store.close();
    assert.deepEqual(store.stats(), { versions: 0, weight: 0 });
  });
});

for (const mode of MODES) {
  describe(`Services.models through the service (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const call = async (method: string, url: string, body?: unknown) =>
      app.app!.inject({ method: method as 'GET', url, headers: h, ...(body === undefined ? {} : { payload: body as object }) });
    const tiny = (loadMw: number) => ({
      name: 'ms-tiny',
      buses: [
        { id: 1, type: 'slack', v: 1.02 },
        { id: 2, type: 'pq' },
      ],
      branches: [{ from: 1, to: 2, r: 0.01, x: 0.1 }],
      generators: [{ bus: 1, mw: 0, vg: 1.02 }],
      loads: [{ bus: 2, mw: loadMw, mvar: 2 }],
    });
    const solve = async (id: string) => {
      const task = json(await call('POST', `/api/v1/networks/${id}/powerflow`, { async: true })).data;
      assert.equal(await waitForTaskStatus(app, h, task.task_id, 'completed'), 'completed');
      return json(await call('GET', `/api/v1/tasks/${task.task_id}?include=result`)).data.result;
    };

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
    });
    after(async () => app?.close());

    it('a task reads its version from the store; a new version is solved as changed', async () => {
      const net = json(await call('POST', '/api/v1/networks', tiny(10))).data;
      const first = await solve(net.id);
      const held = app.services.models.peek(net.id, 1);
      assert.equal(held?.loads[0]?.mw, 10, 'the task left its version in Services.models');
      assert.ok(Object.isFrozen(held));
      const put = await call('PUT', `/api/v1/networks/${net.id}`, tiny(30));
      assert.equal(put.statusCode, 200, put.body);
      const second = await solve(net.id);
      assert.equal(app.services.models.peek(net.id, 2)?.loads[0]?.mw, 30);
      assert.equal(app.services.models.peek(net.id, 1), held, 'version 1 is unchanged');
      assert.ok(
        second.generators[0].p_gen > first.generators[0].p_gen + 19,
        `${first.generators[0].p_gen} → ${second.generators[0].p_gen}`,
      );
    });
  });
}
