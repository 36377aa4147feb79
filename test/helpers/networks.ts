// A three-bus network model for tests that need a small valid network: a slack, a PQ load bus and a PV bus.
export const threeBusNetwork = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  buses: [
    { id: 1, type: 'slack', v: 1.02 },
    { id: 2, type: 'pq' },
    { id: 3, type: 'pv', v: 1.01 },
  ],
  branches: [
    { from: 1, to: 2, r: 0.01, x: 0.1, b: 0.02, rate_a: 100 },
    { from: 2, to: 3, r: 0.02, x: 0.2 },
    { from: 1, to: 3, r: 0.01, x: 0.15 },
  ],
  generators: [{ bus: 1, mw: 0, vg: 1.02 }, { bus: 3, mw: 40, vg: 1.01 }],
  loads: [{ bus: 2, mw: 80, mvar: 20 }],
  ...extra,
});
