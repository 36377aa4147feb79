// The conventions of SPEC 4.1 and 7.1 for every REST endpoint: request and trace
// ids, the success envelope, the error body, 404 vs 405, timestamps in UTC or `tz`.
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import { randomUUID } from 'node:crypto';
import { isDeeplyFrozen } from '../../lib/immutable.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ERROR_STATUS, type ErrorCode } from '../../lib/errors.js';
import { ERRORS_PAGE, errorAnchor } from '../../lib/errorCatalog.js';
import { isValidTimeZone, renderDates } from '../../lib/time.js';
import { RETRY_AFTER_S, serviceUnavailable, unavailableDependency } from '../../lib/unavailable.js';
import { dataExceptionError, isDataException } from '../../lib/callerText.js';

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
    displayTz?: string;
  }
  interface FastifyContextConfig {
    /** What a route takes when it is not JSON: the advice of its 415 answer. */
    mediaTypes?: string;
  }
  interface FastifyReply {
    /** Sends the success envelope {data, meta?, request_id, timestamp}. */
    ok(data: unknown, meta?: Record<string, unknown>, statusCode?: number): FastifyReply;
  }
}

/** 32 hex digits (a W3C trace-id); randomUUID draws from a pooled entropy buffer, randomBytes does not. */
export function traceIdNow(): string {
  const u = randomUUID();
  return u.slice(0, 8) + u.slice(9, 13) + u.slice(14, 18) + u.slice(19, 23) + u.slice(24);
}

/** The entry of the code on the errors page this service serves (/docs/errors), as the client reached it. */
function docUrl(req: FastifyRequest, code: string): string {
  const host = req.headers.host;
  const page = `${ERRORS_PAGE}#${errorAnchor(code)}`;
  return host && /^[\w.:[\]-]+$/.test(host) ? `${req.protocol}://${host}${page}` : page;
}

export function errorBody(req: FastifyRequest, code: string, message: string, details?: Record<string, unknown>) {
  return {
    error: { code, message, ...(details && Object.keys(details).length ? { details } : {}), trace_id: req.traceId, doc_url: docUrl(req, code) },
    request_id: req.id,
  };
}

/** Maps a schema-validation failure to the codes of 7.2: a value of the wrong kind or outside
 *  an enum is INVALID_FIELD, a number out of bounds PARAM_OUT_OF_RANGE, anything else INVALID_REQUEST. */
