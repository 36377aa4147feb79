// One WebSocket connection at /ws (CONTRACT "Events: WebSocket protocol at /ws",
// docs/websocket.md). Text frames, JSON objects with a type:
//   subscribe / unsubscribe / command / ping / auth   ->   subscribed / unsubscribed /
//   command_result / pong / event / error
// Authentication came with the upgrade (header, ?token=, X-API-Key, client
// certificate) or arrives as the first frame {type:"auth", token}. Commands go
// through executeCommand(), the function behind POST /api/v1/agents/{id}/command,
// after the same permission check and rate-limit layers as that REST endpoint.
import type { WebSocket, RawData } from 'ws';
import { serviceUnavailable, unavailableDependency } from '../lib/unavailable.js';
import type { FastifyRequest } from 'fastify';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { assertCallerText, dataExceptionError, isDataException } from '../lib/callerText.js';
import { authenticate, checkRateLimits, recordAudit, logAuditFailure, fromCaller } from '../security/index.js';
import { normalizeIp } from '../security/ip.js';
import { executeCommand, type CommandRequest } from '../domain/commands/index.js';
import { agentInTenant } from '../domain/agents.js';
import { emergencyBypass, endpointBypassMayApply } from '../security/emergency.js';
import { CommandIn } from '../schemas/agents.js';
import type { RealtimeHub } from './hub.js';
import { buildFilter, matches, type EventFilter, type LiveEvent } from './filter.js';
import { acquireSlots, auditLive, tokenCredential, type ConnectionLease, type Credential } from './access.js';
import { checkCredential, watchCredential, type Revocation } from '../security/revocation.js';

/** Close codes (docs/websocket.md). */
export const CLOSE = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  POLICY: 1008,            // message-rate abuse
  TOO_BIG: 1009,
  TRY_AGAIN: 1013,         // slow consumer
  UNAUTHORIZED: 4401,      // no/invalid/expired/revoked credentials, auth timeout
  FORBIDDEN: 4403,         // permissions lost while connected (role changed)
  TOO_MANY_CONNECTIONS: 4429,
} as const;

const checkCommand = TypeCompiler.Compile(CommandIn);

export interface UpgradeAuth {
  caller: Caller;
  credential: Credential;
  lease: ConnectionLease;
}

interface Subscription {
  /** The client's id, echoed as given (string or number). */
  id: string | number;
  filter: EventFilter;
}

type Frame = Record<string, unknown> & { type?: unknown; id?: unknown };

const isId = (v: unknown): v is string | number => (typeof v === 'string' && v.length > 0 && v.length <= 128) || (typeof v === 'number' && Number.isFinite(v));

// The `event` object of a frame is the same for every subscription: serialise once.
const eventJson = new WeakMap<LiveEvent, string>();
function eventPart(e: LiveEvent): string {
  let j = eventJson.get(e);
  if (!j) {
    j = JSON.stringify({ id: e.id, topic: e.topic, kind: e.kind, payload: e.payload, timestamp: e.timestamp });
    eventJson.set(e, j);
  }
  return j;
}

export class WsSession {
  private caller?: Caller;
  private credential?: Credential;
  private lease?: ConnectionLease;
  private readonly subs = new Map<string, Subscription>();
  private unsubscribe?: () => void;
  private timers: NodeJS.Timeout[] = [];
  private authTimer?: NodeJS.Timeout;
  private expiryTimer?: NodeJS.Timeout;
  private unwatch?: () => void;
  private closed = false;
  private alive = true;
  private chain: Promise<void> = Promise.resolve();
  // Message rate: a token bucket of wsMessagesPerSecond per second; refusals counted for abuse.
  private tokens: number;
  private lastRefill = Date.now();
  private refused: number[] = [];
  private readonly started = Date.now();
  private delivered = 0;
  private readonly ip: string;

