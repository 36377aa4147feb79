// Alarms (SPEC 2 "Alarm", 3, 4.3): raised by power-flow results (overloads,
// voltages out of limits) and by other domains (device faults), exactly one open
// alarm per condition, cleared when the condition is gone, acknowledged by people.
// Every door (REST, GraphQL, SSE, WebSocket) calls these functions. docs/alarms.md.
import { ALARM_STATUSES, SEVERITIES, type AlarmStatus, type Severity } from '../schemas/vocabulary.js';
import type { Queryable } from '../db/database.js';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import type { NetworkModel } from './networkModel.js';
import { branchIds, OVERLOAD_LIMIT_PCT, powerFlowConditions, round, type ResultLike } from './alarmRules.js';
import type { TaskRow } from './tasks.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { findOwnedRow, listParam, orderBy, pageMeta, paging, selectPage, } from '../lib/paging.js';
import { parseDateTime } from '../lib/time.js';
import { insertEvents, insertEvent, publishEvents, type NewEvent, type StoredEvent } from './eventLog.js';
import { loadVersion } from './networks.js';
import { Where } from '../db/where.js';
import type { Static } from '@sinclair/typebox';
import type { AckIn, AlarmListQuery as AlarmListQuerySchema } from '../schemas/alarms.js';

// ---------------------------------------------------------------------------
// Severity and states

export { ALARM_STATUSES, SEVERITIES, type AlarmStatus, type Severity };
export const severityLevel = (s: Severity): number => SEVERITIES.indexOf(s);
export const severityName = (n: number): Severity => SEVERITIES[Math.max(0, Math.min(3, n))];


/** The alarm state machine, enforced here only: cleared is final. */
export const ALARM_TRANSITIONS: Readonly<Record<AlarmStatus, readonly AlarmStatus[]>> = {
  active: ['acknowledged', 'cleared'],
  acknowledged: ['cleared'],
  cleared: [],
};

function assertTransition(a: AlarmRow, to: AlarmStatus): void {
  if (!ALARM_TRANSITIONS[a.status].includes(to)) {
    const hint = a.status === 'cleared' ? 'it is cleared (final)' : `it is already ${a.status}`;
    throw new AppError('CONFLICT', `alarm ${a.id} cannot become ${to}: ${hint} (${a.status} → ${to} is not a legal transition)`, {
      alarm_id: a.id,
      from: a.status,
      to,
      allowed: ALARM_TRANSITIONS[a.status],
    });
  }
}


// ---------------------------------------------------------------------------
// Rows and views

/** The fields an alarm's stored row and its public view share as they are. */
interface AlarmFields {
  id: string;
  status: AlarmStatus;
  type: string;
  message: string;
  network_id: string | null;
  details: Record<string, unknown>;
  occurrences: number;
  raised_at: Date;
  last_seen_at: Date;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  note: string | null;
  cleared_at: Date | null;
}

export interface AlarmRow extends AlarmFields {
  tenant_id: string;
  severity: number;
  source_type: string;
  source_id: string;
  updated_at: Date;
}

export interface Alarm extends AlarmFields {
  severity: Severity;
  severity_level: number;
  source: { type: string; id: string };
}

const d = (v: Date | string | null) => (v === null ? null : new Date(v));

export function alarmView(r: AlarmRow): Alarm {
  return {
    id: r.id, severity: severityName(Number(r.severity)), severity_level: Number(r.severity), status: r.status, type: r.type, message: r.message,
    network_id: r.network_id, source: { type: r.source_type, id: r.source_id }, details: r.details ?? {}, occurrences: r.occurrences,
    raised_at: new Date(r.raised_at), last_seen_at: new Date(r.last_seen_at), acknowledged_at: d(r.acknowledged_at),
    acknowledged_by: r.acknowledged_by, note: r.note, cleared_at: d(r.cleared_at),
  };
}

