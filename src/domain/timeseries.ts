// Time series: bulk writes under a daily per-tenant quota, and range queries
// aggregated in SQL (date_bin + aggregates + percentile_cont, fill over
// generate_series bins). Layout and rules: docs/timeseries.md.
import { AGGREGATIONS, type Aggregation } from '../schemas/vocabulary.js';
import type { Database } from '../db/database.js';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { parseDateTime } from '../lib/time.js';
import { consumeTimeseriesQuota, getQuotas } from '../security/quotas.js';
import { PointBudget, pointGate, TS_QUERY_LIMIT_DEFAULT, TS_QUERY_LIMIT_MAX } from './timeseriesBudget.js';
import type { Static } from '@sinclair/typebox';
import type { WriteResult as WriteResultSchema } from '../schemas/timeseries.js';

export { TS_QUERY_LIMIT_DEFAULT, TS_QUERY_LIMIT_MAX };
export const TS_BATCH_MAX = 10_000;
const METRIC_MAX = 200;
const TAGS_MAX = 32;
const TAG_KEY_MAX = 64;
const TAG_VALUE_MAX = 256;

// ---------------------------------------------------------------- quota
// The daily quota (timeseries_daily_points, timeseries_daily_gb per UTC day) is the
// security module's: its effective quotas and its atomic counter in tenant_usage_daily.
// Here only: a batch that does not fit whole keeps the longest prefix that does.

const GB = 1e9;

/** Reserves quota for the longest prefix of the points that fits; returns its size and bytes. */
async function reserve(s: Services, caller: Caller, sizes: Float64Array): Promise<{ n: number; bytes: number }> {
  let bytes = 0;
  for (const b of sizes) bytes += b;
  let refusal: unknown;
  try {
    await consumeTimeseriesQuota(s, caller, sizes.length, bytes);
    return { n: sizes.length, bytes };
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'RATE_LIMITED') throw e;
    refusal = e;
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const quotas = await getQuotas(s, caller.tenantId);
    const { rows } = await s.db.query<{ points: number; bytes: number }>(
      `SELECT points, bytes FROM tenant_usage_daily WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`, [caller.tenantId]);
    let roomPoints = quotas.timeseries_daily_points - Number(rows[0]?.points ?? 0);
    let roomBytes = Math.round(quotas.timeseries_daily_gb * GB) - Number(rows[0]?.bytes ?? 0);
    let n = 0;
    bytes = 0;
    while (n < sizes.length && roomPoints > 0 && sizes[n] <= roomBytes) {
      roomPoints--;
      roomBytes -= sizes[n];
      bytes += sizes[n++];
    }
    if (n === 0) break;
    try {
      await consumeTimeseriesQuota(s, caller, n, bytes);
      return { n, bytes };
    } catch (e) {
      if (!(e instanceof AppError) || e.code !== 'RATE_LIMITED') throw e;
      refusal = e; // a concurrent writer took the room: look again
    }
  }
  throw refusal;
}

