// How many time-series points one request may ask for, wherever it comes from
// (REST GET /timeseries, GraphQL timeseries / timeseriesMulti). Small on purpose:
// the GraphQL cost rules import it without loading the time-series domain.
// Why: ten 100,000-point queries with fill zero once built 12 MB in 6 s and 2,000
// of them ran the process out of heap (issue #11); every door now shares one budget.
import { AppError } from '../lib/errors.js';

export const TS_QUERY_LIMIT_DEFAULT = 10_000;
export const TS_QUERY_LIMIT_MAX = 100_000;
/** Points (raw points or bins, filled ones included) one request may return in all. */
export const TS_REQUEST_POINT_BUDGET = 100_000;
/** Entries of one timeseriesMulti. */
export const TS_MULTI_QUERIES_MAX = 20;
/** Entries of one timeseriesMulti that run at the same time (the others wait their turn). */
export const TS_MULTI_CONCURRENCY = 4;

/** The effective limit of one query: its own, or the default. */
export const limitOf = (limit: unknown): number => (typeof limit === 'number' ? limit : TS_QUERY_LIMIT_DEFAULT);

/** The points left to one request; every query takes its limit from it before it runs. */
export class PointBudget {
  constructor(public remaining: number = TS_REQUEST_POINT_BUDGET, readonly total: number = remaining) {}

  /** Takes `limit` points or throws; `error` builds the door's own error (REST 422, GraphQL QUERY_TOO_COMPLEX). */
  take(limit: number, error: (message: string, details: Record<string, unknown>) => Error = restError): void {
    if (limit > this.remaining) {
      throw error(`the request asks for more than ${this.total} time-series points in all (limit ${limit} with ${this.remaining} left); lower limit, narrow from/to or split the request`,
        { reason: 'POINT_BUDGET', budget: this.total, remaining: this.remaining, requested: limit });
    }
    this.remaining -= limit;
  }
}

const restError = (message: string, details: Record<string, unknown>) => new AppError('PARAM_OUT_OF_RANGE', message, { field: 'limit', ...details });

/** Runs fn over items with at most `width` calls in flight; results in input order. */
export async function mapBounded<T, R>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  return out;
}