/** The alarm event of SPEC 6.1 (alarm_id and the example's id, severity, status, type, message, network_id, raised_at). */
function alarmEvent(r: AlarmRow, kind: string, extra: Record<string, unknown> = {}): NewEvent {
  const a = alarmView(r);
  return {
    tenantId: r.tenant_id, topic: 'alarm', kind, networkId: r.network_id ?? undefined, severity: Number(r.severity),
    payload: {
      alarm_id: a.id, id: a.id, severity: a.severity, status: a.status, type: a.type, message: a.message, network_id: a.network_id,
      source: a.source, raised_at: a.raised_at.toISOString(), acknowledged_at: a.acknowledged_at?.toISOString() ?? null,
      acknowledged_by: a.acknowledged_by, cleared_at: a.cleared_at?.toISOString() ?? null, details: a.details, ...extra,
    },
  };
}

// ---------------------------------------------------------------------------
// Raising and clearing (also for other domains: device faults)

export interface AlarmInput {
  type: string;
  severity: Severity | number;
  message: string;
  network_id?: string | null;
  source: { type: string; id: string };
  details?: Record<string, unknown>;
}

function level(sev: Severity | number): number {
  if (typeof sev === 'number') {
    if (!Number.isInteger(sev) || sev < 0 || sev > 3)
      throw new AppError('INVALID_FIELD', `severity must be 0..3 or info/warn/error/critical, got ${sev}`, { field: 'severity' });
    return sev;
  }
  const n = SEVERITIES.indexOf(sev);
  if (n < 0) throw new AppError('INVALID_FIELD', `severity must be one of ${SEVERITIES.join(', ')}, got "${sev}"`, { field: 'severity' });
  return n;
}

const OPEN_KEY = `(tenant_id, (coalesce(network_id, '')), type, source_type, source_id) WHERE status <> 'cleared'`;

/**
 * Raises an alarm inside the caller's transaction, or refreshes the open alarm of
 * the same condition (tenant, network, type, source): never a duplicate. Returns
 * the events to publish after commit (publishEvents).
 */
export async function raiseAlarmInTx(tx: Queryable, tenantId: string, input: AlarmInput): Promise<{ alarm: Alarm; created: boolean; events: StoredEvent[] }> {
  const sev = level(input.severity);
  if (!input.type || !input.source?.type || input.source.id === undefined || input.source.id === '') {
    throw new AppError('VALIDATION_FAILED', 'an alarm needs a type and a source {type, id}', { field: 'source' });
  }
  const id = newId('alarm');
  const ins = await tx.query<AlarmRow>(
    `INSERT INTO alarms (id, tenant_id, severity, status, type, message, network_id, source_type, source_id, details)
     VALUES ($1, $2, $3, 'active', $4, $5, $6, $7, $8, $9)
     ON CONFLICT ${OPEN_KEY} DO NOTHING RETURNING *`,
    [id, tenantId, sev, input.type, input.message, input.network_id ?? null, input.source.type, String(input.source.id), JSON.stringify(input.details ?? {})]);
  if (ins.rows[0]) {
    const ev = await insertEvent(tx, alarmEvent(ins.rows[0], 'alarm.raised'));
    return { alarm: alarmView(ins.rows[0]), created: true, events: [ev] };
  }
  const { rows: cur } = await tx.query<AlarmRow>(
    `SELECT * FROM alarms WHERE tenant_id = $1 AND coalesce(network_id, '') = coalesce($2, '') AND type = $3
       AND source_type = $4 AND source_id = $5 AND status <> 'cleared' FOR UPDATE`,
    [tenantId, input.network_id ?? null, input.type, input.source.type, String(input.source.id)]);
  if (!cur[0]) throw new AppError('CONFLICT', 'the open alarm of this condition changed concurrently; retry', { type: input.type, source: input.source });
  const { rows } = await tx.query<AlarmRow>(
    `UPDATE alarms SET details = $2, message = $3, severity = $4, occurrences = occurrences + 1,
       last_seen_at = clock_timestamp(), updated_at = clock_timestamp()
     WHERE id = $1 RETURNING *`,
    [cur[0].id, JSON.stringify(input.details ?? {}), input.message, sev]);
  const row = rows[0];
  const events: StoredEvent[] = [];
  if (Number(cur[0].severity) < sev)
    events.push(await insertEvent(tx, alarmEvent(row, 'alarm.escalated', { previous_severity: severityName(Number(cur[0].severity)) })));
  return { alarm: alarmView(row), created: false, events };
}

