// GET /api/v2/agents/{id}:getStatus (preview): the agent's status over getAgent(),
// the function behind GET /api/v1/agents/{id}; metadata.* holds the timestamps.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import { getAgent } from '../../../../domain/agents.js';
import { V2_META } from '../../../../schemas/v2.js';

export default async function agentRoutesV2(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  app.get('/:id(^agent_[A-Za-z0-9]+$)::getStatus', {
    config: { permission: 'read' },
    schema: {
      summary: 'Agent status (v2 action)', tags: ['v2 agents (preview)'], params: IdParams('agent'),
      response: {
        200: envelope(Type.Object({
          id: Type.String(), name: Type.String(), type: Type.String(), status: Type.String(), status_reason: Type.Union([Type.String(), Type.Null()]),
          network_id: Type.Union([Type.String(), Type.Null()]),
          metadata: Type.Object({ created_at: Type.Any(), updated_at: Type.Any(), started_at: Type.Any(), last_active_at: Type.Any() }),
        })),
        ...errorResponses(400, 401, 403, 404),
      },
    },
  }, async (req, reply) => {
    const a = await getAgent(s, req.caller, req.params.id);
    return reply.ok({
      id: a.id, name: a.name, type: a.type, status: a.status, status_reason: a.status_reason, network_id: a.network_id,
      metadata: { created_at: a.created_at, updated_at: a.updated_at, started_at: a.started_at, last_active_at: a.last_active_at },
    }, V2_META);
  });
}
