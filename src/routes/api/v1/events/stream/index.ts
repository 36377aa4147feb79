// GET /api/v1/events/stream: the SSE door (SPEC 6.1, docs/sse.md). Everything
// that can fail does so here, before the stream starts, as a normal REST error:
// 401/403 (authentication and permission by the caller plugin, include_audit
// here), 400 (parameters, more than 10 topics), 429 (connection-establishment
// rate, per-token/user/tenant concurrent connections, with X-RateLimit-Concurrent).
// src/realtime/sse.ts then owns the response.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses } from '../../../../../schemas/common.js';
import { AppError } from '../../../../../lib/errors.js';
import { eventSeq } from '../../../../../lib/ids.js';
import { parseDateTime } from '../../../../../lib/time.js';
import { buildFilter, filterSql } from '../../../../../realtime/filter.js';
import { SseStream, newConnectionId, recordHeartbeatAck, type SseFormat } from '../../../../../realtime/sse.js';
import { acquireSlots, auditLive, requestCredential } from '../../../../../realtime/access.js';
import { watchCredential } from '../../../../../security/revocation.js';

const StreamQuery = Type.Object({
  topics: Type.Optional(Type.String({ maxLength: 1000, description: 'comma-separated topics (at most 10); default all but audit' })),
  network_id: Type.Optional(Type.String({ maxLength: 64 })),
  severity: Type.Optional(Type.String({ maxLength: 16, description: 'minimum severity: info, warn, error, critical' })),
  agent_id: Type.Optional(Type.String({ maxLength: 64 })),
  since: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339: replay stored events from this time, then live' })),
  until: Type.Optional(Type.String({ maxLength: 64, description: 'RFC 3339: the stream closes on reaching it' })),
  last_event_id: Type.Optional(Type.String({ maxLength: 32, description: 'resume after this event id (the Last-Event-ID header wins)' })),
  format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('plain')], { default: 'json' })),
  include_audit: Type.Optional(Type.Boolean({ default: false, description: 'also audit events; needs the audit permission' })),
  token: Type.Optional(Type.String({ maxLength: 4096, description: 'access token (alternative to the Authorization header)' })),
  tz: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: true });

function parseLastEventId(v: string | undefined, field: string): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const seq = eventSeq(v.trim());
  if (seq === undefined) throw new AppError('INVALID_FIELD', `${field} must be an event id such as evt_0000000000000042, got "${v}"`, { field });
  return seq;
}

