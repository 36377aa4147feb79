// /api/v1/devices: thin routes over src/domain/devices.ts.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BatchResult, envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import { DeviceBatchIn, DeviceIn, DeviceListQuery, DeviceOut, DevicePatch } from '../../../../schemas/devices.js';
import * as devices from '../../../../domain/devices.js';

const tags = ['devices'];
const Params = IdParams('dev');
export default async function deviceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get(
    '/',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'List devices (filters type, online, status, network_id; paging; sort)',
        tags,
        querystring: DeviceListQuery,
        response: { 200: envelope(Type.Array(DeviceOut)), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await devices.listDevices(s, req.caller, req.query);
      return reply.ok(items, meta);
    },
  );

  app.post('/', {
    config: { permission: 'write' },
    schema: { summary: 'Register a device', tags, body: DeviceIn, response: { 201: envelope(DeviceOut), ...errorResponses(400, 401, 403, 413, 422) } },
  }, async (req, reply) => reply.ok(await devices.createDevice(s, req.caller, req.body as devices.DeviceInput), undefined, 201));

  app.post(
    '/batch',
    {
      config: { permission: 'write' },
      schema: {
        summary: `Register up to ${devices.DEVICE_BATCH_MAX} devices; each entry succeeds or fails alone`,
        tags,
        body: DeviceBatchIn,
        response: { 200: envelope(BatchResult), ...errorResponses(400, 401, 403, 413, 422) },
      },
    },
    async (req, reply) => {
      // Each entry is checked by the domain with the rules of POST /devices and fails alone.
      const out = await devices.batchCreateDevices(s, req.caller, req.body.devices);
      return reply.ok(out);
    },
  );

  app.get(
    '/:id',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Device detail',
        tags,
        params: Params,
        querystring: Type.Object({ tz: Type.Optional(Type.String()) }),
        response: { 200: envelope(DeviceOut), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (req, reply) => reply.ok(await devices.getDevice(s, req.caller, req.params.id)),
  );

  app.patch(
    '/:id',
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Change status (docs/devices.md transitions), name, metadata or placement; record a heartbeat',
        tags,
        params: Params,
        body: DevicePatch,
        response: { 200: envelope(DeviceOut), ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (req, reply) => reply.ok(await devices.updateDevice(s, req.caller, req.params.id, req.body as devices.DevicePatch)),
  );

  app.delete(
    '/:id',
    {
      config: { permission: 'write' },
      schema: {
        summary: 'Remove a device from the registry',
        tags,
        params: Params,
        response: { 200: envelope(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errorResponses(401, 403, 404) },
      },
    },
    async (req, reply) => {
      await devices.deleteDevice(s, req.caller, req.params.id);
      return reply.ok({ id: req.params.id, deleted: true });
    },
  );
}
