// Alarms: list, detail, acknowledge.
import * as alarms from '../../domain/alarms.js';
import type { GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import type { FieldArgs, GqlEnum, IdArgs, Opt } from '../args.js';
import type { AlarmStatus, Severity } from '../../schemas/vocabulary.js';
import { defined, down, toAlarm, toNetwork } from './map.js';

interface AlarmsArgs {
  severity?: Opt<GqlEnum<Severity>>;
  status?: Opt<GqlEnum<AlarmStatus>>;
  networkId?: Opt<string>;
  from?: Opt<Date>;
  to?: Opt<Date>;
}

interface AcknowledgeArgs extends IdArgs {
  acknowledgedBy?: Opt<string>;
  note?: Opt<string>;
}
const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined);

export const alarmResolvers = {
  Query: {
    alarms: query('read', async (caller, a: AlarmsArgs, ctx) => {
      const { items } = await alarms.listAlarms(ctx.s, caller, defined<alarms.AlarmListQuery>({
        severity: down<Severity>(a.severity), status: down<AlarmStatus>(a.status), network_id: a.networkId ?? undefined, from: iso(a.from), to: iso(a.to),
        page: 1, page_size: 100,
      }));
      return items.map(toAlarm);
    }),
    alarm: query('read', async (caller, a: IdArgs, ctx) => toAlarm(await alarms.getAlarm(ctx.s, caller, a.id))),
  },
  Mutation: {
    acknowledgeAlarm: mutation({ permission: 'write', resourceType: 'alarm' }, async (caller, a: AcknowledgeArgs, ctx) =>
      // REST requires acknowledged_by; GraphQL defaults it to the caller (SPEC 4.5 lists only id and note).
      toAlarm(await alarms.acknowledgeAlarm(ctx.s, caller, a.id, { acknowledged_by: a.acknowledgedBy ?? caller.actor.id, note: a.note ?? undefined }))),
  },
  Alarm: {
    network: async (al: { networkId: string | null }, _a: FieldArgs, ctx: GqlContext) => {
      if (!al.networkId) return null;
      const n = await ctx.loaders.network.load(al.networkId);
      return n ? toNetwork(n) : null;
    },
  },
};
