// /api/v1/tasks: list the tenant's tasks, poll and cancel one.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { envelope, errorResponses, IdParams } from '../../../../schemas/common.js';
import { TaskListQuery, TaskOut, TaskQuery, TaskDetailOut } from '../../../../schemas/tasks.js';
import { TaskDetailDocumented } from '../../../../schemas/taskResults.js';
import { FINISHED, findTask, findTaskSummary, listTasks, taskSummaryView } from '../../../../domain/tasks.js';
import { deleteFinishedTasks } from '../../../../domain/resultStorage.js';
import { AppError, notFound } from '../../../../lib/errors.js';
import { exportTaskResult } from '../../../../domain/resultExport.js';
import { sensitivityTaskExport, sensitivityTaskResult } from '../../../../domain/sensitivities.js';
import { Readable } from 'node:stream';

const tags = ['tasks'];
const INCLUDES = ['result'];

export default async function taskRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const s = app.services;
  const Params = IdParams('task');

  app.get(
    '/',
    {
      config: { permission: 'read' },
      schema: {
        summary: "List the tenant's tasks (filters status, kind, network_id, from, to; paging; sort, default -created_at)",
        tags,
        querystring: TaskListQuery,
        response: { 200: envelope(Type.Array(TaskOut)), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (req, reply) => {
      const { items, meta } = await listTasks(s, req.caller, req.query);
      return reply.ok(items, meta);
    },
  );

  app.get(
    '/:id',
    {
      config: { permission: 'read', openapiResponse: { 200: envelope(TaskDetailDocumented) } },
      schema: {
        summary: 'Task status, progress, a summary of the result, or with include=result the whole result',
        tags,
        params: Params,
        querystring: TaskQuery,
        response: { 200: envelope(TaskDetailOut), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      const include = (req.query.include ?? '')
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);
      const unknown = include.find((x) => !INCLUDES.includes(x));
      if (unknown)
        throw new AppError('INVALID_FIELD', `include may be ${INCLUDES.join(', ')}; got "${unknown}"`, {
          field: 'include',
          allowed: INCLUDES,
        });
      // Without include=result the per-element values are not even read from the database.
      const t = include.includes('result')
        ? await findTask(s, req.caller, req.params.id)
        : await findTaskSummary(s, req.caller, req.params.id);
      const view = { ...taskSummaryView(t), queue_position: await s.tasks.queuePosition(t) };
      if (!include.includes('result')) return reply.ok(view);
      return reply.ok({ ...view, result: t.kind === 'sensitivities' ? await sensitivityTaskResult(s, t) : t.result });
    },
  );

  app.get(
    '/:id/export',
    {
      config: { permission: 'read' },
      schema: {
        summary:
          'Export a converged power flow: format=matpower (the solved case, as MATPOWER savecase) or format=csv&table=buses|branches|generators; ' +
          'a completed sensitivities task: its matrix streamed, format=csv or json',
        tags,
        params: Params,
        querystring: Type.Object(
          {
            format: Type.Optional(Type.String({ maxLength: 32, description: 'matpower or csv (required); json for a sensitivities task' })),
            table: Type.Optional(Type.String({ maxLength: 32, description: 'format=csv only: buses, branches or generators' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.String({ description: 'text/plain (MATPOWER .m) or text/csv' }), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      const t = await findTaskSummary(s, req.caller, req.params.id);
      if (t.kind === 'sensitivities') {
        const format = req.query.format;
        if (format !== 'csv' && format !== 'json')
          throw new AppError(
            format ? 'INVALID_FIELD' : 'INVALID_REQUEST',
            `a sensitivities task exports its matrix: format must be csv or json${format ? `, got "${format}"` : ''}`,
            { field: 'format', allowed: ['csv', 'json'] },
          );
        const m = sensitivityTaskExport(s, t, format, req.id);
        return reply
          .type(m.contentType)
          .header('Content-Disposition', `attachment; filename="${m.filename}"`)
          .send(Readable.from(m.stream) as unknown as never); // a stream: no serializer
      }
      const f = await exportTaskResult(s, req.caller, req.params.id, req.query);
      return reply.type(f.contentType).header('Content-Disposition', `attachment; filename="${f.filename}"`).send(f.body);
    },
  );

  app.delete('/:id', {
    config: { permission: 'compute' },
    schema: {
      summary: 'Cancel a queued task or stop a running one; a finished task is deleted with its stored result (matrix, study rows), '
        + 'which stops counting against the storage quota',
      tags, params: Params, response: { 200: envelope(TaskDetailOut), ...errorResponses(401, 403, 404, 409) },
    },
  }, async (req, reply) => {
    // A task answered and not yet stored is deleted once stored (deleting nothing would answer 404).
    await s.pendingTasks.stored(req.params.id);
    const found = await findTaskSummary(s, req.caller, req.params.id);
    if (FINISHED.includes(found.status)) {
      // the task as it was, then gone: GET answers 404 and its bytes no longer count (src/domain/resultStorage.ts)
      if ((await deleteFinishedTasks(s.db, [found.id])) === 0) throw notFound('task', found.id);
      return reply.ok({ ...taskSummaryView(found), queue_position: null, result: null, deleted: true });
    }
    const t = await s.tasks.cancel(req.caller, req.params.id);
    return reply.ok({ ...taskSummaryView(t), queue_position: null, result: t.result });
  });
}
