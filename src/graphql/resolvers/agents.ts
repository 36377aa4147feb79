// Agents and their commands.
import * as agents from '../../domain/agents.js';
import * as commands from '../../domain/commands/index.js';
import { AgentIn, AgentUpdate, CommandIn } from '../../routes/api/v1/agents/schema.js';
import type { GqlContext } from '../context.js';
import { mutation, query } from '../guard.js';
import { checkInput } from './networks.js';
import { connection, defined, down, toAgent, toAgentAction, toCommandResult, toNetwork } from './map.js';

type Args = Record<string, any>;

function fromAgentInput(i: Args): Record<string, unknown> {
  return defined({
    name: i.name, type: down(i.type), network_id: i.networkId === undefined ? undefined : i.networkId, config: i.config ?? undefined, tools: i.tools ?? undefined,
    reasoning_model: i.reasoningModel ?? undefined, max_actions_per_minute: i.maxActionsPerMinute ?? undefined, auto_start: i.autoStart ?? undefined,
  });
}

export const agentResolvers = {
  Query: {
    agents: query('read', async (caller, a, ctx) => {
      const { items, meta } = await agents.listAgents(ctx.s, caller, defined({ status: down(a.status), type: down(a.type), network_id: a.networkId ?? undefined, page: a.page, page_size: a.pageSize }) as agents.AgentListQuery);
      return connection(items.map(toAgent), meta);
    }),
    agent: query('read', async (caller, a, ctx) => toAgent(await agents.getAgent(ctx.s, caller, a.id))),
  },
  Mutation: {
    createAgent: mutation({ permission: 'write', resourceType: 'agent', resourceId: (_a, r) => (r as { id?: string } | undefined)?.id }, async (caller, a, ctx) => {
      const input = checkInput<agents.AgentInput>(AgentIn, fromAgentInput(a.input), 'input');
      return toAgent(await agents.createAgent(ctx.s, caller, input));
    }),
    updateAgent: mutation({ permission: 'write', resourceType: 'agent' }, async (caller, a, ctx) => {
      // AgentInput is the whole configuration; auto_start only means something on create.
      const { auto_start: _ignored, ...update } = fromAgentInput(a.input);
      const input = checkInput<agents.AgentUpdate>(AgentUpdate, update, 'input');
      return toAgent(await agents.updateAgent(ctx.s, caller, a.id, input));
    }),
    deleteAgent: mutation({ permission: 'write', resourceType: 'agent' }, async (caller, a, ctx) => {
      await agents.deleteAgent(ctx.s, caller, a.id);
      return true;
    }),
    pauseAgent: mutation({ permission: 'command', resourceType: 'agent' }, async (caller, a, ctx) => toAgent(await agents.pauseAgent(ctx.s, caller, a.id))),
    resumeAgent: mutation({ permission: 'command', resourceType: 'agent' }, async (caller, a, ctx) => toAgent(await agents.resumeAgent(ctx.s, caller, a.id))),
    sendCommand: mutation({ permission: 'command', resourceType: 'agent', resourceId: (a) => a.agentId, rate: { ipClass: 'authenticated', endpoint: 'POST /agents/:id/command' }, rateBypass: (a, caller, ctx) => ({ command: a.command?.command, agentFound: () => agents.agentInTenant(ctx.s.db, caller, a.agentId) }) }, async (caller, a, ctx) => {
      const c = a.command ?? {};
      const params = { ...(c.params ?? {}) } as Record<string, unknown>;
      if (c.confirmationToken) params.confirmation_token = c.confirmationToken;
      const req = checkInput<commands.CommandRequest>(CommandIn, defined({
        command: c.command, params: c.params === undefined && !c.confirmationToken ? undefined : params, priority: down(c.priority),
        timeout_ms: c.timeoutMs ?? undefined, await_result: c.awaitResult ?? undefined,
      }), 'command');
      const answer = await commands.executeCommand(ctx.s, caller, a.agentId, req);
      return toCommandResult(answer.result);
    }),
  },
  Agent: {
    network: async (ag: { networkId: string | null }, _a: Args, ctx: GqlContext) => {
      if (!ag.networkId) return null;
      const n = await ctx.loaders.network.load(ag.networkId);
      return n ? toNetwork(n) : null;
    },
    actions: async (ag: { id: string }, _a: Args, ctx: GqlContext) => (await ctx.loaders.actionsByAgent.load(ag.id)).map(toAgentAction),
  },
};
