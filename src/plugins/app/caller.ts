// The security gate of the REST door: every request passes, in this order,
//   blocked address -> authentication -> the four rate-limit layers -> permission
// in onRequest (before body parsing and validation), and is audited in onSend
// when it mutates, authenticates or is denied (401/403/429). It attaches
// request.caller, the only source of the tenant every route and domain function
// uses. The same functions serve GraphQL, SSE and WebSocket (src/security).
import fp from 'fastify-plugin';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor, Caller, Permission } from '../../domain/caller.js';
import { AppError } from '../../lib/errors.js';
import { anonymousCaller, authenticate, identifiedBy, unauthenticatedAdmin, type CertIdentity } from '../../security/authenticate.js';
import { checkRateLimits, classifyRoute, type RateLimitDecision } from '../../security/ratelimit.js';
import { emergencyBypass } from '../../security/emergency.js';
import { logAuditFailure, recordAudit } from '../../security/audit.js';
import { normalizeIp } from '../../security/ip.js';
import { assertCallerText } from '../../lib/callerText.js';
import { apiKeyCached } from '../../security/apikeys.js';
import type { EndpointKey, IpClass } from '../../security/settings.js';

/** What a handler may tell the audit entry of its request (login: who tried; create: which resource). */
export interface AuditHints {
  actor?: Actor;
  tenantId?: string;
  action?: string;
  resource?: { type?: string; id?: string };
  details?: Record<string, unknown>;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
    auditHints: AuditHints | null;
    authMethod?: string;
    clientCert?: CertIdentity;
  }
  interface FastifyContextConfig {
    /** Permission a route needs; absent = public (no authentication). */
    permission?: Permission;
    /** 'handler': the handler checks control characters in its body itself (a batch whose entries fail alone, GraphQL
     *  per mutation); the door still checks the path and query. */
    callerText?: 'handler';
    /** Overrides of the route's L1 endpoint type / L4 endpoint (default: derived from method and path). */
    rateLimit?: { ipClass?: IpClass; endpoint?: EndpointKey };
    /** false: the route writes its own audit entries with recordAudit (denials are still audited here). */
    audit?: false | { resourceType?: string; action?: string; /** a keep-alive POST: only its refusals are audited */ failuresOnly?: boolean };
    /** Accept the access token as ?token= (SSE: browser event sources cannot set headers). */
    queryToken?: boolean;
    /** Lets a request the endpoint layer (L4) refused pass that layer, decided once its body is parsed
     *  (SPEC 8.1: emergency shutdown commands bypass rate limits; the agents' command route):
     *  `command` names the request's command, `agentFound` says whether its agent is the caller's.
     *  The other layers are still taken (src/security/emergency.ts). */
    rateLimitBypass?: { command: (req: FastifyRequest) => unknown; agentFound: (req: FastifyRequest) => Promise<boolean> };
  }
}

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Endpoint-layer refusals of routes with rateLimitBypass, held until the body is known (preValidation). */
const deferredLimit = new WeakMap<FastifyRequest, { refused: RateLimitDecision; ipClass: IpClass }>();

export function requirePermission(req: FastifyRequest, p: Permission): void {
  if (!req.caller.permissions.has(p)) {
    throw new AppError('FORBIDDEN', `role ${req.caller.role} lacks the "${p}" permission this endpoint needs`, { permission: p, role: req.caller.role });
  }
}

/** %00-%1F and %7F: a C0 control character or DEL, percent-encoded in a request path. */
const CONTROL_ESCAPE = /%(?:[01][0-9a-f]|7f)/i;

const SINGULAR: Record<string, string> = { 'api-keys': 'api_key', timeseries: 'timeseries', auth: 'token', audit: 'audit', tenant: 'tenant' };