async function refund(s: Services, tenantId: string, n: number, bytes: number) {
  await s.db.query(
    `UPDATE tenant_usage_daily SET points = GREATEST(points - $2, 0), bytes = GREATEST(bytes - $3, 0) WHERE tenant_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
    [tenantId, n, bytes]);
}

// ---------------------------------------------------------------- writes

export interface PointInput {
  metric: string;
  timestamp?: string;
  value: number;
  tags?: Record<string, string>;
}

export type WriteResult = Static<typeof WriteResultSchema>;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');
const MIN_MS = Date.UTC(1970, 0, 1);
const MAX_MS = Date.UTC(10000, 0, 1) - 1;

/** Tags as canonical JSON (sorted keys) or a message saying what is wrong. */
function canonicalTags(tags: unknown): string | { error: string } {
  if (tags === undefined || tags === null) return '{}';
  if (typeof tags !== 'object' || Array.isArray(tags)) return { error: 'tags must be an object of strings' };
  const keys = Object.keys(tags).sort();
  if (keys.length > TAGS_MAX) return { error: `at most ${TAGS_MAX} tags per point, got ${keys.length}` };
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = (tags as Record<string, unknown>)[k];
    if (k === '' || k.length > TAG_KEY_MAX || /[,:]/.test(k) || CONTROL.test(k)) return { error: `tag key ${JSON.stringify(k)} must be 1-${TAG_KEY_MAX} characters without ',' ':' or control characters` };
    if (typeof v !== 'string') return { error: `tag ${k} must be a string, got ${v === null ? 'null' : typeof v}` };
    if (v.length > TAG_VALUE_MAX || v.includes(',') || CONTROL.test(v)) return { error: `tag ${k}: value must be at most ${TAG_VALUE_MAX} characters without ',' or control characters` };
    out[k] = v;
  }
  return JSON.stringify(out);
}

// Judging 10,000 points must cost little next to the INSERT: tag sets and metric
// names repeat across points and batches, so their checks are memoised (bounded).
type TagVerdict = { key: string; bytes: number } | { error: string };
const tagMemo = new Map<string, TagVerdict>();
const metricMemo = new Map<string, number | string>(); // bytes, or the error message
const MEMO_MAX = 50_000;

function judgeTags(tags: unknown): TagVerdict {
  if (tags === undefined || tags === null) return EMPTY_TAGS;
  if (typeof tags !== 'object' || Array.isArray(tags)) return { error: 'tags must be an object of strings' };
  const raw = JSON.stringify(tags);
  let v = tagMemo.get(raw);
  if (!v) {
    const c = canonicalTags(tags);
    v = typeof c === 'string' ? { key: c, bytes: c === '{}' ? 0 : utf8(c) } : c;
    if (tagMemo.size >= MEMO_MAX) tagMemo.clear();
    tagMemo.set(raw, v);
  }
  return v;
}
const EMPTY_TAGS: TagVerdict = { key: '{}', bytes: 0 };

function judgeMetric(metric: unknown): number | string {
  if (typeof metric !== 'string' || metric.length === 0) return 'metric is required (a non-empty string)';
  let v = metricMemo.get(metric);
  if (v === undefined) {
    v = metric.length > METRIC_MAX || CONTROL.test(metric) ? `metric must be at most ${METRIC_MAX} characters without control characters` : utf8(metric);
    if (metricMemo.size >= MEMO_MAX) metricMemo.clear();
    metricMemo.set(metric, v);
  }
  return v;
}

const RFC3339_PARTS = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Epoch milliseconds of an RFC 3339 timestamp (sub-millisecond digits dropped), or NaN.
 *  Strict: 2026-02-30 or 24:00 are refused (Date.parse would roll them over). */
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, mo: number) => (mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : DAYS[mo - 1]);

/** Digits of s from i to j (exclusive) as a number, or -1. */
function digits(s: string, i: number, j: number): number {
  let n = 0;
  for (; i < j; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

function parseTimestamp(t: unknown): number {
  if (typeof t !== 'string') return NaN;
  // Fast path for what clients send most: 2026-01-31T12:00:00.000Z (toISOString).
  if (t.length === 24 && t.charCodeAt(23) === 90 && t.charCodeAt(10) === 84 && t.charCodeAt(4) === 45 && t.charCodeAt(7) === 45
    && t.charCodeAt(13) === 58 && t.charCodeAt(16) === 58 && t.charCodeAt(19) === 46) {
    const y = digits(t, 0, 4), mo = digits(t, 5, 7), d = digits(t, 8, 10), h = digits(t, 11, 13), mi = digits(t, 14, 16), sec = digits(t, 17, 19), ms = digits(t, 20, 23);
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 || ms < 0) return NaN;
    return Date.UTC(y, mo - 1, d, h, mi, sec, ms);
  }
  const m = RFC3339_PARTS.exec(t);
  if (!m) return NaN;
  const y = +m[1], mo = +m[2], d = +m[3], h = +m[4], mi = +m[5], sec = +m[6];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59) return NaN;
  let ms = Date.UTC(y, mo - 1, d, h, mi, sec, m[7] ? +m[7].slice(0, 3).padEnd(3, '0') : 0);
  if (m[8]) {
    const oh = +m[9], om = +m[10];
    if (oh > 23 || om > 59) return NaN;
    ms -= (m[8] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return ms >= MIN_MS && ms <= MAX_MS ? ms : NaN;
}

// Series ids by database -> tenant -> metric -> canonical tags, per process. Only
// committed series enter it. Keyed by the database too: one process may hold several
// (tests run embedded and distributed side by side), and ids are per database.
type SeriesCache = { byTenant: Map<string, Map<string, Map<string, number>>>; size: number };
const seriesCaches = new WeakMap<Database, SeriesCache>();
const SERIES_CACHE_MAX = 200_000;

function cacheOf(db: Database): SeriesCache {
  let c = seriesCaches.get(db);
  if (!c) seriesCaches.set(db, (c = { byTenant: new Map(), size: 0 }));
  return c;
}
function cachedSeries(c: SeriesCache, tenantId: string, metric: string, tagsKey: string): number | undefined {
  return c.byTenant.get(tenantId)?.get(metric)?.get(tagsKey);
}
function cacheSeries(c: SeriesCache, tenantId: string, metric: string, tagsKey: string, id: number) {
  if (c.size >= SERIES_CACHE_MAX) {
    c.byTenant.clear();
    c.size = 0;
  }
  let byMetric = c.byTenant.get(tenantId);
  if (!byMetric) c.byTenant.set(tenantId, (byMetric = new Map()));
  let byTags = byMetric.get(metric);
  if (!byTags) byMetric.set(metric, (byTags = new Map()));
  if (!byTags.has(tagsKey)) c.size++;
  byTags.set(tagsKey, id);
}

/** Series ids of the given (metric, canonical tags) pairs, creating the missing series. */
async function resolveSeries(db: Database, tenantId: string, wanted: { metric: string; tagsKey: string }[]): Promise<number[]> {
  const cache = cacheOf(db);
  const ids = wanted.map((w) => cachedSeries(cache, tenantId, w.metric, w.tagsKey) ?? -1);
  // Insert-or-find in one statement; a series created concurrently by another
  // transaction is invisible to this statement's snapshot, hence the retry.
  for (let attempt = 0; attempt < 3; attempt++) {
    const missing = wanted.filter((_, i) => ids[i] < 0);
    if (missing.length === 0) return ids;
    const input = JSON.stringify(missing.map((m) => ({ metric: m.metric, tags: JSON.parse(m.tagsKey) })));
    const { rows } = await db.query<{ id: number; metric: string; tags: Record<string, string> }>(
      `WITH input AS (SELECT DISTINCT metric, tags FROM jsonb_to_recordset($2::jsonb) AS x(metric text, tags jsonb)),
            ins AS (INSERT INTO timeseries_series (tenant_id, metric, tags) SELECT $1, metric, tags FROM input
                    ON CONFLICT (tenant_id, metric, tags) DO NOTHING RETURNING id, metric, tags)
       SELECT id, metric, tags FROM ins
       UNION ALL
       SELECT s.id, s.metric, s.tags FROM timeseries_series s JOIN input i ON s.tenant_id = $1 AND s.metric = i.metric AND s.tags = i.tags`,
      [tenantId, input],
    );
    for (const r of rows) cacheSeries(cache, tenantId, r.metric, canonicalTags(r.tags) as string, Number(r.id));
    wanted.forEach((w, i) => {
      if (ids[i] < 0) ids[i] = cachedSeries(cache, tenantId, w.metric, w.tagsKey) ?? -1;
    });
  }
  if (ids.some((id) => id < 0)) throw new AppError('SERVICE_UNAVAILABLE', 'time series could not be registered under concurrent writes; retry the batch');
  return ids;
}

/** Forgets cached series ids of a database (after tables were dropped or rebuilt). */
export function clearSeriesCache(db: Database): void {
  seriesCaches.delete(db);
}

/**
 * Writes a batch of points (at most 10,000). Each point is judged alone: bad points
 * and points beyond the daily quota are rejected with their index, the rest stored
 * in one statement. A point with the series and timestamp of a stored one replaces it
 * (within a batch, the later point wins).
 */
export async function writeTimeseries(s: Services, caller: Caller, points: unknown): Promise<WriteResult> {
  if (!Array.isArray(points)) throw new AppError('INVALID_REQUEST', 'points must be an array of {metric, value, timestamp?, tags?}', { field: 'points' });
  if (points.length === 0) throw new AppError('VALIDATION_FAILED', 'points is empty; send at least one point', { field: 'points' });
  if (points.length > TS_BATCH_MAX) {
    throw new AppError('VALIDATION_FAILED', `a batch holds at most ${TS_BATCH_MAX} points, got ${points.length}; split it into several calls`, { field: 'points', limit: TS_BATCH_MAX, got: points.length });
  }
  const nowMs = Date.now(); // the timestamp of points that carry none
  const errors: { index: number; message: string }[] = [];
  // The good points, in parallel arrays (no object per point).
  const n = points.length;
  const index = new Uint32Array(n);
  const slot = new Int32Array(n); // which series of `series`
  const ms = new Float64Array(n);
  const value = new Float64Array(n);
  const bytes = new Float64Array(n);
  const series: { metric: string; tagsKey: string }[] = [];
  const slots = new Map<string, Map<string, number>>(); // metric -> tags key -> slot
  let g = 0;
  for (let i = 0; i < n; i++) {
    const p = points[i] as Record<string, unknown>;
    if (p === null || typeof p !== 'object' || Array.isArray(p)) {
      errors.push({ index: i, message: 'a point must be an object {metric, value, timestamp?, tags?}' });
      continue;
    }
    let extra: string | undefined;
    for (const k in p) if (k !== 'metric' && k !== 'value' && k !== 'timestamp' && k !== 'tags') { extra = k; break; }
    if (extra !== undefined) {
      errors.push({ index: i, message: `unknown field "${extra}" (a point has metric, value, timestamp, tags)` });
      continue;
    }
    const m = judgeMetric(p.metric);
    if (typeof m === 'string') {
      errors.push({ index: i, message: m });
      continue;
    }
    const v = p.value;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      errors.push({ index: i, message: v === undefined || v === null ? 'value is required (a number)' : `value must be a finite number, got ${JSON.stringify(v)}` });
      continue;
    }
    let t = nowMs;
    if (p.timestamp !== undefined && p.timestamp !== null) {
      t = parseTimestamp(p.timestamp);
      if (Number.isNaN(t)) {
        errors.push({ index: i, message: `timestamp must be an RFC 3339 date-time between 1970 and 9999 such as 2026-01-31T12:00:00Z, got ${JSON.stringify(p.timestamp)}` });
        continue;
      }
    }
    const tv = judgeTags(p.tags);
    if ('error' in tv) {
      errors.push({ index: i, message: tv.error });
      continue;
    }
    const metric = p.metric as string;
    let byTags = slots.get(metric);
    if (!byTags) slots.set(metric, (byTags = new Map()));
    let sl = byTags.get(tv.key);
    if (sl === undefined) {
      sl = series.length;
      series.push({ metric, tagsKey: tv.key });
      byTags.set(tv.key, sl);
    }
    index[g] = i;
    slot[g] = sl;
    ms[g] = t;
    value[g] = v;
    bytes[g] = 16 + m + tv.bytes;
    g++;
  }
  if (g === 0) return { accepted: 0, rejected: errors.length, errors };

  const tenantId = caller.tenantId;
  const reserved = await reserve(s, caller, bytes.subarray(0, g)); // 429 RATE_LIMITED when nothing fits
  const stored = reserved.n;
  if (stored < g) {
    const quotas = await getQuotas(s, tenantId);
    for (let k = stored; k < g; k++) {
      errors.push({ index: index[k], message: `rejected: the tenant's daily time-series quota (${quotas.timeseries_daily_points} points, ${quotas.timeseries_daily_gb} GB per UTC day) is used up; writes resume at 00:00 UTC` });
    }
  }

  try {
    const ids = await resolveSeries(s.db, tenantId, series);
    // Sorted by (series, time), the later point of the batch last: duplicates of a
    // (series, time) keep the later one, and the index sees ordered inserts.
    const order = new Uint32Array(stored);
    for (let k = 0; k < stored; k++) order[k] = k;
    order.sort((a, b) => slot[a] - slot[b] || ms[a] - ms[b] || a - b);
    const rowIds: number[] = [];
    const rowMs: number[] = [];
    const rowValues: number[] = [];
    for (let k = 0; k < stored; k++) {
      const a = order[k];
      const b = k + 1 < stored ? order[k + 1] : -1;
      if (b >= 0 && slot[a] === slot[b] && ms[a] === ms[b]) continue; // a later point replaces it
      rowIds.push(ids[slot[a]]);
      rowMs.push(ms[a]);
      rowValues.push(value[a]);
    }
    await insertPoints(s.db, rowIds, rowMs, rowValues);
  } catch (e) {
    await refund(s, tenantId, reserved.n, reserved.bytes).catch(() => {});
    throw e;
  }
  if (errors.length > 1) errors.sort((a, b) => a.index - b.index);
  return { accepted: stored, rejected: errors.length, errors };
}

