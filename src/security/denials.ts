// Rate-limit refusals, audited in aggregate: a load test refuses tens of thousands of
// requests a minute, and one immutable audit_log row each (kept 365 days) buried the trail.
// Every refusal is counted in memory under (minute, tenant, caller, layer, address, door) and
// the counts are added to one audit_rate_limited row per key every FLUSH_MS (an upsert, so
// several API processes still make one row). Read with GET /api/v1/audit/rate-limited.
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import type { AuditInput } from './audit.js';
import { orderBy, pageMeta, paging, selectPage, tenantWhere, type PageQuery } from '../lib/paging.js';
import { requireAuditPermission } from './auditPermission.js';
import { parseDateTime } from '../lib/time.js';

export const FLUSH_MS = 2000;
/** Distinct actions kept per row (a flood of made-up paths must not grow a row without bound). */
const MAX_ACTIONS = 20;

interface Tally {
  minute: string;
  tenant_id: string;
  actor_type: string;
  actor_id: string;
  layer: string;
  ip: string;
  interface: string;
  count: number;
  first_at: string;
  last_at: string;
  last_request_id: string | null;
  actions: Record<string, number>;
}

export interface DenialCounter {
  tallies: Map<string, Tally>;
  timer?: NodeJS.Timeout;
  flushing?: Promise<void>;
}

export function createDenialCounter(): DenialCounter {
  return { tallies: new Map() };
}

/** A refusal by a rate limit (429, or RATE_LIMITED in the details of another door). */
export function isRateLimitDenial(e: AuditInput): boolean {
  if (e.result !== 'denied') return false;
  const d = e.details ?? {};
  return e.status === 429 || d.error_code === 'RATE_LIMITED' || d.code === 'RATE_LIMITED';
}

/** The layer that refused: the 429's details.scope, else read from its message. */
function layerOf(d: Record<string, unknown>): string {
  if (typeof d.scope === 'string') return d.scope;
  const reason = typeof d.reason === 'string' ? d.reason : '';
  const m = /rate limit of (client address|tenant|endpoint|user|agent|service)/.exec(reason);
  if (!m) return 'unknown';
  return m[1] === 'client address' ? 'ip' : m[1] === 'tenant' || m[1] === 'endpoint' ? m[1] : 'user';
}

/** Counts one refusal; written with the next flush. */
export function countDenial(s: Pick<Services, 'db' | 'denials' | 'log' | 'metrics'>, e: AuditInput): void {
  const c = s.denials;
  const now = new Date();
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
  const tenant = e.tenantId || e.actor.tenant || 'default';
  const layer = layerOf(e.details ?? {});
  s.metrics.rateLimitRejections.inc({ layer });
  const ip = e.ip ?? '';
  const door = String(e.interface ?? 'rest');
  const key = `${minute}|${tenant}|${e.actor.type}|${e.actor.id}|${layer}|${ip}|${door}`;
  let t = c.tallies.get(key);
  if (!t) {
    t = {
      minute,
      tenant_id: tenant,
      actor_type: e.actor.type,
      actor_id: e.actor.id.slice(0, 200),
      layer,
      ip: ip.slice(0, 100),
      interface: door,
      count: 0,
      first_at: now.toISOString(),
      last_at: '',
      last_request_id: null,
      actions: {},
    };
    c.tallies.set(key, t);
  }
  t.count++;
  t.last_at = now.toISOString();
  t.last_request_id = e.requestId ?? null;
  const action = e.action.slice(0, 200);
  if (action in t.actions || Object.keys(t.actions).length < MAX_ACTIONS) t.actions[action] = (t.actions[action] ?? 0) + 1;
  else t.actions['(other)'] = (t.actions['(other)'] ?? 0) + 1;
  if (!c.timer) {
    c.timer = setTimeout(() => {
      c.timer = undefined;
      void flushDenials(s).catch((err) => s.log.error({ err }, 'rate-limit refusals could not be written to the audit trail; retrying'));
    }, FLUSH_MS);
    c.timer.unref();
  }
}

