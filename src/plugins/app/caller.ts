// Attaches request.caller: who is asking, for which tenant. The security layer
// (authentication, roles, tenants) decides it; every route reads only this.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ROLE_PERMISSIONS, type Caller, type Permission } from '../../domain/caller.js';
import { AppError } from '../../lib/errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
  interface FastifyContextConfig {
    /** Permission a route needs; absent = public (no authentication). */
    permission?: Permission;
  }
}

export function requirePermission(req: FastifyRequest, p: Permission): void {
  if (!req.caller.permissions.has(p)) {
    throw new AppError('FORBIDDEN', `role ${req.caller.role} lacks the "${p}" permission this endpoint needs`, { permission: p, role: req.caller.role });
  }
}

export default fp(async (app: FastifyInstance) => {
  app.decorateRequest('caller', null as unknown as Caller);
  app.addHook('onRequest', async (req) => {
    // Until authentication is configured every request acts as the bootstrap
    // administrator of tenant "default".
    req.caller = {
      tenantId: 'default',
      actor: { type: 'anonymous', id: 'anonymous', tenant: 'default' },
      role: 'admin',
      permissions: new Set(ROLE_PERMISSIONS.admin),
      requestId: req.id,
      ip: req.ip,
      userAgent: req.headers['user-agent'],
      interface: 'rest',
    };
  });
  app.addHook('preHandler', async (req) => {
    const p = req.routeOptions.config?.permission;
    if (p) requirePermission(req, p);
  });
}, { name: 'request-caller' });
