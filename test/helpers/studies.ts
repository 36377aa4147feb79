// Study helpers of the tests: REST calls as one user, waiting for a study, all its rows,
// and the engine's own rows of a request (what the service must give back).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, type TestApp } from './app.js';
import { adminHeaders } from './auth.js';
import { CASES_DIR } from '../../src/paths.js';
import { loadVersion } from '../../src/domain/networks.js';
import { planStudy, solveStudyChunk, studyChunkRows, type StudyCaseRow, type StudyRequest } from '../../src/studies/index.js';
import { createSolverPool } from '../../src/engine/pool.js';

type H = Record<string, string>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function studyClient(app: TestApp, headers: () => Promise<H>) {
  const call = async (method: string, url: string, body?: unknown, extra: H = {}) =>
    app.app!.inject({ method: method as 'GET', url, headers: { ...(await headers()), ...extra }, ...(body === undefined ? {} : { payload: body as string }) });
  return {
    call,
    async importCase(name: string): Promise<string> {
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, `${name}.m`), 'utf8'), { 'content-type': 'text/plain' });
      assert.equal(r.statusCode, 201, r.body);
      return json(r).data.id as string;
    },
    async submit(networkId: string, body: unknown): Promise<{ study_id: string; task_id: string }> {
      const r = await call('POST', `/api/v1/networks/${networkId}/studies`, body);
      assert.equal(r.statusCode, 202, r.body);
      return json(r).data;
    },
    async study(id: string) {
      const r = await call('GET', `/api/v1/studies/${id}`);
      assert.equal(r.statusCode, 200, r.body);
      return json(r).data;
    },
    /** Polls until the study is in one of `states` (generous bound: the machine is shared). */
    async waitFor(id: string, states: string[] = ['completed', 'failed', 'cancelled'], ms = 180_000) {
      const end = Date.now() + ms;
      for (;;) {
        const st = await this.study(id);
        if (states.includes(st.status)) return st;
        if (Date.now() > end) throw new Error(`study ${id} still ${st.status} after ${ms} ms (${JSON.stringify(st.progress)})`);
        await sleep(50);
      }
    },
    /** Every case row, page by page (page_size 100). */
    async allCases(id: string, query = ''): Promise<StudyCaseRow[]> {
      const rows: StudyCaseRow[] = [];
      for (let page = 1; ; page++) {
        const r = await call('GET', `/api/v1/studies/${id}/cases?page=${page}&page_size=100${query}`);
        assert.equal(r.statusCode, 200, r.body);
        const b = json(r);
        rows.push(...b.data);
        if (page >= b.meta.total_pages) return rows;
      }
    },
  };
}

/**
 * The engine's rows of a study, computed directly on a pool of this process in chunks of
 * `chunkSize` cases: what REST must give back, bit for bit.
 */
export async function engineRows(app: TestApp, networkId: string, request: StudyRequest, chunkSize: number): Promise<StudyCaseRow[]> {
  const model = await loadVersion(app.services.db, networkId, 1);
  const plan = planStudy(model, request);
  const pool = createSolverPool({ threads: 1 });
  try {
    const rows: StudyCaseRow[] = [];
    for (let s = 0; s < plan.caseCount; s += chunkSize) rows.push(...studyChunkRows(plan, await solveStudyChunk(pool, model, plan, s, Math.min(plan.caseCount, s + chunkSize))));
    return rows;
  } finally {
    await pool.close();
  }
}

/** Rows identical to the engine's, bit for bit (whatever the workers, chunks and kills). */
export function assertSameRows(actual: StudyCaseRow[], expected: StudyCaseRow[]): void {
  assert.equal(actual.length, expected.length, 'as many rows as the engine gives');
  assert.deepEqual(actual, expected);
}

/** A tenant (created if needed) with these quotas set by the bootstrap admin. */
export async function tenantWithQuota(app: TestApp, tenant: string, quotas: Record<string, number>): Promise<void> {
  const admin = await adminHeaders(app);
  const created = await app.app!.inject({ method: 'POST', url: '/api/v1/admin/tenants', headers: admin, payload: { tenant_id: tenant, plan: 'pro' } });
  assert.ok([201, 409].includes(created.statusCode), created.body);
  const q = await app.app!.inject({ method: 'PUT', url: `/api/v1/admin/tenants/${tenant}/quota`, headers: admin, payload: { ...quotas, reason: 'studies test' } });
  assert.equal(q.statusCode, 200, q.body);
}