/** One INSERT of every row through unnest over three array parameters (array literals built here). */
export async function insertPoints(db: Database, ids: number[], ms: number[], values: number[]): Promise<void> {
  if (ids.length === 0) return;
  const params = [`{${ids.join(',')}}`, `{${ms.join(',')}}`, `{${values.join(',')}}`];
  // Timestamps travel as integer epoch milliseconds (cheaper to parse than timestamptz
  // text): to_timestamp(ms / 1000.0) is exact to the millisecond (the double rounds to
  // the right microsecond for years 1970-9999).
  const insert = `INSERT INTO timeseries_points (series_id, ts, value)
    SELECT id, to_timestamp(ms::float8 / 1000), v FROM unnest($1::bigint[], $2::int8[], $3::float8[]) AS u(id, ms, v)`;
  // New points are the common case and a plain INSERT costs about half of an upsert;
  // only a batch that rewrites stored points (unique violation) pays for ON CONFLICT.
  try {
    await db.query(insert, params);
  } catch (e) {
    if ((e as { code?: string }).code !== '23505') throw e;
    await db.query(`${insert} ON CONFLICT (series_id, ts) DO UPDATE SET value = EXCLUDED.value`, params);
  }
}

// ---------------------------------------------------------------- queries

export { AGGREGATIONS, type Aggregation };
/** Accepted spellings: the REST names, p50/p95/p99, and the GraphQL enum names in any case. */
export const AGGREGATION_ALIASES: Record<string, Aggregation> = {
  ...Object.fromEntries(AGGREGATIONS.map((a) => [a, a])),
  p50: 'percentile_50', p95: 'percentile_95', p99: 'percentile_99', median: 'percentile_50',
};
export type Fill = 'null' | 'zero' | 'linear' | 'none';
export const FILLS: readonly Fill[] = ['null', 'zero', 'linear', 'none'];

