// REST calls bound to one test app and one caller's headers, and the small
// fixture networks several tests post. Shared by the API tests and helpers/agents.ts.
import assert from 'node:assert/strict';
import { json, type TestApp } from './app.js';

export type Headers = Record<string, string>;
export type Res = { statusCode: number; body: string; headers: Record<string, unknown> };

/** call: any request; ok: asserts the status and returns `data`; err: asserts the status and the error code. */
export function restClient(get: () => { app: TestApp; h: Headers }) {
  const call = async (method: string, url: string, body?: unknown, headers: Headers = {}): Promise<Res> =>
    get().app.app!.inject({
      method: method as 'GET',
      url,
      headers: { ...get().h, ...headers },
      ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
    });
  const ok = async (method: string, url: string, body?: unknown, status = 200) => {
    const r = await call(method, url, body);
    assert.equal(r.statusCode, status, `${method} ${url}: ${r.body}`);
    return json(r).data;
  };
  const err = (r: Res, status: number, code: string) => {
    assert.equal(r.statusCode, status, r.body);
    const e = json(r).error;
    assert.equal(e.code, code, r.body);
    assert.ok(e.message && e.trace_id);
    return e;
  };
  return { call, ok, err };
}

/** A three-bus network (slack, pq, pv) that converges in a few iterations. */
export const tinyNetwork = (name: string) => ({
  name,
  buses: [{ id: 1, type: 'slack', v: 1.02 }, { id: 2, type: 'pq' }, { id: 3, type: 'pv', v: 1.01 }],
  branches: [{ from: 1, to: 2, r: 0.01, x: 0.1, b: 0.02 }, { from: 2, to: 3, r: 0.02, x: 0.2 }, { from: 1, to: 3, r: 0.01, x: 0.15 }],
  generators: [{ bus: 1, mw: 0, vg: 1.02 }, { bus: 3, mw: 40, vg: 1.01 }],
  loads: [{ bus: 2, mw: 80, mvar: 20 }],
});
