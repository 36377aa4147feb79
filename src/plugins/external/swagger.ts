// OpenAPI document generated from the routes' TypeBox schemas, served at
// /api/v1/openapi.json, with an interactive page at /docs. The document is validated in
// `npm test` (test/openapi.test.ts) and a Python client is generated from it (docs/clients.md).
// Every operation lists the errors it can return: the ones its schema names, plus 429
// (every request passes the rate limits), 500, 401/403 where it needs credentials, 404 where
// its path names a resource and 400 where it takes parameters or a body. Paths carry no
// trailing slash (a list route registered as '/' under its prefix answers without it too).
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ErrorBody } from '../../schemas/common.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The request body as documented when the route validates none itself (non-JSON uploads). */
    openapiBody?: Record<string, unknown>;
    /** Responses as documented where they are more precise than the schema the route serializes with (results
     *  written as stored, typed by kind in the document). */
    openapiResponse?: Record<number, unknown>;
  }
}

const ERRORS: Record<number, string> = {
  400: 'INVALID_REQUEST or INVALID_FIELD: the message names the field',
  401: 'UNAUTHORIZED or TOKEN_EXPIRED: no or bad credentials',
  403: 'FORBIDDEN, TENANT_MISMATCH or IP_BLOCKED',
  404: 'NOT_FOUND',
  429: 'RATE_LIMITED: details.scope names the layer; Retry-After says when to retry (docs/load-testing.md)',
  500: 'INTERNAL_ERROR',
};

const ERROR_TEXT: Record<number, string> = {
  405: 'METHOD_NOT_ALLOWED', 409: 'CONFLICT, NETWORK_LOCKED or another state conflict (the message says which)', 410: 'GONE', 413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE: the message names what the endpoint takes', 422: 'VALIDATION_FAILED, PARAM_OUT_OF_RANGE or another business validation code',
  502: 'BAD_GATEWAY', 503: 'SERVICE_UNAVAILABLE', 504: 'GATEWAY_TIMEOUT (details.task_id: poll the task)',
};

type Schema = Record<string, unknown> & { response?: Record<string, unknown>; hide?: boolean };

/** The documented responses of a route: its own plus the errors every such route can return. */
function withErrors(schema: Schema, url: string, route: RouteOptions): Schema {
  const response = { ...(schema.response ?? {}), ...(route.config?.openapiResponse ?? {}) } as Record<string, unknown>;
  const codes = [429, 500];
  if (route.config?.permission) codes.push(401, 403);
  if (url.includes(':') || url.includes('{')) codes.push(404);
  if (schema.body || schema.querystring || schema.params || route.config?.openapiBody) codes.push(400);
  for (const c of codes) if (!(c in response) && !(String(c) in response)) response[c] = ErrorBody;
  // Every error response says what it means (else the document shows "Default Response").
  for (const [c, r] of Object.entries(response)) {
    if (Number(c) >= 400 && r && typeof r === 'object' && !(r as { description?: string }).description) {
      response[c] = { ...r, description: ERRORS[Number(c)] ?? ERROR_TEXT[Number(c)] ?? 'error (the SPEC error body)' };
    }
  }
  const out: Schema = { ...schema, response };
  if (route.config?.openapiBody) out.body = route.config.openapiBody;
  return out;
}

export default fp(async (app: FastifyInstance) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'gridops',
        description: 'Grid operations service: network models, power flow, tasks, operations records. Error codes: /docs/errors. '
          + 'Load testing and rate limits: /docs/load-testing.',
        version: app.services.config.version,
      },
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        },
      },
      security: [{ bearerAuth: [] }, { apiKey: [] }],
    },
    transform: ({ schema, url, route }) => {
      const path = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
      if (!schema || (schema as Schema).hide) return { schema, url: path };
      return { schema: withErrors(schema as Schema, path, route as RouteOptions) as never, url: path };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}, { name: 'swagger', dependencies: ['services'] });