export interface TimeseriesQuery {
  metric: string;
  /** "k:v,k2:v2" (REST) or an object (GraphQL); series must carry all of them. */
  tags?: string | Record<string, string> | null;
  from: string | Date;
  to: string | Date;
  aggregation?: string | null;
  interval?: string | null;
  fill?: string | null;
  limit?: number | null;
}

export interface TimeseriesResult {
  metric: string;
  tags: Record<string, string>;
  aggregation: Aggregation;
  interval: string | null;
  fill: Fill;
  points: { timestamp: Date; value: number | null }[];
  count: number;
  /** Series matched by metric and tags (aggregates combine them). */
  series: number;
  /** More points/bins exist in [from, to) than limit allowed; query again from next_from. */
  truncated: boolean;
  next_from: Date | null;
}

export function parseTagFilter(tags: TimeseriesQuery['tags']): Record<string, string> {
  if (tags === undefined || tags === null || tags === '') return {};
  if (typeof tags === 'object') {
    const c = canonicalTags(tags);
    if (typeof c !== 'string') throw new AppError('INVALID_FIELD', c.error, { field: 'tags' });
    return JSON.parse(c);
  }
  const out: Record<string, string> = {};
  for (const part of tags.split(',')) {
    const i = part.indexOf(':');
    const k = i > 0 ? part.slice(0, i).trim() : '';
    if (!k) throw new AppError('INVALID_FIELD', `tags must look like key:value,key2:value2, got "${tags}"`, { field: 'tags' });
    const v = part.slice(i + 1).trim();
    if (k in out && out[k] !== v) throw new AppError('INVALID_FIELD', `tags names ${k} twice with different values`, { field: 'tags' });
    out[k] = v;
  }
  return out;
}

