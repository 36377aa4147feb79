// Event history, audit log, health.
import { listEvents } from '../../domain/eventHistory.js';
import { healthOf } from '../../domain/health.js';
import { listAudit } from '../../security/index.js';
import type { GqlContext } from '../context.js';
import { query } from '../guard.js';
import type { GqlEnum, Opt, PageArgs } from '../args.js';
import type { Severity } from '../../schemas/vocabulary.js';
import { connection, defined, down, normalizeEvent, toAuditEntry, toEvent } from './map.js';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

interface EventsArgs extends PageArgs {
  /** A String in the SDL (one topic or a comma-separated list): the domain checks it. */
  topic?: Opt<string>;
  from?: Opt<Date>;
  to?: Opt<Date>;
  networkId?: Opt<string>;
  agentId?: Opt<string>;
  severity?: Opt<GqlEnum<Severity>>;
}

interface AuditArgs extends PageArgs {
  actor?: Opt<string>;
  action?: Opt<string>;
  resourceType?: Opt<string>;
  resourceId?: Opt<string>;
  from?: Opt<Date>;
  to?: Opt<Date>;
}

export const eventResolvers = {
  Query: {
    events: query('read', async (caller, a: EventsArgs, ctx) => {
      const { items, meta } = await listEvents(ctx.s, caller, defined({
        topic: a.topic ?? undefined, from: iso(a.from), to: iso(a.to), network_id: a.networkId ?? undefined, agent_id: a.agentId ?? undefined,
        severity: down<Severity>(a.severity), page: a.page ?? undefined, page_size: a.pageSize ?? undefined,
      }));
      return connection(items.map((e) => toEvent(normalizeEvent(e as unknown as Record<string, unknown>))), meta);
    }),
    audit: query('audit', async (caller, a: AuditArgs, ctx) => {
      const { items, meta } = await listAudit(ctx.s, caller, defined({
        actor: a.actor ?? undefined, action: a.action ?? undefined, resource_type: a.resourceType ?? undefined, resource_id: a.resourceId ?? undefined,
        from: iso(a.from), to: iso(a.to), page: a.page ?? undefined, page_size: a.pageSize ?? undefined,
      }));
      return connection(items.map(toAuditEntry), meta);
    }),
    health: query('read', async (_caller, _a, ctx: GqlContext) => {
      const h = await healthOf(ctx.s);
      return { status: h.status, version: h.version, uptimeSeconds: h.uptime_seconds, checks: h.checks, schemaVersion: ctx.schemaVersion };
    }),
  },
};
