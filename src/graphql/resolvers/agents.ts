// Agents and their commands.
import * as agents from '../../domain/agents.js';
import * as commands from '../../domain/commands/index.js';
import { AgentIn, AgentUpdate, CommandIn } from '../../schemas/agents.js';
import type { GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import type { FieldArgs, GqlEnum, IdArgs, Opt, PageArgs } from '../args.js';
import type { AgentStatus, AgentType, CommandPriority } from '../../schemas/vocabulary.js';
import { checkInput } from './networks.js';
import { connection, defined, down, toAgent, toAgentAction, toCommandResult, toNetwork } from './map.js';

interface AgentInputArgs {
  name?: string;
  type?: GqlEnum<AgentType>;
  networkId?: Opt<string>;
  config?: Opt<Record<string, unknown>>;
  tools?: Opt<string[]>;
  reasoningModel?: Opt<string>;
  maxActionsPerMinute?: Opt<number>;
  autoStart?: Opt<boolean>;
}

interface CommandInputArgs {
  command?: string;
  params?: Opt<Record<string, unknown>>;
  priority?: Opt<GqlEnum<CommandPriority>>;
  timeoutMs?: Opt<number>;
  awaitResult?: Opt<boolean>;
  confirmationToken?: Opt<string>;
}

interface SendCommandArgs {
  agentId: string;
  command?: Opt<CommandInputArgs>;
}

interface AgentsArgs extends PageArgs {
  status?: Opt<GqlEnum<AgentStatus>>;
  type?: Opt<GqlEnum<AgentType>>;
  networkId?: Opt<string>;
}

function fromAgentInput(i: AgentInputArgs): Record<string, unknown> {
  return defined({
    name: i.name,
    type: down<AgentType>(i.type),
    network_id: i.networkId === undefined ? undefined : i.networkId,
    config: i.config ?? undefined,
    tools: i.tools ?? undefined,
    reasoning_model: i.reasoningModel ?? undefined,
    max_actions_per_minute: i.maxActionsPerMinute ?? undefined,
    auto_start: i.autoStart ?? undefined,
  });
}

export const agentResolvers = {
  Query: {
    agents: query('read', async (caller, a: AgentsArgs, ctx) => {
      const q: agents.AgentListQuery = {
        status: down<AgentStatus>(a.status),
        type: down<AgentType>(a.type),
        network_id: a.networkId ?? undefined,
        page: a.page ?? undefined,
        page_size: a.pageSize ?? undefined,
      };
      const { items, meta } = await agents.listAgents(ctx.s, caller, defined(q));
      return connection(items.map(toAgent), meta);
    }),
    agent: query('read', async (caller, a: IdArgs, ctx) => toAgent(await agents.getAgent(ctx.s, caller, a.id))),
  },
  Mutation: {
    createAgent: mutation(
      { permission: 'write', resourceType: 'agent', resourceId: (_a: { input: AgentInputArgs }, r?: { id?: string }) => r?.id },
      async (caller, a: { input: AgentInputArgs }, ctx) => {
        const input = checkInput(AgentIn, fromAgentInput(a.input), 'input');
        return toAgent(await agents.createAgent(ctx.s, caller, input));
      },
    ),
    updateAgent: mutation({ permission: 'write', resourceType: 'agent' }, async (caller, a: IdArgs & { input: AgentInputArgs }, ctx) => {
      // AgentInput is the whole configuration; auto_start only means something on create.
      const { auto_start: _ignored, ...update } = fromAgentInput(a.input);
      const input = checkInput(AgentUpdate, update, 'input');
      return toAgent(await agents.updateAgent(ctx.s, caller, a.id, input));
    }),
    deleteAgent: mutation({ permission: 'write', resourceType: 'agent' }, async (caller, a: IdArgs, ctx) => {
      await agents.deleteAgent(ctx.s, caller, a.id);
      return true;
    }),
    pauseAgent: mutation({ permission: 'command', resourceType: 'agent' }, async (caller, a: IdArgs, ctx) =>
      toAgent(await agents.pauseAgent(ctx.s, caller, a.id)),
    ),
    resumeAgent: mutation({ permission: 'command', resourceType: 'agent' }, async (caller, a: IdArgs, ctx) =>
      toAgent(await agents.resumeAgent(ctx.s, caller, a.id)),
    ),
    sendCommand: mutation(
      {
        permission: 'command',
        resourceType: 'agent',
        resourceId: (a: SendCommandArgs) => a.agentId,
        rate: { ipClass: 'authenticated', endpoint: 'POST /agents/:id/command' },
        rateBypass: (a: SendCommandArgs, caller, ctx) => ({
          command: a.command?.command,
          agentFound: () => agents.agentInTenant(ctx.s.db, caller, a.agentId),
        }),
      },
      async (caller, a: SendCommandArgs, ctx) => {
        const c: CommandInputArgs = a.command ?? {};
        const params: Record<string, unknown> = { ...(c.params ?? {}) };
        if (c.confirmationToken) params.confirmation_token = c.confirmationToken;
        const req = checkInput(
          CommandIn,
          defined({
            command: c.command,
            params: c.params === undefined && !c.confirmationToken ? undefined : params,
            priority: down<CommandPriority>(c.priority),
            timeout_ms: c.timeoutMs ?? undefined,
            await_result: c.awaitResult ?? undefined,
          }),
          'command',
        );
        const answer = await commands.executeCommand(ctx.s, caller, a.agentId, req);
        return toCommandResult(answer.result);
      },
    ),
  },
  Agent: {
    network: async (ag: { networkId: string | null }, _a: FieldArgs, ctx: GqlContext) => {
      if (!ag.networkId) return null;
      const n = await ctx.loaders.network.load(ag.networkId);
      return n ? toNetwork(n) : null;
    },
    actions: async (ag: { id: string }, _a: FieldArgs, ctx: GqlContext) => (await ctx.loaders.actionsByAgent.load(ag.id)).map(toAgentAction),
  },
};