/** "30s", "1m", "5m", "1h", "1d": <n><s|m|h|d>, 1 second to 366 days. Returns seconds. */
export function parseInterval(v: string): number {
  const m = /^(\d{1,7})(s|m|h|d)$/.exec(v.trim());
  const secs = m ? Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's']! : NaN;
  if (!m || secs < 1) throw new AppError('INVALID_FIELD', `interval must be <n><s|m|h|d> such as 30s, 1m, 5m, 15m, 1h, 1d; got "${v}"`, { field: 'interval' });
  if (secs > 366 * 86400) throw new AppError('PARAM_OUT_OF_RANGE', `interval must be at most 366d, got "${v}"`, { field: 'interval', limit: '366d' });
  return secs;
}

const AGG_SQL: Record<Exclude<Aggregation, 'none'>, string> = {
  avg: 'avg(value)',
  sum: 'sum(value)',
  max: 'max(value)',
  min: 'min(value)',
  count: 'count(*)::float8',
  percentile_50: 'percentile_cont(0.5) WITHIN GROUP (ORDER BY value)',
  percentile_95: 'percentile_cont(0.95) WITHIN GROUP (ORDER BY value)',
  percentile_99: 'percentile_cont(0.99) WITHIN GROUP (ORDER BY value)',
};

const ORIGIN = '1970-01-01T00:00:00Z'; // bins are aligned to the epoch (UTC), whatever `from` is

