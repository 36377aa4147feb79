// /api/v1/studies/{id}: thin routes over src/domain/studies.ts (POST is under /networks/{id}/studies).
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, IdParams, PageMeta } from '../../../../schemas/common.js';
import { CaseQuery, CsvQuery, StudyCaseOut, StudyOut } from '../../../../schemas/studies.js';
import { cancelStudy, getStudy, listStudyCases, studyCasesCsv } from '../../../../domain/studies.js';

const tags = ['studies'];
const Params = IdParams('study');

export default async function studyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;

  app.get(
    '/:id',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Study status, progress, timings, base case and counts',
        tags,
        params: Params,
        querystring: Type.Object({ tz: Type.Optional(Type.String()) }),
        response: { 200: envelope(StudyOut), ...errorResponses(401, 403, 404) },
      },
    },
    async (req, reply) => reply.ok(await getStudy(s, req.caller, req.params.id)),
  );

  app.get(
    '/:id/cases',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'One page of case results, filtered and sorted',
        tags,
        params: Params,
        querystring: CaseQuery,
        response: { 200: envelope(Type.Array(StudyCaseOut), PageMeta), ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await listStudyCases(s, req.caller, req.params.id, req.query);
      return reply.ok(items, meta);
    },
  );

  app.get(
    '/:id/cases.csv',
    {
      config: { permission: 'read' },
      schema: {
        summary: 'Every case result as CSV (streamed)',
        tags,
        params: Params,
        querystring: CsvQuery,
        response: { 200: Type.String(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const { study, lines } = await studyCasesCsv(s, req.caller, req.params.id, req.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${study.study_id}.csv"`)
        .header('X-Study-Status', study.status)
        .send(Readable.from(lines) as unknown as string); // a stream: Fastify pipes it, no serializer
    },
  );

  app.delete(
    '/:id',
    {
      config: { permission: 'compute' },
      schema: {
        summary: 'Cancel a study (finished cases stay readable)',
        tags,
        params: Params,
        response: { 200: envelope(StudyOut), ...errorResponses(401, 403, 404, 409) },
      },
    },
    async (req, reply) => reply.ok(await cancelStudy(s, req.caller, req.params.id)),
  );
}
