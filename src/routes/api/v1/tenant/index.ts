// GET /api/v1/tenant/quota: the caller's tenant's quotas and live usage.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { envelope, errorResponses } from '../../../../schemas/common.js';
import { QuotaViewOut } from '../../../../schemas/tenant.js';
import { quotaView } from '../../../../security/quotas.js';

export default async function tenantRoutes(app: FastifyInstance) {
  const s = app.services;
  app.get(
    '/quota',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Tenant quotas and usage',
        tags: ['tenant'],
        querystring: Type.Object({ tz: Type.Optional(Type.String()) }),
        response: { 200: envelope(QuotaViewOut), ...errorResponses(401, 403, 429) },
      },
    },
    async (req, reply) => reply.ok(await quotaView(s.security, req.caller.tenantId)),
  );
}
