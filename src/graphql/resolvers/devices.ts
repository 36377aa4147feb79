// Devices (read side; REST PATCH /devices/{id} has no GraphQL mutation in SPEC 4.5).
import * as devices from '../../domain/devices.js';
import type { GqlContext } from '../context.js';
import { query } from '../guard.js';
import { connection, defined, toDevice, toNetwork } from './map.js';

type Args = Record<string, any>;

export const deviceResolvers = {
  Query: {
    devices: query('read', async (caller, a, ctx) => {
      const { items, meta } = await devices.listDevices(ctx.s, caller, defined({
        type: a.type ?? undefined, online: a.online ?? undefined, status: a.status ?? undefined, network_id: a.networkId ?? undefined,
        page: a.page, page_size: a.pageSize,
      }) as devices.DeviceListQuery);
      return connection(items.map(toDevice), meta);
    }),
    device: query('read', async (caller, a, ctx) => toDevice(await devices.getDevice(ctx.s, caller, a.id))),
  },
  Device: {
    network: async (d: { networkId: string | null }, _a: Args, ctx: GqlContext) => {
      if (!d.networkId) return null;
      const n = await ctx.loaders.network.load(d.networkId);
      return n ? toNetwork(n) : null;
    },
  },
};
