// API versions (SPEC 9, docs/versioning.md): which /api/vN are served, the
// default version for unversioned /api/... paths, and the deprecation phases of
// configured endpoints (API_DEPRECATIONS, API_V1_SUNSET):
//   1 announcement   Deprecation: true, Sunset: <HTTP date>, Link: <successor>; rel="successor-version"
//   2 warning        + Warning: 299 - "..."            (from 4 months before the sunset)
//   3 rate tightening + a per-client limit of 10% of the normal rate (from 1 month before)
//   4 offline        410 GONE {removed_at, successor, doc_url}   (from the sunset on)
// A phase can also be forced per rule ("phase": 2), which tests and staged roll-outs use.
import fp from 'fastify-plugin';
import FindMyWay from 'find-my-way';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../lib/errors.js';
import type { DeprecationRule, VersioningConfig } from '../../realtime/settings.js';
import { normalizeIp } from '../../security/ip.js';

/** Known versions and their stability (SPEC 9 table). */
export const API_VERSIONS: Record<string, { status: 'stable' | 'preview' | 'planning'; release: string }> = {
  v1: { status: 'stable', release: '2026-01' },
  v2: { status: 'preview', release: '2026-09 (planned)' },
  v3: { status: 'planning', release: '2027 (planned)' },
};

const DAY = 86_400_000;
const WARNING_BEFORE_MS = 120 * DAY; // phase 2: 3 months warning + 1 month tightening before the sunset
const TIGHTEN_BEFORE_MS = 30 * DAY;  // phase 3: the last month

export interface Deprecation {
  rule: DeprecationRule;
  phase: 1 | 2 | 3 | 4;
  sunset: Date;
  successor?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    deprecation?: Deprecation;
  }
}

export function phaseOf(rule: DeprecationRule, now = Date.now()): 0 | 1 | 2 | 3 | 4 {
  if (rule.phase) return rule.phase;
  const sunset = new Date(rule.sunset).getTime();
  if (rule.deprecated_at && now < new Date(rule.deprecated_at).getTime()) return 0; // not announced yet
  if (now >= sunset) return 4;
  if (now >= sunset - TIGHTEN_BEFORE_MS) return 3;
  if (now >= sunset - WARNING_BEFORE_MS) return 2;
  return 1;
}

const VERSION_PATH = /^\/api\/(v\d+)(?:\/|$)/;

/**
 * rewriteUrl for the Fastify constructor: /api/<resource>... without a version is
 * served by the default version (API_DEFAULT_VERSION, v1).
 */
export function defaultVersionRewrite(cfg: VersioningConfig): (req: IncomingMessage) => string {
  return (req) => {
    const url = req.url ?? '/';
    if (url.startsWith('/api/') && !VERSION_PATH.test(url) && !/^\/api\/v\d/.test(url)) return `/api/${cfg.defaultVersion}${url.slice(4)}`;
    return url;
  };
}

function ruleMatches(rule: DeprecationRule, method: string, path: string, pattern: string | undefined): boolean {
  if (rule.method && rule.method !== '*' && rule.method.toUpperCase() !== method) return false;
  if (rule.path.endsWith('*')) return path.startsWith(rule.path.slice(0, -1));
  return rule.path === pattern || rule.path === path;
}

