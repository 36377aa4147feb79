// Time series, bulk writes (docs/timeseries.md): each point judged alone, the batch's fitting
// prefix reserved against the daily quota, the rest stored in one statement.
import type { Static } from '@sinclair/typebox';
import type { Database } from '../../db/database.js';
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import type { WriteResult as WriteResultSchema } from '../../schemas/timeseries.js';
import { AppError } from '../../lib/errors.js';
import { getQuotas } from '../../security/quotas.js';
import { judgeMetric, judgeTags } from './pointChecks.js';
import { parseTimestamp } from './timestamps.js';
import { resolveSeries } from './seriesIds.js';
import { refund, reserve } from './quota.js';

export const TS_BATCH_MAX = 10_000;

export interface PointInput {
  metric: string;
  timestamp?: string;
  value: number;
  tags?: Record<string, string>;
}

export type WriteResult = Static<typeof WriteResultSchema>;

/**
 * Writes a batch of points (at most 10,000). Each point is judged alone: bad points
 * and points beyond the daily quota are rejected with their index, the rest stored
 * in one statement. A point with the series and timestamp of a stored one replaces it
 * (within a batch, the later point wins).
 */
export async function writeTimeseries(s: Pick<Services, 'db' | 'security'>, caller: Caller, points: unknown): Promise<WriteResult> {
  if (!Array.isArray(points))
    throw new AppError('INVALID_REQUEST', 'points must be an array of {metric, value, timestamp?, tags?}', { field: 'points' });
  if (points.length === 0) throw new AppError('VALIDATION_FAILED', 'points is empty; send at least one point', { field: 'points' });
  if (points.length > TS_BATCH_MAX) {
    throw new AppError(
      'VALIDATION_FAILED',
      `a batch holds at most ${TS_BATCH_MAX} points, got ${points.length}; split it into several calls`,
      { field: 'points', limit: TS_BATCH_MAX, got: points.length },
    );
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
    for (const k in p)
      if (k !== 'metric' && k !== 'value' && k !== 'timestamp' && k !== 'tags') {
        extra = k;
        break;
      }
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
      errors.push({
        index: i,
        message: v === undefined || v === null ? 'value is required (a number)' : `value must be a finite number, got ${JSON.stringify(v)}`,
      });
      continue;
    }
    let t = nowMs;
    if (p.timestamp !== undefined && p.timestamp !== null) {
      t = parseTimestamp(p.timestamp);
      if (Number.isNaN(t)) {
        errors.push({
          index: i,
          message: `timestamp must be an RFC 3339 date-time between 1970 and 9999 such as 2026-01-31T12:00:00Z, got ${JSON.stringify(p.timestamp)}`,
        });
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
      errors.push({
        index: index[k],
        message:
          `rejected: the tenant's daily time-series quota (${quotas.timeseries_daily_points} points, ` +
          `${quotas.timeseries_daily_gb} GB per UTC day) is used up; writes resume at 00:00 UTC`,
      });
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
