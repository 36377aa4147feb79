// The GraphQL door rebuilt on mercurius 16, for measuring it against the
// hand-written door (docs/graphql.md "Why not mercurius"): same schema,
// resolvers, context, error format, limits and security gate, with mercurius's
// own HTTP route, persisted queries (automatic APQ) and subscription server.
// test/graphql-mercurius.test.ts runs it. The measurement in docs/graphql.md ran
// the GraphQL test files with src/app.ts registering this instead of the door.
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import mercurius from 'mercurius';
import { type ExecutionResult, type GraphQLError, getOperationAST } from 'graphql';
import { buildGraphqlSchema } from '../../src/graphql/build.js';
import { createContext } from '../../src/graphql/context.js';
import { formatError, gqlError, toGraphQLError } from '../../src/graphql/errors.js';
import { aliasLimitRule, costOf, depthLimitRule, LIMITS } from '../../src/graphql/limits.js';
import { negotiateVersion } from '../../src/graphql/versions.js';
import { gate } from '../../src/security/index.js';
import type { Services } from '../../src/services.js';

export interface MercuriusDoorOptions {
  /** Refuses connection_init (stands for the security gate when no services are given). */
  onConnect?: (params: Record<string, unknown>) => Promise<Record<string, unknown> | false>;
}

/** Registers mercurius at /graphql on an app that has `services` (or none: schema-level checks only). */
export async function registerMercuriusDoor(app: FastifyInstance, s: Services | undefined, o: MercuriusDoorOptions = {}): Promise<void> {
  const schema = buildGraphqlSchema();
  const log = app.log;
  if (s) {
    await s.progress.start();
    app.addHook('onClose', async () => s.progress.close());
  }
  // mercurius wraps validation errors in one MER_ERR_GQL_VALIDATION error (its `errors`
  // hold the graphql-js ones) and names its APQ errors itself: unwrap and map them.
  const unwrap = (e: GraphQLError): GraphQLError[] => {
    const o = e.originalError as (Error & { code?: string; errors?: GraphQLError[] }) | undefined;
    if (o?.errors?.length) return o.errors.flatMap((x) => unwrap(toGraphQLError(x)));
    if (o?.code === 'MER_ERR_GQL_PERSISTED_QUERY_NOT_FOUND') return [gqlError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound')];
    if (o?.code === 'MER_ERR_GQL_PERSISTED_QUERY_NOT_SUPPORTED') return [gqlError('PERSISTED_QUERY_NOT_SUPPORTED', 'PersistedQueryNotSupported')];
    return [e];
  };
  const format = (errors: readonly GraphQLError[], traceId: string) =>
    errors.flatMap((e) => unwrap(toGraphQLError(e))).map((e) => formatError(e, { traceId, log, production: false }));
  // Schema-Version, Deprecation, Sunset and Link on every answer (SPEC 9).
  app.addHook('onSend', async (req, reply) => {
    try {
      for (const [k, v] of Object.entries(negotiateVersion(req.headers).headers)) reply.header(k, v);
    } catch {
      // an unknown version is answered in the body
    }
  });
  // The REST gate needs a route config (permission); mercurius declares its routes itself.
  app.addHook('onRoute', (route) => {
    if (route.url === '/graphql' && route.method === 'POST') route.config = { ...(route.config as object), permission: 'read', audit: false } as never;
  });
  await app.register(mercurius, {
    schema,
    path: '/graphql',
    graphiql: false,
    jit: 0,
    validationRules: [depthLimitRule(LIMITS.depth), aliasLimitRule(LIMITS.aliases)],
    persistedQueryProvider: mercurius.persistedQueryDefaults.automatic(2000),
    context: (req: FastifyRequest) => {
      const neg = negotiateVersion(req.headers);
      return createContext({
        s: s as Services, caller: req.caller ? { ...req.caller, interface: 'graphql' } : null, requestId: req.id,
        traceId: req.traceId ?? randomBytes(16).toString('hex'), schemaVersion: neg.info.version, transport: 'http', request: req,
      }) as never;
    },
    errorFormatter: (execution: ExecutionResult, ctx: unknown) => ({
      statusCode: 200,
      // Errors before execution come without data (SPEC 7.3), as the door answers them.
      response: {
        ...('data' in execution ? { data: execution.data ?? null } : {}),
        errors: format(execution.errors ?? [], (ctx as { traceId?: string } | undefined)?.traceId ?? ''),
      },
    }),
    subscription: {
      fullWsTransport: true,
      onConnect: async (data: { payload?: Record<string, unknown> }) => {
        const params = data.payload ?? {};
        if (o.onConnect) return o.onConnect(params);
        if (!s) return {};
        const token = typeof params.token === 'string' ? params.token : undefined;
        // mercurius gives onConnect the message only (no socket, no request): the gate
        // cannot see the client address or certificate, and a refusal cannot pick a close code.
        const { caller } = await gate(s, {
          door: 'graphql', ipClass: 'authenticated', action: 'WS /graphql connection_init', permission: 'read', token,
          ip: '127.0.0.1', requestId: randomUUID(),
        });
        return { caller: { ...caller, interface: 'graphql' } };
      },
      context: (_socket: unknown, req: FastifyRequest) =>
        createContext({
          s: s as Services, caller: null, requestId: randomUUID(), traceId: randomBytes(16).toString('hex'),
          schemaVersion: negotiateVersion(req.headers).info.version, transport: 'ws', request: req,
        }) as never,
    },
  });
  // Complexity depends on the variables, so it runs before execution.
  app.graphql.addHook('preExecution', async (sch, document, _ctx, variables) => {
    const op = getOperationAST(document);
    if (!op) return;
    const c = costOf(sch, document, op, (variables ?? {}) as Record<string, unknown>).complexity;
    if (c > LIMITS.complexity) {
      throw gqlError('QUERY_TOO_COMPLEX', `query complexity ${c} exceeds the limit of ${LIMITS.complexity}`, { complexity: c, limit: LIMITS.complexity });
    }
  });
}
