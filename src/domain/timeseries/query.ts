// Time series, range queries aggregated in SQL (date_bin + aggregates + percentile_cont, fill over
// generate_series bins), under the request's point budget (docs/timeseries.md).
import { AGGREGATIONS, type Aggregation } from '../../schemas/vocabulary.js';
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import { AppError } from '../../lib/errors.js';
import { parseDateTime } from '../../lib/time.js';
import { PointBudget, pointGate, TS_QUERY_LIMIT_DEFAULT, TS_QUERY_LIMIT_MAX } from '../timeseriesBudget.js';
import { canonicalTags } from './pointChecks.js';

export { AGGREGATIONS, type Aggregation };
/** Accepted spellings: the REST names, p50/p95/p99, and the GraphQL enum names in any case. */
export const AGGREGATION_ALIASES: Record<string, Aggregation> = {
  ...Object.fromEntries(AGGREGATIONS.map((a) => [a, a])),
  p50: 'percentile_50',
  p95: 'percentile_95',
  p99: 'percentile_99',
  median: 'percentile_50',
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
  if (!m || secs < 1)
    throw new AppError('INVALID_FIELD', `interval must be <n><s|m|h|d> such as 30s, 1m, 5m, 15m, 1h, 1d; got "${v}"`, {
      field: 'interval',
    });
  if (secs > 366 * 86400)
    throw new AppError('PARAM_OUT_OF_RANGE', `interval must be at most 366d, got "${v}"`, { field: 'interval', limit: '366d' });
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
  if (q.from === undefined || q.from === null || q.from === '')
    throw new AppError('INVALID_REQUEST', 'from is required (RFC 3339)', { field: 'from' });
  if (q.to === undefined || q.to === null || q.to === '')
    throw new AppError('INVALID_REQUEST', 'to is required (RFC 3339)', { field: 'to' });
  const from = q.from instanceof Date ? q.from : parseDateTime('from', q.from);
  const to = q.to instanceof Date ? q.to : parseDateTime('to', q.to);
  if (from.getTime() >= to.getTime())
    throw new AppError('VALIDATION_FAILED', `from (${from.toISOString()}) must be before to (${to.toISOString()})`, { field: 'from' });
  const aggName = (q.aggregation ?? 'none').toString().toLowerCase();
  const aggregation = AGGREGATION_ALIASES[aggName];
  if (!aggregation)
    throw new AppError(
      'INVALID_FIELD',
      `aggregation must be one of ${AGGREGATIONS.join(', ')} (or p50, p95, p99), got "${q.aggregation}"`,
      { field: 'aggregation', allowed: [...AGGREGATIONS, 'p50', 'p95', 'p99'] },
    );
  const fillName = (q.fill ?? 'null').toString().toLowerCase();
  if (!FILLS.includes(fillName as Fill))
    throw new AppError('INVALID_FIELD', `fill must be one of ${FILLS.join(', ')}, got "${q.fill}"`, { field: 'fill', allowed: FILLS });
  const interval = q.interval === undefined || q.interval === null || q.interval === '' ? null : q.interval;
  const intervalSecs = interval === null ? null : parseInterval(interval);
  if (intervalSecs !== null && aggregation === 'none') {
    throw new AppError(
      'INVALID_FIELD',
      `interval ${interval} needs an aggregation (avg, sum, min, max, count, percentile_50/95/99) to combine the points of each bin`,
      { field: 'aggregation' },
    );
  }
  const limit = q.limit ?? TS_QUERY_LIMIT_DEFAULT;
  if (!Number.isInteger(limit) || limit < 1 || limit > TS_QUERY_LIMIT_MAX) {
    throw new AppError('PARAM_OUT_OF_RANGE', `limit must be an integer between 1 and ${TS_QUERY_LIMIT_MAX}, got ${q.limit}`, {
      field: 'limit',
      limit: TS_QUERY_LIMIT_MAX,
    });
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
export async function queryTimeseries(
  s: Pick<Services, 'db'>,
  caller: Caller,
  query: TimeseriesQuery,
  budget: PointBudget = new PointBudget(),
): Promise<TimeseriesResult> {
  const q = normalise(query);
  budget.take(q.limit);
  const release = await pointGate.acquire(q.limit);
  try {
    return await runQuery(s, caller, q);
  } finally {
    release();
  }
}

async function runQuery(s: Pick<Services, 'db'>, caller: Caller, q: ReturnType<typeof normalise>): Promise<TimeseriesResult> {
  const { rows: series } = await s.db.query<{ id: number }>(
    'SELECT id FROM timeseries_series WHERE tenant_id = $1 AND metric = $2 AND tags @> $3::jsonb',
    [caller.tenantId, q.metric, JSON.stringify(q.tags)],
  );
  const ids = `{${series.map((r) => Number(r.id)).join(',')}}`;
  const base = { metric: q.metric, tags: q.tags, aggregation: q.aggregation, interval: q.interval, fill: q.fill, series: series.length };
  const done = (points: { timestamp: Date; value: number | null }[], next: Date | null): TimeseriesResult => ({
    ...base,
    points,
    count: points.length,
    truncated: next !== null,
    next_from: next,
  });
  const toNum = (v: unknown) => (v === null || v === undefined ? null : Number(v));

  if (q.aggregation === 'none') {
    const { rows } = await s.db.query<{ ts: Date; value: number }>(
      `SELECT ts, value FROM timeseries_points WHERE series_id = ANY($1::bigint[]) AND ts >= $2 AND ts < $3 ORDER BY ts, series_id LIMIT $4`,
      [ids, q.from, q.to, q.limit + 1],
    );
    const next = rows.length > q.limit ? new Date(rows[q.limit].ts) : null;
    return done(
      rows.slice(0, q.limit).map((r) => ({ timestamp: new Date(r.ts), value: Number(r.value) })),
      next,
    );
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
    return done(
      rows.slice(0, q.limit).map((r) => ({ timestamp: new Date(r.b), value: toNum(r.v) })),
      next,
    );
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
  return done(
    rows.map((r) => ({ timestamp: new Date(r.b), value: emptyValue(toNum(r.v)) })),
    next,
  );
}
