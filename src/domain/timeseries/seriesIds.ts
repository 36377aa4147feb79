// Time series, the ids of series (metric + canonical tags) per tenant: found or created in one
// statement, and kept per process once committed.
import type { Database } from '../../db/database.js';
import { AppError } from '../../lib/errors.js';
import { canonicalTags } from './pointChecks.js';

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
export async function resolveSeries(db: Database, tenantId: string, wanted: { metric: string; tagsKey: string }[]): Promise<number[]> {
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
  if (ids.some((id) => id < 0))
    throw new AppError('SERVICE_UNAVAILABLE', 'time series could not be registered under concurrent writes; retry the batch');
  return ids;
}

/** Forgets cached series ids of a database (after tables were dropped or rebuilt). */
export function clearSeriesCache(db: Database): void {
  seriesCaches.delete(db);
}