/** resource {type, id} of a request: from the path pattern, its params, or the created object. */
function resourceOf(req: FastifyRequest, status: number, payload: unknown): { type?: string; id?: string } {
  const url = req.routeOptions.url ?? '';
  const segs = url.replace(/^\/api\/v\d+\//, '').split('/').filter(Boolean);
  let i = 0;
  if (segs[0] === 'admin' && segs.length > 1) i = 1;
  const seg = segs[i] ?? '';
  const type = (SINGULAR[seg] ?? (seg.endsWith('s') ? seg.slice(0, -1) : seg)) || undefined;
  const params = (req.params ?? {}) as Record<string, string>;
  let id = params.id ?? params.tenant_id;
  if (!id && status < 300 && req.method === 'POST' && typeof payload === 'string' && payload.length < 262_144 && payload.startsWith('{')) {
    try {
      const d = (JSON.parse(payload) as { data?: Record<string, unknown> }).data;
      const v = d && (d.id ?? d.tenant_id ?? d.task_id);
      if (typeof v === 'string') id = v;
    } catch {
      /* not JSON */
    }
  }
  return { type, id };
}

function errorOf(payload: unknown): { code?: string; scope?: unknown } {
  if (typeof payload !== 'string' || !payload.startsWith('{"error"')) return {};
  try {
    const e = (JSON.parse(payload) as { error?: { code?: string; details?: { scope?: unknown } } }).error;
    return { code: e?.code, scope: e?.details?.scope };
  } catch {
    return {};
  }
}

export default fp(async (app: FastifyInstance) => {
  const s = app.services;
  const st = s.security;
  if (s.config.production) {
    // Security headers (HSTS, nosniff, frame-ancestors, ...) on every response.
    await app.register(helmet, { global: true });
  }
  app.decorateRequest('caller', null as unknown as Caller);
  app.decorateRequest('auditHints', null);
  const authOff = s.config.security.authDisabled;
  const classes = new Map<string, { ipClass: IpClass; endpoint?: EndpointKey }>();

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const ip = normalizeIp(req.ip);
    const ua = req.headers['user-agent'];
    req.caller = anonymousCaller(req.id, ip, ua, 'rest');
    if (st.isBlocked(ip)) throw new AppError('IP_BLOCKED', `requests from ${ip} are blocked`, { ip });
    const cfg = req.routeOptions.config ?? {};
    const permission = cfg.permission;
    const ck = `${req.method} ${req.routeOptions.url ?? ''}`;
    let cls = classes.get(ck);
    if (!cls) {
      cls = classifyRoute(req.method, req.routeOptions.url, !permission);
      if (cfg.rateLimit?.ipClass) cls = { ...cls, ipClass: cfg.rateLimit.ipClass };
      if (cfg.rateLimit?.endpoint) cls = { ...cls, endpoint: cfg.rateLimit.endpoint };
      if (req.routeOptions.url) classes.set(ck, cls);
    }
    let authError: AppError | undefined;
    // An API key that is not cached costs a database query: take the address's L1 token
    // first, so a flood of made-up keys is stopped before it reaches the database.
    let ipTaken = false;
    const presentedKey = req.headers['x-api-key'];
    if (permission && !authOff && typeof presentedKey === 'string' && !req.headers.authorization && !apiKeyCached(st, presentedKey)) {
      const pre = await checkRateLimits(s, { ip, ipClass: cls.ipClass });
      for (const k in pre.headers) reply.header(k, pre.headers[k]);
      if (!pre.allowed) throw pre.error!;
      ipTaken = true;
    }
    if (permission) {
      if (authOff) req.caller = unauthenticatedAdmin(s, req.id, ip, ua);
      else {
        try {
          const h = req.headers;
          const apiKey = h['x-api-key'];
          const tenant = h['x-tenant-id'];
          const queryToken =
            cfg.queryToken || req.routeOptions.url === '/api/v1/events/stream'
              ? (req.query as Record<string, unknown> | undefined)?.token
              : undefined;
          const r = await authenticate(s, {
            authorization: h.authorization,
            token: typeof queryToken === 'string' ? queryToken : undefined,
            apiKey: typeof apiKey === 'string' ? apiKey : undefined,
            tenantHeader: typeof tenant === 'string' ? tenant : undefined,
            socket: req.raw.socket,
            ip, userAgent: ua, requestId: req.id, interface: 'rest',
          });
          req.caller = r.caller;
          req.authMethod = r.method;
          req.clientCert = r.cert;
          if (r.certWarning) {
            reply.header('X-Client-Cert-Warning', r.certWarning);
            req.log.warn({ cert: r.cert?.cn, valid_to: r.cert?.valid_to }, 'client certificate expires within 30 days');
          }
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          authError = e;
          const who = identifiedBy(e);
          if (who) req.caller = who;
        }
      }
    }
    const rl = await checkRateLimits(s, {
      ip,
      ipClass: cls.ipClass,
      endpoint: cls.endpoint,
      caller: permission && !authError ? req.caller : null,
      skipIp: ipTaken,
    });
    for (const k in rl.headers) reply.header(k, rl.headers[k]);
    if (!rl.allowed) {
      // Only an endpoint-layer refusal may be bypassed; every other layer refuses here and now.
      if (!cfg.rateLimitBypass || rl.scope !== 'endpoint' || authError) throw rl.error!;
      deferredLimit.set(req, { refused: rl, ipClass: cls.ipClass });
    }
    if (authError) throw authError;
    if (rl.waitMs > 0) await new Promise((r) => setTimeout(r, rl.waitMs));
    if (permission) {
      requirePermission(req, permission);
      if (st.auditFailing && MUTATING.has(req.method) && cfg.audit !== false) {
        throw new AppError('AUDIT_REQUIRED', 'the audit trail cannot be written right now; changes are refused until it can', { retry_after: 5 });
      }
    }
  });

  app.addHook('preValidation', async (req: FastifyRequest, reply: FastifyReply) => {
    const held = deferredLimit.get(req);
    if (!held) return;
    const bypass = req.routeOptions.config!.rateLimitBypass!;
    if (bypass.command(req) !== 'emergency_shutdown') throw held.refused.error!;
    const d = await emergencyBypass(s, { ip: normalizeIp(req.ip), ipClass: held.ipClass, caller: req.caller }, () => bypass.agentFound(req));
    if (!d) throw held.refused.error!;
    for (const k in d.headers) reply.header(k, d.headers[k]);
    if (!d.allowed) throw d.error!;
    reply.removeHeader('Retry-After');
    if (d.waitMs > 0) await new Promise((r) => setTimeout(r, d.waitMs));
  });

  // Control characters in ids, names and text the caller sends: 400 INVALID_FIELD naming the field, before
  // the schema and the handler (src/lib/callerText.ts). A string body (a MATPOWER import) is the file's text:
  // the model read from it is checked when it is stored.
  app.addHook('preValidation', async (req: FastifyRequest) => {
    assertCallerText(req.params);
    assertCallerText(req.query);
    if (req.body !== null && typeof req.body === 'object' && req.routeOptions.config?.callerText !== 'handler') assertCallerText(req.body);
  });

  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const status = reply.statusCode;
    const denied = status === 401 || status === 403 || status === 429;
    const cfg = req.routeOptions.config ?? {};
    const hints = req.auditHints;
    const path = req.url.split('?')[0];
    // A path carrying an encoded control character (net_%00abc) is a probe, audited like one that is not
    // valid percent-encoding (frameworkErrors.ts), whatever the method and answer.
    const probe = CONTROL_ESCAPE.test(path);
    // Mutating requests are audited whether or not a route matched (a DELETE probing unknown paths too).
    if (!denied && !probe && !(MUTATING.has(req.method) && cfg.audit !== false) && !hints) return payload;
    if (cfg.audit !== false && cfg.audit?.failuresOnly && status < 400 && !hints) return payload;
    const caller = req.caller ?? anonymousCaller(req.id, req.ip, req.headers['user-agent'], 'rest');
    const res = hints?.resource ?? resourceOf(req, status, payload);
    if (cfg.audit !== false && cfg.audit?.resourceType && !hints?.resource) res.type = cfg.audit.resourceType;
    const err = status >= 400 ? errorOf(payload) : {};
    const code = err.code;
    const details: Record<string, unknown> = { method: req.method, path, status };
    if (code) details.error_code = code;
    if (probe) details.reason = 'control_character_in_path';
    // The refusing layer: rate-limit refusals are audited in aggregate per layer (security/denials.ts).
    if (code === 'RATE_LIMITED' && typeof err.scope === 'string') details.scope = err.scope;
    if (req.authMethod) details.auth_method = req.authMethod;
    if (req.clientCert) details.client_cert = req.clientCert.cn;
    if (caller.tenantId && caller.tenantId !== caller.actor.tenant) details.acting_in_tenant = caller.tenantId;
    Object.assign(details, hints?.details);
    try {
      await recordAudit(s, {
        tenantId: hints?.tenantId ?? (caller.tenantId || 'default'),
        actor: hints?.actor ?? caller.actor,
        action: hints?.action ?? (cfg.audit ? cfg.audit.action : undefined) ?? `${req.method} ${req.routeOptions.url ?? path}`,
        resource: res,
        requestId: req.id,
        ip: caller.ip ?? normalizeIp(req.ip),
        userAgent: req.headers['user-agent'],
        interface: 'rest',
        result: status < 400 ? 'success' : denied ? 'denied' : 'failure',
        status,
        details,
      });
    } catch (err) {
      logAuditFailure(req.log, err);
    }
    return payload;
  });
}, { name: 'request-caller', dependencies: ['services', 'envelope'] });
