// /api/v1/timeseries: thin routes over src/domain/timeseries.ts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses } from '../../../../schemas/common.js';
import { BatchIn, QueryIn, QueryOut, WriteResult } from '../../../../schemas/timeseries.js';
import { queryTimeseries, writeTimeseries } from '../../../../domain/timeseries.js';
import { AppError } from '../../../../lib/errors.js';

const tags = ['timeseries'];
/** 10,000 points with tags do not fit in 1 MB; this route alone takes up to 4 MB (docs/timeseries.md). */
export const TS_BODY_LIMIT = 4 * 1024 * 1024;

export default async function timeseriesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get(
    '/',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Query a metric over [from, to), raw or aggregated per interval',
        tags,
        querystring: QueryIn,
        response: { 200: envelope(QueryOut), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (req, reply) => {
      const r = await queryTimeseries(s, req.caller, req.query);
      const { truncated, next_from, ...data } = r;
      return reply.ok(data, { limit: req.query.limit ?? 10000, truncated, ...(next_from ? { next_from: next_from.toISOString() } : {}) });
    },
  );

  app.post(
    '/batch',
    {
      bodyLimit: TS_BODY_LIMIT,
      config: { permission: 'write', callerText: 'handler' }, // metric and tags are judged per point (control characters too)
      schema: {
        summary: 'Write up to 10,000 points; each point is accepted or rejected alone',
        tags,
        body: BatchIn,
        response: { 200: envelope(WriteResult), ...errorResponses(400, 401, 403, 413, 422, 429) },
      },
    },
    async (req, reply) => {
      try {
        return reply.ok(await writeTimeseries(s, req.caller, req.body.points));
      } catch (e) {
        if (e instanceof AppError && e.code === 'RATE_LIMITED' && typeof e.details?.retry_after === 'number')
          reply.header('Retry-After', String(e.details.retry_after));
        throw e;
      }
    },
  );
}
