// /api/v1/devices: thin routes over src/domain/devices.ts.
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BatchResult, envelope, errorResponses, IdParams } from '../common/schema.js';
import { DeviceBatchIn, DeviceIn, DeviceListQuery, DeviceOut, DevicePatch } from './schema.js';
import * as devices from '../../../../domain/devices.js';
import { AppError } from '../../../../lib/errors.js';

const tags = ['devices'];
const Params = IdParams('dev');
const checkDeviceIn = TypeCompiler.Compile(DeviceIn);

/** Judges one batch entry with the same schema as POST /devices. */
function entryError(x: unknown): AppError | undefined {
  if (checkDeviceIn.Check(x)) return undefined;
  const first = checkDeviceIn.Errors(x).First();
  const field = first?.path.replace(/^\//, '').replace(/\//g, '.') || 'entry';
  const missing = first && first.value === undefined;
  return new AppError(missing ? 'INVALID_REQUEST' : 'INVALID_FIELD', `${field}: ${missing ? 'is required' : first?.message ?? 'invalid device'}`, { field });
}

export default async function deviceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get('/', {
    config: { permission: 'read' },
    schema: { summary: 'List devices (filters type, online, status, network_id; paging; sort)', tags, querystring: DeviceListQuery, response: { 200: envelope(Type.Array(DeviceOut)), ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => {
    const { items, meta } = await devices.listDevices(s, req.caller, req.query);
    return reply.ok(items, meta);
  });

  app.post('/', {
    config: { permission: 'write' },
    schema: { summary: 'Register a device', tags, body: DeviceIn, response: { 201: envelope(DeviceOut), ...errorResponses(400, 401, 403, 413, 422) } },
  }, async (req, reply) => reply.ok(await devices.createDevice(s, req.caller, req.body as devices.DeviceInput), undefined, 201));

  app.post('/batch', {
    config: { permission: 'write' },
    schema: { summary: `Register up to ${devices.DEVICE_BATCH_MAX} devices; each entry succeeds or fails alone`, tags, body: DeviceBatchIn, response: { 200: envelope(BatchResult), ...errorResponses(400, 401, 403, 413, 422) } },
  }, async (req, reply) => {
    const entries = req.body.devices;
    const out: devices.BatchResult = { succeeded: [], failed: [] };
    const valid: { index: number; input: unknown }[] = [];
    entries.forEach((e, index) => {
      const err = entryError(e);
      if (err) out.failed.push({ index, error: { code: err.code, message: err.message, details: err.details } });
      else valid.push({ index, input: e });
    });
    if (valid.length > 0) {
      const r = await devices.batchCreateDevices(s, req.caller, valid.map((v) => v.input));
      for (const ok of r.succeeded) out.succeeded.push({ index: valid[ok.index].index, id: ok.id });
      for (const f of r.failed) out.failed.push({ index: valid[f.index].index, error: f.error });
    }
    out.failed.sort((a, b) => a.index - b.index);
    return reply.ok(out);
  });

  app.get('/:id', {
    config: { permission: 'read' },
    schema: { summary: 'Device detail', tags, params: Params, querystring: Type.Object({ tz: Type.Optional(Type.String()) }), response: { 200: envelope(DeviceOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => reply.ok(await devices.getDevice(s, req.caller, req.params.id)));

  app.patch('/:id', {
    config: { permission: 'write' },
    schema: { summary: 'Change status (docs/devices.md transitions), name, metadata or placement; record a heartbeat', tags, params: Params, body: DevicePatch, response: { 200: envelope(DeviceOut), ...errorResponses(400, 401, 403, 404, 409, 422) } },
  }, async (req, reply) => reply.ok(await devices.updateDevice(s, req.caller, req.params.id, req.body as devices.DevicePatch)));

  app.delete('/:id', {
    config: { permission: 'write' },
    schema: { summary: 'Remove a device from the registry', tags, params: Params, response: { 200: envelope(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errorResponses(401, 403, 404) } },
  }, async (req, reply) => {
    await devices.deleteDevice(s, req.caller, req.params.id);
    return reply.ok({ id: req.params.id, deleted: true });
  });
}
