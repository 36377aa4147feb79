// /api/v1/events: the event history (src/domain/eventHistory.ts). The SSE stream
// (GET /events/stream) is registered separately (events/stream/).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses } from '../../../../schemas/common.js';
import { EventListQuery, EventOut } from '../../../../schemas/events.js';
import { listEvents } from '../../../../domain/eventHistory.js';

export default async function eventRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Event history of the tenant (filters topic, from, to, network_id, agent_id, severity, after; paging)',
        tags: ['events'],
        querystring: EventListQuery,
        response: { 200: envelope(Type.Array(EventOut)), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await listEvents(app.services, req.caller, req.query);
      return reply.ok(items, meta);
    },
  );
}
