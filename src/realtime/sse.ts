// One SSE stream (SPEC 6.1): wire format, resume without gap or duplicate,
// keepalive comments, heartbeat events, idle/expiry/until closes, payload cap,
// slow-consumer protection. The route (src/routes/api/v1/events/stream) checks
// parameters, permissions and limits first and then hands the response here.
//
// Resume order: the subscriber is registered in the hub (buffering) BEFORE the
// stored events are read, so nothing published meanwhile is lost; buffered
// events that the replay already wrote are dropped by sequence number, the rest
// are written in arrival order, then the stream is live.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import type { RealtimeConfig } from './settings.js';
import { eventFromRow, eventWire } from '../domain/eventLog.js';
import { eventId } from '../lib/ids.js';
import { eventView, filterSql, matches, type EventFilter, type LiveEvent } from './filter.js';
import type { RealtimeHub } from './hub.js';

export type SseFormat = 'json' | 'plain';

export interface StreamOptions {
  caller: Caller;
  filter: EventFilter;
  format: SseFormat;
  /** Replay stored events after this sequence number (Last-Event-ID / last_event_id). */
  afterSeq?: number;
  /** Replay stored events from this time (since). */
  since?: Date;
  /** Close the stream on reaching this time (until). */
  until?: Date;
  /** When the credential expires (JWT exp): SUBSCRIPTION_EXPIRED then close. */
  expiresAt?: number;
  connectionId: string;
  cfg: RealtimeConfig;
  /** Called once when the stream has ended, whatever the reason. */
  onEnd(info: { reason: string; delivered: number; replayed: number; durationMs: number }): void;
}

export const newConnectionId = () => `sse_${randomBytes(12).toString('hex')}`;

const REPLAY_PAGE = 500;
/** How long after going live a resumed stream still drops bus copies of replayed events. */
const LATE_DEDUP_MS = 10_000;
const MAX_TIMER = 2 ** 31 - 1;

// ---------------------------------------------------------------- framing

/** data: lines of a text (JSON never contains a newline; plain text may). */
function dataLines(text: string): string {
  return text.includes('\n') || text.includes('\r') ? text.split(/\r\n|\r|\n/).map((l) => `data: ${l}`).join('\n') : `data: ${text}`;
}

function frame(type: string | undefined, id: string | null, text: string): string {
  return `${type ? `event: ${type}\n` : ''}${id ? `id: ${id}\n` : ''}${dataLines(text)}\n\n`;
}

/** Payload bigger than the cap: replaced by a marker and a link to the stored event. */
function capped(e: LiveEvent, json: string, max: number): LiveEvent | undefined {
  if (json.length <= max / 3 || Buffer.byteLength(json) <= max) return undefined;
  const bytes = Buffer.byteLength(JSON.stringify(e.payload));
  const url = e.seq !== null ? `/api/v1/events?after=${eventId(e.seq - 1)}&page_size=1` : null;
  return {
    ...e,
    payload: {
      truncated: true,
      original_bytes: bytes,
      url,
      message: `the payload (${bytes} bytes) exceeds the ${max / 1024} KB SSE limit; fetch the whole event from url`,
    },
  };
}

function plainText(e: LiveEvent): string {
  return `${e.topic} ${e.kind} ${JSON.stringify(e.payload)}`;
}

// Every stream of a format writes the same bytes for one event: build them once,
// as the bytes of one HTTP/1.1 chunk (or raw, for a close-delimited HTTP/1.0 body),
// so fanning an event out to N streams is N socket writes of one shared Buffer.
const frames = new WeakMap<LiveEvent, { json?: string; plain?: string }>();
const chunks = new WeakMap<LiveEvent, Partial<Record<`${SseFormat}${0 | 1}`, Buffer>>>();

export function encodeChunk(text: string, chunked: boolean): Buffer {
  if (!chunked) return Buffer.from(text);
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, CRLF]);
}
const CRLF = Buffer.from('\r\n');

function eventChunk(e: LiveEvent, format: SseFormat, maxPayload: number, chunked: boolean): Buffer {
  let c = chunks.get(e);
  if (!c) chunks.set(e, (c = {}));
  const key = `${format}${chunked ? 1 : 0}` as const;
  return (c[key] ??= encodeChunk(eventFrame(e, format, maxPayload), chunked));
}

