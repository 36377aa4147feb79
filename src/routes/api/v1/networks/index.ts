// /api/v1/networks: thin routes over src/domain/networks.ts and powerflow.ts.
import { type Static, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { BatchResult, envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import {
  BatchCreateIn, BatchDeleteIn, ImportWarningOut, NetworkDetailOut, NetworkIn, NetworkLayoutOut, NetworkListQuery, NetworkOut, NetworkUpdate,
  PowerFlowIn, ValidationOut,
} from '../../../../schemas/networks.js';
import * as networks from '../../../../domain/networks.js';
import { runPowerFlow } from '../../../../domain/powerflow.js';
import { sendPowerFlowResult } from '../../../../powerflow/answer.js';
import { runOpf } from '../../../../domain/opf.js';
import { OpfIn } from '../../../../schemas/opf.js';
import { PowerFlowResultOut, TaskSubmittedOut } from '../../../../schemas/powerflowResult.js';
import { OpfResultOut } from '../../../../schemas/opfResult.js';
import { StateEstimationIn, StateEstimationResultOut } from '../../../../schemas/stateEstimation.js';
import { runStateEstimation } from '../../../../domain/stateEstimation.js';
import { SensitivityIn, SensitivityOut, SensitivityQuery } from '../../../../schemas/sensitivities.js';
import {
  matrixHead, matrixRows, runSensitivityMatrix, sensitivityAnswer, sensitivityStream, submitSensitivities,
} from '../../../../domain/sensitivities.js';

/** The 202 answer of a calculation asked with "async": true (TaskSubmittedOut): the task and where to poll it. */
const submitted = (t: { task_id: string; network_id: string; status: string; poll_url: string; created_at: unknown }) =>
  ({ task_id: t.task_id, network_id: t.network_id, status: t.status, poll_url: t.poll_url, created_at: t.created_at });

/** Above this many entries a sensitivity matrix is streamed as JSON. */
const STREAM_JSON_ENTRIES = 100_000;
import { Readable } from 'node:stream';
import { submitStudy } from '../../../../domain/studies.js';
import { StudyIn, StudySubmitted, studyValidator } from '../../../../schemas/studies.js';
import type { NetworkInput } from '../../../../domain/networkModel.js';
import { AppError } from '../../../../lib/errors.js';
import { MatpowerParseError } from '../../../../matpower/reader.js';
import { importMatpowerOffLoop } from '../../../../matpower/offLoop.js';
import { writeMatpower } from '../../../../matpower/writer.js';
import { detectPsseFormat, type PsseFormat } from '../../../../psse/reader.js';
import { importPsseOffLoop } from '../../../../psse/offLoop.js';
import { writePsse } from '../../../../psse/writer.js';
import { PsseParseError } from '../../../../psse/scanner.js';
import { getNetworkLayout } from '../../../../layout/networkLayout.js';

const tags = ['networks'];
// Results are described by their schemas (OpenAPI) but written as they are: a schema-compiled
// serializer would drop a field the schema does not name yet and refuses NaN instead of null.
const plainJson = () => (data: unknown) => JSON.stringify(data);
const IMPORT_MEDIA_TYPES = 'the .m file as text/plain or application/octet-stream (curl --data-binary @case9.m -H "Content-Type: text/plain"), '
  + 'or a multipart/form-data file upload (curl -F file=@case9.m)';
// The import body as documented (the route parses it itself: text, or a multipart upload).
const IMPORT_BODY = {
  description: 'A MATPOWER case file (.m, format version 2), a PSS/E RAW file (.raw) or a RAWX file (.rawx)',
  required: true,
  content: {
    'text/plain': { schema: { type: 'string', description: 'the .m text' } },
    'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
    'multipart/form-data': {
      schema: { type: 'object', properties: { file: { type: 'string', format: 'binary', description: 'the .m file' } }, required: ['file'] },
    },
  },
};
// curl -d @file strips every newline, which turns the first % comment into the rest of the file.
const FORM_ADVICE = 'The body has no line breaks: curl -d @file removes them; send the file with --data-binary @case9.m (or -F file=@case9.m)';

/** The one file of a multipart/form-data upload, as text (the field name does not matter). */
async function uploadedText(req: FastifyRequest, limit: number, name?: (n: string) => void): Promise<string> {
  try {
    const part = await req.file();
    if (!part) throw new AppError('INVALID_REQUEST', 'the multipart/form-data body has no file part: upload the case with curl -F file=@case9.m');
    const buf = await part.toBuffer();
    name?.(part.filename ?? '');
    if (part.file.truncated) throw new AppError('PAYLOAD_TOO_LARGE',
      `the uploaded file is larger than the import limit of ${limit} bytes (IMPORT_BODY_LIMIT)`, { limit_bytes: limit });
    return buf.toString('utf8');
  } catch (e) {
    // The multipart parser's own refusals (limits, content type) carry their 4xx; anything else it
    // throws is a body it could not read (truncated, no closing boundary): the client's to fix (#21).
    const status = (e as { statusCode?: number }).statusCode;
    if (e instanceof AppError || (status !== undefined && status < 500)) throw e;
    throw new AppError('INVALID_REQUEST',
      `the multipart/form-data body could not be read (${(e as Error).message}): send the whole file with its closing boundary, `
        + 'e.g. curl -F file=@case9.m, or the .m text as text/plain with --data-binary @case9.m', { reason: 'malformed_multipart' });
  }
}
/** The import's format when ?format= is left out: RAWX is JSON; a MATPOWER case has `mpc.` or
 *  `function`; a PSS/E RAW file opens with numbers (IC, SBASE, ...) or `@!` comments. */
function importFormat(text: string, fileName: string): 'matpower' | PsseFormat {
  const ext = fileName.toLowerCase();
  if (ext.endsWith('.rawx')) return 'rawx';
  if (ext.endsWith('.raw')) return 'psse';
  if (ext.endsWith('.m')) return 'matpower';
  if (detectPsseFormat(text) === 'rawx') return 'rawx';
  const head = text.slice(0, 4096);
  if (head.includes('mpc.') || /^\s*function\b/m.test(head) || /^\s*%/.test(head)) return 'matpower';
  return /^\s*(@!|[0-9,])/.test(head) ? 'psse' : 'matpower';
}

async function importPsse(text: string, format: PsseFormat, fileName: string, name?: string) {
  try {
    return await importPsseOffLoop(text, { format, fileName: fileName || undefined }, name);
  } catch (e) {
    if (!(e instanceof PsseParseError)) throw e;
    throw new AppError('INVALID_FORMAT', `the ${format === 'rawx' ? 'RAWX' : 'PSS/E RAW'} file is not well formed: ${e.message}`, {
      line: e.line, record: e.record, expected: e.expected, ...(e.found !== undefined ? { found: e.found } : {}),
    });
  }
}

/** An import's answer: the network, and for PSS/E what it could not hold (src/psse/warnings.ts). */
const ImportedOut = Type.Object({
  ...NetworkOut.properties,
  format: Type.Optional(Type.String({ description: 'psse or rawx (absent for matpower)' })),
  revision: Type.Optional(Type.Integer({ description: 'the PSS/E revision read' })),
  warnings: Type.Optional(Type.Array(ImportWarningOut,
    { description: 'records the model cannot hold, and where the reader follows PSS/E rather than psse2mpc' })),
});

const Params = IdParams('net');
const checkNetworkIn = TypeCompiler.Compile(NetworkIn);

/** Judges one batch entry with the same schema as POST /networks. */
function entryInput(x: unknown): Static<typeof NetworkIn> {
  if (checkNetworkIn.Check(x)) return x;
  const first = checkNetworkIn.Errors(x).First();
  const field = first?.path.replace(/^\//, '').replace(/\//g, '.') || 'entry';
  throw new AppError('INVALID_FIELD', `${field}: ${first?.message ?? 'invalid network'}`, { field });
}

export default async function networkRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get('/', {
    config: { permission: 'read' },
    schema: { summary: 'List networks', tags, querystring: NetworkListQuery, response: { 200: envelope(Type.Array(NetworkOut)),
      ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => {
    const { items, meta } = await networks.listNetworks(s, req.caller, req.query);
    return reply.ok(items, meta);
  });

  app.post('/', {
    config: { permission: 'write' },
    schema: { summary: 'Create a network', tags, body: NetworkIn, response: { 201: envelope(NetworkOut), ...errorResponses(400, 401, 403, 409, 413, 422) } },
  }, async (req, reply) => reply.ok(await networks.createNetwork(s, req.caller, req.body), undefined, 201));

  app.post('/batch', {
    config: { permission: 'write' },
    schema: { summary: 'Create up to 20 networks; each entry succeeds or fails alone', tags, body: BatchCreateIn,
      response: { 200: envelope(BatchResult), ...errorResponses(400, 401, 403, 413, 422) } },
  }, async (req, reply) => {
    const entries = req.body.networks;
    const out: networks.BatchResult = { succeeded: [], failed: [] };
    // Schema problems of one entry fail that entry only.
    const valid: { index: number; input: NetworkInput }[] = [];
    entries.forEach((e, index) => {
      try {
        valid.push({ index, input: entryInput(e) });
      } catch (err) {
        const ae = err as AppError;
        out.failed.push({ index, error: { code: ae.code, message: ae.message, details: ae.details } });
      }
    });
    const r = await networks.batchCreateNetworks(s, req.caller, valid.map((v) => v.input));
    for (const ok of r.succeeded) out.succeeded.push({ index: valid[ok.index].index, id: ok.id });
    for (const f of r.failed) out.failed.push({ index: valid[f.index].index, error: f.error });
    out.failed.sort((a, b) => a.index - b.index);
    return reply.ok(out);
  });

  app.delete('/batch', {
    config: { permission: 'write' },
    schema: { summary: 'Delete up to 50 networks; each id succeeds or fails alone', tags, body: BatchDeleteIn,
      response: { 200: envelope(BatchResult), ...errorResponses(400, 401, 403, 422) } },
  }, async (req, reply) => reply.ok(await networks.batchDeleteNetworks(s, req.caller, req.body.ids)));

  // MATPOWER import takes the .m text; real cases exceed 1 MB, so this route alone
  // has a larger body limit (IMPORT_BODY_LIMIT, docs/api-conventions.md).
  app.register(async (child) => {
    const limit = s.config.importBodyLimit;
    // text/plain and octet-stream as is; curl's default (-d / --data-binary without -H) is
    // x-www-form-urlencoded: taken as the file text too (see FORM_ADVICE for -d's damage).
    child.addContentTypeParser(['text/plain', 'application/octet-stream', 'text/x-matlab', 'application/x-www-form-urlencoded'],
      { parseAs: 'string', bodyLimit: limit }, (_req, body, done) => done(null, body));
    await child.register(multipart, { limits: { fileSize: limit, files: 1, fields: 10, parts: 12 } });
    child.withTypeProvider<TypeBoxTypeProvider>().post('/import', {
      bodyLimit: limit,
      config: { permission: 'write', mediaTypes: IMPORT_MEDIA_TYPES, openapiBody: IMPORT_BODY },
      schema: {
        summary: 'Create a network from a MATPOWER case (.m), a PSS/E RAW (revisions 29-35) or RAWX file '
          + '(text/plain, application/octet-stream or a multipart/form-data file)', tags,
        querystring: Type.Object({
          format: Type.Optional(Type.Union([Type.Literal('matpower'), Type.Literal('psse'), Type.Literal('rawx')], {
            description: 'matpower (.m), psse (PSS/E RAW, revisions 29-35) or rawx (PSS/E RAWX); '
              + 'left out, the content (or the uploaded file\'s extension) says which',
          })),
          name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'the network name (default: the case\'s function name)' })),
        }, { additionalProperties: false }),
        consumes: ['text/plain', 'application/octet-stream', 'multipart/form-data'],
        response: { 201: envelope(ImportedOut), ...errorResponses(400, 401, 403, 409, 413, 415, 422) },
      },
    }, async (req, reply) => {
      let fileName = '';
      let text = req.isMultipart() ? await uploadedText(req, limit, (n) => { fileName = n; }) : req.body;
      // RAWX is JSON: sent as application/json (parsed by Fastify, 1 MB limit) it is taken as the file
      if (text !== null && typeof text === 'object' && 'network' in text && (req.query.format ?? 'rawx') === 'rawx') text = JSON.stringify(text);
      if (typeof text !== 'string') throw new AppError('UNSUPPORTED_MEDIA_TYPE',
        `send the case file itself, not JSON: this endpoint takes ${IMPORT_MEDIA_TYPES}`);
      const format = req.query.format ?? importFormat(text, fileName);
      if (format !== 'matpower') {
        // read, named and checked on the reader thread when large (src/domain/networkCheck.ts)
        const imported = await importPsse(text, format, fileName, req.query.name);
        const created = await networks.storeNetwork(s, req.caller, imported.stored);
        return reply.ok({ ...created, format, revision: imported.revision, warnings: imported.warnings }, undefined, 201);
      }
      let model;
      try {
        model = await importMatpowerOffLoop(text, 'body', req.query.name);
      } catch (e) {
        if (!(e instanceof MatpowerParseError)) throw e;
        const form = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
        throw new AppError('VALIDATION_FAILED', form && !text.includes('\n') ? `${e.message}. ${FORM_ADVICE}` : e.message, { line: e.line,
          expected: e.expected });
      }
      return reply.ok(await networks.storeNetwork(s, req.caller, model), undefined, 201);
    });
  });

  app.get('/:id', {
    config: { permission: 'read' },
    schema: { summary: 'Network detail with buses, branches, generators and loads', tags, params: Params,
      querystring: Type.Object({ tz: Type.Optional(Type.String()) }), response: { 200: envelope(NetworkDetailOut), ...errorResponses(400, 401, 403, 404) } },
  }, async (req, reply) => reply.ok(await networks.getNetwork(s, req.caller, req.params.id)));

  app.get('/:id/layout', {
    config: { permission: 'read' },
    schema: {
      summary: "Where to draw each bus of the network's current version: its coordinates, or a structure layout computed once per version and stored with it",
      tags, params: Params, response: { 200: envelope(NetworkLayoutOut), ...errorResponses(401, 403, 404, 503) },
    },
  }, async (req, reply) => reply.ok(await getNetworkLayout(s, req.caller, req.params.id)));

  app.get('/:id/export', {
    config: { permission: 'read' },
    schema: {
      summary: 'Export a network as a MATPOWER case file or a PSS/E RAW file (revision 33)', tags, params: Params,
      querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('matpower'), Type.Literal('psse')],
        { description: 'matpower (the default, .m) or psse (RAW revision 33)' })) }, { additionalProperties: false }),
      response: { 200: Type.String({ description: 'text/plain: the MATPOWER .m file or the RAW file' }), ...errorResponses(400, 401, 403, 404) },
    },
  }, async (req, reply) => {
    const { model } = await networks.getModel(s, req.caller, req.params.id);
    const psse = req.query.format === 'psse';
    return reply.type('text/plain; charset=utf-8').header('Content-Disposition', `attachment; filename="${req.params.id}.${psse ? 'raw' : 'm'}"`)
      .send(psse ? writePsse(model) : writeMatpower(model));
  });

  app.put('/:id', {
    config: { permission: 'write' },
    schema: { summary: 'Replace a network (a new version)', tags, params: Params, body: NetworkUpdate,
      response: { 200: envelope(NetworkOut), ...errorResponses(400, 401, 403, 404, 409, 413, 422) } },
  }, async (req, reply) => reply.ok(await networks.updateNetwork(s, req.caller, req.params.id, req.body)));

  app.delete('/:id', {
    config: { permission: 'write' },
    schema: { summary: 'Delete a network', tags, params: Params, response: { 200: envelope(Type.Object({ id: Type.String(),
      deleted: Type.Boolean() })), ...errorResponses(401, 403, 404, 409) } },
  }, async (req, reply) => {
    await networks.deleteNetwork(s, req.caller, req.params.id);
    return reply.ok({ id: req.params.id, deleted: true });
  });

  app.post('/:id/validate', {
    config: { permission: 'read' },
    schema: { summary: 'Validate a stored network', tags, params: Params, response: { 200: envelope(ValidationOut), ...errorResponses(401, 403, 404) } },
  }, async (req, reply) => reply.ok(await networks.validateNetwork(s, req.caller, req.params.id)));

  app.post('/:id/powerflow', {
    config: { permission: 'compute' },
    schema: {
      summary: 'Run a power flow (synchronous result, or a queued task with "async": true)', tags, params: Params, body: Type.Optional(PowerFlowIn),
      response: { 200: envelope(PowerFlowResultOut), 202: envelope(TaskSubmittedOut), ...errorResponses(400, 401, 403, 404, 409, 422, 504) },
    },
    serializerCompiler: plainJson,
  }, async (req, reply) => {
    const answer = await runPowerFlow(s, req.caller, req.params.id, req.body ?? {});
    if (answer.kind === 'queued') {
      return reply.ok(submitted(answer.task), undefined, 202);
    }
    return sendPowerFlowResult(reply, answer.result);
  });

  app.post('/:id/opf', {
    config: { permission: 'compute' },
    schema: {
      summary:
        'Run an optimal power flow (synchronous result, or a queued task with "async": true); method ac (default, MATPOWER runopf) ' +
          'or dc (rundcopf); islanding as power flow',
      tags,
      params: Params,
      body: Type.Optional(OpfIn),
      response: { 200: envelope(OpfResultOut), 202: envelope(TaskSubmittedOut), ...errorResponses(400, 401, 403, 404, 409, 422, 504) },
    },
    serializerCompiler: plainJson,
  }, async (req, reply) => {
    // An OPF with apply writes the network: its audit entry says so (refused or not), and once applied
    // names the task and both versions.
    if (req.body?.apply) req.auditHints = { resource: { type: 'network', id: req.params.id }, details: { apply: true } };
    const answer = await runOpf(s, req.caller, req.params.id, req.body ?? {});
    if (answer.kind === 'result' && answer.applied) {
      const a = answer.applied;
      req.auditHints = {
        resource: { type: 'network', id: req.params.id },
        details: { apply: true, task_id: a.task_id, network_version_before: a.from_version, network_version_after: a.to_version },
      };
    }
    if (answer.kind === 'queued') {
      return reply.ok(submitted(answer.task), undefined, 202);
    }
    return reply.ok(answer.result);
  });

  app.post('/:id/state-estimation', {
    config: { permission: 'compute' },
    schema: {
      summary:
        'Estimate the network\'s state from its measurements (weighted least squares as MATPOWER Extras\' doSE, ' +
          'largest-normalized-residual bad-data removal); stored readings at "at", or inline "measurements"; "async": true ' +
          'queues a task',
      tags,
      params: Params,
      body: Type.Optional(StateEstimationIn),
      response: {
        200: envelope(StateEstimationResultOut),
        202: envelope(TaskSubmittedOut),
        ...errorResponses(400, 401, 403, 404, 409, 422, 504),
      },
    },
    serializerCompiler: plainJson,
  }, async (req, reply) => {
    const answer = await runStateEstimation(s, req.caller, req.params.id, req.body ?? {});
    if (answer.kind === 'queued') {
      return reply.ok(submitted(answer.task), undefined, 202);
    }
    return reply.ok(answer.result);
  });

  app.post('/:id/sensitivities', {
    config: { permission: 'compute' },
    schema: {
      summary: 'PTDF or LODF of the DC model, as MATPOWER makePTDF / makeLODF (rows: branches; columns: buses or outaged branches); '
        + '?format=csv streams the matrix; "async": true queues a task whose matrix GET /tasks/{id}/export streams', tags,
      params: Params, querystring: SensitivityQuery, body: SensitivityIn,
      response: { 200: envelope(SensitivityOut), 202: envelope(TaskSubmittedOut), ...errorResponses(400, 401, 403, 404, 422, 503) },
    },
  }, async (req, reply) => {
    if (req.body.async) {
      return reply.ok(submitted(await submitSensitivities(s, req.caller, req.params.id, req.body)), undefined, 202);
    }
    const r = await runSensitivityMatrix(s, req.caller, req.params.id, req.body);
    const m = r.matrix;
    const csv = req.query.format === 'csv';
    // CSV, or a large matrix in the same envelope, is written row by row in slices with a turn of the loop between them.
    if (csv || m.rows.length * m.columns.length > STREAM_JSON_ENTRIES) {
      const out = sensitivityStream(matrixHead(r), matrixRows(m), csv ? 'csv' : 'json', req.id);
      if (csv) reply.header('content-disposition', `attachment; filename="${m.kind}-${r.network_id}.csv"`);
      return reply.type(out.contentType).send(Readable.from(out.stream) as unknown as never); // a stream: Fastify pipes it, no serializer
    }
    return reply.ok(sensitivityAnswer(r));
  });

  app.post('/:id/studies', {
    config: { permission: 'compute' },
    validatorCompiler: studyValidator,
    schema: {
      summary: 'Submit a study (contingency analysis or scenario sweep); poll /studies/{id}', tags: ['studies'], params: Params, body: StudyIn,
      response: { 202: envelope(StudySubmitted), ...errorResponses(400, 401, 403, 404, 409, 413, 422, 429) },
    },
  }, async (req, reply) => reply.ok(await submitStudy(s, req.caller, req.params.id, req.body), undefined, 202));
}
