// /api/v1/tasks/{id}: poll and cancel power-flow tasks.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, IdParams } from '../common/schema.js';
import { findTask, taskView } from '../../../../domain/tasks.js';

const tags = ['tasks'];
const Task = Type.Object({
  task_id: Type.String(), network_id: Type.String(), network_version: Type.Integer(), kind: Type.String(),
  status: Type.Union(['queued', 'running', 'completed', 'failed', 'cancelled'].map((s) => Type.Literal(s))),
  poll_url: Type.String(), queue_position: Type.Union([Type.Integer(), Type.Null()]),
  options: Type.Record(Type.String(), Type.Unknown()),
  progress: Type.Union([Type.Object({ iteration: Type.Integer(), max_iterations: Type.Integer(), mismatch: Type.Number() }, { additionalProperties: true }), Type.Null()]),
  result: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: true }), Type.Null()]),
  attempts: Type.Integer(),
  created_at: Type.String(), started_at: Type.Union([Type.String(), Type.Null()]), completed_at: Type.Union([Type.String(), Type.Null()]),
});

export default async function taskRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  const Params = IdParams('task');

  app.get('/:id', {
    config: { permission: 'read' },
    schema: { summary: 'Task status, progress, result or error', tags, params: Params, querystring: Type.Object({ tz: Type.Optional(Type.String()) }), response: { 200: envelope(Task), ...errorResponses(401, 403, 404) } },
  }, async (req, reply) => {
    const t = await findTask(s.db, req.caller, req.params.id);
    return reply.ok({ ...taskView(t), queue_position: await s.tasks.queuePosition(t) });
  });

  app.delete('/:id', {
    config: { permission: 'compute' },
    schema: { summary: 'Cancel a queued task or stop a running one', tags, params: Params, response: { 200: envelope(Task), ...errorResponses(401, 403, 404, 409) } },
  }, async (req, reply) => {
    const t = await s.tasks.cancel(req.caller, req.params.id);
    return reply.ok({ ...taskView(t), queue_position: null });
  });
}
