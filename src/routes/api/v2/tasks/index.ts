// /api/v2/tasks/{id} (preview): the power-flow task of v1 with a v2 result (buses
// with voltage {magnitude, angle}) and metadata.{created_at, started_at, completed_at}.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import { findTask, taskView } from '../../../../domain/tasks.js';
import { V2_META, resultV2 } from '../../../../schemas/v2.js';

export default async function taskRoutesV2(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  const Params = IdParams('task');
  const tags = ['v2 tasks (preview)'];

  app.get(
    '/:id',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Task status, progress, result (v2 shapes) or error',
        tags,
        params: Params,
        response: { 200: envelope(Type.Object({}, { additionalProperties: true })), ...errorResponses(401, 403, 404) },
      },
    },
    async (req, reply) => {
      const t = await findTask(s, req.caller, req.params.id);
      const { created_at, started_at, completed_at, result, ...v } = taskView(t);
      return reply.ok(
        {
          ...v,
          poll_url: `/api/v2/tasks/${t.id}`,
          queue_position: await s.tasks.queuePosition(t),
          result: resultV2(result),
          metadata: { created_at, started_at, completed_at },
        },
        V2_META,
      );
    },
  );

  app.delete(
    '/:id',
    {
      config: { permission: 'compute' },
      schema: {
        summary: 'Cancel a queued task or stop a running one',
        tags,
        params: Params,
        response: { 200: envelope(Type.Object({}, { additionalProperties: true })), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      const t = await s.tasks.cancel(req.caller, req.params.id);
      const { created_at, started_at, completed_at, result, ...v } = taskView(t);
      return reply.ok(
        {
          ...v,
          poll_url: `/api/v2/tasks/${t.id}`,
          queue_position: null,
          result: resultV2(result),
          metadata: { created_at, started_at, completed_at },
        },
        V2_META,
      );
    },
  );
}