export function eventFrame(e: LiveEvent, format: SseFormat, maxPayload: number): string {
  let c = frames.get(e);
  if (!c) frames.set(e, (c = {}));
  const hit = c[format];
  if (hit) return hit;
  let json = JSON.stringify(eventView(e));
  const small = capped(e, json, maxPayload);
  const ev = small ?? e;
  if (small) json = JSON.stringify(eventView(small));
  const out = frame(ev.topic, ev.id, format === 'json' ? json : plainText(ev));
  c[format] = out;
  return out;
}

/**
 * A connection-level event (system, heartbeat): not stored, no id. Its data is the
 * usual record and, at the top level too, the payload's fields, so that an in-stream
 * error's data "has type error, code and message" (SPEC 6.1 rule 4).
 */
function controlFrame(topic: 'system' | 'heartbeat', kind: string, payload: Record<string, unknown>, format: SseFormat): string {
  const timestamp = new Date().toISOString();
  const e: LiveEvent = {
    id: null,
    seq: null,
    tenant_id: '',
    topic,
    kind,
    payload,
    network_id: null,
    agent_id: null,
    severity: topic === 'system' && payload.type === 'error' ? 2 : 0,
    timestamp,
  };
  return frame(topic, null, format === 'json' ? JSON.stringify({ ...eventView(e), ...payload }) : plainText(e));
}

// ---------------------------------------------------------------- heartbeat responses

/**
 * A client answers heartbeats with POST /api/v1/events/stream/heartbeat {connection_id};
 * that keeps a quiet stream open past the idle timeout. The answer may reach any API
 * process: it is kept in Redis (when REDIS_URL) or in this process.
 */
const localAcks = new Map<string, number>();
const ackKey = (s: Pick<Services, 'config'>, tenant: string, id: string) => `${s.config.redisPrefix}:sse:ack:${tenant}:${id}`;

export async function recordHeartbeatAck(s: Pick<Services, 'config' | 'security'>, tenantId: string, connectionId: string): Promise<void> {
  const now = Date.now();
  const redis = s.security.redis;
  if (redis) await redis.set(ackKey(s, tenantId, connectionId), String(now), 'PX', Math.max(60_000, s.config.realtime.sseIdleMs * 2));
  else {
    localAcks.set(`${tenantId}:${connectionId}`, now);
    if (localAcks.size > 100_000) localAcks.clear();
  }
}

async function lastHeartbeatAck(s: Pick<Services, 'config' | 'security'>, tenantId: string, connectionId: string): Promise<number> {
  const redis = s.security.redis;
  if (!redis) return localAcks.get(`${tenantId}:${connectionId}`) ?? 0;
  try {
    return Number((await redis.get(ackKey(s, tenantId, connectionId))) ?? 0);
  } catch {
    return Date.now(); // Redis trouble: never close a stream for it
  }
}

// ---------------------------------------------------------------- the stream

export class SseStream {
  private buffer: LiveEvent[] | null = [];
  private replayed: Set<number> | null = new Set();
  /** Sequence numbers the replay wrote, kept for LATE_DEDUP_MS after going live. */
  private lateReplayed: Set<number> | null = null;
  private ended = false;
  private delivered = 0;
  private replayCount = 0;
  private lastActivity = Date.now();
  private readonly started = Date.now();
  private timers: NodeJS.Timeout[] = [];
  private idleTimer?: NodeJS.Timeout;
  private chunked = true;
  private socket?: import('node:net').Socket;
  private unsubscribe?: () => void;

  constructor(
    private readonly s: Services,
    private readonly res: ServerResponse,
    private readonly o: StreamOptions,
  ) {}

