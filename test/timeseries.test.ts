// Time series over REST in both modes: batch writes judged per point, limits,
// defaults and overwrites, aggregations per 1-minute bin checked against values
// computed here (avg, sum, min, max, count, percentiles), fill null/zero/linear/none
// over gaps, tag filters, limits and truncation, the daily quota, tenant isolation.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { MODES, startTestApp, json, type TestApp } from './helpers/app.js';
import { adminHeaders, tokenFor } from './helpers/auth.js';
import { rng } from '../src/lib/rng.js';

/** PostgreSQL's percentile_cont: linear interpolation between the closest ranks. */
function percentileCont(values: number[], p: number): number {
  const v = [...values].sort((a, b) => a - b);
  const pos = p * (v.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return v[lo] + (v[hi] - v[lo]) * (pos - lo);
}

const AGG: Record<string, (v: number[]) => number> = {
  avg: (v) => v.reduce((a, b) => a + b, 0) / v.length,
  sum: (v) => v.reduce((a, b) => a + b, 0),
  min: (v) => Math.min(...v),
  max: (v) => Math.max(...v),
  count: (v) => v.length,
  percentile_50: (v) => percentileCont(v, 0.5),
  percentile_95: (v) => percentileCont(v, 0.95),
  percentile_99: (v) => percentileCont(v, 0.99),
};

const close = (a: number | null, b: number | null, what: string) => {
  if (a === null || b === null) return assert.equal(a, b, what);
  assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: got ${a}, expected ${b}`);
};

// The data set: metric grid.load_mw, series site:a and site:b over 10:00-10:10 UTC.
// Minutes 0, 3, 4, 7 and 9 have no points; minute 5 only site a.
const FROM = Date.parse('2026-03-01T10:00:00Z');
const TO = FROM + 10 * 60_000;
const EMPTY = new Set([0, 3, 4, 7, 9]);
interface P { site: string; t: number; value: number }
function dataset(): P[] {
  const r = rng(42);
  const out: P[] = [];
  for (const site of ['a', 'b']) {
    for (let m = 0; m < 10; m++) {
      if (EMPTY.has(m) || (m === 5 && site === 'b')) continue;
      const seconds = new Set<number>();
      const n = 5 + Math.floor(r() * 20);
      while (seconds.size < n) seconds.add(Math.floor(r() * 60));
      for (const sec of seconds) out.push({ site, t: FROM + m * 60_000 + sec * 1000 + (site === 'b' ? 500 : 0), value: Math.round((r() * 200 - 50) * 1000) / 1000 });
    }
  }
  return out;
}

function expectedBins(points: P[], agg: string, sites: string[]): (number | null)[] {
  return Array.from({ length: 10 }, (_, m) => {
    const v = points.filter((p) => sites.includes(p.site) && p.t >= FROM + m * 60_000 && p.t < FROM + (m + 1) * 60_000).map((p) => p.value);
    return v.length ? AGG[agg](v) : null;
  });
}

for (const mode of MODES) {
  describe(`time series API (${mode})`, () => {
    let app: TestApp;
    let h: Record<string, string>;
    const data = dataset();
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = h) =>
      app.app!.inject({ method: method as 'GET', url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    const write = async (points: unknown[], headers = h) => {
      const res = await call('POST', '/api/v1/timeseries/batch', { points }, headers);
      return { status: res.statusCode, body: json(res), headers: res.headers };
    };
    const query = async (qs: string, headers = h) => {
      const res = await call('GET', `/api/v1/timeseries?${qs}`, undefined, headers);
      return { status: res.statusCode, body: json(res) };
    };
    const range = `from=${new Date(FROM).toISOString()}&to=${new Date(TO).toISOString()}`;
    const values = (b: any) => b.data.points.map((p: any) => p.value);

    before(async () => {
      app = await startTestApp(mode);
      h = await adminHeaders(app);
      const points = data.map((p) => ({ metric: 'grid.load_mw', timestamp: new Date(p.t).toISOString(), value: p.value, tags: { site: p.site, region: 'north' } }));
      // outside [from, to): must never count
      points.push({ metric: 'grid.load_mw', timestamp: new Date(FROM - 1000).toISOString(), value: 1e6, tags: { site: 'a', region: 'north' } });
      points.push({ metric: 'grid.load_mw', timestamp: new Date(TO).toISOString(), value: 1e6, tags: { site: 'a', region: 'north' } });
      const r = await write(points);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.data, { accepted: points.length, rejected: 0, errors: [] });
    });
    after(async () => app?.close());

    it('returns raw points in time order with the response fields', async () => {
      const r = await query(`metric=grid.load_mw&tags=site:a&${range}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const d = r.body.data;
      const mine = data.filter((p) => p.site === 'a').sort((x, y) => x.t - y.t);
      assert.equal(d.metric, 'grid.load_mw');
      assert.deepEqual(d.tags, { site: 'a' });
      assert.equal(d.aggregation, 'none');
      assert.equal(d.interval, null);
      assert.equal(d.count, mine.length);
      assert.equal(d.series, 1);
      assert.deepEqual(d.points.map((p: any) => Date.parse(p.timestamp)), mine.map((p) => p.t));
      assert.deepEqual(values(r.body), mine.map((p) => p.value));
      assert.match(d.points[0].timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.equal(r.body.meta.truncated, false);
    });

    it('aggregates per 1-minute bin exactly as computed here (one series and both)', async () => {
      for (const agg of Object.keys(AGG)) {
        for (const [tags, sites] of [['&tags=site:a', ['a']], ['', ['a', 'b']], ['&tags=region:north', ['a', 'b']]] as const) {
          const r = await query(`metric=grid.load_mw${tags}&${range}&aggregation=${agg}&interval=1m`);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          const d = r.body.data;
          assert.equal(d.aggregation, agg);
          assert.equal(d.interval, '1m');
          assert.equal(d.count, 10);
          assert.equal(d.series, sites.length);
          assert.deepEqual(d.points.map((p: any) => Date.parse(p.timestamp)), Array.from({ length: 10 }, (_, m) => FROM + m * 60_000));
          const want = expectedBins(data, agg, [...sites]);
          d.points.forEach((p: any, m: number) => close(p.value, agg === 'count' ? want[m] ?? 0 : want[m], `${agg} ${tags || 'all'} minute ${m}`));
        }
      }
    });

    it('accepts the percentile spellings p50/p95/p99, percentile_95 and PERCENTILE_95', async () => {
      const base = `metric=grid.load_mw&tags=site:b&${range}&interval=1m`;
      const want = values((await query(`${base}&aggregation=percentile_95`)).body);
      for (const spelling of ['p95', 'PERCENTILE_95', 'Percentile_95']) {
        const r = await query(`${base}&aggregation=${spelling}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.data.aggregation, 'percentile_95');
        assert.deepEqual(values(r.body), want);
      }
      assert.equal((await query(`${base}&aggregation=p50`)).body.data.aggregation, 'percentile_50');
      assert.equal((await query(`${base}&aggregation=p99`)).body.data.aggregation, 'percentile_99');
    });

    it('fills empty bins with null (default), zero, linear interpolation, or leaves them out (none)', async () => {
      const base = `metric=grid.load_mw&tags=site:a&${range}&aggregation=avg&interval=1m`;
      const want = expectedBins(data, 'avg', ['a']);
      assert.deepEqual(EMPTY, new Set(want.map((v, i) => (v === null ? i : -1)).filter((i) => i >= 0)));
      const dflt = (await query(base)).body.data;
      assert.equal(dflt.fill, 'null');
      dflt.points.forEach((p: any, m: number) => close(p.value, want[m], `null minute ${m}`));
      const zero = values((await query(`${base}&fill=zero`)).body);
      zero.forEach((v: number, m: number) => close(v, want[m] ?? 0, `zero minute ${m}`));
      const lin = values((await query(`${base}&fill=linear`)).body);
      const expectLin = [...want];
      expectLin[3] = want[2]! + (want[5]! - want[2]!) / 3;
      expectLin[4] = want[2]! + ((want[5]! - want[2]!) * 2) / 3;
      expectLin[7] = (want[6]! + want[8]!) / 2;
      // minute 0 has nothing before it and minute 9 nothing after: they stay null
      lin.forEach((v: number, m: number) => close(v, expectLin[m], `linear minute ${m}`));
      const none = (await query(`${base}&fill=none`)).body.data;
      assert.deepEqual(none.points.map((p: any) => (Date.parse(p.timestamp) - FROM) / 60_000), [1, 2, 5, 6, 8]);
      none.points.forEach((p: any) => close(p.value, want[(Date.parse(p.timestamp) - FROM) / 60_000], 'none'));
      // count: an empty bin counts 0 whatever the fill
      assert.deepEqual(values((await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=count&interval=1m&fill=linear`)).body).map((v: number) => v === 0), want.map((v) => v === null));
    });

    it('aggregates the whole range without interval, and over 5m and 30s bins', async () => {
      const all = data.filter((p) => p.site === 'a').map((p) => p.value);
      let r = await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=max`);
      assert.equal(r.body.data.count, 1);
      assert.equal(Date.parse(r.body.data.points[0].timestamp), FROM);
      close(r.body.data.points[0].value, Math.max(...all), 'max over range');
      r = await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=sum&interval=5m`);
      const first5 = data.filter((p) => p.site === 'a' && p.t < FROM + 300_000).map((p) => p.value);
      const last5 = data.filter((p) => p.site === 'a' && p.t >= FROM + 300_000).map((p) => p.value);
      close(r.body.data.points[0].value, AGG.sum(first5), 'sum 5m #0');
      close(r.body.data.points[1].value, AGG.sum(last5), 'sum 5m #1');
      r = await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=count&interval=30s`);
      assert.equal(r.body.data.count, 20);
      assert.equal(values(r.body).reduce((a: number, b: number) => a + b, 0), all.length);
      // bins are aligned to the epoch: a from inside a minute starts at that minute
      r = await query(`metric=grid.load_mw&tags=site:a&from=${new Date(FROM + 90_000).toISOString()}&to=${new Date(TO).toISOString()}&aggregation=count&interval=1m`);
      assert.equal(Date.parse(r.body.data.points[0].timestamp), FROM + 60_000);
      assert.equal(r.body.data.points[0].value, data.filter((p) => p.site === 'a' && p.t >= FROM + 90_000 && p.t < FROM + 120_000).length);
      // empty range: one bin of null (count 0), or nothing with fill=none
      const empty = `metric=nothing.here&${range}`;
      assert.deepEqual(values((await query(`${empty}&aggregation=avg`)).body), [null]);
      assert.deepEqual(values((await query(`${empty}&aggregation=count`)).body), [0]);
      assert.deepEqual(values((await query(`${empty}&aggregation=avg&fill=none`)).body), []);
      assert.equal((await query(empty)).body.data.count, 0);
      assert.equal((await query(empty)).body.data.series, 0);
    });

    it('limits points and bins, saying where to continue', async () => {
      let r = await query(`metric=grid.load_mw&tags=site:a&${range}&limit=5`);
      const mine = data.filter((p) => p.site === 'a').sort((x, y) => x.t - y.t);
      assert.equal(r.body.data.count, 5);
      assert.deepEqual(r.body.meta, { limit: 5, truncated: true, next_from: new Date(mine[5].t).toISOString() });
      r = await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=avg&interval=1m&limit=4&fill=linear`);
      assert.equal(r.body.data.count, 4);
      assert.equal(r.body.meta.truncated, true);
      assert.equal(r.body.meta.next_from, new Date(FROM + 4 * 60_000).toISOString());
      r = await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=avg&interval=1m&limit=10`);
      assert.equal(r.body.meta.truncated, false);
      r = await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=avg&interval=1m&fill=none&limit=2`);
      assert.deepEqual(r.body.data.points.map((p: any) => (Date.parse(p.timestamp) - FROM) / 60_000), [1, 2]);
      assert.equal(r.body.meta.next_from, new Date(FROM + 5 * 60_000).toISOString());
    });

    it('refuses bad queries with the right code', async () => {
      const cases: [string, number, string][] = [
        [range, 400, 'INVALID_REQUEST'], // no metric
        [`metric=m&to=${new Date(TO).toISOString()}`, 400, 'INVALID_REQUEST'], // no from
        [`metric=m&from=${new Date(FROM).toISOString()}`, 400, 'INVALID_REQUEST'], // no to
        [`metric=m&from=yesterday&to=${new Date(TO).toISOString()}`, 400, 'INVALID_FIELD'],
        [`metric=m&from=${new Date(TO).toISOString()}&to=${new Date(FROM).toISOString()}`, 422, 'VALIDATION_FAILED'],
        [`metric=m&${range}&aggregation=median_ish`, 400, 'INVALID_FIELD'],
        [`metric=m&${range}&aggregation=avg&interval=5x`, 400, 'INVALID_FIELD'],
        [`metric=m&${range}&aggregation=avg&interval=0m`, 400, 'INVALID_FIELD'],
        [`metric=m&${range}&aggregation=avg&interval=400d`, 422, 'PARAM_OUT_OF_RANGE'],
        [`metric=m&${range}&interval=1m`, 400, 'INVALID_FIELD'], // interval without aggregation
        [`metric=m&${range}&aggregation=avg&interval=1m&fill=previous`, 400, 'INVALID_FIELD'],
        [`metric=m&${range}&limit=0`, 422, 'PARAM_OUT_OF_RANGE'],
        [`metric=m&${range}&limit=100001`, 422, 'PARAM_OUT_OF_RANGE'],
        [`metric=m&${range}&tags=site`, 400, 'INVALID_FIELD'],
        [`metric=m&${range}&tags=site:a,site:b`, 400, 'INVALID_FIELD'],
        [`metric=m&${range}&colour=red`, 400, 'INVALID_REQUEST'],
      ];
      for (const [qs, status, code] of cases) {
        const r = await query(qs);
        assert.deepEqual([r.status, r.body.error?.code], [status, code], `${qs}: ${JSON.stringify(r.body)}`);
      }
    });

    it('judges each written point alone and reports rejected indexes', async () => {
      const t = new Date(FROM + 3600_000).toISOString();
      const r = await write([
        { metric: 'w.ok', timestamp: t, value: 1 },
        { timestamp: t, value: 1 }, // no metric
        { metric: 'w.ok', timestamp: t }, // no value
        { metric: 'w.ok', value: '3' }, // value not a number
        { metric: 'w.ok', timestamp: 'noon', value: 1 },
        { metric: 'w.ok', timestamp: '2026-02-30T00:00:00Z', value: 1 },
        { metric: 'w.ok', value: 1, tags: { site: 7 } },
        { metric: 'w.ok', value: 1, tags: ['x'] },
        { metric: 'w.ok', value: 1, tags: { 'a,b': 'x' } },
        { metric: 'w.ok', value: 1, unit: 'MW' },
        42,
        { metric: '', value: 1 },
        { metric: 'w.ok', timestamp: new Date(FROM + 3600_000 + 1000).toISOString(), value: 2, tags: { site: 'z' } },
      ]);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const d = r.body.data;
      assert.equal(d.accepted, 2);
      assert.equal(d.rejected, 11);
      assert.deepEqual(d.errors.map((e: any) => e.index), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      const msg = Object.fromEntries(d.errors.map((e: any) => [e.index, e.message]));
      assert.match(msg[1], /metric/);
      assert.match(msg[2], /value/);
      assert.match(msg[3], /number/);
      assert.match(msg[4], /RFC 3339/);
      assert.match(msg[6], /site/);
      assert.match(msg[9], /unit/);
      const q = await query(`metric=w.ok&from=${t}&to=${new Date(FROM + 7200_000).toISOString()}`);
      assert.deepEqual(values(q.body), [1, 2]);
    });

    it('refuses more than 10,000 points, an empty batch and a malformed body; takes 10,000 tagged points above 1 MB', async () => {
      const pts = (n: number) => Array.from({ length: n }, (_, i) => ({ metric: 'bulk.power_active_mw_measured', timestamp: new Date(FROM + i * 1000).toISOString(), value: i + 0.5, tags: { device: 'dev_0123456789abcdef', site: 'substation-north-07' } }));
      const big = await write(pts(10_001));
      assert.deepEqual([big.status, big.body.error.code], [422, 'VALIDATION_FAILED']);
      assert.match(big.body.error.message, /at most 10000 points, got 10001/);
      assert.equal(big.body.error.details.limit, 10000);
      const empty = await write([]);
      assert.deepEqual([empty.status, empty.body.error.code], [422, 'VALIDATION_FAILED']);
      assert.equal((await call('POST', '/api/v1/timeseries/batch', { points: 'all of them' })).statusCode, 400);
      assert.equal((await call('POST', '/api/v1/timeseries/batch', {})).statusCode, 400);
      const full = pts(10_000);
      assert.ok(JSON.stringify({ points: full }).length > 1024 * 1024, 'the batch is above 1 MB');
      const ok = await write(full);
      assert.equal(ok.status, 200, JSON.stringify(ok.body).slice(0, 300));
      assert.equal(ok.body.data.accepted, 10_000);
      const c = await query(`metric=bulk.power_active_mw_measured&from=${new Date(FROM).toISOString()}&to=${new Date(FROM + 10_000_000).toISOString()}&aggregation=count`);
      assert.deepEqual(values(c.body), [10_000]);
    });

    it('stamps points without timestamp with the current time; a rewrite of a (series, time) replaces the value', async () => {
      const before = Date.now();
      assert.equal((await write([{ metric: 'now.metric', value: 5 }])).body.data.accepted, 1);
      const r = await query(`metric=now.metric&from=${new Date(before - 1000).toISOString()}&to=${new Date(Date.now() + 1000).toISOString()}`);
      assert.equal(r.body.data.count, 1);
      assert.ok(Math.abs(Date.parse(r.body.data.points[0].timestamp) - before) < 5000);
      const t = '2026-04-01T00:00:00.250Z';
      const w = await write([{ metric: 'dup', timestamp: t, value: 1 }, { metric: 'dup', timestamp: '2026-04-01T02:00:00.250+02:00', value: 2 }]);
      assert.equal(w.body.data.accepted, 2, 'both accepted; the later one wins');
      const qs = `metric=dup&from=2026-04-01T00:00:00Z&to=2026-04-01T00:01:00Z`;
      assert.deepEqual(values((await query(qs)).body), [2]);
      assert.equal((await write([{ metric: 'dup', timestamp: t, value: 3 }, { metric: 'dup', timestamp: '2026-04-01T00:00:01Z', value: 4 }])).body.data.accepted, 2);
      assert.deepEqual(values((await query(qs)).body), [3, 4], 'a stored point is overwritten, new ones added, in one batch');
      // tags are a set: key order does not make another series
      await write([{ metric: 'ord', timestamp: t, value: 1, tags: { a: '1', b: '2' } }, { metric: 'ord', timestamp: '2026-04-01T00:00:02Z', value: 2, tags: { b: '2', a: '1' } }]);
      assert.equal((await query(`metric=ord&from=2026-04-01T00:00:00Z&to=2026-04-01T00:01:00Z`)).body.data.series, 1);
    });

    it('enforces the daily write quota (points and bytes), refusing with 429 and a clear message', async () => {
      const tenant = `tsq${mode.slice(0, 1)}${Date.now().toString(36)}`;
      const op = await tokenFor(app, 'operator', tenant);
      const set = await call('PUT', `/api/v1/admin/tenants/${tenant}/quota`, { timeseries_daily_points: 100, reason: 'time-series quota test' });
      assert.equal(set.statusCode, 200, set.body);
      const pts = (n: number, off = 0) => Array.from({ length: n }, (_, i) => ({ metric: 'q.m', timestamp: new Date(FROM + (off + i) * 1000).toISOString(), value: i }));
      assert.equal((await write(pts(80), op)).body.data.accepted, 80);
      const part = await write(pts(30, 80), op);
      assert.equal(part.status, 200);
      assert.equal(part.body.data.accepted, 20);
      assert.equal(part.body.data.rejected, 10);
      assert.deepEqual(part.body.data.errors.map((e: any) => e.index), Array.from({ length: 10 }, (_, i) => 20 + i));
      assert.match(part.body.data.errors[0].message, /daily time-series quota/);
      const refused = await write(pts(5, 200), op);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, 'RATE_LIMITED');
      assert.match(refused.body.error.message, /daily time-series quota/);
      assert.equal(refused.body.error.details.scope, 'tenant');
      assert.ok(Number(refused.headers['retry-after']) > 0);
      // what was refused was not stored; what was accepted was
      const c = await query(`metric=q.m&from=${new Date(FROM).toISOString()}&to=${new Date(FROM + 3600_000).toISOString()}&aggregation=count`, op);
      assert.deepEqual(values(c.body), [100]);
      // the default tenant is not affected
      assert.equal((await write(pts(5, 500))).status, 200);
      // bytes: a tenant at its storage quota is refused too
      const tenant2 = `tsb${mode.slice(0, 1)}${Date.now().toString(36)}`;
      const op2 = await tokenFor(app, 'operator', tenant2);
      const limitBytes = 10 * 1e9; // plan pro: 10 GB per day
      await app.services.db.query(
        `INSERT INTO tenant_usage_daily (tenant_id, day, points, bytes) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, 0, $2)
         ON CONFLICT (tenant_id, day) DO UPDATE SET bytes = EXCLUDED.bytes`, [tenant2, limitBytes - 100]);
      const b = await write(pts(10), op2); // each point is 16 + 3 bytes: 5 fit in 100
      assert.equal(b.body.data.accepted, 5);
      assert.equal((await write(pts(1, 50), op2)).status, 429);
    });

    it('keeps tenants apart', async () => {
      const other = await tokenFor(app, 'operator', `tsi${mode.slice(0, 1)}${Date.now().toString(36)}`);
      let r = await query(`metric=grid.load_mw&${range}`, other);
      assert.equal(r.body.data.count, 0);
      assert.equal(r.body.data.series, 0);
      await write([{ metric: 'grid.load_mw', timestamp: new Date(FROM + 1000).toISOString(), value: -7, tags: { site: 'a', region: 'north' } }], other);
      r = await query(`metric=grid.load_mw&${range}`, other);
      assert.deepEqual(values(r.body), [-7]);
      r = await query(`metric=grid.load_mw&tags=site:a&${range}&aggregation=min`);
      close(values(r.body)[0], Math.min(...data.filter((p) => p.site === 'a').map((p) => p.value)), 'default tenant min unaffected');
      const viewer = await tokenFor(app, 'viewer');
      assert.equal((await query(`metric=grid.load_mw&${range}`, viewer)).status, 200);
      assert.equal((await write([{ metric: 'x', value: 1 }], viewer)).status, 403);
      assert.equal((await write([{ metric: 'x', value: 1 }], {})).status, 401);
    });
  });
}
