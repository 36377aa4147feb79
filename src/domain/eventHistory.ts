// Event history (GET /api/v1/events, GraphQL events) over the durable event log
// written by src/domain/eventLog.ts, and its retention purge. docs/events.md.
import { SEVERITIES, type Severity } from '../schemas/vocabulary.js';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { eventSeq } from '../lib/ids.js';
import { orderBy, pageMeta, paging, selectPage, } from '../lib/paging.js';
import { parseDateTime } from '../lib/time.js';
import { EVENT_TOPICS, eventFromRow, type EventTopic, type StoredEvent } from './eventLog.js';
import { Where } from '../db/where.js';
import type { Static } from '@sinclair/typebox';
import type { EventListQuery as EventListQuerySchema } from '../schemas/events.js';
import { envNumber } from '../lib/env.js';

export { SEVERITIES, type Severity as SeverityName };

/** An event as the REST history and GraphQL return it. */
export interface EventRecord {
  id: string;
  topic: EventTopic;
  kind: string;
  payload: Record<string, unknown>;
  timestamp: Date;
  network_id: string | null;
  agent_id: string | null;
  severity: Severity | null;
}

export function eventRecord(e: StoredEvent): EventRecord {
  return {
    id: e.id, topic: e.topic, kind: e.kind, payload: e.payload, timestamp: e.timestamp, network_id: e.network_id, agent_id: e.agent_id,
    severity: e.severity === null || e.severity === undefined ? null : SEVERITIES[e.severity] ?? null,
  };
}

/** GET /events's query (src/schemas/events.ts): topic comma-separated, severity the minimum (or 0..3), after an
 *  event id (only later events). */
export type EventListQuery = Static<typeof EventListQuerySchema>;

export function parseTopics(topic: string | undefined): EventTopic[] | undefined {
  if (topic === undefined || topic.trim() === '') return undefined;
  const topics = [...new Set(topic.split(',').map((t) => t.trim()).filter(Boolean))];
  for (const t of topics) {
    if (!EVENT_TOPICS.includes(t as EventTopic))
      throw new AppError('INVALID_FIELD', `unknown topic "${t}"; topics: ${EVENT_TOPICS.join(', ')}`, {
        field: 'topic',
        allowed: EVENT_TOPICS,
      });
  }
  return topics as EventTopic[];
}

export function parseSeverity(v: string | number | undefined): number | undefined {
  if (v === undefined || v === '') return undefined;
  const s = String(v).toLowerCase();
  const n = /^[0-3]$/.test(s) ? Number(s) : SEVERITIES.indexOf(s as Severity);
  if (n < 0)
    throw new AppError('INVALID_FIELD', `severity must be one of ${SEVERITIES.join(', ')} (or 0-3), got "${v}"`, {
      field: 'severity',
      allowed: SEVERITIES,
    });
  return n;
}

// Sorting by time is sorting by id: ids are the log's sequence numbers.
const SORTABLE = { id: 'seq', timestamp: 'seq', created_at: 'seq', topic: 'topic', kind: 'kind', severity: 'severity' };

/**
 * Lists the caller's tenant's events. Default order: newest first (-id), like every
 * list; with `after` the default is oldest first (id), since `after` reads forward.
 * Audit events are listed only for callers with the audit permission.
 */
export async function listEvents(s: Pick<Services, 'db' | 'pendingTasks'>, caller: Caller, q: EventListQuery) {
  // The events of the caller's answered power flows are stored with them (src/domain/pendingTasks.ts): wait for that.
  await s.pendingTasks.settled(caller.tenantId);
  const p = paging(q);
  const where = Where.tenant(caller.tenantId);
  const topics = parseTopics(q.topic);
  if (topics) where.add('topic = ANY(?::text[])', `{${topics.join(',')}}`);
  if (!caller.permissions.has('audit')) where.raw(`topic <> 'audit'`);
  const from = q.from ? parseDateTime('from', q.from) : undefined;
  const to = q.to ? parseDateTime('to', q.to) : undefined;
  if (from && to && from.getTime() > to.getTime()) throw new AppError('VALIDATION_FAILED', 'from must not be after to', { field: 'from' });
  if (from) where.add('created_at >= ?', from);
  if (to) where.add('created_at < ?', to);
  if (q.network_id) where.add('network_id = ?', q.network_id);
  if (q.agent_id) where.add('agent_id = ?', q.agent_id);
  const severity = parseSeverity(q.severity);
  if (severity !== undefined) where.add('severity >= ?', severity);
  if (q.after !== undefined && q.after !== '') {
    const seq = eventSeq(q.after);
    if (seq === undefined) throw new AppError('INVALID_FIELD', `after must be an event id such as evt_0000000000000042, got "${q.after}"`, { field: 'after' });
    where.add('seq > ?', seq);
  }
  const order = orderBy(q.sort, SORTABLE, q.after ? 'id' : '-id');
  const { rows, total } = await selectPage<Parameters<typeof eventFromRow>[0]>(
    s.db,
    { from: 'events', ...where.toSql(), order: `${order}, seq ${order.startsWith('seq DESC') ? 'DESC' : 'ASC'}` },
    p,
  );
  return { items: rows.map((r) => eventRecord(eventFromRow(r))), meta: pageMeta(p, total, rows.length) };
}

// ---------------------------------------------------------------- retention

/** SPEC 6.1: events are kept at least 24 hours (SSE resume); we keep 7 days by default. */
export const MIN_RETENTION_HOURS = 24;

export interface RetentionSettings {
  /** EVENT_RETENTION_HOURS, default 168 (7 days); values below 24 are raised to 24. */
  retentionHours: number;
  /** EVENT_PURGE_INTERVAL_SECONDS, default 3600; 0 turns the periodic purge off. */
  intervalSeconds: number;
}

export function retentionSettings(env: NodeJS.ProcessEnv = process.env): RetentionSettings {
  const num = (name: string, dflt: number) => envNumber(env, name, dflt);
  return { retentionHours: Math.max(MIN_RETENTION_HOURS, num('EVENT_RETENTION_HOURS', 7 * 24)), intervalSeconds: num('EVENT_PURGE_INTERVAL_SECONDS', 3600) };
}

/** Deletes events older than the retention, in chunks so no statement holds locks long. Returns how many. */
export async function purgeEvents(s: Pick<Services, 'db'>, retentionHours = retentionSettings().retentionHours, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - Math.max(MIN_RETENTION_HOURS, retentionHours) * 3600_000);
  let total = 0;
  for (;;) {
    const { rowCount } = await s.db.query(
      'DELETE FROM events WHERE seq IN (SELECT seq FROM events WHERE created_at < $1 ORDER BY seq LIMIT 10000)',
      [cutoff],
    );
    total += rowCount;
    if (rowCount < 10000) return total;
  }
}

export interface EventRetention {
  stop(): void;
}

/** Starts the periodic purge of this process (every process may run it; deletes are idempotent). */
export function startEventRetention(s: Pick<Services, 'db' | 'log'>, settings: RetentionSettings = retentionSettings()): EventRetention {
  if (settings.intervalSeconds <= 0) return { stop() {} };
  const timer = setInterval(() => {
    purgeEvents(s, settings.retentionHours).then(
      (n) => n > 0 && s.log.info({ deleted: n, retention_hours: settings.retentionHours }, 'event retention purge'),
      (err) => s.log.warn({ err }, 'event retention purge failed; retrying at the next interval'),
    );
  }, settings.intervalSeconds * 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