  constructor(
    private readonly s: Services,
    private readonly hub: RealtimeHub,
    private readonly socket: WebSocket,
    private readonly req: FastifyRequest,
    upgrade: UpgradeAuth | undefined,
    private readonly protocol: string,
  ) {
    const cfg = s.config.realtime;
    this.tokens = cfg.wsMessagesPerSecond;
    this.ip = normalizeIp(req.ip);
    socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    socket.on('close', () => this.cleanup('client_closed'));
    socket.on('error', () => this.cleanup('socket_error'));
    socket.on('pong', () => {
      this.alive = true;
    });
    const ping = setInterval(() => {
      if (!this.alive) {
        socket.terminate();
        return;
      }
      this.alive = false;
      try {
        socket.ping();
      } catch {
        /* closing */
      }
    }, cfg.wsPingMs);
    ping.unref();
    this.timers.push(ping);
    if (upgrade) this.authenticated(upgrade.caller, upgrade.credential, upgrade.lease);
    else {
      this.authTimer = setTimeout(() => {
        if (!this.caller) this.fail(CLOSE.UNAUTHORIZED, 'UNAUTHORIZED', `no {type:"auth", token} frame within ${cfg.wsAuthTimeoutMs} ms`);
      }, cfg.wsAuthTimeoutMs);
      this.authTimer.unref();
    }
  }

  // ------------------------------------------------------------ sending

  private sendRaw(text: string): void {
    if (this.closed || this.socket.readyState !== this.socket.OPEN) return;
    this.socket.send(text);
    if (this.socket.bufferedAmount > this.s.config.realtime.wsMaxBufferedBytes) {
      this.close(CLOSE.TRY_AGAIN, 'slow consumer: too much unsent output');
    }
  }

  private send(msg: Record<string, unknown>): void {
    this.sendRaw(JSON.stringify(msg));
  }

  private error(id: unknown, code: string, message: string, details?: Record<string, unknown>): void {
    this.send({ type: 'error', ...(isId(id) ? { id } : {}), code, message, ...(details ? { details } : {}) });
  }

