// networkLayout: the same domain function as GET /networks/{id}/layout (src/layout/networkLayout.ts).
import { getNetworkLayout } from '../../layout/networkLayout.js';
import { query } from '../guard.js';

export const layoutResolvers = {
  Query: {
    networkLayout: query('read', async (caller, a: { id: string }, ctx) => {
      const l = await getNetworkLayout(ctx.s, caller, a.id);
      return { networkId: l.network_id, version: l.version, source: l.source.toUpperCase(), busIds: l.bus_ids, positions: l.positions };
    }),
  },
};