/** Raises (or refreshes) an alarm in its own transaction and publishes its event. For
 *  other domains, e.g. a device entering `fault`: raiseAlarm(s, tenantId, {type: 'device_fault',
 *  severity: 'error', message, network_id, source: {type: 'device', id}, details}). */
export async function raiseAlarm(s: Pick<Services, 'bus' | 'db'>, tenantId: string, input: AlarmInput): Promise<Alarm> {
  const out = await s.db.transaction((tx) => raiseAlarmInTx(tx, tenantId, input));
  await publishEvents(s.bus, out.events);
  return out.alarm;
}

export type AlarmMatch = { id: string } | { type: string; source: { type: string; id: string }; network_id?: string | null };

/** Clears the open alarm matching (by id, or by condition); null when none is open. */
export async function clearAlarmInTx(
  tx: Queryable,
  tenantId: string,
  match: AlarmMatch,
  reason = 'condition cleared',
): Promise<{ alarm: Alarm | null; events: StoredEvent[] }> {
  const { rows } =
    'id' in match
      ? await tx.query<AlarmRow>(`SELECT * FROM alarms WHERE id = $1 AND tenant_id = $2 FOR UPDATE`, [match.id, tenantId])
      : await tx.query<AlarmRow>(
          `SELECT * FROM alarms WHERE tenant_id = $1 AND coalesce(network_id, '') = coalesce($2, '') AND type = $3
       AND source_type = $4 AND source_id = $5 AND status <> 'cleared' FOR UPDATE`,
          [tenantId, match.network_id ?? null, match.type, match.source.type, String(match.source.id)],
        );
  const row = rows[0];
  if (!row) return { alarm: null, events: [] };
  if (row.status === 'cleared') return { alarm: alarmView(row), events: [] };
  assertTransition(row, 'cleared');
  const upd = await tx.query<AlarmRow>(
    `UPDATE alarms SET status = 'cleared', cleared_at = clock_timestamp(), updated_at = clock_timestamp() WHERE id = $1 RETURNING *`,
    [row.id],
  );
  const ev = await insertEvent(tx, alarmEvent(upd.rows[0], 'alarm.cleared', { reason }));
  return { alarm: alarmView(upd.rows[0]), events: [ev] };
}

/** Clears in its own transaction and publishes (a device leaving `fault`). */
export async function clearAlarm(s: Pick<Services, 'bus' | 'db'>, tenantId: string, match: AlarmMatch, reason?: string): Promise<Alarm | null> {
  const out = await s.db.transaction((tx) => clearAlarmInTx(tx, tenantId, match, reason));
  await publishEvents(s.bus, out.events);
  return out.alarm;
}

// ---------------------------------------------------------------------------
// Power-flow results → alarms (the rules that find the conditions: ./alarmRules.ts)

const POWERFLOW_TYPES = ['overload', 'voltage'];

function constraintEvent(
  tenantId: string,
  networkId: string,
  state: 'violated' | 'restored',
  c: {
    sourceType: string;
    sourceId: string;
    quantity: string;
    value: number | null;
    limit: number;
    alarmId: string;
    type: string;
    severity: number;
  },
): NewEvent {
  return {
    tenantId, topic: 'constraint', kind: `constraint.${state}`, networkId, severity: state === 'violated' ? c.severity : 0,
    payload: {
      element: `${c.sourceType}:${c.sourceId}`, element_type: c.sourceType, element_id: c.sourceId, quantity: c.quantity, value: c.value, limit: c.limit,
      state, type: c.type, network_id: networkId, alarm_id: c.alarmId, timestamp: new Date().toISOString(),
    },
  };
}

