// The Fastify application: external plugins, the app's plugins, then routes
// (autoloaded from src/routes, one folder per resource; their TypeBox schemas in src/schemas).
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import autoload from '@fastify/autoload';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Services } from './services.js';
import envelope from './plugins/app/envelope.js';
import requestLog from './plugins/app/requestLog.js';
import servicesPlugin from './plugins/app/services.js';
import caller from './plugins/app/caller.js';
import metrics from './plugins/app/metrics.js';
import websocketDoor from './plugins/app/websocket.js';
import versioning, { defaultVersionRewrite } from './plugins/app/versioning.js';
import graphql from './plugins/app/graphql.js';
import swagger from './plugins/external/swagger.js';
import { logRedactPaths, logSerializers, requestIdOf } from './security/logRedaction.js';
import docsPages from './plugins/app/docsPages.js';
import consolePages from './plugins/app/console.js';
import { frameworkErrorHandler } from './plugins/app/frameworkErrors.js';

const here = dirname(fileURLToPath(import.meta.url));
export const BODY_LIMIT = 1024 * 1024; // SPEC 8.3

export async function buildApp(services: Services, opts: FastifyServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    // Request logs never carry credentials: URLs with ?token= redacted, no headers (security.md).
    loggerInstance: services.log.child({}, { serializers: logSerializers, redact: { paths: logRedactPaths, censor: '[redacted]' } }),
    bodyLimit: BODY_LIMIT,
    // A client's X-Request-Id is used only when short and plain; genReqId decides.
    requestIdHeader: false,
    genReqId: requestIdOf,
    // One line per request instead, at a level by outcome (plugins/app/requestLog.ts).
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: false,
    // Unversioned /api/... paths go to the default API version (docs/versioning.md).
    rewriteUrl: defaultVersionRewrite(services.config.versioning),
    // Paths refused before routing (bad percent-encoding, an over-long segment): spec body and audit row.
    frameworkErrors: frameworkErrorHandler(() => services),
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, useDefaults: true, allErrors: false } },
    ...opts,
  });
  await app.register(servicesPlugin, { services });
  await app.register(envelope);
  await app.register(requestLog);
  // Disabled versions (404), removed endpoints (410) and deprecation headers, before authentication.
  await app.register(versioning);
  await app.register(caller);
  await app.register(metrics); // after the caller gate: GET /metrics needs the admin permission
  // Before anything that may register @fastify/websocket itself (GraphQL subscriptions).
  await app.register(websocketDoor);
  // POST /graphql and graphql-ws at /graphql (after the caller gate, before the REST routes).
  await app.register(graphql);
  await app.register(docsPages);
  await app.register(consolePages);
  await app.register(swagger);
  await app.register(autoload, { dir: join(here, 'routes'), dirNameRoutePrefix: true, forceESM: true, ignorePattern: /(^schema|\.map$|\.d\.ts$)/ });
  return app;
}
