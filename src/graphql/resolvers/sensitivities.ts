// sensitivities: the same domain function as POST /networks/{id}/sensitivities (src/domain/sensitivities.ts).
import { runSensitivities } from '../../domain/sensitivities.js';
import { computeQuery } from '../guard.js';
import type { Opt } from '../args.js';

interface SensitivityArgs {
  networkId: string;
  input: { kind: 'PTDF' | 'LODF'; branches?: Opt<number[]>; buses?: Opt<number[]>; outages?: Opt<number[]> };
}

/** Entries of one GraphQL sensitivities answer. */
export const GRAPHQL_MAX_ENTRIES = 250_000;

export const sensitivityResolvers = {
  Query: {
    // the REST door's gate: permission compute, a compute-class token per field (each alias), an audit entry
    sensitivities: computeQuery({
      permission: 'compute', resourceType: 'network', resourceId: (a: SensitivityArgs) => a.networkId, rate: { ipClass: 'compute' },
    }, async (caller, a: SensitivityArgs, ctx) => {
      const i = a.input;
      // GraphQL resolves every number as a field: a matrix past this size is REST's (it streams).
      const r = await runSensitivities(
        ctx.s,
        caller,
        a.networkId,
        {
          kind: i.kind === 'PTDF' ? 'ptdf' : 'lodf',
          ...(i.branches ? { branches: i.branches } : {}),
          ...(i.buses ? { buses: i.buses } : {}),
          ...(i.outages ? { outages: i.outages } : {}),
        },
        { maxEntries: GRAPHQL_MAX_ENTRIES, door: 'through GraphQL (REST POST /networks/{id}/sensitivities answers up to 10,000,000)' },
      );
      return {
        networkId: r.network_id,
        networkVersion: r.network_version,
        kind: r.kind.toUpperCase(),
        rows: r.rows,
        columns: r.columns,
        values: r.values,
        bridges: r.bridges,
      };
    }),
  },
};
