// One log line per request, at a level that keeps the default (info) log readable under
// load (docs/deployment.md#logs). Fastify's own request logging (two lines per request, all
// at info) is off (app.ts: disableRequestLogging):
//   5xx                                   error  (the error handler logs the stack beside it)
//   refused by a rate limit (429)         info, once per caller, layer and minute, with the
//                                         number refused in the previous minute
//   other 4xx                             info   ("request rejected: 404 NOT_FOUND network …")
//   changes (POST, PUT, PATCH, DELETE)    info
//   successful reads (GET, HEAD, GraphQL) debug
// Each line has one msg, which carries the rejection reason (jq .msg keeps it).
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the error handler: what the error body said, for the request's log line. */
    rejection?: { code: string; message: string; scope?: string };
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Counts 429s per (caller, layer) in the current minute: the first is logged, the rest summed. */
function rateLimitSampler() {
  let minute = -1;
  let seen = new Map<string, number>();
  let previous = new Map<string, number>();
  return (key: string): { log: boolean; previousMinute: number } => {
    const m = Math.floor(Date.now() / 60_000);
    if (m !== minute) {
      previous = m === minute + 1 ? seen : new Map();
      seen = new Map();
      minute = m;
    }
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return { log: n === 1, previousMinute: previous.get(key) ?? 0 };
  };
}

export default fp(async (app: FastifyInstance) => {
  const sample = rateLimitSampler();
  app.decorateRequest('rejection', undefined);
  app.addHook('onResponse', async (req: FastifyRequest, reply: FastifyReply) => {
    const status = reply.statusCode;
    const line = { req, res: reply, responseTime: Math.round(reply.elapsedTime * 10) / 10 };
    const what = `${req.method} ${req.routeOptions.url ?? req.url.split('?')[0]} ${status}`;
    const r = req.rejection;
    if (status >= 500) {
      req.log.error({ ...line, code: r?.code }, `request failed: ${what}${r ? ` ${r.code}` : ''}`);
    } else if (status === 429) {
      const who = req.caller?.actor.id && req.caller.actor.type !== 'anonymous' ? `${req.caller.actor.type}:${req.caller.actor.id}` : req.ip;
      const s = sample(`${who}|${r?.scope ?? ''}`);
      if (s.log) {
        req.log.info(
          { ...line, code: 'RATE_LIMITED', scope: r?.scope, refused_previous_minute: s.previousMinute },
          `request rejected: ${what} RATE_LIMITED ${r?.message ?? ''} (further refusals of this caller and layer this minute are ` +
            `not logged; they are counted in GET /api/v1/audit/rate-limited)`,
        );
      }
    } else if (status >= 400) {
      req.log.info({ ...line, code: r?.code }, `request rejected: ${what}${r ? ` ${r.code}: ${r.message}` : ''}`);
    } else if (READS.has(req.method) || req.routeOptions.url === '/graphql') {
      req.log.debug(line, `request completed: ${what}`);
    } else {
      req.log.info(line, `request completed: ${what}`);
    }
  });
}, { name: 'request-log', dependencies: ['envelope'] });
