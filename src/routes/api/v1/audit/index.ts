// GET /api/v1/audit: the caller's tenant's audit trail (needs the audit
// permission). Read-only: there is no route that edits or deletes entries.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses } from '../../../../schemas/common.js';
import { AuditOut, AuditQuery, DenialOut, DenialQuery, PageMeta } from '../../../../schemas/audit.js';
import { listDenials } from '../../../../security/denials.js';
import { listAudit } from '../../../../security/audit.js';

export default async function auditRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  app.get(
    '/',
    {
      config: { permission: 'audit' },
      schema: {
        summary: 'Audit log (filters actor, action, resource_type, resource_id, from, to; page_size default 50, max 100)',
        tags: ['audit'],
        querystring: AuditQuery,
        response: { 200: envelope(Type.Array(AuditOut), PageMeta), ...errorResponses(400, 401, 403, 422, 429) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await listAudit(s, req.caller, req.query);
      return reply.ok(items, meta);
    },
  );

  app.get(
    '/rate-limited',
    {
      config: { permission: 'audit' },
      schema: {
        summary:
          'Rate-limit refusals, one row per minute, caller, layer and address with a count (filters actor, layer, ip, from, to; sort -minute)',
        tags: ['audit'],
        querystring: DenialQuery,
        response: { 200: envelope(Type.Array(DenialOut), PageMeta), ...errorResponses(400, 401, 403, 422, 429) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await listDenials(s, req.caller, req.query);
      return reply.ok(items, meta);
    },
  );
}
