// /api/v1/alarms: thin routes over src/domain/alarms.ts.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import { AckIn, AlarmListQuery, AlarmOut } from '../../../../schemas/alarms.js';
import * as alarms from '../../../../domain/alarms.js';

const tags = ['alarms'];
const Params = IdParams('alarm');

export default async function alarmRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get(
    '/',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'List alarms (filters severity, status, network_id, type, from, to; paging; sort, default -raised_at)',
        tags,
        querystring: AlarmListQuery,
        response: { 200: envelope(Type.Array(AlarmOut)), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await alarms.listAlarms(s, req.caller, req.query);
      return reply.ok(items, meta);
    },
  );

  app.get(
    '/:id',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Alarm detail',
        tags,
        params: Params,
        querystring: Type.Object({ tz: Type.Optional(Type.String()) }),
        response: { 200: envelope(AlarmOut), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (req, reply) => reply.ok(await alarms.getAlarm(s, req.caller, req.params.id)),
  );

  app.patch(
    '/:id/ack',
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Acknowledge an active alarm',
        tags,
        params: Params,
        body: AckIn,
        response: { 200: envelope(AlarmOut), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.ok(await alarms.acknowledgeAlarm(s, req.caller, req.params.id, req.body)),
  );
}
