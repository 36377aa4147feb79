// The durable, ordered event log (issue: every state change writes one).
// append() stores the event and then publishes it on the bus for live doors.
import type { Queryable } from '../db/database.js';
import type { EventBus } from '../events/bus.js';
import { eventId } from '../lib/ids.js';

export type EventTopic = 'topology' | 'powerflow' | 'task' | 'agent' | 'device' | 'alarm' | 'constraint' | 'audit' | 'system' | 'heartbeat';
export const EVENT_TOPICS: readonly EventTopic[] = ['topology', 'powerflow', 'task', 'agent', 'device', 'alarm', 'constraint', 'audit', 'system', 'heartbeat'];

export interface NewEvent {
  tenantId: string;
  topic: EventTopic;
  kind: string;
  payload: Record<string, unknown>;
  networkId?: string;
  agentId?: string;
  severity?: number; // 0 info .. 3 critical
}

/** What every event carries, stored or live. */
export interface EventFields {
  tenant_id: string;
  topic: EventTopic;
  kind: string;
  payload: Record<string, unknown>;
  network_id: string | null;
  agent_id: string | null;
  severity: number | null;
}

export interface StoredEvent extends EventFields {
  id: string;
  seq: number;
  timestamp: Date;
}

export interface EventRow extends EventFields {
  seq: number;
  created_at: Date;
}

export function eventFromRow(r: EventRow): StoredEvent {
  const seq = Number(r.seq);
  return {
    id: eventId(seq),
    seq,
    tenant_id: r.tenant_id,
    topic: r.topic,
    kind: r.kind,
    payload: r.payload,
    network_id: r.network_id,
    agent_id: r.agent_id,
    severity: r.severity,
    timestamp: new Date(r.created_at),
  };
}

/** Inserts the event (inside tx when given) and returns it; call publish() after commit. */
export async function insertEvent(q: Queryable, e: NewEvent): Promise<StoredEvent> {
  const { rows } = await q.query<EventRow>(
    `INSERT INTO events (tenant_id, topic, kind, payload, network_id, agent_id, severity)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
    [e.tenantId, e.topic, e.kind, JSON.stringify(e.payload), e.networkId ?? null, e.agentId ?? null, e.severity ?? null],
  );
  return eventFromRow(rows[0]);
}

/** Inserts several events with one statement, in the given order (their seq follows it). */
export async function insertEvents(q: Queryable, events: NewEvent[]): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  if (events.length === 1) return [await insertEvent(q, events[0])];
  const { rows } = await q.query<EventRow>(
    `INSERT INTO events (tenant_id, topic, kind, payload, network_id, agent_id, severity)
     SELECT x.tenant_id, x.topic, x.kind, x.payload, x.network_id, x.agent_id, x.severity
     FROM jsonb_to_recordset($1::jsonb) AS x(ord int, tenant_id text, topic text, kind text, payload jsonb, network_id text, agent_id text, severity smallint)
     ORDER BY x.ord RETURNING *`,
    [
      JSON.stringify(
        events.map((e, ord) => ({
          ord,
          tenant_id: e.tenantId,
          topic: e.topic,
          kind: e.kind,
          payload: e.payload,
          network_id: e.networkId ?? null,
          agent_id: e.agentId ?? null,
          severity: e.severity ?? null,
        })),
      ),
    ],
  );
  // seq is drawn in insertion order, which ORDER BY ord fixed.
  return rows.map(eventFromRow).sort((a, b) => a.seq - b.seq);
}

/** Wire form shared by the bus, SSE, WebSocket and GraphQL. */
export function eventWire(e: StoredEvent) {
  return {
    id: e.id,
    seq: e.seq,
    tenant_id: e.tenant_id,
    topic: e.topic,
    kind: e.kind,
    payload: e.payload,
    network_id: e.network_id,
    agent_id: e.agent_id,
    severity: e.severity,
    timestamp: e.timestamp.toISOString(),
  };
}

/** Publishes in order; all are handed to the bus at once, so they leave together (bus.ts). */
export async function publishEvents(bus: EventBus, events: StoredEvent[]): Promise<void> {
  await Promise.all(events.map((e) => bus.publish('event', eventWire(e))));
}

export async function appendEvent(db: Queryable, bus: EventBus, e: NewEvent): Promise<StoredEvent> {
  const stored = await insertEvent(db, e);
  await bus.publish('event', eventWire(stored));
  return stored;
}