/** Whether a finished power flow violates nothing (converged, no condition): its judgement is then one statement's part. */
export function isQuietResult(task: TaskRow, model: NetworkModel): boolean {
  const result = task.result as ResultLike | null;
  return task.status === 'completed' && !!result && result.status === 'converged' && powerFlowConditions(model, { ...result, task_id: task.id }).length === 0;
}

/**
 * judgeQuietResult's work as parts of a caller's statement (the direct runs' records, src/queue/direct.ts): CTEs
 * `jq` (the quiet results given as `param`, a jsonb array of { task_id, network_id, tenant_id }, joined to
 * `tasksCte`'s RETURNING id, seq, whose networks exist) and `jf` (their evaluations recorded, unless a newer one
 * was), and the select-list items `judged_fresh` and `judged_open` (network ids; the open ones to clear with
 * evaluatePowerFlowAlarms(..., { judged: true })). `typesParam` holds POWERFLOW_ALARM_TYPES.
 */
export function quietJudgementSql(param: string, tasksCte: string, typesParam: string): { ctes: string; select: string } {
  return {
    ctes: `jq AS (
         SELECT x.network_id, x.tenant_id, tq.seq FROM jsonb_to_recordset(${param}) AS x(task_id text, network_id text, tenant_id text)
         JOIN ${tasksCte} tq ON tq.id = x.task_id
         WHERE EXISTS (SELECT 1 FROM networks n WHERE n.id = x.network_id AND n.tenant_id = x.tenant_id)),
       jf AS (
         INSERT INTO alarm_evaluations (network_id, task_seq) SELECT network_id, seq FROM jq
         ON CONFLICT (network_id) DO UPDATE SET task_seq = EXCLUDED.task_seq, evaluated_at = now() WHERE alarm_evaluations.task_seq < EXCLUDED.task_seq
         RETURNING network_id)`,
    select: `(SELECT jsonb_agg(jf.network_id) FROM jf) AS judged_fresh,
       (SELECT jsonb_agg(DISTINCT a.network_id) FROM alarms a JOIN jq ON a.network_id = jq.network_id AND a.tenant_id = jq.tenant_id
        WHERE a.status <> 'cleared' AND a.type = ANY(${typesParam}::text[])) AS judged_open`,
  };
}

export const POWERFLOW_ALARM_TYPES: readonly string[] = POWERFLOW_TYPES;

/**
 * A result that violates nothing, judged in one statement: its evaluation is recorded (unless the network is gone
 * or a newer result was judged) and the answer says whether alarms of the network are open, to be cleared.
 */
async function judgeQuietResult(db: Queryable, task: TaskRow): Promise<'network deleted' | 'a newer result was already judged' | 'open alarms' | undefined> {
  const { rows } = await db.query<{ net: boolean; fresh: boolean; open: boolean }>(
    `WITH net AS (SELECT id FROM networks WHERE id = $1 AND tenant_id = $2),
     fresh AS (
       INSERT INTO alarm_evaluations (network_id, task_seq) SELECT $1, $3 WHERE EXISTS (SELECT 1 FROM net)
       ON CONFLICT (network_id) DO UPDATE SET task_seq = EXCLUDED.task_seq, evaluated_at = now() WHERE alarm_evaluations.task_seq < EXCLUDED.task_seq
       RETURNING network_id)
     SELECT EXISTS (SELECT 1 FROM net) AS net, EXISTS (SELECT 1 FROM fresh) AS fresh,
            EXISTS (SELECT 1 FROM alarms WHERE tenant_id = $2 AND network_id = $1 AND status <> 'cleared' AND type = ANY($4::text[])) AS open`,
    [task.network_id, task.tenant_id, task.seq, POWERFLOW_TYPES],
  );
  const r = rows[0]!;
  if (!r.net) return 'network deleted';
  if (!r.fresh) return 'a newer result was already judged';
  return r.open ? 'open alarms' : undefined;
}

/**
 * Called when a power-flow task has finished (src/queue/execute.ts), before the
 * task is announced, so a caller waiting for the result already sees its alarms.
 * Only converged results are judged; a result older than the newest judged one of
 * the same network is ignored. Returns the number of alarms raised and cleared.
 */
