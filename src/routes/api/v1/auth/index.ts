// /api/v1/auth: password login and refresh-token rotation (SPEC 4.3, 5).
// Both are public at the gate (no bearer token needed) and limited as the
// /auth/token endpoint type (30/min, burst 5 per client address); every attempt,
// good or bad, is audited by the caller plugin with the hints set here.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses } from '../../../../schemas/common.js';
import { LogoutQuery, LogoutOut, RefreshIn, TokenIn, TokenOut } from '../../../../schemas/auth.js';
import { login } from '../../../../security/users.js';
import { rotateRefreshToken } from '../../../../security/tokens.js';
import { logout } from '../../../../security/sessions.js';
import { revocableCredential } from '../../../../security/revocation.js';
import { recordAudit } from '../../../../security/audit.js';
import { AppError } from '../../../../lib/errors.js';

const tags = ['auth'];

export default async function authRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.post(
    '/token',
    {
      schema: {
        summary: 'Obtain an access token and a refresh token',
        tags,
        security: [],
        body: TokenIn,
        response: { 200: envelope(TokenOut), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (req, reply) => {
      const { username, tenant_id, scope } = req.body;
      req.auditHints = {
        actor: { type: 'user', id: username.slice(0, 128), tenant: '' },
        action: 'auth.login',
        resource: { type: 'user', id: username.slice(0, 128) },
        details: { username: username.slice(0, 128), ...(tenant_id ? { tenant_id } : {}), ...(scope ? { scope } : {}) },
      };
      try {
        const { pair, subject } = await login(s.security, req.body);
        req.auditHints = {
          ...req.auditHints,
          actor: { type: 'user', id: subject.username, tenant: subject.tenant },
          tenantId: subject.tenant,
        };
        return reply.ok(pair);
      } catch (e) {
        // A failed login is recorded in the tenant of the named user when it exists (else "default").
        if (e instanceof AppError) {
          const { rows } = await s.db.query<{ tenant_id: string }>('SELECT tenant_id FROM users WHERE username = $1', [username]);
          if (rows[0])
            req.auditHints = {
              ...req.auditHints,
              actor: { type: 'user', id: username, tenant: rows[0].tenant_id },
              tenantId: rows[0].tenant_id,
            };
        }
        throw e;
      }
    },
  );

  app.post(
    '/refresh',
    {
      schema: {
        summary: 'Exchange a refresh token (single use) for a new token pair',
        tags,
        security: [],
        body: RefreshIn,
        response: { 200: envelope(TokenOut), ...errorResponses(400, 401, 429) },
      },
    },
    async (req, reply) => {
      const st = s.security;
      req.auditHints = {
        action: 'auth.refresh',
        resource: { type: 'refresh_token', id: req.body.refresh_token.split('.')[0].slice(0, 40) },
      };
      const out = await rotateRefreshToken(st, req.body.refresh_token);
      if (!out.ok) {
        if (out.reuse) {
          const actor = { type: 'user' as const, id: out.reuse.username ?? out.reuse.userId, tenant: out.reuse.tenant };
          req.auditHints = {
            ...req.auditHints,
            actor,
            tenantId: out.reuse.tenant,
            details: { reason: 'refresh_token_reused', family: out.reuse.family },
          };
          await recordAudit(s, {
            tenantId: out.reuse.tenant,
            actor,
            action: 'auth.refresh_reuse',
            resource: { type: 'refresh_family', id: out.reuse.family },
            requestId: req.id,
            ip: req.caller.ip,
            userAgent: req.headers['user-agent'],
            interface: 'rest',
            result: 'denied',
            status: 401,
            details: { reason: 'a refresh token was presented a second time; every token of its family is revoked' },
          }).catch((err) => req.log.error({ err }, 'audit of a refresh-token reuse failed'));
        }
        throw out.error;
      }
      req.auditHints = {
        ...req.auditHints,
        actor: { type: 'user', id: out.subject.username, tenant: out.subject.tenant },
        tenantId: out.subject.tenant,
        details: { family: out.family },
      };
      return reply.ok(out.pair);
    },
  );

  app.post('/logout', {
    config: { permission: 'read' },
    schema: {
      summary: 'End the session of this access token (or all of the user\'s sessions): its tokens stop working and its open connections close at once',
      tags, querystring: LogoutQuery, response: { 200: envelope(LogoutOut), ...errorResponses(400, 401, 429) },
    },
  }, async (req, reply) => {
    const auth = req.headers.authorization;
    const session = req.authMethod?.startsWith('bearer') && auth ? revocableCredential({ authorization: auth }) : {};
    if (!session.family || !session.userId) {
      throw new AppError(
        'INVALID_REQUEST',
        'logout ends the session of a bearer token; an API key is revoked by an admin (DELETE /api/v1/admin/api-keys/{id})',
      );
    }
    const out = await logout(s.security, { userId: session.userId, family: session.family, tenant: req.caller.actor.tenant }, req.query.all_sessions === true);
    req.auditHints = {
      action: 'auth.logout',
      resource: { type: 'refresh_family', id: session.family },
      details: { all_sessions: req.query.all_sessions === true, sessions: out.sessions },
    };
    return reply.ok(out);
  });
}
