// Time series: bulk writes under a daily per-tenant quota, and range queries aggregated in SQL.
// Layout and rules: docs/timeseries.md. One module a job, in ./timeseries/: the point checks, the
// timestamps, the quota, the series ids, the writes and the queries; this module is their door.
export { TS_QUERY_LIMIT_DEFAULT, TS_QUERY_LIMIT_MAX } from './timeseriesBudget.js';
export { TS_BATCH_MAX, insertPoints, writeTimeseries, type PointInput, type WriteResult } from './timeseries/write.js';
export { clearSeriesCache } from './timeseries/seriesIds.js';
export {
  AGGREGATIONS,
  AGGREGATION_ALIASES,
  FILLS,
  parseInterval,
  parseTagFilter,
  queryTimeseries,
  type Aggregation,
  type Fill,
  type TimeseriesQuery,
  type TimeseriesResult,
} from './timeseries/query.js';
