// The GraphQL door (SPEC 4.5, 6.2, 7.3, 8.3, 9; docs/graphql.md):
//   POST /graphql                 queries and mutations (application/json or application/graphql)
//   GET  /graphql + Upgrade       subscriptions (and queries/mutations) over the graphql-ws
//                                 protocol (subprotocol graphql-transport-ws)
// HTTP requests pass the same security gate as REST (src/plugins/app/caller.ts:
// authentication, four rate-limit layers, "read" permission); each root field
// then checks the permission its REST endpoint needs, takes that endpoint's own
// rate limits and audits mutations (src/graphql/guard.ts). WebSocket clients
// authenticate with the connection parameter `token` (or the upgrade's
// Authorization / X-API-Key headers) through the same security functions.
import fp from 'fastify-plugin';
import websocket from '@fastify/websocket';
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { makeServer, CloseCode, type Context as WsContext } from 'graphql-ws';
import { subscribe, type ExecutionResult, type GraphQLError } from 'graphql';
import { AppError } from '../../lib/errors.js';
import type { Caller } from '../../domain/caller.js';
import { acquireConnection, checkRateLimits, gate, recordAudit, logAuditFailure, fromCaller, anonymousCaller } from '../../security/index.js';
import { normalizeIp } from '../../security/ip.js';
import { clientSocketError, websocketErrorHandler } from '../../realtime/socketErrors.js';
import { toAppError } from './envelope.js';
import { buildGraphqlSchema } from '../../graphql/build.js';
import { GraphqlEngine } from '../../graphql/execute.js';
import { PersistedQueries } from '../../graphql/persisted.js';
import { formatError, gqlCodeOf, gqlError, toGraphQLError } from '../../graphql/errors.js';
import { createContext } from '../../graphql/context.js';
import { negotiateVersion, type Negotiated } from '../../graphql/versions.js';
import {
  checkCredential,
  revocableCredential,
  revocationError,
  watchCredential,
  type Revocation,
  type RevocableCredential,
} from '../../security/revocation.js';

export const GRAPHQL_PATH = '/graphql';
const HTTP_OPERATIONS = new Set(['query', 'mutation'] as const);
const WS_OPERATIONS = new Set(['query', 'mutation', 'subscription'] as const);
/** SPEC 8.1: at most 50 subscriptions per connection and 100 messages per second. */
const MAX_SUBSCRIPTIONS = 50;
const MAX_MESSAGES_PER_SECOND = 100;

declare module 'fastify' {
  interface FastifyInstance {
    /** The GraphQL engine (schema, limits); tests and benchmarks read it. */
    graphqlEngine: GraphqlEngine;
  }
}

/** State of one graphql-ws connection. */
interface WsConn {
  socket: WebSocket;
  request: FastifyRequest;
  caller?: Caller;
  version?: Negotiated;
  release?: () => Promise<void> | void;
  expiry?: NodeJS.Timeout;
  /** The credential, checked again per operation; unwatch stops the revocation watch. */
  revocable?: RevocableCredential;
  unwatch?: () => void;
  /** Ends the connection's hold on the progress hub (it listens to solver iterations while a client is connected). */
  unhold?: () => void;
  window: { start: number; count: number };
}

/** A revoked credential closes the connection: 4401 (gone) or 4403 (role changed). */
function closeRevoked(conn: WsConn, r: Revocation): void {
  conn.socket.close(r.closeCode, limitReason(`${gqlCodeOf(r.code)}: ${r.message}`));
}

const limitReason = (s: string) => (Buffer.byteLength(s) > 120 ? `${s.slice(0, 110)}…` : s);

function closeCodeOf(code: string): number {
  switch (gqlCodeOf(code)) {
    case 'UNAUTHENTICATED':
      return CloseCode.Unauthorized; // 4401: graphql-ws clients do not retry
    case 'FORBIDDEN':
      return CloseCode.Forbidden; // 4403
    case 'RATE_LIMITED':
      return CloseCode.TooManyInitialisationRequests; // 4429
    case 'VALIDATION_FAILED':
      return CloseCode.BadRequest; // 4400
    default:
      return CloseCode.InternalServerError;
  }
}