function normalise(q: TimeseriesQuery) {
  if (typeof q.metric !== 'string' || q.metric === '') throw new AppError('INVALID_REQUEST', 'metric is required', { field: 'metric' });
  if (q.from === undefined || q.from === null || q.from === '') throw new AppError('INVALID_REQUEST', 'from is required (RFC 3339)', { field: 'from' });
  if (q.to === undefined || q.to === null || q.to === '') throw new AppError('INVALID_REQUEST', 'to is required (RFC 3339)', { field: 'to' });
  const from = q.from instanceof Date ? q.from : parseDateTime('from', q.from);
  const to = q.to instanceof Date ? q.to : parseDateTime('to', q.to);
  if (from.getTime() >= to.getTime()) throw new AppError('VALIDATION_FAILED', `from (${from.toISOString()}) must be before to (${to.toISOString()})`, { field: 'from' });
  const aggName = (q.aggregation ?? 'none').toString().toLowerCase();
  const aggregation = AGGREGATION_ALIASES[aggName];
  if (!aggregation) throw new AppError('INVALID_FIELD', `aggregation must be one of ${AGGREGATIONS.join(', ')} (or p50, p95, p99), got "${q.aggregation}"`, { field: 'aggregation', allowed: [...AGGREGATIONS, 'p50', 'p95', 'p99'] });
  const fillName = (q.fill ?? 'null').toString().toLowerCase();
  if (!FILLS.includes(fillName as Fill)) throw new AppError('INVALID_FIELD', `fill must be one of ${FILLS.join(', ')}, got "${q.fill}"`, { field: 'fill', allowed: FILLS });
  const interval = q.interval === undefined || q.interval === null || q.interval === '' ? null : q.interval;
  const intervalSecs = interval === null ? null : parseInterval(interval);
  if (intervalSecs !== null && aggregation === 'none') {
    throw new AppError('INVALID_FIELD', `interval ${interval} needs an aggregation (avg, sum, min, max, count, percentile_50/95/99) to combine the points of each bin`, { field: 'aggregation' });
  }
  const limit = q.limit ?? TS_QUERY_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > TS_QUERY_LIMIT_MAX) {
    throw new AppError('PARAM_OUT_OF_RANGE', `limit must be an integer between 1 and ${TS_QUERY_LIMIT_MAX}, got ${q.limit}`, { field: 'limit', limit: TS_QUERY_LIMIT_MAX });
  }
  // The count of an empty bin is a true 0, not missing data: count fills with zero.
  const fill = aggregation === 'count' && fillName !== 'none' ? 'zero' : (fillName as Fill);
  return { metric: q.metric, tags: parseTagFilter(q.tags), from, to, aggregation, interval, intervalSecs, fill, limit };
}