export async function evaluatePowerFlowAlarms(
  s: Pick<Services, 'bus' | 'db'>,
  task: TaskRow,
  resultArg?: Record<string, unknown> | null,
  modelArg?: NetworkModel,
  opts: { judged?: boolean } = {},
): Promise<{ raised: number; cleared: number; skipped?: string }> {
  const result = (resultArg ?? task.result) as ResultLike | null;
  if (task.status !== 'completed' || !result || result.status !== 'converged') return { raised: 0, cleared: 0, skipped: 'not converged' };
  // Most results violate nothing and most networks have no open alarm: then one statement records the
  // evaluation (a transaction of five was most of a synchronous power flow's database time, issue 36).
  // judged: the caller's statement recorded it already (quietJudgementSql) and found alarms to clear.
  let judged = opts.judged ?? false;
  if (!judged && modelArg && powerFlowConditions(modelArg, { ...result, task_id: task.id }).length === 0) {
    const quiet = await judgeQuietResult(s.db, task);
    if (quiet !== 'open alarms') return { raised: 0, cleared: 0, ...(quiet ? { skipped: quiet } : {}) };
    judged = true; // alarms to clear: the evaluation below, as the result already judged
  }
  const out = await s.db.transaction(async (tx) => {
    const net = await tx.query<{ id: string }>('SELECT id FROM networks WHERE id = $1 AND tenant_id = $2', [task.network_id, task.tenant_id]);
    if (!net.rows[0]) return { raised: 0, cleared: 0, skipped: 'network deleted', events: [] as StoredEvent[] };
    const fresh = judged
      ? await tx.query('SELECT network_id FROM alarm_evaluations WHERE network_id = $1 AND task_seq = $2 FOR UPDATE', [task.network_id, task.seq])
      : await tx.query(
          `INSERT INTO alarm_evaluations (network_id, task_seq) VALUES ($1, $2)
           ON CONFLICT (network_id) DO UPDATE SET task_seq = EXCLUDED.task_seq, evaluated_at = now() WHERE alarm_evaluations.task_seq < EXCLUDED.task_seq
           RETURNING network_id`,
          [task.network_id, task.seq],
        );
    if (!fresh.rows[0]) return { raised: 0, cleared: 0, skipped: 'a newer result was already judged', events: [] as StoredEvent[] };
    // The solved version (immutable), when the caller has it already.
    const model = modelArg ?? await loadVersion(tx, task.network_id, task.network_version);
    const conditions = powerFlowConditions(model, { ...result, task_id: task.id });
    const { rows: open } = await tx.query<AlarmRow>(
      `SELECT * FROM alarms WHERE tenant_id = $1 AND network_id = $2 AND status <> 'cleared' AND type = ANY($3::text[]) FOR UPDATE`,
      [task.tenant_id, task.network_id, POWERFLOW_TYPES]);
    const key = (type: string, st: string, sid: string) => `${type}|${st}|${sid}`;
    const openByKey = new Map(open.map((a) => [key(a.type, a.source_type, a.source_id), a]));
    const newEvents: NewEvent[] = [];
    const seen = new Set<string>();

    // Refresh the open alarms whose condition persists (one statement).
    const refresh = conditions.filter((c) => openByKey.has(key(c.type, c.sourceType, c.sourceId)));
    if (refresh.length > 0) {
      const upd = await tx.query<AlarmRow>(
        `UPDATE alarms a SET details = x.details, message = x.message, severity = x.severity, occurrences = a.occurrences + 1,
           last_seen_at = clock_timestamp(), updated_at = clock_timestamp()
         FROM jsonb_to_recordset($1::jsonb) AS x(id text, details jsonb, message text, severity smallint)
         WHERE a.id = x.id RETURNING a.*`,
        [
          JSON.stringify(
            refresh.map((c) => ({
              id: openByKey.get(key(c.type, c.sourceType, c.sourceId))!.id,
              details: c.details,
              message: c.message,
              severity: c.severity,
            })),
          ),
        ],
      );
      for (const r of upd.rows) {
        const before = openByKey.get(key(r.type, r.source_type, r.source_id))!;
        if (Number(r.severity) > Number(before.severity))
          newEvents.push(alarmEvent(r, 'alarm.escalated', { previous_severity: severityName(Number(before.severity)) }));
      }
    }
    for (const c of refresh) seen.add(key(c.type, c.sourceType, c.sourceId));

    // Raise the new ones (one statement; the unique index makes a concurrent duplicate a no-op).
    const fresh2 = conditions.filter((c) => !openByKey.has(key(c.type, c.sourceType, c.sourceId)));
    let raised = 0;
    if (fresh2.length > 0) {
      const ins = await tx.query<AlarmRow>(
        `INSERT INTO alarms (id, tenant_id, severity, status, type, message, network_id, source_type, source_id, details)
         SELECT x.id, $2, x.severity, 'active', x.type, x.message, $3, x.source_type, x.source_id, x.details
         FROM jsonb_to_recordset($1::jsonb) AS x(ord int, id text, severity smallint, type text, message text, source_type text, source_id text, details jsonb)
         ORDER BY x.ord
         ON CONFLICT ${OPEN_KEY} DO NOTHING RETURNING *`,
        [
          JSON.stringify(
            fresh2.map((c, ord) => ({
              ord,
              id: newId('alarm'),
              severity: c.severity,
              type: c.type,
              message: c.message,
              source_type: c.sourceType,
              source_id: c.sourceId,
              details: c.details,
            })),
          ),
          task.tenant_id,
          task.network_id,
        ],
      );
      const byKey = new Map(fresh2.map((c) => [key(c.type, c.sourceType, c.sourceId), c]));
      for (const r of ins.rows) {
        const c = byKey.get(key(r.type, r.source_type, r.source_id))!;
        newEvents.push(alarmEvent(r, 'alarm.raised'));
        newEvents.push(constraintEvent(task.tenant_id, task.network_id, 'violated', { ...c, alarmId: r.id, type: c.type }));
        raised++;
      }
    }
    for (const c of fresh2) seen.add(key(c.type, c.sourceType, c.sourceId));

    // Clear the open alarms whose condition is gone.
    const gone = open.filter((a) => !seen.has(key(a.type, a.source_type, a.source_id)));
    if (gone.length > 0) {
      const { rows: cleared } = await tx.query<AlarmRow>(
        `UPDATE alarms SET status = 'cleared', cleared_at = clock_timestamp(), updated_at = clock_timestamp()
         WHERE id = ANY($1::text[]) AND status <> 'cleared' RETURNING *`,
        [gone.map((a) => a.id)]);
      const ids = branchIds(model);
      const flows = result.branches ?? [];
      const volts = new Map((result.buses ?? []).map((b) => [String(b.id), b.v]));
      for (const r of cleared) {
        newEvents.push(alarmEvent(r, 'alarm.cleared', { reason: `task ${task.id} shows the condition gone` }));
        let value: number | null = null;
        let limit = Number((r.details as { limit?: number }).limit ?? 0);
        if (r.source_type === 'branch') {
          const i = ids.indexOf(r.source_id);
          value = i >= 0 && flows[i] ? round(flows[i].loading, 4) : null;
          limit = OVERLOAD_LIMIT_PCT;
        } else if (r.source_type === 'bus') value = volts.has(r.source_id) ? round(volts.get(r.source_id)!, 6) : null;
        newEvents.push(
          constraintEvent(task.tenant_id, task.network_id, 'restored', {
            sourceType: r.source_type,
            sourceId: r.source_id,
            quantity: r.type === 'overload' ? 'loading' : 'voltage',
            value,
            limit,
            alarmId: r.id,
            type: r.type,
            severity: 0,
          }),
        );
      }
    }
    const events = await insertEvents(tx, newEvents);
    return { raised, cleared: gone.length, events };
  });
  await publishEvents(s.bus, out.events);
  return { raised: out.raised, cleared: out.cleared, ...(out.skipped ? { skipped: out.skipped } : {}) };
}