/** Adds the counted refusals to their rows now (also at shutdown). */
export async function flushDenials(s: Pick<Services, 'db' | 'denials'>): Promise<void> {
  const c = s.denials;
  while (c.flushing) await c.flushing;
  if (c.tallies.size === 0) return;
  const rows = [...c.tallies.values()];
  c.tallies = new Map();
  c.flushing = (async () => {
    try {
      await s.db.query(
        `INSERT INTO audit_rate_limited AS a (minute, tenant_id, actor_type, actor_id, layer, ip, interface, count, first_at, last_at, last_request_id, actions)
         SELECT minute, tenant_id, actor_type, actor_id, layer, ip, interface, count, first_at, last_at, last_request_id, actions
           FROM json_to_recordset($1::json) AS x(minute timestamptz, tenant_id text, actor_type text, actor_id text, layer text, ip text, interface text,
                                                count int, first_at timestamptz, last_at timestamptz, last_request_id text, actions jsonb)
         ON CONFLICT (tenant_id, minute, actor_type, actor_id, layer, ip, interface) DO UPDATE SET
           count = a.count + EXCLUDED.count, first_at = LEAST(a.first_at, EXCLUDED.first_at), last_at = GREATEST(a.last_at, EXCLUDED.last_at),
           last_request_id = EXCLUDED.last_request_id,
           actions = (SELECT jsonb_object_agg(k, COALESCE((a.actions->>k)::int, 0) + COALESCE((EXCLUDED.actions->>k)::int, 0))
                        FROM (SELECT jsonb_object_keys(a.actions) UNION SELECT jsonb_object_keys(EXCLUDED.actions)) AS keys(k))`,
        [JSON.stringify(rows)]);
    } catch (err) {
      // Kept for the next flush: a refusal is not lost because the database was busy.
      for (const r of rows) {
        const key = `${r.minute}|${r.tenant_id}|${r.actor_type}|${r.actor_id}|${r.layer}|${r.ip}|${r.interface}`;
        const have = c.tallies.get(key);
        if (!have) c.tallies.set(key, r);
        else {
          have.count += r.count;
          for (const [a, n] of Object.entries(r.actions)) have.actions[a] = (have.actions[a] ?? 0) + n;
        }
      }
      throw err;
    }
  })();
  try {
    await c.flushing;
  } finally {
    c.flushing = undefined;
  }
}

export function stopDenials(s: Pick<Services, 'denials'>): void {
  const c = s.denials;
  if (c.timer) clearTimeout(c.timer);
  c.timer = undefined;
}

export interface DenialQuery extends PageQuery {
  actor?: string;
  layer?: string;
  ip?: string;
  from?: string;
  to?: string;
}

/** A stored row: the tally with its times as dates. */
interface DenialRow extends Omit<Tally, 'minute' | 'first_at' | 'last_at'> {
  minute: Date;
  first_at: Date;
  last_at: Date;
}

/** GET /audit/rate-limited: the tenant's refusals per minute, caller, layer and address (audit permission). */
export async function listDenials(s: Pick<Services, 'db' | 'denials'>, caller: Caller, q: DenialQuery) {
  requireAuditPermission(caller);
  await flushDenials(s).catch(() => {});
  const p = paging(q, 50);
  const w = tenantWhere(caller.tenantId);
  const add = w.add;
  if (q.actor) add('actor_id = ?', q.actor);
  if (q.layer) add('layer = ?', q.layer);
  if (q.ip) add('ip = ?', q.ip);
  if (q.from) add('minute >= ?', new Date(Math.floor(parseDateTime('from', q.from).getTime() / 60_000) * 60_000).toISOString());
  if (q.to) add('minute < ?', parseDateTime('to', q.to).toISOString());
  const order = orderBy(q.sort, { minute: 'minute', count: 'count', actor: 'actor_id', layer: 'layer' }, '-minute');
  const { rows, total } = await selectPage<DenialRow>(
    s.db,
    { from: 'audit_rate_limited', where: w.sql(), params: w.params, order: `${order}, count DESC, actor_id, layer, ip` },
    p,
  );
  const items = rows.map((r) => ({
    minute: new Date(r.minute), actor: { type: r.actor_type, id: r.actor_id }, layer: r.layer, ip: r.ip, interface: r.interface,
    count: Number(r.count), first_at: new Date(r.first_at), last_at: new Date(r.last_at), last_request_id: r.last_request_id, actions: r.actions,
  }));
  return { items, meta: pageMeta(p, total, rows.length) };
}
