// Event history, audit log, health.
import { listEvents } from '../../domain/eventHistory.js';
import { healthOf } from '../../domain/health.js';
import { listAudit } from '../../security/index.js';
import type { GqlContext } from '../context.js';
import { query } from '../guard.js';
import { connection, defined, normalizeEvent, toAuditEntry, toEvent } from './map.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

export const eventResolvers = {
  Query: {
    events: query('read', async (caller, a, ctx) => {
      const { items, meta } = await listEvents(ctx.s, caller, defined({
        topic: a.topic ?? undefined, from: iso(a.from), to: iso(a.to), network_id: a.networkId ?? undefined, agent_id: a.agentId ?? undefined,
        severity: a.severity ? String(a.severity).toLowerCase() : undefined, page: a.page, page_size: a.pageSize,
      }));
      return connection(items.map((e) => toEvent(normalizeEvent(e as unknown as Record<string, unknown>))), meta);
    }),
    audit: query('audit', async (caller, a, ctx) => {
      const { items, meta } = await listAudit(ctx.s, caller, defined({
        actor: a.actor ?? undefined, action: a.action ?? undefined, resource_type: a.resourceType ?? undefined, resource_id: a.resourceId ?? undefined,
        from: iso(a.from), to: iso(a.to), page: a.page, page_size: a.pageSize,
      }));
      return connection(items.map((e) => toAuditEntry(e as unknown as Record<string, unknown>)), meta);
    }),
    health: query('read', async (_caller, _a, ctx: GqlContext) => {
      const h = await healthOf(ctx.s);
      return { status: h.status, version: h.version, uptimeSeconds: h.uptime_seconds, checks: h.checks, schemaVersion: ctx.schemaVersion };
    }),
  },
};