// ---------------------------------------------------------------------------
// Reading and acknowledging

/** GET /alarms's query (src/schemas/alarms.ts): severity and status one value or several comma-separated. */
export type AlarmListQuery = Static<typeof AlarmListQuerySchema>;

const SORTABLE = {
  raised_at: 'raised_at', created_at: 'raised_at', severity: 'severity', status: 'status', type: 'type',
  cleared_at: 'cleared_at', acknowledged_at: 'acknowledged_at', last_seen_at: 'last_seen_at', id: 'id',
};


export async function listAlarms(s: Pick<Services, 'db' | 'pendingTasks'>, caller: Caller, q: AlarmListQuery) {
  // The alarms of the caller's answered power flows are judged once stored (src/domain/pendingTasks.ts): wait for that.
  await s.pendingTasks.settled(caller.tenantId);
  const p = paging(q);
  const where = Where.tenant(caller.tenantId);
  const sev = listParam('severity', q.severity, SEVERITIES);
  if (sev) where.add('severity = ANY(?::smallint[])', sev.map(severityLevel));
  const st = listParam('status', q.status, ALARM_STATUSES);
  if (st) where.add('status = ANY(?::text[])', st);
  if (q.network_id) where.add('network_id = ?', q.network_id);
  if (q.type) where.add('type = ?', q.type);
  if (q.source_type) where.add('source_type = ?', q.source_type);
  if (q.source_id) where.add('source_id = ?', q.source_id);
  const from = q.from ? parseDateTime('from', q.from) : undefined;
  const to = q.to ? parseDateTime('to', q.to) : undefined;
  if (from && to && from > to) throw new AppError('INVALID_FIELD', `from (${q.from}) is after to (${q.to})`, { field: 'from' });
  if (from) where.add('raised_at >= ?', from.toISOString());
  if (to) where.add('raised_at <= ?', to.toISOString());
  const order = orderBy(q.sort, SORTABLE, '-raised_at');
  const { rows, total } = await selectPage<AlarmRow>(s.db, { from: 'alarms', ...where.toSql(), order: `${order}, id ASC` }, p);
  return { items: rows.map(alarmView), meta: pageMeta(p, total, rows.length) };
}

