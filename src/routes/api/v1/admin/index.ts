// /api/v1/admin: tenants, users, API keys and quota changes (CONTRACT "Identity").
// Admin only (the "admin" permission), audited by the caller plugin like every
// mutating request; secrets (passwords, keys) never reach the audit details.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses } from '../../../../schemas/common.js';
import {
  ApiKeyIn,
  ApiKeyOut,
  QuotaChangeOut,
  QuotaIn,
  RateOverrideIn,
  RateOverrideOut,
  TenantIn,
  TenantOut,
  UserIdParams,
  UserIn,
  UserOut,
  UserPatch,
  TenantId,
} from '../../../../schemas/admin.js';
import { clearRateOverride, getRateOverride, setRateOverride } from '../../../../security/rateOverrides.js';
import { createTenant, createUser, deleteUser, listTenants, listUsers, updateUser } from '../../../../security/users.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../../../security/apikeys.js';
import { changeQuota, getQuotaState } from '../../../../security/quotas.js';

const tags = ['admin'];
const admin = { permission: 'admin' as const };

export default async function adminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  const st = () => s.security;

  app.post('/tenants', {
    config: admin,
    schema: { summary: 'Create a tenant', tags, body: TenantIn, response: { 201: envelope(TenantOut), ...errorResponses(400, 401, 403, 409, 429) } },
  }, async (req, reply) => {
    const t = await createTenant(st(), req.caller, { tenant_id: req.body.tenant_id, plan: req.body.plan });
    const q = await getQuotaState(st(), t.tenant_id);
    req.auditHints = { resource: { type: 'tenant', id: t.tenant_id }, details: { plan: t.plan } };
    return reply.ok({ ...t, quotas: q?.quotas }, undefined, 201);
  });

  app.get('/tenants', {
    config: admin,
    schema: { summary: 'List tenants', tags, response: { 200: envelope(Type.Array(TenantOut)), ...errorResponses(401, 403) } },
  }, async (_req, reply) => reply.ok(await listTenants(st())));

  app.post(
    '/users',
    {
      config: admin,
      schema: {
        summary: 'Create a user (the password is never returned)',
        tags,
        body: UserIn,
        response: { 201: envelope(UserOut), ...errorResponses(400, 401, 403, 409, 422, 429) },
      },
    },
    async (req, reply) => {
      const u = await createUser(st(), req.caller, { ...req.body, role: req.body.role });
      req.auditHints = { resource: { type: 'user', id: u.username }, details: { user_id: u.id, tenant_id: u.tenant_id, role: u.role } };
      return reply.ok(u, undefined, 201);
    },
  );

  app.get(
    '/users',
    {
      config: admin,
      schema: {
        summary: 'List users',
        tags,
        querystring: Type.Object({ tenant_id: Type.Optional(TenantId) }),
        response: { 200: envelope(Type.Array(UserOut)), ...errorResponses(401, 403) },
      },
    },
    async (req, reply) => reply.ok(await listUsers(st(), req.query.tenant_id)),
  );

  app.patch('/users/:id', {
    config: admin,
    schema: {
      summary: 'Change a user\'s role or disable it; disabling or losing a permission ends its sessions at once, open connections included',
      tags, params: UserIdParams, body: UserPatch, response: { 200: envelope(UserOut), ...errorResponses(400, 401, 403, 404, 409, 429) },
    },
  }, async (req, reply) => {
    const u = await updateUser(st(), req.caller, req.params.id, { role: req.body.role, disabled: req.body.disabled });
    req.auditHints = { resource: { type: 'user', id: u.username }, details: { user_id: u.id, tenant_id: u.tenant_id, ...req.body } };
    return reply.ok(u);
  });

  app.delete(
    '/users/:id',
    {
      config: admin,
      schema: {
        summary: 'Delete a user; its sessions end at once, open connections included',
        tags,
        params: UserIdParams,
        response: { 200: envelope(UserOut), ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (req, reply) => {
      const u = await deleteUser(st(), req.caller, req.params.id);
      req.auditHints = { resource: { type: 'user', id: u.username }, details: { user_id: u.id, tenant_id: u.tenant_id } };
      return reply.ok(u);
    },
  );

  app.post(
    '/api-keys',
    {
      config: admin,
      schema: {
        summary: 'Create an API key for a service account; the key is shown once',
        tags,
        body: ApiKeyIn,
        response: { 201: envelope(ApiKeyOut), ...errorResponses(400, 401, 403, 422, 429) },
      },
    },
    async (req, reply) => {
      const k = await createApiKey(st(), req.caller, { ...req.body, role: req.body.role });
      req.auditHints = { resource: { type: 'api_key', id: k.id }, details: { name: k.name, tenant_id: k.tenant_id, role: k.role } };
      return reply.ok(k, undefined, 201);
    },
  );

  app.get(
    '/api-keys',
    {
      config: admin,
      schema: {
        summary: 'List API keys (never the keys themselves)',
        tags,
        querystring: Type.Object({ tenant_id: Type.Optional(TenantId) }),
        response: { 200: envelope(Type.Array(ApiKeyOut)), ...errorResponses(401, 403) },
      },
    },
    async (req, reply) => reply.ok(await listApiKeys(st(), req.query.tenant_id)),
  );

  app.delete(
    '/api-keys/:id',
    {
      config: admin,
      schema: {
        summary: 'Revoke an API key (at once, in every process)',
        tags,
        params: Type.Object({ id: Type.String({ pattern: '^key_[0-9a-f]+$' }) }),
        response: { 200: envelope(ApiKeyOut), ...errorResponses(401, 403, 404) },
      },
    },
    async (req, reply) => reply.ok(await revokeApiKey(st(), req.params.id)),
  );

  app.put('/tenants/:tenant_id/quota', {
    config: admin,
    schema: {
      summary: 'Adjust a tenant\'s quotas, permanently or until expires_at; applies without restart', tags,
      params: Type.Object({ tenant_id: TenantId }), body: QuotaIn,
      response: { 200: envelope(QuotaChangeOut), ...errorResponses(400, 401, 403, 404, 422) },
    },
  }, async (req, reply) => {
    const { tenant_id } = req.params;
    const r = await changeQuota(st(), req.caller, tenant_id, req.body);
    req.auditHints = {
      resource: { type: 'tenant', id: tenant_id },
      action: 'tenant.quota.change',
      details: {
        reason: req.body.reason,
        changed: r.changed,
        previous: r.previous,
        quotas: r.quotas,
        expires_at: r.expires_at?.toISOString() ?? null,
        override_id: r.overrideId ?? null,
      },
    };
    return reply.ok({
      tenant_id,
      quotas: r.quotas,
      previous: r.previous,
      changed: r.changed,
      reason: req.body.reason,
      expires_at: r.expires_at ?? null,
      override_id: r.overrideId ?? null,
    });
  });

  // Live rate-limit overrides (docs/load-testing.md): every API process applies them at once.
  const TenantParams = Type.Object({ tenant_id: TenantId });
  app.get(
    '/tenants/:tenant_id/rate-limits',
    {
      config: admin,
      schema: {
        summary: "The tenant's live rate-limit override, if any",
        tags,
        params: TenantParams,
        response: { 200: envelope(RateOverrideOut), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => reply.ok(await getRateOverride(st(), req.params.tenant_id)),
  );

  app.put('/tenants/:tenant_id/rate-limits', {
    config: admin,
    schema: {
      summary: 'Raise (factor) or lift a tenant\'s rate limits until it expires (default 1 h, at most 7 days); applies at once without restart', tags,
      params: TenantParams, body: RateOverrideIn, response: { 200: envelope(RateOverrideOut), ...errorResponses(400, 401, 403, 404, 422, 429) },
    },
  }, async (req, reply) => {
    const { tenant_id } = req.params;
    const r = await setRateOverride(st(), req.caller, tenant_id, req.body);
    req.auditHints = {
      resource: { type: 'tenant', id: tenant_id },
      action: 'tenant.rate_limits.override',
      details: {
        reason: req.body.reason,
        factor: r.override.factor,
        lifted: r.override.lifted,
        expires_at: r.override.expires_at?.toISOString() ?? null,
        previous: r.previous.active ? r.previous : null,
      },
    };
    return reply.ok(r.override);
  });

  app.delete(
    '/tenants/:tenant_id/rate-limits',
    {
      config: admin,
      schema: {
        summary: "End the tenant's rate-limit override now",
        tags,
        params: TenantParams,
        response: { 200: envelope(RateOverrideOut), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const { tenant_id } = req.params;
      const r = await clearRateOverride(st(), tenant_id);
      req.auditHints = {
        resource: { type: 'tenant', id: tenant_id },
        action: 'tenant.rate_limits.override_ended',
        details: { previous: r.previous.active ? r.previous : null },
      };
      return reply.ok(r.override);
    },
  );
}