export default fp(async (app: FastifyInstance) => {
  const cfg = app.services.config.versioning;
  const s = app.services;
  // The v2 routes, to name the successor of a v1 path when v1 has a sunset date.
  const v2 = FindMyWay();
  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/v2/')) return;
    for (const m of Array.isArray(route.method) ? route.method : [route.method]) {
      if (m === 'HEAD' || m === 'OPTIONS') continue;
      try {
        v2.on(m as 'GET', route.url, () => {});
      } catch {
        /* already known */
      }
    }
  });

  const rules: DeprecationRule[] = [...cfg.deprecations];
  if (cfg.v1Sunset) {
    rules.push({ path: '/api/v1/*', sunset: cfg.v1Sunset, successor: '/api/v2', doc_url: `${cfg.docBase}#v1-sunset` });
  }

  const successorOf = (rule: DeprecationRule, method: string, path: string, params: Record<string, string>): string | undefined => {
    // "/api/v2/networks/{id}" names the same resource: {param} takes the request's value.
    if (rule.path !== '/api/v1/*')
      return rule.successor?.replace(/\{(\w+)\}/g, (all, k: string) =>
        typeof params[k] === 'string' ? encodeURIComponent(params[k]) : all,
      );
    const candidate = '/api/v2' + path.slice('/api/v1'.length);
    return cfg.enabled.includes('v2') && v2.find(method as 'GET', candidate) ? candidate : rule.successor;
  };

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0];
    const m = VERSION_PATH.exec(path);
    if (!m) return;
    const version = m[1];
    if (!cfg.enabled.includes(version)) {
      const known = API_VERSIONS[version];
      const served = cfg.enabled.map((v) => `${v} (${API_VERSIONS[v]?.status ?? 'custom'})`).join(', ');
      throw new AppError('NOT_FOUND', known
        ? `API version ${version} (${known.status}) is not enabled on this deployment; served: ${served}`
        : `API version ${version} does not exist; served: ${served}`, { version, enabled: cfg.enabled, path });
    }
    reply.header('X-API-Version', version);
    if (rules.length === 0) return;
    const pattern = req.routeOptions.url;
    const now = Date.now();
    for (const rule of rules) {
      if (!ruleMatches(rule, req.method, path, pattern)) continue;
      const phase = phaseOf(rule, now);
      if (phase === 0) continue;
      const sunset = new Date(rule.sunset);
      const successor = successorOf(rule, req.method, path, (req.params ?? {}) as Record<string, string>);
      if (phase === 4) {
        throw new AppError(
          'GONE',
          `${req.method} ${pattern ?? path} was removed on ${sunset.toISOString().slice(0, 10)}${successor ? `; use ${successor}` : ''}`,
          {
            removed_at: sunset.toISOString(),
            successor: successor ?? null,
            doc_url: rule.doc_url ?? `${cfg.docBase}#removed`,
          },
        );
      }
      req.deprecation = { rule, phase, sunset, successor };
      reply.header('Deprecation', 'true');
      reply.header('Sunset', sunset.toUTCString());
      if (successor) reply.header('Link', `<${successor}>; rel="successor-version"`);
      if (phase >= 2) {
        reply.header(
          'Warning',
          `299 - "Deprecated API: ${req.method} ${pattern ?? path} will be removed on ${sunset.toUTCString()}${successor ? `; use ${successor}` : ''}"`,
        );
      }
      if (phase === 3) await tighten(req, reply, rule, pattern ?? path);
      return;
    }
  });

  /** Phase 3: the endpoint's limit cut to 10% (API_DEPRECATED_RATE_PER_MINUTE per client address). */
  async function tighten(req: FastifyRequest, reply: FastifyReply, rule: DeprecationRule, what: string): Promise<void> {
    const perMin = cfg.phase3PerMinute;
    const ip = normalizeIp(req.ip);
    const burst = Math.max(1, Math.round(perMin / 6));
    const spec = { key: `rl:deprecated:${req.method}:${rule.path}:${ip}`, perMs: perMin / 60_000, burst, debt: 0, maxWaitMs: 0 };
    const r = await s.security.store.take([spec]);
    if (r.failed === 0) return;
    const retryAfter = Math.max(1, Math.ceil((1 - r.tokens[0]) / spec.perMs / 1000));
    reply.header('Retry-After', String(retryAfter));
    reply.header('X-RateLimit-Limit', String(perMin));
    reply.header('X-RateLimit-Remaining', '0');
    reply.header('X-RateLimit-Policy', `${perMin};w=60`);
    throw new AppError(
      'RATE_LIMITED',
      `${req.method} ${what} is deprecated and in its last month: its limit is cut to ${perMin} per minute; move to ${rule.successor ?? 'its successor'}`,
      {
        limit: perMin,
        window_seconds: 60,
        retry_after: retryAfter,
        reset_at: new Date(Date.now() + retryAfter * 1000).toISOString(),
        scope: 'endpoint',
        endpoint: `${req.method} ${what}`,
        ip,
        deprecated: true,
      },
    );
  }

  // meta of a deprecated endpoint's success envelope: deprecated flag and sunset (SPEC 4.1 "version info").
  app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const d = req.deprecation;
    if (!d || typeof payload !== 'string' || !payload.startsWith('{"data"') || reply.statusCode >= 300) return payload;
    try {
      const body = JSON.parse(payload) as { meta?: Record<string, unknown> };
      body.meta = { ...(body.meta ?? {}), deprecated: true, sunset: d.sunset.toISOString(), ...(d.successor ? { successor: d.successor } : {}) };
      return JSON.stringify(body);
    } catch {
      return payload;
    }
  });
}, { name: 'versioning', dependencies: ['services'] });