  /** Closes with a code; `why` is the ws.disconnect audit reason. */
  private close(code: number, reason: string, why = `closed_${code}`): void {
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) {
      this.socket.close(code, reason.slice(0, 120));
    }
    this.cleanup(why);
  }

  /** Error frame, then close. */
  private fail(closeCode: number, code: string, message: string, details?: Record<string, unknown>, why?: string): void {
    this.error(undefined, code, message, details);
    this.close(closeCode, `${code}: ${message}`, why);
  }

  /** Server shutdown: 1001, the client reconnects elsewhere. */
  shutdown(): void {
    this.close(CLOSE.GOING_AWAY, 'server shutting down');
  }

  // ------------------------------------------------------------ events

  private deliver(e: LiveEvent): void {
    if (this.closed) return;
    for (const sub of this.subs.values()) {
      if (!matches(sub.filter, e)) continue;
      this.delivered++;
      this.sendRaw(`{"type":"event","subscription":${JSON.stringify(sub.id)},"event":${eventPart(e)}}`);
      if (this.closed) return;
    }
  }

  // ------------------------------------------------------------ authentication

  private authenticated(caller: Caller, credential: Credential, lease: ConnectionLease): void {
    this.caller = { ...caller, interface: 'websocket' };
    this.credential = credential;
    this.lease = lease;
    if (this.authTimer) clearTimeout(this.authTimer);
    this.unsubscribe = this.hub.add({ tenantId: this.caller.tenantId, deliver: (e) => this.deliver(e) });
    this.armExpiry();
    this.watchRevocation();
    void auditLive(this.s, this.caller, {
      action: 'ws.connect', resource: { type: 'websocket', id: this.req.id }, result: 'success', status: 101,
      details: { subprotocol: this.protocol || null, concurrent: lease.concurrent },
    });
  }

  private armExpiry(): void {
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    const at = this.credential?.expiresAt;
    if (!at) return;
    const delay = Math.min(Math.max(0, at - Date.now()), 2 ** 31 - 1);
    this.expiryTimer = setTimeout(() => {
      if (this.credential?.expiresAt && this.credential.expiresAt <= Date.now()) {
        this.fail(
          CLOSE.UNAUTHORIZED,
          'TOKEN_EXPIRED',
          'the access token of this connection has expired; reconnect, or send {type:"auth", token} with a fresh token before expiry',
        );
      } else this.armExpiry();
    }, delay);
    this.expiryTimer.unref();
  }

  /** A revocation of the credential (in any API process) closes the connection at once. */
  private watchRevocation(): void {
    this.unwatch?.();
    this.unwatch = this.credential ? watchCredential(this.s, this.credential.revocable, (r) => this.revoked(r)) : undefined;
  }

  private revoked(r: Revocation, id?: unknown): void {
    if (id !== undefined) this.error(id, r.code, r.message, { reason: r.reason });
    this.fail(r.closeCode, r.code, r.message, { reason: r.reason }, `revoked_${r.reason}`);
  }

  private async onAuth(m: Frame): Promise<void> {
    if (typeof m.token !== 'string' || m.token === '') return this.error(m.id, 'INVALID_REQUEST', 'auth needs a token string');
    const h = this.req.headers;
    let r;
    try {
      r = await authenticate(this.s, {
        token: m.token, tenantHeader: typeof h['x-tenant-id'] === 'string' ? h['x-tenant-id'] : undefined,
        socket: this.req.raw.socket, ip: this.ip, userAgent: h['user-agent'], requestId: this.req.id, interface: 'websocket',
      });
    } catch (e) {
      const ae = e instanceof AppError ? e : new AppError('UNAUTHORIZED', 'authentication failed');
      await recordAudit(this.s, {
        actor: { type: 'anonymous', id: 'anonymous', tenant: '' },
        tenantId: 'default',
        action: 'ws.auth',
        requestId: this.req.id,
        ip: this.ip,
        userAgent: h['user-agent'],
        interface: 'websocket',
        result: 'denied',
        status: ae.statusCode,
        details: { code: ae.code, reason: ae.message },
      }).catch(() => {});
      if (this.caller) return this.error(m.id, ae.code, ae.message); // a failed refresh keeps the current credential
      return this.fail(CLOSE.UNAUTHORIZED, ae.code, ae.message);
    }
    const cred = tokenCredential(m.token);
    if (this.caller) {
      // Re-authentication (token refresh): same tenant and principal only.
      const c = r.caller;
      if (c.tenantId !== this.caller.tenantId || c.actor.id !== this.caller.actor.id || c.actor.type !== this.caller.actor.type) {
        return this.error(m.id, 'TENANT_MISMATCH', 'a refreshed token must belong to the same principal and tenant as the connection');
      }
      this.caller = { ...c, interface: 'websocket' };
      this.credential = cred;
      this.armExpiry();
      this.watchRevocation();
      return;
    }
    let lease: ConnectionLease;
    try {
      lease = await acquireSlots(this.s, 'ws', r.caller, cred);
    } catch (e) {
      if (e instanceof AppError && e.code === 'RATE_LIMITED') return this.fail(CLOSE.TOO_MANY_CONNECTIONS, e.code, e.message, e.details);
      throw e;
    }
    if (this.closed) {
      await lease.release();
      return;
    }
    this.authenticated(r.caller, cred, lease);
  }

  // ------------------------------------------------------------ messages

  private allowMessage(): boolean {
    const cfg = this.s.config.realtime;
    const now = Date.now();
    this.tokens = Math.min(cfg.wsMessagesPerSecond, this.tokens + ((now - this.lastRefill) / 1000) * cfg.wsMessagesPerSecond);
    this.lastRefill = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return true;
    }
    this.refused.push(now);
    while (this.refused.length && this.refused[0] < now - 10_000) this.refused.shift();
    return false;
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    const cfg = this.s.config.realtime;
    if (!this.allowMessage()) {
      if (this.refused.length > cfg.wsAbuseLimit) {
        this.fail(CLOSE.POLICY, 'RATE_LIMITED', `more than ${cfg.wsMessagesPerSecond} messages per second, persistently; connection closed`);
        return;
      }
      // One error per refused message would double the traffic of a flood: every 10th.
      if (this.refused.length === 1 || this.refused.length % 10 === 0) {
        this.error(
          undefined,
          'RATE_LIMITED',
          `at most ${cfg.wsMessagesPerSecond} messages per second per connection; messages above it are dropped`,
          { limit: cfg.wsMessagesPerSecond, window_seconds: 1, scope: 'connection', retry_after: 1 },
        );
      }
      return;
    }
    // Answers keep the order of the frames: an auth frame is done before the subscribe that follows it.
    this.chain = this.chain.then(() => this.parseAndHandle(data, isBinary));
  }

  private async parseAndHandle(data: RawData, isBinary: boolean): Promise<void> {
    if (this.closed) return;
    if (isBinary) return this.error(undefined, 'INVALID_REQUEST', 'send JSON text frames; binary frames are not understood');
    let m: Frame;
    try {
      m = JSON.parse(data.toString()) as Frame;
    } catch {
      return this.error(undefined, 'INVALID_REQUEST', 'the frame is not valid JSON');
    }
    if (!m || typeof m !== 'object' || Array.isArray(m) || typeof m.type !== 'string') {
      return this.error(undefined, 'INVALID_REQUEST', 'a frame is a JSON object with a string "type"');
    }
    try {
      await this.handle(m);
    } catch (err) {
      const dep = unavailableDependency(err);
      // a value the database refused (SQLSTATE class 22) is the client's mistake: INVALID_FIELD and a warning
      const ae = err instanceof AppError ? err : dep ? serviceUnavailable(dep) : isDataException(err) ? dataExceptionError(err) : undefined;
      if (!ae) this.s.log.error({ err }, 'WebSocket message failed');
      else if (isDataException(err)) {
        const sqlstate = (err as { code?: string }).code;
        this.s.log.warn({ sqlstate, reason: (err as Error).message }, 'the database refused a value of a WebSocket frame');
      }
      this.error(m.id, ae?.code ?? 'INTERNAL_ERROR', ae?.message ?? 'internal error', ae?.details);
    }
  }

  private async handle(m: Frame): Promise<void> {
    if (this.closed) return;
    switch (m.type) {
      case 'ping':
        return this.send({ type: 'pong', ...(isId(m.id) ? { id: m.id } : {}) });
      case 'auth':
        return this.onAuth(m);
    }
    if (!this.caller) {
      if (['subscribe', 'unsubscribe', 'command'].includes(m.type as string)) {
        return this.error(m.id, 'UNAUTHORIZED', 'authenticate first: send {type:"auth", token} (or connect with an Authorization header or ?token=)');
      }
    } else if ((m.type === 'command' || m.type === 'subscribe') && this.credential) {
      // The notice closes the socket; this catches a frame that raced it (or a notice not yet arrived from Redis).
      const r = await checkCredential(this.s, this.credential.revocable);
      if (r) return this.revoked(r, m.id);
    }
    switch (m.type) {
      case 'subscribe':
        return this.onSubscribe(m);
      case 'unsubscribe':
        return this.onUnsubscribe(m);
      case 'command':
        // Not awaited: a long command must not hold up pings and subscriptions; its
        // command_result carries its id.
        void this.onCommand(m).catch((err) => {
          const dep = unavailableDependency(err);
          if (dep) {
            const e = serviceUnavailable(dep);
            return this.error(m.id, e.code, e.message, e.details);
          }
          if (isDataException(err)) {
            const e = dataExceptionError(err);
            const sqlstate = (err as { code?: string }).code;
            this.s.log.warn({ sqlstate, reason: (err as Error).message }, 'the database refused a value of a WebSocket command');
            return this.error(m.id, e.code, e.message, e.details);
          }
          this.s.log.error({ err }, 'WebSocket command failed');
          this.error(m.id, 'INTERNAL_ERROR', 'internal error');
        });
        return;
      default:
        return this.error(m.id, 'INVALID_REQUEST', `unknown message type "${String(m.type)}"; types: subscribe, unsubscribe, command, ping, auth`);
    }
  }

  private onSubscribe(m: Frame): void {
    const caller = this.caller!;
    if (!isId(m.id)) return this.error(undefined, 'INVALID_REQUEST', 'subscribe needs an id (string or number) naming the subscription');
    if (!caller.permissions.has('read')) return this.error(m.id, 'FORBIDDEN', `role ${caller.role} lacks the "read" permission`);
    const key = String(m.id);
    const cfg = this.s.config.realtime;
    if (!this.subs.has(key) && this.subs.size >= cfg.wsMaxSubscriptions) {
      return this.error(m.id, 'RATE_LIMITED', `at most ${cfg.wsMaxSubscriptions} subscriptions per connection; unsubscribe one first`, {
        limit: cfg.wsMaxSubscriptions,
        scope: 'connection',
      });
    }
    const topics = m.topics;
    if (topics !== undefined && !(typeof topics === 'string' || (Array.isArray(topics) && topics.every((t) => typeof t === 'string')))) {
      return this.error(m.id, 'INVALID_FIELD', 'topics is a list of topic names (or a comma-separated string)', { field: 'topics' });
    }
    let filter: EventFilter;
    try {
      filter = buildFilter({ topics: topics as string | string[] | undefined, network_id: m.network_id, agent_id: m.agent_id, severity: m.severity }, {
        maxTopics: 10, audit: caller.permissions.has('audit'), role: caller.role,
      });
    } catch (e) {
      if (e instanceof AppError) return this.error(m.id, e.code, e.message, e.details);
      throw e;
    }
    // Subscribing again with an id in use replaces that subscription's filter.
    this.subs.set(key, { id: m.id, filter });
    this.send({ type: 'subscribed', id: m.id });
  }

  private onUnsubscribe(m: Frame): void {
    if (!isId(m.id)) return this.error(undefined, 'INVALID_REQUEST', 'unsubscribe needs the id of a subscription');
    if (!this.subs.delete(String(m.id))) return this.error(m.id, 'NOT_FOUND', `no subscription with id ${JSON.stringify(m.id)}`);
    this.send({ type: 'unsubscribed', id: m.id });
  }

  private async onCommand(m: Frame): Promise<void> {
    const caller = this.caller!;
    if (!isId(m.id)) return this.error(undefined, 'INVALID_REQUEST', 'command needs an id (string or number) to match its command_result');
    if (typeof m.agent_id !== 'string' || !/^agent_[A-Za-z0-9]+$/.test(m.agent_id)) {
      return this.error(m.id, 'INVALID_FIELD', 'agent_id must be an agent id (agent_…)', { field: 'agent_id' });
    }
    const agentId = m.agent_id;
    const body: Record<string, unknown> = {};
    for (const k of ['command', 'params', 'priority', 'timeout_ms', 'await_result']) if (m[k] !== undefined) body[k] = m[k];
    const audit = (result: 'success' | 'failure' | 'denied', status: number, code?: string) => recordAudit(this.s, {
      ...fromCaller(caller), action: 'WS /ws command', resource: { type: 'agent', id: agentId }, result, status,
      details: { method: 'WS', path: '/ws', message: 'command', command: body.command, ...(code ? { error_code: code } : {}) },
    }).catch((err) => logAuditFailure(this.s.log, err));
    if (!caller.permissions.has('command')) {
      await audit('denied', 403, 'FORBIDDEN');
      return this.error(m.id, 'FORBIDDEN', `role ${caller.role} lacks the "command" permission this operation needs`, {
        permission: 'command',
        role: caller.role,
      });
    }
    if (!checkCommand.Check(body)) {
      const first = checkCommand.Errors(body).First();
      const field = first?.path.replace(/^\//, '').replace(/\//g, '.') || 'command';
      return this.error(m.id, 'INVALID_FIELD', `${field}: ${first?.message ?? 'invalid command'}`, { field });
    }
    // control characters in the command's text, as the REST door refuses them (src/lib/callerText.ts)
    try {
      assertCallerText(body);
    } catch (e) {
      if (e instanceof AppError) return this.error(m.id, e.code, e.message, e.details);
      throw e;
    }
    // The rate-limit layers of POST /api/v1/agents/{id}/command (user, tenant, endpoint).
    let rl = await checkRateLimits(this.s, { ip: this.ip, ipClass: 'authenticated', endpoint: 'POST /agents/:id/command', caller });
    if (endpointBypassMayApply(rl, body.command))
      rl =
        (await emergencyBypass(this.s, { ip: this.ip, ipClass: 'authenticated', caller }, () =>
          agentInTenant(this.s.db, caller, agentId),
        )) ?? rl;
    if (!rl.allowed) {
      await audit('denied', 429, 'RATE_LIMITED');
      return this.error(m.id, 'RATE_LIMITED', rl.error!.message, rl.error!.details);
    }
    if (rl.waitMs > 0) await new Promise((r) => setTimeout(r, rl.waitMs));
    try {
      const answer = await executeCommand(this.s, { ...caller, requestId: `${this.req.id}:${String(m.id)}` }, agentId, body as unknown as CommandRequest);
      await audit('success', answer.httpStatus);
      this.send({ type: 'command_result', id: m.id, result: answer.result });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      await audit(e.statusCode === 401 || e.statusCode === 403 || e.statusCode === 429 ? 'denied' : 'failure', e.statusCode, e.code);
      this.error(m.id, e.code, e.message, e.details);
    }
  }

  // ------------------------------------------------------------ end

  private cleanup(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    if (this.authTimer) clearTimeout(this.authTimer);
    if (this.expiryTimer) clearTimeout(this.expiryTimer);
    this.unwatch?.();
    this.unsubscribe?.();
    this.subs.clear();
    const lease = this.lease;
    this.lease = undefined;
    void lease?.release();
    if (this.caller) {
      void auditLive(this.s, this.caller, {
        action: 'ws.disconnect', resource: { type: 'websocket', id: this.req.id }, result: 'success',
        details: { reason, delivered: this.delivered, duration_ms: Date.now() - this.started },
      });
    }
    this.onClosed?.();
  }

  onClosed?: () => void;
}
