import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { envelope } from '../../../../schemas/common.js';
import { healthOf } from '../../../../domain/health.js';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
  version: Type.String(),
  uptime_seconds: Type.Integer(),
  checks: Type.Record(Type.String(), Type.String()),
});

export default async function health(app: FastifyInstance) {
  app.get('/', {
    schema: { summary: 'Health of the service and its subsystems', tags: ['health'], security: [], response: { 200: envelope(Health), 503: envelope(Health) } },
  }, async (req, reply) => {
    const h = await healthOf(app.services);
    return reply.ok(h, undefined, h.status === 'down' ? 503 : 200);
  });
}
