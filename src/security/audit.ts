// The audit trail: recordAudit() appends one entry (and mirrors it into the event
// log as topic "audit"); every door calls it. The table refuses UPDATE, DELETE
// and TRUNCATE (migration 002); purgeAudit() is the only deleter and may remove
// only entries past the 365-day retention.
import type { Actor, Caller } from '../domain/caller.js';
import { unavailableDependency } from '../lib/unavailable.js';
import type { Database, Queryable } from '../db/database.js';
import type { Services } from '../services.js';
import { eventFromRow, publishEvents, type EventRow, type StoredEvent } from '../domain/eventLog.js';
import { createBatcher, type Batcher } from '../lib/batcher.js';
import { newId } from '../lib/ids.js';
import { AppError } from '../lib/errors.js';
import { orderBy, pageMeta, paging, selectPage } from '../lib/paging.js';
import { countDenial, isRateLimitDenial } from './denials.js';
import { Where } from '../db/where.js';
import { requireAuditPermission } from './auditPermission.js';

export type AuditResult = 'success' | 'failure' | 'denied';

export interface AuditInput {
  /** Tenant the entry belongs to (who may read it); default: the actor's tenant. */
  tenantId?: string;
  actor: Actor;
  /** "POST /api/v1/networks" for requests, or a domain verb such as "auth.refresh_reuse". */
  action: string;
  resource?: { type?: string | null; id?: string | null };
  requestId?: string;
  ip?: string;
  userAgent?: string;
  interface?: Caller['interface'] | string;
  result: AuditResult;
  status?: number;
  details?: Record<string, unknown>;
}

/** The fields an audit row and its public entry share as they are. */
interface AuditFields {
  id: string;
  action: string;
  request_id: string | null;
  ip: string | null;
  user_agent: string | null;
  interface: string | null;
  result: AuditResult;
  status: number | null;
  details: Record<string, unknown>;
}

export interface AuditEntry extends AuditFields {
  timestamp: Date;
  actor: { type: string; id: string; tenant: string };
  resource: { type: string | null; id: string | null };
}

interface AuditRow extends AuditFields {
  seq: number;
  ts: Date;
  tenant_id: string;
  actor_type: string;
  actor_id: string;
  actor_tenant: string;
  resource_type: string | null;
  resource_id: string | null;
}

function entry(r: AuditRow): AuditEntry {
  return {
    id: r.id, timestamp: new Date(r.ts), actor: { type: r.actor_type, id: r.actor_id, tenant: r.actor_tenant }, action: r.action,
    resource: { type: r.resource_type, id: r.resource_id }, request_id: r.request_id, ip: r.ip, user_agent: r.user_agent,
    interface: r.interface, result: r.result, status: r.status, details: r.details ?? {},
  };
}

/**
 * PostgreSQL refuses the NUL character in text and jsonb ("invalid byte sequence"), so an
 * entry naming `/networks/%00` would be lost: NUL is stored as the six characters `\u0000`
 * instead (#21). Lone surrogates need nothing: they are sent as U+FFFD.
 */
const storable = (v: string) => (v.includes('\u0000') ? v.replaceAll('\u0000', '\\u0000') : v);
const cut = (v: string | undefined | null, n: number) => {
  if (v == null) return null;
  const t = storable(v);
  return t.length > n ? t.slice(0, n) : t;
};
/** Details as jsonb text: an escaped NUL (an odd run of backslashes before u0000) gets one more backslash, so it reads as text. */
const storableJson = (json: string) => (json.includes('u0000') ? json.replace(/\\+u0000/g, (m) => ((m.length - 5) % 2 === 1 ? `\\${m}` : m)) : json);

/** Helper: the audit fields a caller contributes. */
export function fromCaller(c: Caller): Pick<AuditInput, 'tenantId' | 'actor' | 'requestId' | 'ip' | 'userAgent' | 'interface'> {
  return { tenantId: c.tenantId, actor: c.actor, requestId: c.requestId, ip: c.ip, userAgent: c.userAgent, interface: c.interface };
}

type AuditValues = unknown[];

