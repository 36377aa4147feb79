// What a live subscriber (an SSE stream, one WebSocket subscription) wants to
// see, how a live event is judged against it, and the same filter as SQL for
// replaying stored events. Tenant scoping is not part of the filter: the hub
// only ever hands a subscriber its own tenant's events.
import { SEVERITIES, type Severity } from '../schemas/vocabulary.js';
import { AppError } from '../lib/errors.js';
import { EVENT_TOPICS, type EventFields, type EventTopic } from '../domain/eventLog.js';
import { Where } from '../db/where.js';

export { SEVERITIES as SEVERITY_NAMES };

/** An event as it travels to live clients: a stored event (id evt_…) or a transient one (id null: progress). */
export interface LiveEvent extends EventFields {
  id: string | null;
  seq: number | null;
  timestamp: string;
}

export interface EventFilter {
  topics?: ReadonlySet<EventTopic>;
  networkId?: string;
  agentId?: string;
  /** Minimum severity 0..3; an event without severity counts as info (0). */
  minSeverity?: number;
  /** Audit events are delivered only when asked for (and the caller has the audit permission). */
  includeAudit: boolean;
}

export interface FilterInput {
  topics?: string | string[];
  network_id?: unknown;
  agent_id?: unknown;
  severity?: unknown;
}

export function parseTopicList(v: string | string[] | undefined, max: number, field = 'topics'): Set<EventTopic> | undefined {
  if (v === undefined) return undefined;
  const raw = Array.isArray(v) ? v : String(v).split(',');
  const list = [...new Set(raw.map((t) => String(t).trim()).filter(Boolean))];
  if (list.length === 0) return undefined;
  if (list.length > max) {
    throw new AppError('INVALID_REQUEST', `at most ${max} topics per connection, got ${list.length}`, { field, limit: max, count: list.length });
  }
  for (const t of list) {
    if (!EVENT_TOPICS.includes(t as EventTopic)) {
      throw new AppError('INVALID_FIELD', `unknown topic "${t}"; topics: ${EVENT_TOPICS.join(', ')}`, { field, allowed: EVENT_TOPICS });
    }
  }
  return new Set(list as EventTopic[]);
}

export function parseSeverityName(v: unknown, field = 'severity'): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const s = String(v).toLowerCase();
  const n = /^[0-3]$/.test(s) ? Number(s) : SEVERITIES.indexOf(s as Severity);
  if (n < 0) throw new AppError('INVALID_FIELD', `${field} must be one of ${SEVERITIES.join(', ')}, got "${String(v)}"`, { field, allowed: SEVERITIES });
  return n;
}

function optId(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 64) throw new AppError('INVALID_FIELD', `${field} must be an id string of at most 64 characters`, { field });
  return v;
}

/**
 * Builds a filter. `audit` is the caller's audit permission; asking for audit
 * events (topic "audit" or includeAudit) without it is 403 FORBIDDEN.
 */
export function buildFilter(input: FilterInput, opts: { maxTopics: number; includeAudit?: boolean; audit: boolean; role: string }): EventFilter {
  const topics = parseTopicList(input.topics, opts.maxTopics) as Set<EventTopic> | undefined;
  const includeAudit = opts.includeAudit === true || (topics?.has('audit') ?? false);
  if (includeAudit && !opts.audit) {
    throw new AppError('FORBIDDEN', `audit events need the "audit" permission, which role ${opts.role} lacks`, { permission: 'audit', role: opts.role });
  }
  if (includeAudit && topics) topics.add('audit');
  return {
    topics,
    networkId: optId(input.network_id, 'network_id'),
    agentId: optId(input.agent_id, 'agent_id'),
    minSeverity: parseSeverityName(input.severity),
    includeAudit,
  };
}

export function matches(f: EventFilter, e: LiveEvent): boolean {
  if (e.topic === 'audit' && !f.includeAudit) return false;
  if (f.topics && !f.topics.has(e.topic)) return false;
  if (f.networkId !== undefined && e.network_id !== f.networkId) return false;
  if (f.agentId !== undefined && e.agent_id !== f.agentId) return false;
  if (f.minSeverity !== undefined && (e.severity ?? 0) < f.minSeverity) return false;
  return true;
}

/** The filter as a WHERE clause over the events table (tenant first), for replay. */
export function filterSql(tenantId: string, f: EventFilter, range: { afterSeq?: number; since?: Date; until?: Date }): { where: string; params: unknown[] } {
  const where = Where.tenant(tenantId);
  if (f.topics) where.add('topic = ANY(?::text[])', `{${[...f.topics].join(',')}}`);
  if (!f.includeAudit) where.raw(`topic <> 'audit'`);
  if (f.networkId !== undefined) where.add('network_id = ?', f.networkId);
  if (f.agentId !== undefined) where.add('agent_id = ?', f.agentId);
  if (f.minSeverity !== undefined && f.minSeverity > 0) where.add('COALESCE(severity, 0) >= ?', f.minSeverity);
  if (range.afterSeq !== undefined) where.add('seq > ?', range.afterSeq);
  if (range.since) where.add('created_at >= ?', range.since);
  if (range.until) where.add('created_at < ?', range.until);
  return where.toSql();
}

/** The record clients see (SSE data, the same fields as the REST history). */
export function eventView(e: LiveEvent) {
  return {
    id: e.id, topic: e.topic, kind: e.kind, payload: e.payload, timestamp: e.timestamp,
    network_id: e.network_id, agent_id: e.agent_id, severity: e.severity === null || e.severity === undefined ? null : SEVERITIES[e.severity] ?? null,
  };
}
