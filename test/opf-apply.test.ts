// apply: true on an OPF (CONTRACT "Security-constrained DC-OPF"): the dispatch becomes the network's next
// version, so a power flow of that version runs the dispatch; both modes.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, MODES, startTestApp, type TestApp } from './helpers/app.js';
import { adminHeaders } from './helpers/auth.js';
import { restClient, type Headers } from './helpers/rest.js';
import { CASES_DIR } from '../src/paths.js';

for (const mode of MODES) {
  describe(`OPF apply (${mode})`, () => {
    let app: TestApp;
    let h: Headers;
    const { call, ok, err } = restClient(() => ({ app, h }));
    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
    });
    after(async () => { await app?.close(); });

    for (const method of ['dc', 'ac'] as const) {
      it(`${method}: the dispatch is stored as the next version and a power flow of it runs the dispatch`, async () => {
        const net = json(await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), { 'content-type': 'text/plain' })).data.id;
        const r = await ok('POST', `/api/v1/networks/${net}/opf`, { method, apply: true });
        assert.equal(r.status, 'converged');
        assert.deepEqual(r.applied, { network_version: 2 });
        const detail = await ok('GET', `/api/v1/networks/${net}`);
        assert.equal(detail.version, 2);
        const gens = detail.generators as { mw: number; vg: number }[];
        r.generators.forEach((g: { p_mw: number }, k: number) => assert.ok(Math.abs(gens[k]!.mw - g.p_mw) < 1e-9, `generator ${k} set-point`));
        const pf = await ok('POST', `/api/v1/networks/${net}/powerflow`, { method: method === 'dc' ? 'dc' : 'newton_raphson' });
        assert.equal(pf.network_version, 2);
        // every generator but the slack's produces its OPF output; the slack takes up what is left (AC: the OPF's losses)
        pf.generators.slice(1).forEach((g: { p_gen: number }, k: number) => assert.ok(Math.abs(g.p_gen - r.generators[k + 1].p_mw) < 1e-6));
        assert.ok(Math.abs(pf.generators[0].p_gen - r.generators[0].p_mw) < (method === 'dc' ? 1e-6 : 1e-3), `slack ${pf.generators[0].p_gen} vs ${r.generators[0].p_mw}`);
      });
    }

    it('apply with async is refused with advice', async () => {
      const net = json(await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case9.m'), 'utf8'), { 'content-type': 'text/plain' })).data.id;
      const e = err(await call('POST', `/api/v1/networks/${net}/opf`, { method: 'dc', apply: true, async: true }), 400, 'INVALID_FIELD');
      assert.equal(e.details.field, 'apply');
    });
  });
}