/**
 * Points of a metric in [from, to), raw or aggregated per interval bin, with gaps filled.
 * The query takes its limit from the request's point budget first (a fresh one by
 * default), so no request materialises more than the budget, filled bins included.
 */
export async function queryTimeseries(s: Services, caller: Caller, query: TimeseriesQuery, budget: PointBudget = new PointBudget()): Promise<TimeseriesResult> {
  const q = normalise(query);
  budget.take(q.limit);
  const release = await pointGate.acquire(q.limit);
  try {
    return await runQuery(s, caller, q);
  } finally {
    release();
  }
}

async function runQuery(s: Services, caller: Caller, q: ReturnType<typeof normalise>): Promise<TimeseriesResult> {
  const { rows: series } = await s.db.query<{ id: number }>(
    'SELECT id FROM timeseries_series WHERE tenant_id = $1 AND metric = $2 AND tags @> $3::jsonb',
    [caller.tenantId, q.metric, JSON.stringify(q.tags)],
  );
  const ids = `{${series.map((r) => Number(r.id)).join(',')}}`;
  const base = { metric: q.metric, tags: q.tags, aggregation: q.aggregation, interval: q.interval, fill: q.fill, series: series.length };
  const done = (points: { timestamp: Date; value: number | null }[], next: Date | null): TimeseriesResult =>
    ({ ...base, points, count: points.length, truncated: next !== null, next_from: next });
  const toNum = (v: unknown) => (v === null || v === undefined ? null : Number(v));

  if (q.aggregation === 'none') {
    const { rows } = await s.db.query<{ ts: Date; value: number }>(
      `SELECT ts, value FROM timeseries_points WHERE series_id = ANY($1::bigint[]) AND ts >= $2 AND ts < $3 ORDER BY ts, series_id LIMIT $4`,
      [ids, q.from, q.to, q.limit + 1],
    );
    const next = rows.length > q.limit ? new Date(rows[q.limit].ts) : null;
    return done(rows.slice(0, q.limit).map((r) => ({ timestamp: new Date(r.ts), value: Number(r.value) })), next);
  }

  const agg = AGG_SQL[q.aggregation];
  const emptyValue = (v: number | null) => (v !== null ? v : q.fill === 'zero' ? 0 : null);

  if (q.intervalSecs === null) {
    // One bin over the whole range, stamped with `from`.
    const { rows } = await s.db.query<{ v: number | null; n: number }>(
      `SELECT ${agg} AS v, count(*)::float8 AS n FROM timeseries_points WHERE series_id = ANY($1::bigint[]) AND ts >= $2 AND ts < $3`,
      [ids, q.from, q.to],
    );
    const n = Number(rows[0]?.n ?? 0);
    if (n === 0 && q.fill === 'none') return done([], null);
    return done([{ timestamp: q.from, value: n === 0 ? emptyValue(null) : toNum(rows[0].v) }], null);
  }

  const step = q.intervalSecs * 1000;
  const origin = Date.parse(ORIGIN);
  const firstBin = origin + Math.floor((q.from.getTime() - origin) / step) * step;
  const totalBins = Math.floor((q.to.getTime() - 1 - firstBin) / step) + 1;
  const interval = `${q.intervalSecs} seconds`;

  if (q.fill === 'none') {
    // Only bins holding points.
    const { rows } = await s.db.query<{ b: Date; v: number }>(
      `SELECT date_bin($4::interval, ts, $5::timestamptz) AS b, ${agg} AS v FROM timeseries_points
       WHERE series_id = ANY($1::bigint[]) AND ts >= $2 AND ts < $3 GROUP BY 1 ORDER BY 1 LIMIT $6`,
      [ids, q.from, q.to, interval, ORIGIN, q.limit + 1],
    );
    const next = rows.length > q.limit ? new Date(rows[q.limit].b) : null;
    return done(rows.slice(0, q.limit).map((r) => ({ timestamp: new Date(r.b), value: toNum(r.v) })), next);
  }

  // Every bin of the window, at most `limit` of them; points beyond the window are not read.
  const nBins = Math.min(totalBins, q.limit);
  const lastBin = new Date(firstBin + (nBins - 1) * step);
  const windowEnd = new Date(Math.min(q.to.getTime(), firstBin + nBins * step));
  const next = nBins < totalBins ? new Date(firstBin + nBins * step) : null;
  const params = [ids, q.from, windowEnd, interval, ORIGIN, new Date(firstBin), lastBin];
  const ctes = `
    WITH agg AS (
      SELECT date_bin($4::interval, ts, $5::timestamptz) AS b, ${agg} AS v FROM timeseries_points
      WHERE series_id = ANY($1::bigint[]) AND ts >= $2 AND ts < $3 GROUP BY 1
    ), bins AS (
      SELECT generate_series($6::timestamptz, $7::timestamptz, $4::interval) AS b
    ), j AS (
      SELECT bins.b, agg.v FROM bins LEFT JOIN agg ON agg.b = bins.b
    )`;
  let sql: string;
  if (q.fill === 'linear') {
    // Linear interpolation in SQL: each empty bin takes the straight line between the
    // nearest non-empty bins before and after it (by time); none on one side: null.
    sql = `${ctes}, w AS (
        SELECT b, v, count(v) OVER (ORDER BY b) AS gp, count(v) OVER (ORDER BY b DESC) AS gn FROM j
      ), w2 AS (
        SELECT b, v, gp, gn,
          first_value(v) OVER (PARTITION BY gp ORDER BY b) AS pv, first_value(b) OVER (PARTITION BY gp ORDER BY b) AS pb,
          first_value(v) OVER (PARTITION BY gn ORDER BY b DESC) AS nv, first_value(b) OVER (PARTITION BY gn ORDER BY b DESC) AS nb
        FROM w
      )
      SELECT b, CASE WHEN v IS NOT NULL THEN v WHEN gp = 0 OR gn = 0 THEN NULL
                     ELSE pv + (nv - pv) * (extract(epoch FROM b - pb)::float8 / extract(epoch FROM nb - pb)::float8) END AS v
      FROM w2 ORDER BY b`;
  } else {
    sql = `${ctes} SELECT b, v FROM j ORDER BY b`;
  }
  const { rows } = await s.db.query<{ b: Date; v: number | null }>(sql, params);
  return done(rows.map((r) => ({ timestamp: new Date(r.b), value: emptyValue(toNum(r.v)) })), next);
}
