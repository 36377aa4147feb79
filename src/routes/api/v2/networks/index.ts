// /api/v2/networks (preview): the v1 networks resource with the nested shapes of
// SPEC 9 (src/routes/api/v2/schema.ts), default page size 50, and the colon
// action POST /api/v2/networks/{id}:runPowerFlow (default timeout 60000 ms).
// Same domain functions, same ids, same permissions, rate limits and audit as v1.
// find-my-way reads ':' as a parameter; '::' is a literal colon, and the id
// parameter needs a pattern so the literal suffix can follow it in one segment.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import { BusIn, NetworkIn, NetworkListQuery, NetworkUpdate, PowerFlowIn } from '../../../../schemas/networks.js';
import * as networks from '../../../../domain/networks.js';
import { runPowerFlow } from '../../../../domain/powerflow.js';
import { V2_DEFAULT_PAGE_SIZE, V2_META, V2_POWERFLOW_TIMEOUT_MS, networkDetailV2, networkInputV1, networkV2, resultV2 } from '../../../../schemas/v2.js';

const tags = ['v2 networks (preview)'];
const Params = IdParams('net');
const ID = '(^net_[A-Za-z0-9]+$)';
/** A plain id segment (no colon), so an unknown action (net_…:fly) is 404, not a GET of id "net_…:fly". */
const PLAIN = '(^[^:]+$)';

const { v: _v, theta: _theta, ...busFields } = BusIn.properties;
const BusInV2 = Type.Object(
  {
    ...busFields,
    voltage: Type.Optional(
      Type.Object(
        { magnitude: Type.Optional(Type.Number({ exclusiveMinimum: 0 })), angle: Type.Optional(Type.Number()) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
const NetworkInV2 = Type.Object({ ...NetworkIn.properties, buses: Type.Array(BusInV2, { minItems: 1, maxItems: 100000 }) }, { additionalProperties: false });
const NetworkUpdateV2 = Type.Object(
  { ...NetworkUpdate.properties, buses: Type.Array(BusInV2, { minItems: 1, maxItems: 100000 }) },
  { additionalProperties: false },
);

const Count = Type.Object({ count: Type.Integer() }, { additionalProperties: true });
const NetworkOutV2 = Type.Object({
  id: Type.String(), name: Type.String(), description: Type.String(), base_kv: Type.Number(), base_mva: Type.Number(),
  status: Type.String(), tags: Type.Record(Type.String(), Type.String()), version: Type.Integer(),
  topology: Type.Object({ buses: Count, branches: Count, generators: Count, loads: Count }),
  metadata: Type.Object({ created_at: Type.String(), updated_at: Type.String() }),
});
const Open = Type.Object({}, { additionalProperties: true });

export default async function networkRoutesV2(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get(
    '/',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'List networks (v2 shapes, default page size 50)',
        tags,
        querystring: NetworkListQuery,
        response: { 200: envelope(Type.Array(NetworkOutV2)), ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await networks.listNetworks(s, req.caller, {
        ...req.query,
        page_size: req.query.page_size ?? V2_DEFAULT_PAGE_SIZE,
      });
      return reply.ok(items.map(networkV2), { ...meta, ...V2_META });
    },
  );

  app.post(
    '/',
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Create a network (buses with voltage {magnitude, angle})',
        tags,
        body: NetworkInV2,
        response: { 201: envelope(NetworkOutV2), ...errorResponses(400, 401, 403, 404, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const n = await networks.createNetwork(
        s,
        req.caller,
        networkInputV1(req.body as Record<string, unknown>) as Parameters<typeof networks.createNetwork>[2],
      );
      return reply.ok(networkV2(n), V2_META, 201);
    },
  );

  app.get(
    `/:id${PLAIN}`,
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Network detail (topology.*.items, buses with voltage {magnitude, angle})',
        tags,
        params: Params,
        querystring: Type.Object({ tz: Type.Optional(Type.String()) }),
        response: { 200: envelope(Open), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (req, reply) => reply.ok(networkDetailV2(await networks.getNetwork(s, req.caller, req.params.id)), V2_META),
  );

  app.put(
    `/:id${PLAIN}`,
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Replace a network (a new version)',
        tags,
        params: Params,
        body: NetworkUpdateV2,
        response: { 200: envelope(NetworkOutV2), ...errorResponses(400, 401, 403, 404, 409, 413, 422) },
      },
    },
    async (req, reply) =>
      reply.ok(
        networkV2(await networks.updateNetwork(s, req.caller, req.params.id, networkInputV1(req.body as Record<string, unknown>))),
        V2_META,
      ),
  );

  app.delete(
    `/:id${PLAIN}`,
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Delete a network',
        tags,
        params: Params,
        response: { 200: envelope(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      await networks.deleteNetwork(s, req.caller, req.params.id);
      return reply.ok({ id: req.params.id, deleted: true }, V2_META);
    },
  );

  app.post(`/:id${ID}::runPowerFlow`, {
    config: { permission: 'compute', rateLimit: { ipClass: 'compute', endpoint: 'POST /networks/:id/powerflow' } },
    schema: {
      summary: 'Run a power flow (v2: default timeout_ms 60000; buses with voltage {magnitude, angle})', tags, params: Params, body: Type.Optional(PowerFlowIn),
      response: { 200: envelope(Open), 202: envelope(Open), ...errorResponses(400, 401, 403, 404, 409, 422, 429, 504) },
    },
  }, async (req, reply) => {
    const body = req.body ?? {};
    const answer = await runPowerFlow(s, req.caller, req.params.id, { ...body, timeout_ms: body.timeout_ms ?? V2_POWERFLOW_TIMEOUT_MS });
    if (answer.kind === 'queued') {
      const t = answer.task;
      return reply.ok(
        {
          task_id: t.task_id,
          network_id: t.network_id,
          status: t.status,
          poll_url: `/api/v2/tasks/${t.task_id}`,
          created_at: t.created_at,
        },
        V2_META,
        202,
      );
    }
    return reply.ok(resultV2(answer.result), V2_META);
  });
}
