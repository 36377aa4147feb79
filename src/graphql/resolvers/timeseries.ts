// Time series: query (one or several) and batch write.
import type { TimeseriesQuery } from '../../domain/timeseries.js';
import type { Caller } from '../../domain/caller.js';
import type { GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import { defined, down } from './map.js';

type Args = Record<string, any>;
// Loaded on first use: the time-series module is the heaviest domain module and
// only these two fields need it.
const domain = () => import('../../domain/timeseries.js');

async function points(ctx: GqlContext, caller: Caller, q: Args) {
  const r = await (await domain()).queryTimeseries(ctx.s, caller, defined({
    metric: q.metric, tags: q.tags ?? undefined, from: q.from, to: q.to, aggregation: down(q.aggregation), interval: q.interval ?? undefined,
    fill: q.fill ?? undefined, limit: q.limit ?? undefined,
  }) as TimeseriesQuery);
  return r.points.map((p: { timestamp: Date; value: number | null }) => ({ metric: r.metric, timestamp: p.timestamp, value: p.value, tags: r.tags }));
}

export const timeseriesResolvers = {
  Query: {
    timeseries: query('read', (caller, a, ctx) => points(ctx, caller, a.query)),
    timeseriesMulti: query('read', (caller, a, ctx) => Promise.all((a.queries as Args[]).map((q) => points(ctx, caller, q)))),
  },
  Mutation: {
    writeTimeseries: mutation({ permission: 'write', resourceType: 'timeseries', resourceId: () => undefined, rate: { ipClass: 'timeseries_write', endpoint: 'POST /timeseries/batch' } }, async (caller, a, ctx) => {
      const pts = (a.points as Args[]).map((p) => defined({ metric: p.metric, timestamp: p.timestamp ? (p.timestamp as Date).toISOString() : undefined, value: p.value, tags: p.tags ?? undefined }));
      return (await domain()).writeTimeseries(ctx.s, caller, pts);
    }),
  },
};
