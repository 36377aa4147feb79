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

/**
 * What one query takes from a budget: its limit, or the default. Never below 1: a
 * negative limit (refused later by validation) must not give points back to the
 * budget for the other entries of the request.
 */
export const limitOf = (limit: unknown): number => (typeof limit === 'number' && !Number.isNaN(limit) ? Math.max(1, limit) : TS_QUERY_LIMIT_DEFAULT);

/** The points left to one request; every query takes its limit from it before it runs. */
export class PointBudget {
  constructor(public remaining: number = TS_REQUEST_POINT_BUDGET, readonly total: number = remaining) {}

  /** Takes `limit` points or throws; `error` builds the door's own error (REST 422, GraphQL QUERY_TOO_COMPLEX). */
  take(limit: number, error: (message: string, details: Record<string, unknown>) => Error = restError): void {
    if (limit > this.remaining) {
      throw error(
        `the request asks for more than ${this.total} time-series points in all (limit ${limit} with ${this.remaining} left); ` +
          `lower limit, narrow from/to or split the request`,
        { reason: 'POINT_BUDGET', budget: this.total, remaining: this.remaining, requested: limit },
      );
    }
    this.remaining -= limit;
  }
}

/** Points all running queries of this process may hold at once (about 100 MB of results). */
export const TS_PROCESS_POINTS = 1_000_000;
/** How long a query waits for room before 503. */
export const TS_GATE_WAIT_MS = 10_000;

/**
 * The per-request budget bounds one request; this bounds them together: many callers
 * each within their budget must not add up to an out-of-memory. A query holds its limit
 * from before it runs until its points are built; queries that do not fit wait in
 * arrival order, at most TS_GATE_WAIT_MS, then get 503 SERVICE_UNAVAILABLE.
 */
export class PointGate {
  inUse = 0;
  /** Highest inUse seen (for tests and diagnostics). */
  peak = 0;
  private queue: { n: number; grant: () => void }[] = [];

  constructor(public capacity: number = TS_PROCESS_POINTS) {}

  async acquire(n: number, waitMs: number = TS_GATE_WAIT_MS): Promise<() => void> {
    const want = Math.min(n, this.capacity); // one query larger than the gate runs alone
    if (this.queue.length > 0 || this.inUse + want > this.capacity) {
      await new Promise<void>((resolve, reject) => {
        const entry = { n: want, grant: () => { clearTimeout(timer); resolve(); } };
        const timer = setTimeout(() => {
          const i = this.queue.indexOf(entry);
          if (i >= 0) this.queue.splice(i, 1);
          this.drain(); // a large waiter leaving may let smaller ones behind it in
          reject(
            new AppError(
              'SERVICE_UNAVAILABLE',
              `time-series queries are at capacity on this server (${this.capacity} points in flight); retry in a few seconds`,
              { reason: 'TIMESERIES_BUSY', retry_after: 2 },
            ),
          );
        }, waitMs);
        this.queue.push(entry);
      });
    } else {
      this.take(want);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse -= want;
      this.drain();
    };
  }

  private take(n: number) {
    this.inUse += n;
    this.peak = Math.max(this.peak, this.inUse);
  }

  private drain() {
    while (this.queue.length > 0 && this.inUse + this.queue[0].n <= this.capacity) {
      const next = this.queue.shift()!;
      this.take(next.n);
      next.grant();
    }
  }
}

/** The gate of this process, shared by every door. */
export const pointGate = new PointGate();

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
