// GET /api/v1/networks/{id}/layout (docs/console.md "Layout", #27 item 1) in both modes: computed once per
// network version on a solver thread and stored with that version; a new version gets its own; buses with
// coordinates (lat/lon, from the model or a MATPOWER case's mpc.bus_geo) are drawn where they are; GraphQL
// networkLayout answers the same; bad coordinates are refused naming the field; viewers may read it.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { CASES_DIR } from '../src/paths.js';
import { gql, ok } from './graphql-helpers.js';

type Headers = Record<string, string>;

for (const mode of MODES) {
  describe(`network layout (${mode})`, { timeout: 120_000 }, () => {
    let app: TestApp;
    let admin: Headers;
    let case118 = '';
    const call = (method: string, url: string, payload?: unknown, headers: Headers = admin) =>
      app.app!.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
    const storedBytes = async (id: string, version: number) =>
      (await app.services.db.query<{ n: number | null }>('SELECT octet_length(layout) AS n FROM network_versions WHERE network_id = $1 AND version = $2', [id, version])).rows[0]?.n ?? null;

    before(async () => {
      app = await startTestApp(mode);
      admin = await adminHeaders(app);
      const r = await call('POST', '/api/v1/networks/import?format=matpower', readFileSync(join(CASES_DIR, 'case118.m'), 'utf8'), { ...admin, 'content-type': 'text/plain' });
      assert.equal(r.statusCode, 201, r.body);
      case118 = json(r).data.id;
    });
    after(async () => app?.close());

    it('computes the layout of a version once, stores it with the version, and answers the same after', async () => {
      assert.equal(await storedBytes(case118, 1), null, 'nothing computed before it is asked for');
      const first = json(await call('GET', `/api/v1/networks/${case118}/layout`)).data;
      assert.equal(first.source, 'computed');
      assert.equal(first.version, 1);
      assert.equal(first.bus_ids.length, 118);
      assert.equal(first.positions.length, 236);
      assert.ok(first.positions.every(Number.isFinite));
      assert.equal(await storedBytes(case118, 1), 118 * 8, 'float32 x, y per bus kept with version 1');
      const again = json(await call('GET', `/api/v1/networks/${case118}/layout`)).data;
      assert.deepEqual(again, first);
      // a branch is drawn about one unit long on average (the layout's unit)
      const at = new Map<number, number>(first.bus_ids.map((id: number, i: number) => [id, i]));
      const model = json(await call('GET', `/api/v1/networks/${case118}`)).data;
      const lengths = model.branches.map((b: { from: number; to: number }) => {
        const i = at.get(b.from)!, j = at.get(b.to)!;
        return Math.hypot(first.positions[2 * i] - first.positions[2 * j], first.positions[2 * i + 1] - first.positions[2 * j + 1]);
      });
      const mean = lengths.reduce((a: number, b: number) => a + b, 0) / lengths.length;
      assert.ok(mean > 0.5 && mean < 2, `mean branch length ${mean}`);
      // concurrent first requests of a new version share one computation and agree
      const model2 = { ...model, name: 'case118 v2' };
      for (const k of ['id', 'bus_count', 'branch_count', 'generator_count', 'load_count', 'version', 'created_at', 'updated_at', 'status', 'tags', 'description', 'base_kv', 'base_mva']) delete model2[k];
      const put = await call('PUT', `/api/v1/networks/${case118}`, model2);
      assert.equal(put.statusCode, 200, put.body);
      const [a, b] = await Promise.all([call('GET', `/api/v1/networks/${case118}/layout`), call('GET', `/api/v1/networks/${case118}/layout`)]);
      assert.equal(json(a).data.version, 2);
      assert.deepEqual(json(a).data, json(b).data);
      assert.equal(await storedBytes(case118, 2), 118 * 8);
      // viewers read it too; GraphQL answers the same
      assert.equal((await call('GET', `/api/v1/networks/${case118}/layout`, undefined, await tokenFor(app, 'viewer'))).statusCode, 200);
      const g = ok(await gql(app, 'query($id: ID!) { networkLayout(id: $id) { networkId version source busIds positions } }', { id: case118 }, admin)).networkLayout;
      assert.deepEqual(g, { networkId: case118, version: 2, source: 'COMPUTED', busIds: json(a).data.bus_ids, positions: json(a).data.positions });
      assert.equal((await call('GET', '/api/v1/networks/net_doesnotexist/layout')).statusCode, 404);
    });

    it('draws buses with coordinates where they are: all of them as given (projected), some of them pinned', async () => {
      const buses = [
        { id: 1, type: 'slack', lat: 60.0, lon: 10.0 }, { id: 2, type: 'pq', lat: 59.0, lon: 10.0 },
        { id: 3, type: 'pq', lat: 60.0, lon: 12.0 },
      ];
      const branches = [{ from: 1, to: 2, r: 0.01, x: 0.1 }, { from: 1, to: 3, r: 0.01, x: 0.1 }];
      const made = await call('POST', '/api/v1/networks', { name: 'geo', buses, branches });
      assert.equal(made.statusCode, 201, made.body);
      const id = json(made).data.id;
      const l = json(await call('GET', `/api/v1/networks/${id}/layout`)).data;
      assert.equal(l.source, 'coordinates');
      const shrink = Math.cos((59.5 * Math.PI) / 180);
      const want = [10 * shrink, 60, 10 * shrink, 59, 12 * shrink, 60];
      l.positions.forEach((v: number, k: number) => assert.ok(Math.abs(v - want[k]!) < 1e-9, `position ${k}: ${v} vs ${want[k]}`));
      assert.equal(json(await call('GET', `/api/v1/networks/${id}`)).data.buses[0].lat, 60);
      const g = ok(await gql(app, 'query($id: ID!) { network(id: $id) { buses { id lat lon } } }', { id }, admin)).network;
      assert.deepEqual(g.buses[2], { id: 3, lat: 60, lon: 12 });

      // one bus without coordinates: laid out around the pinned ones, which keep their geometry
      const mixed = json(await call('POST', '/api/v1/networks', { name: 'geo-mixed', buses: [...buses, { id: 4, type: 'pq' }], branches: [...branches, { from: 2, to: 4, r: 0.01, x: 0.1 }, { from: 3, to: 4, r: 0.01, x: 0.1 }] })).data.id;
      const m = json(await call('GET', `/api/v1/networks/${mixed}/layout`)).data;
      assert.equal(m.source, 'mixed');
      const p = m.positions as number[];
      assert.ok(Math.abs(p[1]! - p[5]!) < 1e-4, 'buses 1 and 3 (same latitude) level');
      assert.ok(p[1]! > p[3]!, 'bus 1 north of bus 2, y up');
      assert.ok(p[4]! > p[0]!, 'bus 3 east of bus 1');

      // half a coordinate is refused, naming the field (REST and GraphQL)
      const bad = await call('POST', '/api/v1/networks', { name: 'geo-bad', buses: [{ id: 1, type: 'slack', lat: 50 }] });
      assert.ok(bad.statusCode === 400 || bad.statusCode === 422, bad.body);
      assert.match(json(bad).error.message, /lat without lon/);
      const badG = await gql(app, 'mutation($input: NetworkInput!) { createNetwork(input: $input) { id } }', { input: { name: 'geo-bad', buses: [{ id: 1, type: 'SLACK', lon: 5 }] } }, admin);
      assert.match(badG.body.errors![0]!.message, /lon without lat/);
      assert.ok([400, 422].includes((await call('POST', '/api/v1/networks', { name: 'geo-far', buses: [{ id: 1, type: 'slack', lat: 91, lon: 0 }] })).statusCode));
    });

    it('reads and writes bus coordinates in MATPOWER cases (mpc.bus_geo)', async () => {
      const text = readFileSync(join(CASES_DIR, 'case9.m'), 'utf8') + '\nmpc.bus_geo = [\n\t1\t51.5\t-0.12;\n\t5\t48.85\t2.35;\n];\n';
      const r = await call('POST', '/api/v1/networks/import?format=matpower', text, { ...admin, 'content-type': 'text/plain' });
      assert.equal(r.statusCode, 201, r.body);
      const id = json(r).data.id;
      const buses = json(await call('GET', `/api/v1/networks/${id}`)).data.buses;
      assert.deepEqual([buses[0].lat, buses[0].lon, buses[4].lat, buses[4].lon, buses[1].lat], [51.5, -0.12, 48.85, 2.35, undefined]);
      assert.equal(json(await call('GET', `/api/v1/networks/${id}/layout`)).data.source, 'mixed');
      const out = (await call('GET', `/api/v1/networks/${id}/export?format=matpower`)).body;
      assert.match(out, /mpc\.bus_geo = \[\n\t1\t51\.5\t-0\.12;\n\t5\t48\.85\t2\.35;\n\];/);
      const bad = await call('POST', '/api/v1/networks/import?format=matpower', `${text}\nmpc.bus_geo = [\n\t99\t1\t2;\n];\n`.replace(/\nmpc\.bus_geo = \[\n\t1[^\]]*\];\n/, '\n'), { ...admin, 'content-type': 'text/plain' });
      assert.equal(bad.statusCode, 422, bad.body);
      assert.match(json(bad).error.message, /bus_geo/);
    });
  });
}