export default async function eventStreamRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  const cfg = s.config.realtime;
  const hub = await s.live.started();
  // Open streams, ended when the app closes (they would hold the server open).
  const streams = new Set<SseStream>();
  app.addHook('preClose', async () => {
    for (const st of [...streams]) st.shutdown();
  });

  app.get('/', {
    // No automatic HEAD twin: a HEAD would otherwise open a stream.
    exposeHeadRoute: false,
    config: { permission: 'read', queryToken: true, audit: false },
    schema: {
      summary: 'Live events as Server-Sent Events (resume with Last-Event-ID)', tags: ['events'], querystring: StreamQuery,
      produces: ['text/event-stream'],
      response: { 200: Type.String({ description: 'text/event-stream' }), 204: Type.Null(), ...errorResponses(400, 401, 403, 429, 503) },
    },
  }, async (req, reply) => {
    const q = req.query;
    const caller = { ...req.caller, interface: 'sse' as const };
    const filter = buildFilter({ topics: q.topics, network_id: q.network_id, agent_id: q.agent_id, severity: q.severity }, {
      maxTopics: cfg.sseMaxTopics, includeAudit: q.include_audit, audit: caller.permissions.has('audit'), role: caller.role,
    });
    const header = req.headers['last-event-id'];
    const afterSeq = parseLastEventId(typeof header === 'string' ? header : undefined, 'Last-Event-ID') ?? parseLastEventId(q.last_event_id, 'last_event_id');
    const since = q.since ? parseDateTime('since', q.since) : undefined;
    const until = q.until ? parseDateTime('until', q.until) : undefined;
    if (since && until && since.getTime() >= until.getTime()) throw new AppError('VALIDATION_FAILED', 'since must be before until', { field: 'since' });
    const format: SseFormat = q.format ?? 'json';

    // A window that has already ended and holds nothing (more) to replay: 204 tells
    // EventSource clients to stop reconnecting.
    if (until && until.getTime() <= Date.now()) {
      const { where, params } = filterSql(caller.tenantId, filter, { afterSeq, since, until });
      const { rows } = await s.db.query(`SELECT 1 FROM events WHERE ${where} LIMIT 1`, params);
      if (rows.length === 0) return reply.code(204).send(null);
    }

    const cred = requestCredential(req, caller);
    if (cred.expiresAt !== undefined && cred.expiresAt <= Date.now()) throw new AppError('TOKEN_EXPIRED', 'the access token has expired');
    let lease;
    try {
      lease = await acquireSlots(s, 'sse', caller, cred, cfg.sseMaxPerToken);
    } catch (e) {
      if (e instanceof AppError && e.code === 'RATE_LIMITED') {
        reply.header('X-RateLimit-Concurrent', String(e.details?.current ?? ''));
        reply.header('Retry-After', String(e.details?.retry_after ?? 5));
      }
      throw e;
    }
    const connectionId = newConnectionId();
    const filters = {
      topics: filter.topics ? [...filter.topics] : 'all',
      network_id: filter.networkId,
      agent_id: filter.agentId,
      severity: q.severity,
      include_audit: filter.includeAudit,
      format,
    };
    void auditLive(s, caller, {
      action: 'sse.connect', resource: { type: 'event_stream', id: connectionId }, result: 'success', status: 200,
      details: { ...filters, resume_after: afterSeq, since: since?.toISOString(), until: until?.toISOString(), concurrent: lease.concurrent },
    });
    reply.hijack();
    const stream = new SseStream(s, reply.raw, {
      caller, filter, format, afterSeq, since, until, expiresAt: cred.expiresAt, connectionId, cfg,
      onEnd: (info) => {
        unwatch();
        if (streams.delete(stream)) s.metrics.liveConnections.dec({ transport: 'sse' });
        void lease.release();
        void auditLive(s, caller, {
          action: 'sse.disconnect', resource: { type: 'event_stream', id: connectionId }, result: 'success',
          details: { reason: info.reason, delivered: info.delivered, replayed: info.replayed, duration_ms: info.durationMs },
        });
      },
    });
    streams.add(stream);
    s.metrics.liveConnections.inc({ transport: 'sse' });
    // Revoked while open (logout, refresh-token reuse, API key deleted, user changed; any process): error event, end.
    const unwatch = watchCredential(s, cred.revocable, (r) => stream.revoked(r.code, r.message, r.reason));
    const headers: Record<string, string | number | string[]> = {};
    for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v as string | number | string[];
    headers['x-ratelimit-concurrent'] = lease.concurrent;
    await stream.run(hub, headers);
  });

  app.post('/heartbeat', {
    // A stream's keep-alive every few minutes: its answers would bury the log; its refusals are audited.
    config: { permission: 'read', audit: { failuresOnly: true, resourceType: 'sse_connection' } },
    schema: {
      summary: 'Answer an SSE heartbeat: keeps a quiet stream open past the 5-minute idle timeout', tags: ['events'],
      body: Type.Object({ connection_id: Type.String({ pattern: '^sse_[0-9a-f]{24}$' }) }, { additionalProperties: false }),
      response: { 200: envelope(Type.Object({ connection_id: Type.String(), acknowledged_at: Type.String() })), ...errorResponses(400, 401, 403) },
    },
  }, async (req, reply) => {
    await recordHeartbeatAck(s, req.caller.tenantId, req.body.connection_id);
    return reply.ok({ connection_id: req.body.connection_id, acknowledged_at: new Date().toISOString() });
  });
}
