// Settings of the live doors (SSE, WebSocket) and of API versioning, from the
// environment. Timers are configurable so tests can shorten them; the defaults
// are the values of SPEC 6.1 and 8.3. docs/sse.md, docs/websocket.md, docs/versioning.md.

import { envNumber } from '../lib/env.js';

export interface RealtimeConfig {
  /** `:keepalive` comment interval (SPEC 6.1 rule 1: 15 s). SSE_KEEPALIVE_MS. */
  sseKeepaliveMs: number;
  /** `heartbeat` event interval (60 s). SSE_HEARTBEAT_MS. */
  sseHeartbeatMs: number;
  /** Idle close: no event delivered and no heartbeat response for this long (5 min). SSE_IDLE_MS. */
  sseIdleMs: number;
  /** `retry:` sent first (SPEC 6.1 rule 2: 3 s). */
  sseRetryMs: number;
  /** Concurrent SSE streams per token (SPEC 8.3: 5). SSE_MAX_PER_TOKEN. */
  sseMaxPerToken: number;
  /** Concurrent SSE streams per user across tokens (SPEC 8.1: 10). SSE_MAX_PER_USER. */
  sseMaxPerUser: number;
  /** Topics per SSE connection (SPEC 8.3: 10). */
  sseMaxTopics: number;
  /** Largest `data:` payload of one event (SPEC 8.3: 64 KB); bigger payloads are truncated. */
  sseMaxPayloadBytes: number;
  /** A stream whose unsent output exceeds this is closed (the client resumes with Last-Event-ID). */
  sseMaxBufferedBytes: number;
  /** Concurrent WebSocket connections per user (SPEC 8.1: 5). WS_MAX_PER_USER. */
  wsMaxPerUser: number;
  /** Subscriptions per WebSocket connection (SPEC 8.1: 50). */
  wsMaxSubscriptions: number;
  /** Client messages per second per WebSocket connection (SPEC 8.1: 100). WS_MESSAGES_PER_SECOND. */
  wsMessagesPerSecond: number;
  /** Refused messages (over the rate) after which the connection is closed with 1008. */
  wsAbuseLimit: number;
  /** An unauthenticated socket must send {type:"auth"} within this time. WS_AUTH_TIMEOUT_MS. */
  wsAuthTimeoutMs: number;
  /** Protocol-level ping interval; a socket that does not answer by the next ping is dropped. WS_PING_MS. */
  wsPingMs: number;
  /** Largest client frame (bytes). */
  wsMaxFrameBytes: number;
  /** A socket whose unsent output exceeds this is closed with 1013. */
  wsMaxBufferedBytes: number;
}

export interface DeprecationRule {
  /** Method (or '*'); default every method. */
  method?: string;
  /** Route pattern as registered ('/api/v1/networks/:id/validate') or a prefix ending in '*'. */
  path: string;
  /** Announcement date (phase 1 starts). */
  deprecated_at?: string;
  /** Sunset = removal date (phase 4, 410 GONE, from then on). */
  sunset: string;
  /** Successor URL for `Link: <...>; rel="successor-version"` and the 410 body. */
  successor?: string;
  /** Documentation link for the 410 body. */
  doc_url?: string;
  /** Forces a phase (1 announcement, 2 warning, 3 rate tightening, 4 offline) instead of deriving it from the dates. */
  phase?: 1 | 2 | 3 | 4;
}

export interface VersioningConfig {
  /** API_VERSIONS, default v1,v2: versions served under /api/vN. */
  enabled: string[];
  /** API_DEFAULT_VERSION, default v1: serves unversioned /api/... paths. */
  defaultVersion: string;
  /** API_V1_SUNSET (RFC 3339 date): announces the end of v1 on every v1 response. */
  v1Sunset?: string;
  /** API_DEPRECATIONS (JSON array of DeprecationRule). */
  deprecations: DeprecationRule[];
  /** Phase-3 limit of a deprecated endpoint per client address, requests per minute (10% of the 600/min default). */
  phase3PerMinute: number;
  /** WebSocket subprotocols served, highest preferred last (SPEC 9: gridops.v2 is only planned). */
  wsSubprotocols: string[];
  docBase: string;
}

