// A chunk under the ac_linear screen is one task on a solver thread (src/studies/screenRule.ts, workers/solver.ts):
// the estimate, then the cases it keeps, without a round trip through the main thread. The thread's verdicts
// (internal branch order, the core's raw records) are the main thread's rule on the decoded estimate (branch
// positions), and a stop before the task ran answers no case.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CASES_DIR } from '../src/paths.js';
import { parseMatpower } from '../src/matpower/reader.js';
import { createSolverPool, type SolverPool } from '../src/engine/pool.js';
import { planStudy, solveStudyChunk, type StudyRequest } from '../src/studies/index.js';
import { screenCases } from '../src/studies/screening.js';
import { CASE_CODE } from '../src/studies/types.js';
import type { NetworkModel } from '../src/domain/networkModel.js';

const load = (c: string): NetworkModel => parseMatpower(readFileSync(join(CASES_DIR, `${c}.m`), 'utf8'), `${c}.m`);
let pool: SolverPool;
before(() => { pool = createSolverPool({ threads: 2 }); });
after(async () => { await pool.close(); });

/** The kinds of the pool's runs while `work` runs. */
async function runsDuring<T>(work: () => Promise<T>): Promise<{ value: T; kinds: string[] }> {
  const kinds: string[] = [];
  const run = pool.run;
  pool.run = ((kind, payload, hooks) => {
    kinds.push(kind);
    return run(kind, payload, hooks);
  }) as typeof pool.run;
  try {
    return { value: await work(), kinds };
  } finally {
    pool.run = run;
  }
}

for (const c of ['case30', 'case1354pegase']) {
  test(`${c}: a screened chunk is one study task, and the thread's verdicts are the main thread's rule`, async () => {
    const net = load(c);
    const req: StudyRequest = { kind: 'contingency', contingencies: 'n-1', islanding: 'skip', screening: {} };
    const plan = planStudy(net, req);
    const n = plan.caseCount;
    await solveStudyChunk(pool, net, plan, 0, 1); // the base power flow, once per plan
    const { value: chunk, kinds } = await runsDuring(() => solveStudyChunk(pool, net, plan, 0, n));
    assert.deepEqual(kinds, ['study'], 'the estimate and the kept cases in one task');
    const screened = [...chunk.code.keys()].filter((i) => chunk.code[i] === CASE_CODE.SCREENED);
    assert.ok(screened.length > 0 && screened.length < n, `${c}: some cases screened, some kept (${screened.length} of ${n})`);
    // the rule on the main thread, on the estimate decoded to branch positions
    const expected = await screenCases(pool, net, plan, 0, n, undefined, (estimatePlan) => solveStudyChunk(pool, net, estimatePlan, 0, n));
    assert.deepEqual(screened, [...expected.keys()].sort((a, b) => a - b));
    for (const i of screened) {
      assert.equal(chunk.maxLoading[i], expected.get(i)!.maxLoading);
      assert.equal(chunk.maxLoadingBranch[i], expected.get(i)!.maxLoadingBranch);
    }
  });
}

test('a screened chunk stopped before its task ran answers no case, cancelled', async () => {
  const net = load('case30');
  const plan = planStudy(net, { kind: 'contingency', contingencies: 'n-1-branches', screening: {} });
  await solveStudyChunk(pool, net, plan, 0, 1);
  const stop = new AbortController();
  stop.abort();
  const chunk = await solveStudyChunk(pool, net, plan, 10, 40, { signal: stop.signal });
  assert.equal(chunk.cancelled, true);
  assert.equal(chunk.end, chunk.start);
});
