// Networks: queries, mutations and the nested fields of Network/Bus/Branch.
// Inputs are checked with the same TypeBox schemas as REST before the domain
// functions (which add the topology checks) run.
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import type { Static, TSchema } from '@sinclair/typebox';
import * as networks from '../../domain/networks.js';
import { AppError, notFound } from '../../lib/errors.js';
import { NetworkIn, NetworkUpdate } from '../../schemas/networks.js';
import type { GqlContext } from '../context.js';
import { modelIndex } from '../loaders.js';
import { mutation, query } from '../guard.js';
import type { FieldArgs, GqlEnum, IdArgs, Opt, PageArgs } from '../args.js';
import type { AlarmStatus, NetworkStatus, PowerFlowMethod, Severity } from '../../schemas/vocabulary.js';
import { decimalSum } from '../scalars.js';
import {
  connection, down, fromNetworkInput, severityLevel, toAgent, toAlarm, toBranch, toBranchFlow, toBus, toDevice, toDcLine, toGenerator, toLoad,
  toNetwork, toPowerFlowResult, type GqlNetwork,
} from './map.js';

interface NetworksArgs extends PageArgs {
  sort?: Opt<string>;
  filter?: Opt<{
    status?: Opt<GqlEnum<NetworkStatus>>;
    nameContains?: Opt<string>;
    tags?: Opt<{ key: string; value?: string | null }[]>;
    createdAfter?: Opt<Date>;
    createdBefore?: Opt<Date>;
  }>;
}

/** GraphQL NetworkInput (camelCase), converted by fromNetworkInput and checked with REST's schema. */
type NetworkInputArgs = Record<string, unknown>;