function validationError(err: FastifyError): AppError {
  const v = err.validation?.[0];
  const where = err.validationContext ?? 'body';
  const path = v ? (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.') : '';
  const missing = v?.keyword === 'required' ? String((v.params as { missingProperty?: string }).missingProperty ?? '') : '';
  const field = [path, missing].filter(Boolean).join('.') || undefined;
  const label = field ? `${where} field "${field}"` : where;
  if (!v) return new AppError('INVALID_REQUEST', err.message);
  switch (v.keyword) {
    case 'required':
      return new AppError('INVALID_REQUEST', `${label} is required`, { field, location: where });
    case 'additionalProperties': {
      const extra = String((v.params as { additionalProperty?: string }).additionalProperty ?? '');
      return new AppError('INVALID_REQUEST', `${where} has an unknown field "${[path, extra].filter(Boolean).join('.')}"`, {
        field: [path, extra].filter(Boolean).join('.'),
        location: where,
      });
    }
    case 'const':
    case 'enum': {
      // A TypeBox union of literals fails as one `const` error per branch, then `anyOf`: name them all.
      const allowed =
        v.keyword === 'enum'
          ? ((v.params as { allowedValues?: unknown[] }).allowedValues ?? [])
          : (err.validation ?? [])
              .filter((x) => x.keyword === 'const' && x.instancePath === v.instancePath)
              .map((x) => (x.params as { allowedValue?: unknown }).allowedValue);
      return new AppError('INVALID_FIELD', `${label} must be one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, { field, allowed, location: where });
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return new AppError('PARAM_OUT_OF_RANGE', `${label} ${v.message}`, { field, limit: (v.params as { limit?: number }).limit, location: where });
    case 'minItems':
    case 'maxItems':
      return new AppError(where === 'body' ? 'VALIDATION_FAILED' : 'INVALID_REQUEST', `${label} ${v.message}`, {
        field,
        limit: (v.params as { limit?: number }).limit,
        location: where,
      });
    default:
      return new AppError('INVALID_FIELD', `${label} ${v.message}`, { field, location: where });
  }
}

function toAppError(err: FastifyError | AppError | Error, req?: FastifyRequest): AppError {
  if (err instanceof AppError) return err;
  const fe = err as FastifyError;
  if (fe.validation) return validationError(fe);
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'request body is larger than the 1 MB limit', { limit_bytes: 1024 * 1024 });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': {
      const sent = req?.headers['content-type'] ?? 'none';
      const takes = req?.routeOptions.config.mediaTypes ?? 'application/json';
      return new AppError('UNSUPPORTED_MEDIA_TYPE', `unsupported Content-Type ${sent}; this endpoint takes ${takes}`, { content_type: sent });
    }
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('INVALID_REQUEST', 'the body is empty but Content-Type is application/json; send a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('INVALID_REQUEST', 'Content-Length does not match the body');
  }
  if (fe.statusCode === 400 && err instanceof SyntaxError) {
    return new AppError('INVALID_REQUEST', `malformed JSON body: ${err.message}`);
  }
  if (fe.statusCode === 429) return new AppError('RATE_LIMITED', err.message);
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
    const code = (Object.keys(ERROR_STATUS) as ErrorCode[]).find((c) => ERROR_STATUS[c] === fe.statusCode) ?? 'INVALID_REQUEST';
    return new AppError(code, err.message);
  }
  // PostgreSQL or Redis away (restarting, unreachable): 503, the client may retry.
  const dep = unavailableDependency(err);
  if (dep) return serviceUnavailable(dep);
  // The database refused a value the caller sent (SQLSTATE class 22): the caller's mistake, 400.
  if (isDataException(err)) return dataExceptionError(err);
  return new AppError('INTERNAL_ERROR', 'internal error; the request id identifies it in the logs');
}

// An immutable value (a cached list page) is serialized through the route's response
// schema once per route and status; the template is split around the two values each
// request differs in, so a cache hit costs two concatenations instead of a serialization.
const isShared = (v: unknown): boolean => v !== null && typeof v === 'object' && isDeeplyFrozen(v);
const REQUEST_ID_MARK = `"__request_id_${randomUUID()}__"`;
const TIMESTAMP_MARK = `__timestamp_${randomUUID()}__`;
interface EnvelopeTemplate { meta?: object; head: string; middle: string; tail: string }
const templates = new WeakMap<object, Map<string, EnvelopeTemplate>>();

function envelopeTemplate(reply: FastifyReply, data: object, meta?: Record<string, unknown>): EnvelopeTemplate {
  const key = `${reply.statusCode} ${reply.request.method} ${reply.request.routeOptions.url}`;
  let byRoute = templates.get(data);
  if (!byRoute) templates.set(data, (byRoute = new Map()));
  const have = byRoute.get(key);
  if (have && have.meta === meta) return have;
  const json = reply.serialize({
    data: renderDates(data),
    ...(meta ? { meta } : {}),
    request_id: REQUEST_ID_MARK.slice(1, -1),
    timestamp: TIMESTAMP_MARK,
  }) as string;
  const i = json.lastIndexOf(REQUEST_ID_MARK);
  const j = json.lastIndexOf(TIMESTAMP_MARK);
  const t = { meta, head: json.slice(0, i), middle: json.slice(i + REQUEST_ID_MARK.length, j), tail: json.slice(j + TIMESTAMP_MARK.length) };
  byRoute.set(key, t);
  return t;
}

async function envelope(app: FastifyInstance) {
  // A second router that knows every (method, path) so an unknown method on a
  // known path answers 405 with Allow instead of 404.
  const known = FindMyWay();
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const m of methods) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      try {
        known.on(m as 'GET', route.url, () => {});
      } catch {
        /* duplicate registration through prefixes: already known */
      }
      const set = methodsByPath.get(route.url) ?? new Set<string>();
      set.add(m);
      methodsByPath.set(route.url, set);
    }
  });

  app.decorateRequest('traceId', '');
  app.decorateRequest('displayTz', undefined);
  app.decorateReply('ok', function (this: FastifyReply, data: unknown, meta?: Record<string, unknown>, statusCode?: number) {
    const req = this.request;
    if (statusCode) this.code(statusCode);
    if (!req.displayTz && isShared(data) && (meta === undefined || isShared(meta))) {
      const t = envelopeTemplate(this, data as object, meta);
      return this.type('application/json; charset=utf-8').send(t.head + JSON.stringify(req.id) + t.middle + new Date().toISOString() + t.tail);
    }
    return this.send({
      data: renderDates(data, req.displayTz),
      ...(meta ? { meta } : {}),
      request_id: req.id,
      timestamp: new Date().toISOString(),
    });
  });

  // Many HTTP clients send `Content-Type: application/json` on every call, DELETE
  // included, with no body; Fastify's own parser rejects that. An empty DELETE body
  // means "no body"; every other method keeps the strict parser and its error.
  const strictJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (req.method === 'DELETE' && (body as string).trim() === '') return done(null, undefined);
    void strictJson(req, body as string, done);
  });

  app.addHook('onRequest', async (req, reply) => {
    const given = req.headers['x-trace-id'];
    req.traceId = typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : traceIdNow();
    reply.header('X-Request-Id', req.id);
    reply.header('X-Trace-Id', req.traceId);
    const tz = (req.query as Record<string, unknown> | undefined)?.tz;
    if (typeof tz === 'string' && tz !== '') {
      if (!isValidTimeZone(tz)) throw new AppError('INVALID_FIELD', `tz "${tz}" is not an IANA time zone name such as Europe/Berlin`, { field: 'tz' });
      req.displayTz = tz;
    }
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const e = toAppError(err, req);
    // The request's one log line (requestLog.ts) carries code and message; a failure also its stack here.
    req.rejection = { code: e.code, message: e.message, scope: typeof e.details?.scope === 'string' ? e.details.scope : undefined };
    if (e.code === 'SERVICE_UNAVAILABLE') req.log.warn({ code: e.code, reason: (err as Error).message }, e.message);
    else if (isDataException(err)) {
      const sqlstate = (err as { code?: string }).code;
      req.log.warn({ code: e.code, sqlstate, reason: err.message }, 'the database refused a value of the request');
    }
    else if (e.statusCode >= 500) req.log.error({ err }, `request failed: ${e.code}: ${err.message}`);
    if (e.code === 'METHOD_NOT_ALLOWED' && e.details?.allow) reply.header('Allow', String(e.details.allow));
    if (e.code === 'SERVICE_UNAVAILABLE') reply.header('Retry-After', String(e.details?.retry_after_s ?? RETRY_AFTER_S));
    reply.code(e.statusCode).send(errorBody(req, e.code, e.message, e.details));
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0];
    const allowed = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => m !== req.method && known.find(m as 'GET', path));
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      req.rejection = { code: 'METHOD_NOT_ALLOWED', message: `${req.method} is not supported on ${path}` };
      return reply
        .code(405)
        .send(
          errorBody(req, 'METHOD_NOT_ALLOWED', `${req.method} is not supported on ${path}; allowed: ${allowed.join(', ')}`, {
            method: req.method,
            allow: allowed,
          }),
        );
    }
    req.rejection = { code: 'NOT_FOUND', message: `no endpoint ${req.method} ${path}` };
    return reply.code(404).send(errorBody(req, 'NOT_FOUND', `no endpoint ${req.method} ${path}`, { path }));
  });
}

export default fp(envelope, { name: 'envelope' });
export { toAppError };
