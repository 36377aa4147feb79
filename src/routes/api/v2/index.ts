// /api/v2 actions on collections (preview): POST /api/v2/timeseries:batchWrite over
// writeTimeseries(), the function behind POST /api/v1/timeseries/batch (same limits:
// 10,000 points, the tenant's daily quota, the time-series write rate class).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses } from '../../../schemas/common.js';
import { BatchIn, WriteResult } from '../../../schemas/timeseries.js';
import { TS_BODY_LIMIT } from '../v1/timeseries/index.js';
import { writeTimeseries } from '../../../domain/timeseries.js';
import { AppError } from '../../../lib/errors.js';
import { V2_META } from '../../../schemas/v2.js';

export default async function v2Root(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  app.post(
    '/timeseries::batchWrite',
    {
      bodyLimit: TS_BODY_LIMIT,
      config: { permission: 'write', rateLimit: { ipClass: 'timeseries_write', endpoint: 'POST /timeseries/batch' } },
      schema: {
        summary: 'Write up to 10,000 points (v2 action)',
        tags: ['v2 timeseries (preview)'],
        body: BatchIn,
        response: { 200: envelope(WriteResult), ...errorResponses(400, 401, 403, 413, 422, 429) },
      },
    },
    async (req, reply) => {
      try {
        return reply.ok(await writeTimeseries(s, req.caller, req.body.points), V2_META);
      } catch (e) {
        if (e instanceof AppError && e.code === 'RATE_LIMITED' && typeof e.details?.retry_after === 'number')
          reply.header('Retry-After', String(e.details.retry_after));
        throw e;
      }
    },
  );
}