const compiled = new Map<TSchema, TypeCheck<TSchema>>();
/** REST's schema check on the converted input: the same limits (name 64, description 256, >= 1 bus...). */
export function checkInput<S extends TSchema>(schema: S, value: unknown, what: string): Static<S> {
  let c = compiled.get(schema) as TypeCheck<S> | undefined;
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  if (c.Check(value)) return value;
  const e = c.Errors(value).First();
  const field = e?.path.replace(/^\//, '').replace(/\//g, '.') || what;
  throw new AppError('INVALID_FIELD', `${what}.${field}: ${e?.message ?? 'invalid value'}`, { field });
}

export function networkRef(n: GqlNetwork) {
  return { id: n.__summary.id, version: n.__summary.version };
}

async function model(n: GqlNetwork, ctx: GqlContext) {
  const m = await ctx.loaders.model.load(networkRef(n));
  if (!m) throw new AppError('NOT_FOUND', `network ${n.__summary.id} version ${n.__summary.version} no longer exists`);
  return m;
}

export const networkResolvers = {
  Query: {
    networks: query('read', async (caller, a: NetworksArgs, ctx) => {
      const f = a.filter ?? {};
      const { items, meta } = await networks.listNetworks(ctx.s, caller, {
        page: a.page ?? undefined, page_size: a.pageSize ?? undefined, sort: a.sort ?? undefined,
        status: down<NetworkStatus>(f.status), name: f.nameContains ?? undefined,
        tags: f.tags ?? undefined, created_after: f.createdAfter ?? undefined, created_before: f.createdBefore ?? undefined,
      });
      for (const n of items) ctx.loaders.network.prime(n.id, n);
      return connection(items.map(toNetwork), meta);
    }),
    network: query('read', async (caller, a: IdArgs, ctx) => {
      const n = await ctx.loaders.network.load(a.id);
      if (!n) throw notFound('network', a.id);
      return toNetwork(n);
    }),
  },

  Mutation: {
    createNetwork: mutation(
      {
        permission: 'write',
        resourceType: 'network',
        resourceId: (_a: { input: NetworkInputArgs }, r?: GqlNetwork) => r?.id as string | undefined,
      },
      async (caller, a: { input: NetworkInputArgs }, ctx) => {
        const input = checkInput(NetworkIn, fromNetworkInput(a.input), 'input');
        return toNetwork(await networks.createNetwork(ctx.s, caller, input));
      },
    ),
    updateNetwork: mutation({ permission: 'write', resourceType: 'network' }, async (caller, a: IdArgs & { input: NetworkInputArgs }, ctx) => {
      const input = checkInput(NetworkUpdate, fromNetworkInput(a.input), 'input');
      return toNetwork(await networks.updateNetwork(ctx.s, caller, a.id, input));
    }),
    deleteNetwork: mutation(
      { permission: 'write', resourceType: 'network', rate: { ipClass: 'authenticated', endpoint: 'DELETE /networks/:id' } },
      async (caller, a: IdArgs, ctx) => {
        await networks.deleteNetwork(ctx.s, caller, a.id);
        return true;
      },
    ),
    validateNetwork: mutation(
      { permission: 'read', resourceType: 'network', rate: { ipClass: 'authenticated', endpoint: 'POST /networks/:id/validate' } },
      async (caller, a: IdArgs, ctx) => {
        const r = await networks.validateNetwork(ctx.s, caller, a.id);
        return { valid: r.valid, errors: r.errors, islands: r.islands.map((i) => ({ buses: i.buses, slackBus: i.slack_bus })) };
      },
    ),
  },

  Network: {
    buses: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) => {
      const m = await model(n, ctx);
      return m.buses.map((b) => toBus(b, m));
    },
    branches: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) => {
      const m = await model(n, ctx);
      const ref = networkRef(n);
      return m.branches.map((b, i) => toBranch(b, i, ref));
    },
    generators: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) => (await model(n, ctx)).generators.map(toGenerator),
    loads: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) => (await model(n, ctx)).loads.map(toLoad),
    dcLines: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) => ((await model(n, ctx)).dc_lines ?? []).map(toDcLine),
    totalLoadMw: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) =>
      decimalSum((await model(n, ctx)).loads.filter((l) => l.in_service).map((l) => l.mw)),
    totalGenerationMw: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) =>
      decimalSum((await model(n, ctx)).generators.filter((g) => g.in_service).map((g) => g.mw)),
    powerFlow: async (n: GqlNetwork, a: { method?: Opt<GqlEnum<PowerFlowMethod>> }, ctx: GqlContext) => {
      const t = await ctx.loaders.latestTask.load({ networkId: n.__summary.id, method: down<PowerFlowMethod>(a.method) });
      return t ? toPowerFlowResult(t) : null;
    },
    agents: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) => (await ctx.loaders.agentsByNetwork.load(n.__summary.id)).map(toAgent),
    alarms: async (n: GqlNetwork, a: { severity?: Opt<GqlEnum<Severity>>; status?: Opt<GqlEnum<AlarmStatus>> }, ctx: GqlContext) =>
      (
        await ctx.loaders.alarmsByNetwork.load({
          networkId: n.__summary.id,
          severity: a.severity ? severityLevel(a.severity) : undefined,
          status: down<AlarmStatus>(a.status),
        })
      ).map(toAlarm),
    devices: async (n: GqlNetwork, _a: FieldArgs, ctx: GqlContext) =>
      (await ctx.loaders.devicesByNetwork.load(n.__summary.id)).map(toDevice),
  },

  Bus: {
    generators: (b: ReturnType<typeof toBus>) => (modelIndex(b.__model).generatorsByBus.get(b.id) ?? []).map(toGenerator),
    loads: (b: ReturnType<typeof toBus>) => (modelIndex(b.__model).loadsByBus.get(b.id) ?? []).map(toLoad),
  },

  Branch: {
    flow: async (b: ReturnType<typeof toBranch>, _a: FieldArgs, ctx: GqlContext) => {
      const flows = await ctx.loaders.branchFlows.load(b.__ref);
      return toBranchFlow(flows?.[b.index]);
    },
  },
};