  /** Subscribes (buffering), writes the preamble, replays, flushes, goes live. */
  async run(hub: RealtimeHub, headers: Record<string, string | number | string[]>): Promise<void> {
    const o = this.o;
    this.unsubscribe = hub.add({ tenantId: o.caller.tenantId, deliver: (e) => this.onLive(e) });
    this.res.on('close', () => this.end('client_closed'));
    await hub.progressReady(); // the first stream here subscribes the process to progress: connected once it arrives
    this.res.on('error', () => this.end('socket_error'));
    if (this.res.destroyed || !this.res.socket || this.res.socket.destroyed) return this.end('client_closed'); // gone while we checked limits
    this.res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    // Headers out now; from here on the stream writes its (chunk-framed) bytes to the socket itself.
    this.res.flushHeaders();
    this.chunked = (this.res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding === true;
    this.socket = this.res.socket ?? undefined;
    this.socket?.setNoDelay(true);
    this.socket?.setKeepAlive(true, 30_000);
    this.write(`retry: ${o.cfg.sseRetryMs}\n\n`);
    this.write(controlFrame('system', 'system.connected', {
      type: 'connected', connection_id: o.connectionId, retry_ms: o.cfg.sseRetryMs, keepalive_ms: o.cfg.sseKeepaliveMs,
      heartbeat_ms: o.cfg.sseHeartbeatMs, idle_timeout_ms: o.cfg.sseIdleMs, heartbeat_url: '/api/v1/events/stream/heartbeat',
      ...(o.afterSeq !== undefined ? { resume_after: eventId(o.afterSeq) } : {}),
      ...(o.expiresAt ? { expires_at: new Date(o.expiresAt).toISOString() } : {}),
    }, o.format));
    this.startTimers();
    try {
      if (o.afterSeq !== undefined || o.since) await this.replay();
    } catch (err) {
      this.s.log.error({ err }, 'SSE replay failed');
      this.systemError('REPLAY_FAILED', 'the stored events could not be read; reconnect to retry');
      return this.end('replay_failed');
    }
    if (this.ended) return;
    // Flush what arrived during the replay, minus what the replay already wrote.
    const buffered = this.buffer ?? [];
    const seen = this.replayed ?? new Set<number>();
    this.buffer = null;
    this.replayed = null;
    for (const e of buffered) if (e.seq === null || !seen.has(e.seq)) this.send(e);
    // The bus copy of an event the replay read from the table can still be in flight
    // (stored and read before its pub/sub message arrived): keep dropping those for a
    // while after going live, so none is delivered twice.
    if (seen.size > 0) {
      this.lateReplayed = seen;
      setTimeout(() => { this.lateReplayed = null; }, LATE_DEDUP_MS).unref();
    }
    if (o.until && o.until.getTime() <= Date.now()) this.finish();
  }

  private async replay(): Promise<void> {
    const o = this.o;
    let after = o.afterSeq ?? 0;
    for (;;) {
      const { where, params } = filterSql(o.caller.tenantId, o.filter, { afterSeq: after, since: o.since, until: o.until });
      const { rows } = await this.s.db.query<Parameters<typeof eventFromRow>[0]>(
        `SELECT * FROM events WHERE ${where} ORDER BY seq LIMIT ${REPLAY_PAGE}`,
        params,
      );
      for (const r of rows) {
        if (this.ended) return;
        const e = eventWire(eventFromRow(r)) as LiveEvent;
        this.replayed!.add(e.seq!);
        after = e.seq!;
        this.replayCount++;
        if (!this.writeBuf(eventChunk(e, o.format, o.cfg.sseMaxPayloadBytes, this.chunked))) await this.drained();
      }
      if (rows.length < REPLAY_PAGE || this.ended) return;
    }
  }

  private onLive(e: LiveEvent): void {
    if (this.ended) return;
    if (!matches(this.o.filter, e)) return;
    if (this.buffer) {
      this.buffer.push(e);
      return;
    }
    if (this.lateReplayed && e.seq !== null && this.lateReplayed.has(e.seq)) return;
    this.send(e);
  }

  private send(e: LiveEvent): void {
    if (this.ended) return;
    const until = this.o.until;
    if (until && Date.parse(e.timestamp) >= until.getTime()) return;
    this.delivered++;
    this.lastActivity = Date.now();
    this.writeBuf(eventChunk(e, this.o.format, this.o.cfg.sseMaxPayloadBytes, this.chunked));
    if ((this.socket?.writableLength ?? 0) > this.o.cfg.sseMaxBufferedBytes) {
      // The client does not read fast enough: close; it resumes with Last-Event-ID from the log.
      this.end('slow_consumer');
    }
  }

  private write(text: string): boolean {
    return this.writeBuf(encodeChunk(text, this.chunked));
  }

  private writeBuf(buf: Buffer): boolean {
    const sock = this.socket;
    if (this.ended || !sock || sock.destroyed) return false;
    return sock.write(buf);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ended) return resolve();
      const sock = this.socket;
      if (!sock) return resolve();
      const done = () => {
        sock.off('drain', done);
        sock.off('close', done);
        resolve();
      };
      sock.on('drain', done);
      sock.on('close', done);
    });
  }

  private systemError(code: string, message: string, extra: Record<string, unknown> = {}): void {
    this.write(controlFrame('system', 'system.error', { type: 'error', code, message, ...extra }, this.o.format));
  }

  private startTimers(): void {
    const o = this.o;
    const keep = setInterval(() => this.write(':keepalive\n\n'), o.cfg.sseKeepaliveMs);
    const beat = setInterval(() => {
      this.write(controlFrame('heartbeat', 'heartbeat', { timestamp: new Date().toISOString(), connection_id: o.connectionId }, o.format));
    }, o.cfg.sseHeartbeatMs);
    keep.unref();
    beat.unref();
    this.timers.push(keep, beat);
    this.armIdle(o.cfg.sseIdleMs);
    if (o.expiresAt) this.at(o.expiresAt, () => {
      this.systemError('SUBSCRIPTION_EXPIRED', 'the access token of this stream has expired; reconnect with a fresh token');
      this.end('expired');
    });
    if (o.until && o.until.getTime() > Date.now()) this.at(o.until.getTime(), () => this.finish());
  }

  /** Runs fn at epoch ms `when` (timers longer than ~24.8 days are re-armed). */
  private at(when: number, fn: () => void): void {
    const delay = when - Date.now();
    const t = setTimeout(() => (when - Date.now() > 0 ? this.at(when, fn) : fn()), Math.max(0, Math.min(delay, MAX_TIMER)));
    t.unref();
    this.timers.push(t);
  }

  private armIdle(ms: number): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.checkIdle(), Math.max(10, ms));
    this.idleTimer.unref();
  }

  private async checkIdle(): Promise<void> {
    if (this.ended) return;
    const idleMs = this.o.cfg.sseIdleMs;
    const last = Math.max(this.lastActivity, await lastHeartbeatAck(this.s, this.o.caller.tenantId, this.o.connectionId));
    const quiet = Date.now() - last;
    if (quiet < idleMs) return this.armIdle(idleMs - quiet);
    this.systemError(
      'IDLE_TIMEOUT',
      `no event and no heartbeat response for ${Math.round(idleMs / 1000)} s; the stream is closed (reconnect with Last-Event-ID to resume)`,
      { idle_ms: idleMs },
    );
    this.end('idle');
  }

  /** until reached: say so and close. */
  private finish(): void {
    if (this.ended) return;
    this.write(
      controlFrame(
        'system',
        'system.end',
        { type: 'end', reason: 'until', until: this.o.until?.toISOString(), message: 'the requested time window has ended' },
        this.o.format,
      ),
    );
    this.end('until');
  }

  /**
   * The stream's credential was revoked (src/security/revocation.ts): an in-stream error
   * (code UNAUTHORIZED, or FORBIDDEN when only the role changed, details in reason), then
   * the end. `retry` is raised so that an EventSource's automatic reconnection with the
   * same credential does not hammer the 401 it will get.
   */
  revoked(code: string, message: string, reason: string): void {
    if (this.ended) return;
    this.write(`retry: ${Math.max(this.o.cfg.sseRetryMs, 30_000)}\n\n`);
    this.systemError(code, message, { reason });
    this.end(`revoked_${reason}`);
  }

  /** The process is shutting down: tell the client, which reconnects (to another process) and resumes. */
  shutdown(): void {
    if (this.ended) return;
    // Spread the reconnections of all streams of this process over one more interval
    // (SPEC 6.1 rule 4: a reconnect_backoff system event announces the new interval).
    const interval = this.o.cfg.sseRetryMs + Math.floor(Math.random() * this.o.cfg.sseRetryMs);
    this.write(`retry: ${interval}\n\n`);
    this.write(controlFrame('system', 'system.reconnect_backoff', { type: 'reconnect_backoff', interval_ms: interval }, this.o.format));
    this.write(
      controlFrame(
        'system',
        'system.shutdown',
        { type: 'shutdown', message: 'this server is shutting down; reconnect (with Last-Event-ID) to resume', retry_ms: interval },
        this.o.format,
      ),
    );
    this.end('shutdown');
  }

  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearTimeout(t);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.timers = [];
    this.buffer = null;
    this.replayed = null;
    if (!this.res.destroyed) {
      if (reason === 'slow_consumer') this.res.destroy();
      else this.res.end();
    }
    this.o.onEnd({ reason, delivered: this.delivered, replayed: this.replayCount, durationMs: Date.now() - this.started });
  }
}
