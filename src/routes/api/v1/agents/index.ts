// /api/v1/agents: thin routes over src/domain/agents.ts and commands.ts.
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BatchResult, envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import {
  ActionListQuery, ActionOut, AgentIn, AgentListQuery, AgentOut, AgentUpdate, BatchCreateIn, CommandBatchIn, CommandBatchOut, CommandIn, CommandOut, ReasonIn,
} from '../../../../schemas/agents.js';
import * as agents from '../../../../domain/agents.js';
import * as commands from '../../../../domain/commands/index.js';
import { AppError } from '../../../../lib/errors.js';

const tags = ['agents'];
const Params = IdParams('agent');
const checkAgentIn = TypeCompiler.Compile(AgentIn);
const checkCommandIn = TypeCompiler.Compile(CommandIn);
const checkReason = TypeCompiler.Compile(ReasonIn);

/** Judges one batch entry with the schema of the single endpoint. */
function entry<T>(
  checker: { Check(x: unknown): x is T; Errors(x: unknown): { First(): { path: string; message: string } | undefined } },
  x: unknown,
  what: string,
): T {
  if (checker.Check(x)) return x;
  const first = checker.Errors(x).First();
  const field = first?.path.replace(/^\//, '').replace(/\//g, '.') || 'entry';
  throw new AppError('INVALID_FIELD', `${field}: ${first?.message ?? `invalid ${what}`}`, { field });
}

/** SPEC 8.2 headers on the per-agent command limits' 429. */
function rateLimitHeaders(reply: FastifyReply, e: unknown): void {
  if (!(e instanceof AppError) || e.code !== 'RATE_LIMITED' || e.details?.layer !== 'agent') return;
  const d = e.details as { limit: number; window_seconds: number; retry_after: number; reset_at: string };
  reply.header('Retry-After', String(d.retry_after));
  reply.header('X-RateLimit-Limit', String(d.limit));
  reply.header('X-RateLimit-Remaining', '0');
  reply.header('X-RateLimit-Reset', String(Math.ceil(new Date(d.reset_at).getTime() / 1000)));
  reply.header('X-RateLimit-Policy', `${d.limit};w=${d.window_seconds}`);
}

export default async function agentRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get(
    '/',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'List agents (filters status, type, network_id; paging; sort)',
        tags,
        querystring: AgentListQuery,
        response: { 200: envelope(Type.Array(AgentOut)), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await agents.listAgents(s, req.caller, req.query as agents.AgentListQuery);
      return reply.ok(items, meta);
    },
  );

  app.post(
    '/',
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Create an agent (auto_start: true starts it at once)',
        tags,
        body: AgentIn,
        response: { 201: envelope(AgentOut), ...errorResponses(400, 401, 403, 409, 413, 422) },
      },
    },
    async (req, reply) => reply.ok(await agents.createAgent(s, req.caller, req.body as agents.AgentInput), undefined, 201),
  );

  app.post(
    '/batch',
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Create up to 50 agents; each entry succeeds or fails alone',
        tags,
        body: BatchCreateIn,
        response: { 200: envelope(BatchResult), ...errorResponses(400, 401, 403, 413, 422) },
      },
    },
    async (req, reply) => {
      const out: agents.BatchResult = { succeeded: [], failed: [] };
      const valid: { index: number; input: agents.AgentInput }[] = [];
      req.body.agents.forEach((e, index) => {
        try {
          valid.push({ index, input: entry<agents.AgentInput>(checkAgentIn, e, 'agent') });
        } catch (err) {
          out.failed.push({ index, error: agents.batchError(err) });
        }
      });
      const r = await agents.batchCreateAgents(
        s,
        req.caller,
        valid.map((v) => v.input),
      );
      for (const ok of r.succeeded) out.succeeded.push({ index: valid[ok.index].index, id: ok.id });
      for (const f of r.failed) out.failed.push({ index: valid[f.index].index, error: f.error });
      out.failed.sort((a, b) => a.index - b.index);
      return reply.ok(out);
    },
  );

  app.get(
    '/:id',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Agent detail',
        tags,
        params: Params,
        querystring: Type.Object({ tz: Type.Optional(Type.String()) }),
        response: { 200: envelope(AgentOut), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (req, reply) => reply.ok(await agents.getAgent(s, req.caller, req.params.id)),
  );

  app.put(
    '/:id',
    {
      config: { permission: 'write' },
      schema: {
        summary: "Update an agent's configuration (fields given replace the stored ones; status changes through pause/resume/start/stop)",
        tags,
        params: Params,
        body: AgentUpdate,
        response: { 200: envelope(AgentOut), ...errorResponses(400, 401, 403, 404, 413, 422) },
      },
    },
    async (req, reply) => reply.ok(await agents.updateAgent(s, req.caller, req.params.id, req.body as agents.AgentUpdate)),
  );

  app.delete(
    '/:id',
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Delete an agent and its action history',
        tags,
        params: Params,
        response: { 200: envelope(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      await agents.deleteAgent(s, req.caller, req.params.id);
      return reply.ok({ id: req.params.id, deleted: true });
    },
  );

  for (const op of ['pause', 'resume', 'start', 'stop'] as const) {
    app.post(`/:id/${op}`, {
      config: { permission: 'command' },
      schema: {
        summary: {
          pause: 'Pause a running agent',
          resume: 'Resume a paused agent (also starts an idle one, recovers one in error)',
          start: 'Start an idle or stopped agent (additive)',
          stop: 'Stop an agent (additive)',
        }[op],
        // The body ({reason}) is optional, so it is checked here rather than by a body schema.
        tags,
        params: Params,
        response: { 200: envelope(AgentOut), ...errorResponses(400, 401, 403, 404, 409) },
      },
    }, async (req, reply) => {
      const body = req.body ?? {};
      if (!checkReason.Check(body)) entry(checkReason, body, 'body');
      return reply.ok(await agents.changeAgentStatus(s, req.caller, req.params.id, op, (body as { reason?: string }).reason));
    });
  }

  app.post('/:id/command', {
    // SPEC 8.1: emergency shutdown commands bypass rate limits: the endpoint layer, once the agent is found
    // in the caller's tenant (src/plugins/app/caller.ts defers the endpoint layer's refusal until the body is
    // parsed; src/security/emergency.ts), and the per-agent limits in the domain.
    config: {
      permission: 'command',
      rateLimitBypass: {
        command: (req) => (req.body as { command?: unknown } | undefined)?.command,
        agentFound: (req) => agents.agentInTenant(s.db, req.caller, (req.params as { id: string }).id),
      },
    },
    schema: {
      summary: 'Send a command to an agent (docs/agents.md lists commands, limits and the confirmation of control commands)',
      tags,
      params: Params,
      body: CommandIn,
      response: { 200: envelope(CommandOut), 202: envelope(CommandOut), ...errorResponses(400, 401, 403, 404, 409, 422, 429, 503, 504) },
    },
  }, async (req, reply) => {
    try {
      const answer = await commands.executeCommand(s, req.caller, req.params.id, req.body as commands.CommandRequest);
      return reply.ok(answer.result, undefined, answer.httpStatus);
    } catch (e) {
      rateLimitHeaders(reply, e);
      throw e;
    }
  });

  app.post('/:id/commands', {
    config: { permission: 'command' },
    schema: {
      summary: 'Send up to 50 commands (additive): run one after another, highest priority first; each succeeds or fails alone',
      tags,
      params: Params,
      body: CommandBatchIn,
      response: { 200: envelope(CommandBatchOut), ...errorResponses(400, 401, 403, 404, 413, 422) },
    },
  }, async (req, reply) => {
    const failed: { index: number; error: ReturnType<typeof agents.batchError> }[] = [];
    const valid: { index: number; input: commands.CommandRequest }[] = [];
    req.body.commands.forEach((e, index) => {
      try {
        valid.push({ index, input: entry<commands.CommandRequest>(checkCommandIn, e, 'command') });
      } catch (err) {
        failed.push({ index, error: agents.batchError(err) });
      }
    });
    const r = await commands.executeCommandBatch(s, req.caller, req.params.id, valid.map((v) => v.input));
    const out = {
      succeeded: r.succeeded.map((x) => ({ ...x, index: valid[x.index].index })),
      failed: [...failed, ...r.failed.map((x) => ({ ...x, index: valid[x.index].index }))].sort((a, b) => a.index - b.index),
    };
    return reply.ok(out);
  });

  app.get(
    '/:id/actions',
    {
      config: { permission: 'read' },
      schema: {
        summary: "The agent's command history (AgentAction), newest first",
        tags,
        params: Params,
        querystring: ActionListQuery,
        response: { 200: envelope(Type.Array(ActionOut)), ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await commands.listActions(s, req.caller, req.params.id, {
        ...req.query,
        sort: req.query.sort ?? '-executed_at',
      });
      return reply.ok(items, meta);
    },
  );
}