/** exp (ms) of a JWT, without verifying (authenticate() has verified it). */
function tokenExpiry(token: string | undefined): number | undefined {
  if (!token) return undefined;
  try {
    const exp = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

function isUpgrade(req: FastifyRequest): boolean {
  const up = req.headers.upgrade;
  return req.method === 'GET' && typeof up === 'string' && up.toLowerCase() === 'websocket';
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
}

async function graphqlRoutes(app: FastifyInstance, opts: { engine: GraphqlEngine }) {
  const s = app.services;
  const engine = opts.engine;
  const schema = engine.schema;
  const apq = new PersistedQueries(s.config.redisUrl, s.config.redisPrefix, s.log);
  await s.progress.start();
  app.addHook('onClose', async () => {
    s.progress.close();
    await apq.close();
  });

  const format = (errors: readonly GraphQLError[], traceId: string) =>
    errors.map((e) => formatError(e, { traceId, log: s.log, production: s.config.production }));

  function send(reply: FastifyReply, neg: Negotiated | undefined, body: Record<string, unknown>) {
    if (neg) for (const [k, v] of Object.entries(neg.headers)) reply.header(k, v);
    return reply.code(200).type(neg?.contentType ?? 'application/json; charset=utf-8').send(body);
  }

  // application/graphql: the body is the query text (no variables).
  app.addContentTypeParser('application/graphql', { parseAs: 'string' }, (_req, body, done) => done(null, { query: body }));

  // Request-level failures (security gate, body parsing, version, persisted query):
  // GraphQL errors with HTTP 200 (SPEC 7.3), no data; denials are audited here
  // (the REST hook audits only 401/403/429 responses).
  app.setErrorHandler(async (err: FastifyError | AppError | GraphQLError, req, reply) => {
    // A refused WebSocket upgrade (429 with Retry-After, 401, 403) is answered as on /ws,
    // with its HTTP status by the envelope's handler: a WebSocket client reports the
    // status; a 200 would make it fail with "Unexpected server response: 200".
    if (isUpgrade(req)) throw err;
    const gerr =
      (err as GraphQLError).extensions?.code !== undefined && !(err instanceof AppError)
        ? (err as GraphQLError)
        : toGraphQLError(toAppError(err as FastifyError));
    const original = gerr.originalError;
    if (original instanceof AppError && [401, 403, 429].includes(original.statusCode)) {
      const caller = req.caller ?? anonymousCaller(req.id, req.ip, req.headers['user-agent'], 'graphql');
      await recordAudit(s, {
        ...fromCaller(caller), tenantId: caller.tenantId || 'default', interface: 'graphql', action: `${req.method} ${GRAPHQL_PATH}`, requestId: req.id,
        ip: normalizeIp(req.ip), result: 'denied', status: original.statusCode, details: { error_code: original.code, reason: original.message },
      }).catch((e) => logAuditFailure(req.log, e));
    }
    let neg: Negotiated | undefined;
    try {
      neg = negotiateVersion(req.headers);
    } catch {
      neg = undefined;
    }
    return send(reply, neg, { errors: format([gerr], req.traceId) });
  });

  app.post(GRAPHQL_PATH, {
    // callerText: each mutation checks its arguments (src/graphql/guard.ts)
    config: { permission: 'read', audit: false, callerText: 'handler' },
    schema: { hide: true },
  }, async (req, reply) => {
    const neg = negotiateVersion(req.headers);
    const body = req.body as { query?: unknown; variables?: unknown; operationName?: unknown; extensions?: unknown } | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw gqlError('VALIDATION_FAILED', 'send a JSON object {"query": "...", "variables": {...}, "operationName": "..."}', { reason: 'INVALID_REQUEST' });
    }
    const { query, register } = await apq.resolve(body.query, body.extensions);
    const request = {
      query,
      variables: body.variables as Record<string, unknown> | null | undefined,
      operationName: typeof body.operationName === 'string' ? body.operationName : undefined,
    };
    const prepared = engine.prepare(request, HTTP_OPERATIONS);
    if ('errors' in prepared) return send(reply, neg, { errors: format(prepared.errors, req.traceId) });
    if (register) await apq.set(register, query!);
    const ctx = createContext({
      s, caller: { ...req.caller, interface: 'graphql' }, requestId: req.id, traceId: req.traceId,
      schemaVersion: neg.info.version, transport: 'http', request: req,
    });
    const result: ExecutionResult = await engine.execute(prepared, request, ctx);
    return send(reply, neg, result.errors ? { data: result.data ?? null, errors: format(result.errors, req.traceId) } : { data: result.data });
  });

  // ------------------------------------------------------------------ graphql-ws

  const wsServer = makeServer<Record<string, unknown> | undefined, WsConn>({
    schema,
    connectionInitWaitTimeout: 10_000,
    onConnect: async (ctx: WsContext<Record<string, unknown> | undefined, WsConn>) => {
      const conn = ctx.extra;
      const req = conn.request;
      const params = ctx.connectionParams ?? {};
      try {
        conn.version = negotiateVersion({ accept: req.headers.accept, 'schema-version': str(params.schemaVersion) ?? req.headers['schema-version'] });
        const token = str(params.token) ?? (str(params.authorization)?.replace(/^Bearer\s+/i, ''));
        const { caller } = await gate(s, {
          door: 'graphql', ipClass: 'authenticated', action: `WS ${GRAPHQL_PATH} connection_init`, permission: 'read',
          token, authorization: token ? undefined : req.headers.authorization,
          apiKey: str(params.apiKey) ?? str(req.headers['x-api-key']), tenantHeader: str(params.tenantId) ?? str(req.headers['x-tenant-id']),
          socket: req.raw.socket, ip: normalizeIp(req.ip), userAgent: req.headers['user-agent'], requestId: req.id,
        });
        conn.caller = { ...caller, interface: 'graphql' };
        conn.revocable = revocableCredential({
          token,
          authorization: token ? undefined : req.headers.authorization,
          apiKey: str(params.apiKey) ?? str(req.headers['x-api-key']),
        });
        conn.unwatch = watchCredential(s, conn.revocable, (r) => closeRevoked(conn, r));
        const slot = await acquireConnection(s, conn.caller, 'ws');
        // Acknowledged once progress reaches this process: a task submitted after the ack has all its iterations kept.
        conn.unhold = await s.progress.hold();
        if (conn.socket.readyState !== conn.socket.OPEN) conn.unhold();
        let released = false;
        s.metrics.liveConnections.inc({ transport: 'graphql-ws' });
        conn.release = () => {
          if (released) return;
          released = true;
          s.metrics.liveConnections.dec({ transport: 'graphql-ws' });
          return slot.release();
        };
        if (conn.socket.readyState !== conn.socket.OPEN) await conn.release();
        const exp = tokenExpiry(token ?? str(req.headers.authorization)?.replace(/^Bearer\s+/i, ''));
        if (exp && exp - Date.now() < 2 ** 31 - 1) {
          conn.expiry = setTimeout(
            () => conn.socket.close(CloseCode.Unauthorized, 'UNAUTHENTICATED: the access token expired; reconnect with a fresh one'),
            Math.max(0, exp - Date.now()),
          );
          conn.expiry.unref();
        }
        const v = conn.version.info;
        return {
          schemaVersion: v.version,
          ...(v.status === 'deprecated' ? { deprecation: { deprecated: true, sunset: v.end.toISOString(), successor: conn.version.headers.Link } } : {}),
        };
      } catch (e) {
        const ae = e instanceof AppError ? e : undefined;
        if (!ae) s.log.error({ err: e }, 'graphql-ws connection_init failed');
        const code = ae ? gqlCodeOf(ae.code) : 'INTERNAL_ERROR';
        conn.socket.close(closeCodeOf(ae?.code ?? 'INTERNAL_ERROR'), limitReason(`${code}: ${ae?.message ?? 'internal error'}`));
        return false;
      }
    },
    onSubscribe: async (ctx, id, payload) => {
      const conn = ctx.extra;
      const traceId = randomBytes(16).toString('hex');
      // Revoked since connection_init: refuse, then close (after the error message is out).
      const revoked = conn.revocable && await checkCredential(s, conn.revocable);
      if (revoked) {
        setImmediate(() => closeRevoked(conn, revoked));
        return [toGraphQLError(revocationError(revoked))];
      }
      if (Object.keys(ctx.subscriptions).length > MAX_SUBSCRIPTIONS) {
        return [
          gqlError('RATE_LIMITED', `at most ${MAX_SUBSCRIPTIONS} operations may run at once on one connection`, {
            limit: MAX_SUBSCRIPTIONS,
            scope: 'connection',
          }),
        ];
      }
      let query: string | undefined;
      let register: string | undefined;
      try {
        ({ query, register } = await apq.resolve(payload.query, payload.extensions));
      } catch (e) {
        return [toGraphQLError(e)];
      }
      const request = { query, variables: payload.variables ?? undefined, operationName: payload.operationName ?? undefined };
      const prepared = engine.prepare(request, WS_OPERATIONS);
      if ('errors' in prepared) return [...prepared.errors];
      // Each operation over the socket is one API request for the IP, tenant and user layers, as a POST would be.
      const rl = await checkRateLimits(s, { ip: normalizeIp(conn.request.ip), ipClass: 'authenticated', caller: conn.caller });
      if (!rl.allowed) return [toGraphQLError(rl.error)];
      if (rl.waitMs > 0) await new Promise((r) => setTimeout(r, rl.waitMs));
      if (register) await apq.set(register, query!);
      const contextValue = createContext({
        s, caller: conn.caller ? { ...conn.caller, requestId: randomUUID() } : null, requestId: randomUUID(), traceId,
        schemaVersion: conn.version!.info.version, transport: 'ws', request: conn.request,
      });
      return { schema, document: prepared.document, variableValues: request.variables ?? {}, operationName: request.operationName, contextValue };
    },
    execute: (args) => engine.executeArgs(args),
    subscribe: (args) => subscribe(args),
    onNext: (_ctx, _id, _payload, args, result) => {
      if (!result.errors) return undefined;
      const traceId = (args.contextValue as { traceId?: string } | undefined)?.traceId ?? '';
      return { ...result, data: result.data ?? null, errors: format(result.errors, traceId) };
    },
    onError: (_ctx, _id, _payload, errors) => format(errors, randomBytes(16).toString('hex')),
    onClose: async (ctx) => {
      const conn = ctx.extra;
      if (conn.expiry) clearTimeout(conn.expiry);
      conn.unwatch?.();
      conn.unhold?.();
      await conn.release?.();
      conn.release = undefined;
    },
  });

  function wsHandler(socket: WebSocket, request: FastifyRequest) {
    const conn: WsConn = { socket, request, window: { start: Date.now(), count: 0 } };
    socket.once('error', (err) => {
      // A client's protocol error: ws has closed the connection with its code, and the door's errorHandler logged it once.
      if (clientSocketError(err)) return;
      s.log.warn({ err }, 'graphql-ws socket error');
      socket.close(CloseCode.InternalServerError, 'Internal server error');
    });
    const closed = wsServer.opened({
      protocol: socket.protocol,
      send: (data) => new Promise<void>((resolve, reject) => {
        if (socket.readyState !== socket.OPEN) return resolve();
        socket.send(data, (err) => (err ? reject(err) : resolve()));
      }),
      close: (code, reason) => socket.close(code, reason),
      onMessage: (cb) => socket.on('message', async (data) => {
        const now = Date.now();
        if (now - conn.window.start >= 1000) conn.window = { start: now, count: 0 };
        if (++conn.window.count > MAX_MESSAGES_PER_SECOND) {
          socket.close(CloseCode.TooManyInitialisationRequests, `RATE_LIMITED: more than ${MAX_MESSAGES_PER_SECOND} messages per second`);
          return;
        }
        try {
          await cb(String(data));
        } catch (err) {
          s.log.error({ err }, 'graphql-ws message handling failed');
          socket.close(CloseCode.InternalServerError, 'Internal server error');
        }
      }),
    }, conn);
    socket.once('close', (code, reason) => {
      conn.unwatch?.(); // also when connection_init never completed (graphql-ws calls onClose only after an ack)
      conn.unhold?.();
      void closed(code, String(reason));
    });
  }

  app.route({
    method: 'GET',
    url: GRAPHQL_PATH,
    // Public for the REST gate (the upgrade takes the ws_connect IP limit); the
    // connection authenticates in connection_init.
    config: { audit: false },
    schema: { hide: true },
    handler: async (req, reply) => {
      let neg: Negotiated | undefined;
      try {
        neg = negotiateVersion(req.headers);
      } catch {
        neg = undefined;
      }
      return send(reply, neg, {
        errors: format(
          [
            gqlError(
              'VALIDATION_FAILED',
              `send queries and mutations with POST ${GRAPHQL_PATH}; GET ${GRAPHQL_PATH} only upgrades to the graphql-ws WebSocket ` +
                `protocol (subprotocol graphql-transport-ws)`,
              { reason: 'METHOD_NOT_ALLOWED', allow: ['POST'] },
            ),
          ],
          req.traceId,
        ),
      });
    },
    wsHandler,
  });
}

/** Registers @fastify/websocket for the whole app when the WebSocket door has not, then the GraphQL routes (encapsulated: own error handler). */
export default fp(async (app: FastifyInstance) => {
  const s = app.services;
  if (!app.hasDecorator('websocketServer')) await app.register(websocket, { options: { maxPayload: 1024 * 1024 }, errorHandler: websocketErrorHandler });
  const engine = new GraphqlEngine(buildGraphqlSchema(), { introspection: s.config.introspection, timeoutMs: s.config.graphqlTimeoutMs ?? 30_000 });
  app.decorate('graphqlEngine', engine);
  await app.register(graphqlRoutes, { engine });
}, { name: 'graphql', dependencies: ['services', 'envelope', 'request-caller'] });