const num = envNumber;

export function loadRealtimeConfig(env: NodeJS.ProcessEnv = process.env): RealtimeConfig {
  return {
    sseKeepaliveMs: num(env, 'SSE_KEEPALIVE_MS', 15_000, 10),
    sseHeartbeatMs: num(env, 'SSE_HEARTBEAT_MS', 60_000, 10),
    sseIdleMs: num(env, 'SSE_IDLE_MS', 300_000, 10),
    sseRetryMs: 3000,
    sseMaxPerToken: num(env, 'SSE_MAX_PER_TOKEN', 5, 1),
    sseMaxPerUser: num(env, 'SSE_MAX_PER_USER', 10, 1),
    sseMaxTopics: 10,
    sseMaxPayloadBytes: 64 * 1024,
    sseMaxBufferedBytes: num(env, 'SSE_MAX_BUFFERED_BYTES', 4 * 1024 * 1024, 1024),
    wsMaxPerUser: num(env, 'WS_MAX_PER_USER', 5, 1),
    wsMaxSubscriptions: 50,
    wsMessagesPerSecond: num(env, 'WS_MESSAGES_PER_SECOND', 100, 1),
    wsAbuseLimit: num(env, 'WS_ABUSE_LIMIT', 200, 1),
    wsAuthTimeoutMs: num(env, 'WS_AUTH_TIMEOUT_MS', 10_000, 10),
    wsPingMs: num(env, 'WS_PING_MS', 30_000, 10),
    wsMaxFrameBytes: 1024 * 1024,
    wsMaxBufferedBytes: num(env, 'WS_MAX_BUFFERED_BYTES', 4 * 1024 * 1024, 1024),
  };
}

const VERSION_RE = /^v[1-9]\d*$/;

export function loadVersioningConfig(env: NodeJS.ProcessEnv = process.env): VersioningConfig {
  const enabled = (env.API_VERSIONS ?? 'v1,v2').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const v of enabled) if (!VERSION_RE.test(v)) throw new Error(`API_VERSIONS entries look like v1, v2; got "${v}"`);
  const defaultVersion = (env.API_DEFAULT_VERSION ?? 'v1').trim().toLowerCase();
  if (!enabled.includes(defaultVersion)) throw new Error(`API_DEFAULT_VERSION ${defaultVersion} is not among API_VERSIONS (${enabled.join(',')})`);
  let deprecations: DeprecationRule[] = [];
  if (env.API_DEPRECATIONS) {
    try {
      deprecations = JSON.parse(env.API_DEPRECATIONS) as DeprecationRule[];
    } catch {
      throw new Error(
        'API_DEPRECATIONS must be a JSON array such as ' +
          '[{"path":"/api/v1/networks/:id/validate","sunset":"2027-06-30","successor":"/api/v2/networks/{id}:validate"}]',
      );
    }
    if (!Array.isArray(deprecations)) throw new Error('API_DEPRECATIONS must be a JSON array');
  }
  const v1Sunset = env.API_V1_SUNSET || undefined;
  for (const d of [...deprecations.map((r) => r.sunset), ...(v1Sunset ? [v1Sunset] : [])]) {
    if (Number.isNaN(new Date(d).getTime())) throw new Error(`sunset dates must be RFC 3339 dates, got "${d}"`);
  }
  return {
    enabled,
    defaultVersion,
    v1Sunset,
    deprecations,
    phase3PerMinute: num(env, 'API_DEPRECATED_RATE_PER_MINUTE', 60, 1),
    wsSubprotocols: ['gridops.v1'],
    docBase: env.API_DOC_BASE ?? 'https://gridops.dev/docs/versioning',
  };
}
