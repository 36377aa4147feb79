// Time series: query (one or several) and batch write.
import type { TimeseriesQuery } from '../../domain/timeseries.js';
import type { Caller } from '../../domain/caller.js';
import type { GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import type { GqlEnum, Opt } from '../args.js';
import type { Aggregation } from '../../schemas/vocabulary.js';
import { gqlError } from '../errors.js';
import { limitOf, mapBounded, PointBudget, TS_MULTI_CONCURRENCY, TS_MULTI_QUERIES_MAX } from '../../domain/timeseriesBudget.js';
import { defined, down } from './map.js';

interface TimeSeriesQueryArgs {
  metric: string;
  tags?: Opt<string | Record<string, string>>;
  from: Date;
  to: Date;
  aggregation?: Opt<GqlEnum<Aggregation>>;
  interval?: Opt<string>;
  fill?: Opt<string>;
  limit?: Opt<number>;
}

interface TimeSeriesPointArgs {
  metric: string;
  timestamp?: Opt<Date>;
  value: number;
  tags?: Opt<Record<string, string>>;
}
// Loaded on first use: the time-series module is the heaviest domain module and
// only these two fields need it.
const domain = () => import('../../domain/timeseries.js');

const tooComplex = (message: string, details: Record<string, unknown>) => gqlError('QUERY_TOO_COMPLEX', message, details);

/** The request's point budget, shared by every time-series field of the operation. */
function budgetOf(ctx: GqlContext): PointBudget {
  return (ctx.pointBudget ??= new PointBudget());
}

async function points(ctx: GqlContext, caller: Caller, q: TimeSeriesQueryArgs) {
  // Taken before the query runs (the domain then gets a budget of exactly its limit),
  // so an over-budget request fails as QUERY_TOO_COMPLEX, not as a field validation error.
  const limit = limitOf(q.limit);
  budgetOf(ctx).take(limit, tooComplex);
  const r = await (await domain()).queryTimeseries(ctx.s, caller, defined<TimeseriesQuery>({
    metric: q.metric, tags: q.tags ?? undefined, from: q.from, to: q.to, aggregation: down<Aggregation>(q.aggregation), interval: q.interval ?? undefined,
    fill: q.fill ?? undefined, limit: q.limit ?? undefined,
  }), new PointBudget(limit));
  return r.points.map((p: { timestamp: Date; value: number | null }) => ({ metric: r.metric, timestamp: p.timestamp, value: p.value, tags: r.tags }));
}

export const timeseriesResolvers = {
  Query: {
    timeseries: query('read', (caller, a: { query: TimeSeriesQueryArgs }, ctx) => points(ctx, caller, a.query)),
    timeseriesMulti: query('read', (caller, a: { queries: TimeSeriesQueryArgs[] }, ctx) => {
      const queries = a.queries;
      // Also refused by the cost rules before execution (limits.ts); checked here too
      // because the resolver must not rely on the door it was called through.
      if (queries.length > TS_MULTI_QUERIES_MAX)
        throw tooComplex(`timeseriesMulti takes at most ${TS_MULTI_QUERIES_MAX} queries, got ${queries.length}`, {
          reason: 'LIST_TOO_LONG',
          argument: 'queries',
          limit: TS_MULTI_QUERIES_MAX,
          got: queries.length,
        });
      const total = queries.reduce((n, q) => n + limitOf(q.limit), 0);
      if (total > budgetOf(ctx).remaining) budgetOf(ctx).take(total, tooComplex); // fails whole, before any entry runs
      return mapBounded(queries, TS_MULTI_CONCURRENCY, (q) => points(ctx, caller, q));
    }),
  },
  Mutation: {
    writeTimeseries: mutation(
      {
        permission: 'write',
        resourceType: 'timeseries',
        resourceId: () => undefined,
        rate: { ipClass: 'timeseries_write', endpoint: 'POST /timeseries/batch' },
      },
      async (caller, a: { points: TimeSeriesPointArgs[] }, ctx) => {
        const pts = a.points.map((p) =>
          defined({
            metric: p.metric,
            timestamp: p.timestamp ? p.timestamp.toISOString() : undefined,
            value: p.value,
            tags: p.tags ?? undefined,
          }),
        );
        return (await domain()).writeTimeseries(ctx.s, caller, pts);
      },
    ),
  },
};