function auditValues(e: AuditInput): AuditValues {
  const tenant = e.tenantId || e.actor.tenant || 'default';
  return [
    newId('aud'),
    tenant,
    e.actor.type,
    cut(e.actor.id, 200),
    e.actor.tenant || tenant,
    cut(e.action, 200),
    cut(e.resource?.type, 100),
    cut(e.resource?.id, 200),
    cut(e.requestId, 200),
    cut(e.ip, 100),
    cut(e.userAgent, 500),
    cut(e.interface, 50),
    e.result,
    e.status ?? null,
    storableJson(JSON.stringify(e.details ?? {})),
  ];
}

const COLUMNS =
  'id, tenant_id, actor_type, actor_id, actor_tenant, action, resource_type, resource_id, request_id, ip, user_agent, interface, result, status, details';

// The event-log mirror of an entry (topic "audit"), built beside it in the same statement: the
// payload's timestamp is the entry's, as toISOString() writes it (milliseconds, UTC).
const MIRROR_PAYLOAD = `jsonb_build_object('audit_id', a.id, 'actor', jsonb_build_object('type', a.actor_type, 'id', a.actor_id, 'tenant', a.actor_tenant),
  'action', a.action, 'resource', jsonb_build_object('type', a.resource_type, 'id', a.resource_id), 'result', a.result, 'status', a.status,
  'request_id', a.request_id, 'timestamp', to_char(a.ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * Appends entries with their event-log mirrors in one statement (atomic by itself, so the group
 * commit needs no transaction: a sixth of a synchronous power flow's database round trips, issue 36).
 * The entries take their seq in the order given, and so do their mirrors.
 */
async function writeAudit(q: Queryable, values: AuditValues[]): Promise<{ entries: AuditEntry[]; events: StoredEvent[] }> {
  // Columns as arrays (one per field), zipped by unnest in order.
  const cols = Array.from({ length: 15 }, (_, i) => values.map((v) => v[i]));
  const { rows } = await q.query<{ audits: AuditRow[]; events: EventRow[] }>(
    `WITH a AS (
       INSERT INTO audit_log (${COLUMNS})
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[],
                            $11::text[], $12::text[], $13::text[], $14::int[], $15::jsonb[])
       RETURNING *),
     e AS (
       INSERT INTO events (tenant_id, topic, kind, payload)
       SELECT a.tenant_id, 'audit', 'audit.' || a.result, ${MIRROR_PAYLOAD} FROM a ORDER BY a.seq
       RETURNING *)
     SELECT (SELECT json_agg(a ORDER BY a.seq) FROM a) AS audits, (SELECT json_agg(e ORDER BY e.seq) FROM e) AS events`,
    cols,
  );
  const audits = rows[0]!.audits;
  const order = new Map(values.map((v, i) => [v[0] as string, i]));
  audits.sort((x, y) => order.get(x.id)! - order.get(y.id)!);
  return { entries: audits.map(entry), events: rows[0]!.events.map(eventFromRow) };
}

// Entries written outside a caller's transaction are group-committed per process:
// concurrent requests share one transaction (src/lib/batcher.ts).
export type AuditWriter = Batcher<AuditValues, { entry: AuditEntry; event: StoredEvent }>;

export function createAuditWriter(db: Database): AuditWriter {
  return createBatcher(async (values: AuditValues[]) => {
    const { entries, events } = await writeAudit(db, values);
    return entries.map((entry, i) => ({ entry, event: events[i] }));
  });
}

/**
 * Appends an audit entry (in tx when given, else group-committed with the other entries
 * of the moment, each with its event-log mirror) and publishes the mirror after commit.
 */
export async function recordAudit(s: Services, e: AuditInput, tx?: Queryable): Promise<AuditEntry> {
  // Rate-limit refusals are counted into one row per minute, caller, layer and address (denials.ts).
  if (isRateLimitDenial(e)) {
    countDenial(s, e);
    return aggregatedEntry(e);
  }
  const st = s.security;
  try {
    let a: AuditEntry;
    if (tx) a = (await writeAudit(tx, [auditValues(e)])).entries[0];
    else {
      const { entry: written, event } = await s.audit.add(auditValues(e));
      a = written;
      await publishEvents(s.bus, [event]).catch(() => {});
    }
    st.auditFailing = false;
    return a;
  } catch (err) {
    // Only a store that cannot take writes (resources, system errors) stops mutations;
    // a malformed entry from a caller's bug does not, and neither does a database that is
    // away altogether (a restart): every mutation fails on it with 503 anyway, and a flag
    // left set would refuse changes with 403 after it is back (docs/reliability.md).
    const code = String((err as { code?: unknown }).code ?? '');
    if (!unavailableDependency(err) && (code === '' || /^(08|53|57|58|XX)/.test(code))) st.auditFailing = true;
    throw err;
  }
}

/**
 * Logs an entry that could not be written: at error level with its stack only when the store
 * itself failed; a store that is away (every mutation answers 503 meanwhile) or an entry the
 * store refused (a data exception, SQLSTATE class 22) is a warning without a stack, so no
 * client can fill the error log with its requests (#21 item 3).
 */
export function logAuditFailure(log: { warn: (o: object, m: string) => void; error: (o: object, m: string) => void }, err: unknown): void {
  const code = String((err as { code?: unknown } | undefined)?.code ?? '');
  const reason = (err as Error | undefined)?.message ?? String(err);
  if (unavailableDependency(err)) log.warn({ code, reason }, 'audit entry could not be written: the database is unavailable');
  else if (code.startsWith('22')) log.warn({ code, reason }, 'audit entry could not be written: the database refused its values');
  else log.error({ err }, 'audit entry could not be written');
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  resource_type?: string;
  resource_id?: string;
  request_id?: string;
  result?: AuditResult;
  from?: string;
  to?: string;
  page?: number;
  page_size?: number;
  cursor?: string;
  sort?: string;
}

/** What recordAudit answers for a refusal it counted instead of writing (no audit_log row, no event). */
function aggregatedEntry(e: AuditInput): AuditEntry {
  return {
    id: '', timestamp: new Date(), actor: { type: e.actor.type, id: e.actor.id, tenant: e.actor.tenant }, action: e.action,
    resource: { type: e.resource?.type ?? null, id: e.resource?.id ?? null }, request_id: e.requestId ?? null, ip: e.ip ?? null,
    user_agent: e.userAgent ?? null, interface: e.interface ?? null, result: 'denied', status: e.status ?? 429, details: { ...e.details, aggregated: true },
  };
}

/** GET /audit: the caller's tenant only; needs the audit permission (checked by the door). */
export async function listAudit(s: Pick<Services, 'db'>, caller: Caller, q: AuditQuery) {
  requireAuditPermission(caller);
  const p = paging(q, 50);
  const where = Where.tenant(caller.tenantId);
  if (q.actor) where.add('actor_id = ?', q.actor);
  if (q.action) {
    if (q.action.endsWith('*')) where.add(`action LIKE ?`, q.action.slice(0, -1).replace(/[\\%_]/g, (c) => '\\' + c) + '%');
    else where.add('action = ?', q.action);
  }
  if (q.resource_type) where.add('resource_type = ?', q.resource_type);
  if (q.resource_id) where.add('resource_id = ?', q.resource_id);
  if (q.request_id) where.add('request_id = ?', q.request_id);
  if (q.result) where.add('result = ?', q.result);
  for (const [k, op] of [['from', '>='], ['to', '<']] as const) {
    const v = q[k];
    if (v === undefined) continue;
    const d = new Date(v);
    if (Number.isNaN(d.getTime())) throw new AppError('INVALID_FIELD', `${k} must be an RFC 3339 date-time`, { field: k });
    where.add(`ts ${op} ?`, d.toISOString());
  }
  const order = orderBy(q.sort, { timestamp: 'ts', action: 'action', actor: 'actor_id' }, '-timestamp');
  const { rows, total } = await selectPage<AuditRow>(s.db, { from: 'audit_log', ...where.toSql(), order: `${order}, seq DESC` }, p);
  return { items: rows.map(entry), meta: pageMeta(p, total, rows.length) };
}

/** The only deleter: entries older than the retention (365 days), through the trigger's controlled exception. */
export async function purgeAudit(s: Pick<Services, 'db'>): Promise<number> {
  return s.db.transaction(async (tx) => {
    await tx.query(`SELECT set_config('gridops.audit_purge', 'on', true)`);
    const { rowCount } = await tx.query(`DELETE FROM audit_log WHERE ts < now() - interval '365 days'`);
    await tx.query(`DELETE FROM audit_rate_limited WHERE minute < now() - interval '365 days'`);
    await tx.query(`SELECT set_config('gridops.audit_purge', 'off', true)`);
    return rowCount;
  });
}
