// The WebSocket door at /ws (docs/websocket.md). Registers @fastify/websocket
// once for the whole app (GraphQL subscriptions at /graphql share the same
// ws server: mercurius only registers it when it is not there yet, so this
// plugin goes before GraphQL in src/app.ts) with a subprotocol chooser that
// knows both doors.
//
// Upgrade: the caller plugin has already applied the connection-establishment
// rate limit (L1, ws_connect) because /ws is a public route for it. Here:
// subprotocol check (400 when only unsupported ones are offered), authentication
// when credentials came with the upgrade (401/403 before upgrading), and the
// per-user / tenant connection slots (429 with X-RateLimit-Concurrent). Without
// credentials the socket is upgraded and must send {type:"auth", token} first.
import fp from 'fastify-plugin';
import websocket from '@fastify/websocket';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { AppError } from '../../lib/errors.js';
import { authenticate } from '../../security/index.js';
import { unauthenticatedAdmin } from '../../security/authenticate.js';
import type { Caller } from '../../domain/caller.js';
import { normalizeIp } from '../../security/ip.js';
import { acquireSlots, requestCredential } from '../../realtime/access.js';
import { WsSession, type UpgradeAuth } from '../../realtime/ws.js';
import { websocketErrorHandler } from '../../realtime/socketErrors.js';

export const WS_PATH = '/ws';

function offeredProtocols(header: string | string[] | undefined): string[] {
  const v = Array.isArray(header) ? header.join(',') : header ?? '';
  return v.split(',').map((p) => p.trim()).filter(Boolean);
}

/** The highest gridops.vN offered that this deployment serves; '' when none was offered; undefined when none fits. */
export function chooseSubprotocol(offered: Iterable<string>, supported: readonly string[]): string | undefined {
  const list = [...offered];
  if (list.length === 0) return '';
  let best: string | undefined;
  let bestN = -1;
  for (const p of list) {
    if (!supported.includes(p)) continue;
    const n = Number(/\.v(\d+)$/.exec(p)?.[1] ?? 0);
    if (n > bestN) {
      best = p;
      bestN = n;
    }
  }
  return best;
}

export default fp(async (app: FastifyInstance) => {
  const s = app.services;
  const cfg = s.config.realtime;
  const supported = s.config.versioning.wsSubprotocols;
  const sessions = new Set<WsSession>();
  const upgrades = new WeakMap<FastifyRequest, UpgradeAuth>();

  // Before @fastify/websocket's own preClose (which closes sockets without a code): 1001 going away.
  app.addHook('preClose', async () => {
    for (const w of [...sessions]) w.shutdown();
  });

  const handleProtocols = (protocols: Set<string>, request: IncomingMessage): string | false => {
    const path = (request.url ?? '').split('?')[0];
    if (path === WS_PATH) return chooseSubprotocol(protocols, supported) || false;
    // Other WebSocket routes (GraphQL): ws' default, the first offered.
    const first = protocols.values().next();
    return first.done ? false : first.value;
  };
  // An upgrade request refused before @fastify/websocket's own onRequest hook ran (the
  // security gate's 401/403/429 come first) would leave its socket open: Node has taken
  // it away from the HTTP server, so nothing else closes it. Close it once the refusal is out.
  app.addHook('onResponse', async (req) => {
    const up = req.raw.headers.upgrade;
    if (typeof up === 'string' && up.toLowerCase() === 'websocket' && !req.raw.socket.destroyed) req.raw.socket.destroy();
  });
  if (!app.hasDecorator('websocketServer')) {
    await app.register(websocket, { options: { maxPayload: cfg.wsMaxFrameBytes, handleProtocols }, errorHandler: websocketErrorHandler });
  } else {
    (app.websocketServer.options as { handleProtocols?: typeof handleProtocols }).handleProtocols = handleProtocols;
  }
  // X-RateLimit-Concurrent on the 101 response too.
  const kConcurrent = Symbol('ws-concurrent');
  app.websocketServer.on('headers', (headers: string[], request: IncomingMessage) => {
    const c = (request as unknown as Record<symbol, number | undefined>)[kConcurrent];
    if (c !== undefined) headers.push(`X-RateLimit-Concurrent: ${c}`);
  });
  const hub = await s.live.started();

  app.get(WS_PATH, {
    websocket: true,
    config: { audit: false },
    schema: { hide: true },
    preHandler: async (req, reply) => {
      if (!req.ws)
        throw new AppError(
          'INVALID_REQUEST',
          `${WS_PATH} is a WebSocket endpoint: send an upgrade request (subprotocol ${supported.join(', ')})`,
          { supported },
        );
      const offered = offeredProtocols(req.headers['sec-websocket-protocol']);
      if (chooseSubprotocol(offered, supported) === undefined) {
        throw new AppError(
          'INVALID_REQUEST',
          `none of the offered subprotocols (${offered.join(', ')}) is served here; supported: ${supported.join(', ')}`,
          { offered, supported },
        );
      }
      const h = req.headers;
      const q = (req.query ?? {}) as Record<string, unknown>;
      const token = typeof q.token === 'string' && q.token !== '' ? q.token : undefined;
      const apiKey = typeof h['x-api-key'] === 'string' ? h['x-api-key'] : undefined;
      const hasCredential = Boolean(h.authorization || token || apiKey);
      // GRIDOPS_AUTH=off (benchmark baselines): the bootstrap admin, as on the REST door.
      let caller: Caller | undefined = s.config.security.authDisabled
        ? { ...unauthenticatedAdmin(s, req.id, normalizeIp(req.ip), h['user-agent']), interface: 'websocket' }
        : undefined;
      if (!caller) try {
        const r = await authenticate(s, {
          authorization: h.authorization, token, apiKey, tenantHeader: typeof h['x-tenant-id'] === 'string' ? h['x-tenant-id'] : undefined,
          socket: req.raw.socket, ip: normalizeIp(req.ip), userAgent: h['user-agent'], requestId: req.id, interface: 'websocket',
        });
        caller = r.caller;
      } catch (e) {
        // Nothing presented: authenticate with the first frame instead.
        if (hasCredential || !(e instanceof AppError) || (e.code !== 'UNAUTHORIZED')) throw e;
      }
      if (caller) {
        req.caller = caller;
        const credential = requestCredential(req, caller);
        try {
          const lease = await acquireSlots(s, 'ws', caller, credential);
          upgrades.set(req, { caller, credential, lease });
          (req.raw as unknown as Record<symbol, number>)[kConcurrent] = lease.concurrent;
          // A handshake that fails after this point must not keep the slot.
          req.raw.socket.once('close', () => {
            const u = upgrades.get(req);
            upgrades.delete(req);
            void u?.lease.release();
          });
        } catch (e) {
          if (e instanceof AppError && e.code === 'RATE_LIMITED') {
            reply.header('X-RateLimit-Concurrent', String(e.details?.current ?? ''));
            reply.header('Retry-After', String(e.details?.retry_after ?? 5));
          }
          throw e;
        }
      }
    },
  }, (socket, req) => {
    const up = upgrades.get(req);
    upgrades.delete(req);
    const session = new WsSession(s, hub, socket, req, up, socket.protocol);
    sessions.add(session);
    s.metrics.liveConnections.inc({ transport: 'ws' });
    session.onClosed = () => {
      if (sessions.delete(session)) s.metrics.liveConnections.dec({ transport: 'ws' });
    };
  });
}, { name: 'websocket-door', dependencies: ['services'] });
