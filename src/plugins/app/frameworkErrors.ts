// Requests Fastify refuses before any route or hook runs: a path that is not valid
// percent-encoding (FST_ERR_BAD_URL) or a path parameter over the router's length limit
// (FST_ERR_MAX_PARAM_LENGTH). No hook sees them, so this answers them with the
// specification's error body and writes their audit row itself: such a request is a probe
// as often as a mistake, and every answered request covered by the audit rule leaves a
// row (#21 item 1; docs/security.md "Audit trail").
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import { anonymousCaller } from '../../security/authenticate.js';
import { logAuditFailure, recordAudit } from '../../security/audit.js';
import { normalizeIp } from '../../security/ip.js';
import { errorBody, traceIdNow } from './envelope.js';
import { AppError } from '../../lib/errors.js';
import { checkRateLimits, classifyRoute } from '../../security/ratelimit.js';

function refusal(err: FastifyError, path: string): { message: string; details: Record<string, unknown> } {
  if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return {
      message: `a path segment of ${path.slice(0, 120)} is too long: identifiers are at most 100 characters`,
      details: { reason: 'path_segment_too_long' },
    };
  }
  return {
    message: `the path ${path.slice(0, 120)} is not valid percent-encoding: every byte outside A-Z a-z 0-9 - . _ ~ must be written ` +
      `as %XX of its UTF-8 encoding (encodeURIComponent in JavaScript, urllib.parse.quote in Python)`,
    details: { reason: 'invalid_percent_encoding' },
  };
}

export function frameworkErrorHandler(services: () => Services) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply): void => {
    void answer(services(), err, req, reply).catch((e) => {
      req.log.error({ err: e }, 'a request refused before routing could not be answered');
      if (!reply.sent) reply.code(500).send(errorBody(req, 'INTERNAL_ERROR', 'internal error; the request id identifies it in the logs'));
    });
  };
}

async function answer(s: Services, err: FastifyError, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  req.traceId = traceIdNow();
  reply.header('X-Request-Id', req.id).header('X-Trace-Id', req.traceId);
  const ip = normalizeIp(req.ip);
  const path = (req.raw.url ?? '').split('?')[0];
  // The same address layer (L1) and block list as any other request: a flood of bad paths
  // costs a bucket step, not an audit row each (refusals are counted in aggregate).
  let e: AppError;
  if (s.security.isBlocked(ip)) e = new AppError('IP_BLOCKED', `requests from ${ip} are blocked`, { ip });
  else {
    const rl = await checkRateLimits(s, { ip, ipClass: classifyRoute(req.method, undefined, true).ipClass });
    for (const k in rl.headers) reply.header(k, rl.headers[k]);
    if (!rl.allowed) e = rl.error!;
    else {
      const r = refusal(err, path);
      e = new AppError('INVALID_REQUEST', r.message, r.details);
    }
  }
  const status = e.statusCode;
  const caller = anonymousCaller(req.id, ip, req.headers['user-agent'], 'rest');
  await recordAudit(s, {
    tenantId: 'default',
    actor: caller.actor,
    action: `${req.method} ${path.slice(0, 180)}`,
    requestId: req.id,
    ip,
    userAgent: req.headers['user-agent'],
    interface: 'rest',
    result: status === 400 ? 'failure' : 'denied',
    status,
    details: { method: req.method, path, status, error_code: e.code, ...e.details },
  }).catch((x) => logAuditFailure(req.log, x));
  req.log.info({ req: { method: req.method, url: path }, status, code: e.code }, 'request refused before routing');
  reply.code(status).send(errorBody(req, e.code, e.message, e.details));
}
