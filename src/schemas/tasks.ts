// TypeBox schemas of the task resource: GET /tasks (list), GET/DELETE /tasks/{id}.
import { Type } from '@sinclair/typebox';
import { TASK_STATUSES, literals } from './vocabulary.js';
import { PageQuery, Timestamp } from './common.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const TaskStatus = literals(TASK_STATUSES);

export const ResultSummary = Type.Object({
  status: Type.String({ description: 'how the solve ended: converged, diverged, timeout, cancelled' }),
  method: Type.Union([Type.String(), Type.Null()]), iterations: Type.Union([Type.Integer(), Type.Null()]),
  mismatch: Type.Union([Type.Number(), Type.Null()]), duration_ms: Type.Union([Type.Integer(), Type.Null()]),
  tolerance: Type.Union([Type.Number(), Type.Null()]),
  losses: Type.Union([Type.Object({ p_mw: Type.Number(), q_mvar: Type.Number() }), Type.Null()]),
  bus_count: Type.Integer(), branch_count: Type.Integer(), generator_count: Type.Integer(), message: Type.Optional(Type.String()),
  objective: Type.Optional(Type.Number({ description: 'OPF tasks: the objective, currency/h' })),
}, { additionalProperties: true });

const taskFields = {
  task_id: Type.String(),
  network_id: Type.String(),
  network_version: Type.Integer(),
  kind: Type.String(),
  status: TaskStatus,
  poll_url: Type.String(),
  queue_position: Type.Union([Type.Integer(), Type.Null()]),
  options: Type.Record(Type.String(), Type.Unknown(), {
    description: 'the request options, snake_case as sent (flat_start, timeout_ms, …)',
  }),
  progress: Type.Union([
    Type.Object({ iteration: Type.Integer(), max_iterations: Type.Integer(), mismatch: Type.Number() }, { additionalProperties: true }),
    Type.Null(),
  ]),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: true }), Type.Null()]),
  attempts: Type.Integer(),
  created_at: Timestamp, started_at: Nullable(Timestamp), completed_at: Nullable(Timestamp),
  summary: Type.Union([ResultSummary, Type.Null()]),
  result_url: Type.String({ description: 'this task with its whole result (?include=result)' }),
};

/** A task as polled or listed: the result summarised (no per-element values). */
export const TaskOut = Type.Object(taskFields);

/** GET /tasks/{id} (with include=result the whole result as well) and DELETE. */
export const TaskDetailOut = Type.Object({
  ...taskFields,
  result: Type.Optional(Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'only with include=result' })),
  deleted: Type.Optional(Type.Boolean({ description: 'DELETE of a finished task: it was deleted with its stored result' })),
});

export const TaskQuery = Type.Object(
  {
    include: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          "\"result\": the whole result of the task's kind (a power flow's buses, branches, generators; an OPF's; …) as well as the summary",
      }),
    ),
    tz: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const TaskListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.String({ maxLength: 64, description: 'queued, running, completed, failed, cancelled; comma-separated for several' })),
  kind: Type.Optional(Type.String({ maxLength: 64, description: 'powerflow, study, …; comma-separated for several' })),
  network_id: Type.Optional(Type.String({ maxLength: 64 })),
  from: Type.Optional(Type.String({ maxLength: 64, description: 'created at or after (RFC 3339)' })),
  to: Type.Optional(Type.String({ maxLength: 64, description: 'created at or before (RFC 3339)' })),
}, { additionalProperties: false });
