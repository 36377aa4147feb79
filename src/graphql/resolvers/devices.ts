// Devices (read side; REST PATCH /devices/{id} has no GraphQL mutation in SPEC 4.5).
import * as devices from '../../domain/devices.js';
import type { GqlContext } from '../context.js';
import { query } from '../guard.js';
import type { FieldArgs, IdArgs, Opt, PageArgs } from '../args.js';
import type { DeviceType } from '../../schemas/vocabulary.js';
import { connection, defined, toDevice, toNetwork } from './map.js';

interface DevicesArgs extends PageArgs {
  type?: Opt<DeviceType>;
  online?: Opt<boolean>;
  /** A String in the SDL: the domain checks it (lowercase names). */
  status?: Opt<string>;
  networkId?: Opt<string>;
}

export const deviceResolvers = {
  Query: {
    devices: query('read', async (caller, a: DevicesArgs, ctx) => {
      const { items, meta } = await devices.listDevices(ctx.s, caller, defined<devices.DeviceListQuery>({
        type: a.type ?? undefined, online: a.online ?? undefined, status: a.status ?? undefined, network_id: a.networkId ?? undefined,
        page: a.page ?? undefined, page_size: a.pageSize ?? undefined,
      }));
      return connection(items.map(toDevice), meta);
    }),
    device: query('read', async (caller, a: IdArgs, ctx) => toDevice(await devices.getDevice(ctx.s, caller, a.id))),
  },
  Device: {
    network: async (d: { networkId: string | null }, _a: FieldArgs, ctx: GqlContext) => {
      if (!d.networkId) return null;
      const n = await ctx.loaders.network.load(d.networkId);
      return n ? toNetwork(n) : null;
    },
  },
};