async function findAlarmRow(q: Queryable, caller: Caller, id: string, lock = false): Promise<AlarmRow> {
  return findOwnedRow<AlarmRow>(q, 'alarms', 'alarm', caller.tenantId, id, lock);
}

export async function getAlarm(s: Pick<Services, 'db' | 'pendingTasks'>, caller: Caller, id: string): Promise<Alarm> {
  await s.pendingTasks.settled(caller.tenantId); // as listAlarms
  return alarmView(await findAlarmRow(s.db, caller, id));
}

/** PATCH /alarms/{id}/ack's body (src/schemas/alarms.ts); acknowledged_by is checked here again for GraphQL and agents. */
export type AckInput = Static<typeof AckIn>;

/** active → acknowledged; an acknowledged or cleared alarm answers 409 CONFLICT. */
export async function acknowledgeAlarm(s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string, input: AckInput): Promise<Alarm> {
  const by = typeof input.acknowledged_by === 'string' ? input.acknowledged_by.trim() : '';
  if (!by) throw new AppError('INVALID_REQUEST', 'acknowledged_by is required (who acknowledges the alarm)', { field: 'acknowledged_by' });
  const out = await s.db.transaction(async (tx) => {
    const row = await findAlarmRow(tx, caller, id, true);
    assertTransition(row, 'acknowledged');
    const { rows } = await tx.query<AlarmRow>(
      `UPDATE alarms SET status = 'acknowledged', acknowledged_at = clock_timestamp(), acknowledged_by = $2, note = $3,
       updated_at = clock_timestamp() WHERE id = $1 RETURNING *`,
      [id, by, input.note ?? '']);
    const ev = await insertEvent(tx, alarmEvent(rows[0], 'alarm.acknowledged', { note: input.note ?? '', actor: caller.actor.id }));
    return { alarm: alarmView(rows[0]), ev };
  });
  await publishEvents(s.bus, [out.ev]);
  return out.alarm;
}
