// TypeBox schemas of studies (CONTRACT "Studies"); the request body is the engine's own
// StudyRequestSchema (src/studies/types.ts), so every door checks the same thing.
import { Type, type TSchema } from '@sinclair/typebox';
import { literals, STUDY_CASE_STATUSES, STUDY_VIOLATION_KINDS, STUDY_VIOLATION_TYPES, TASK_STATUSES } from './vocabulary.js';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { PageQuery, Timestamp } from './common.js';
import { checkStudyRequest } from '../studies/index.js';
import { AppError } from '../lib/errors.js';

export { StudyRequestSchema as StudyIn } from '../studies/index.js';

const Status = literals(TASK_STATUSES);
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Violation = Type.Object({
  type: literals(STUDY_VIOLATION_TYPES),
  element: Type.Integer(), value: Type.Number(), limit: Type.Number(),
  base_value: Type.Union([Type.Number(), Type.Null()], { description: "the element's value in the base case" }),
  kind: literals(STUDY_VIOLATION_KINDS),
});

export const StudySubmitted = Type.Object({
  study_id: Type.String(), task_id: Type.String(), network_id: Type.String(), status: Type.Literal('queued'), poll_url: Type.String(),
});

/** A study's cases counted by status and by violation (src/domain/studyCases.ts studyCounts). */
export const StudyCountsOut = Type.Object({
  by_status: Type.Object({ converged: Type.Integer(), diverged: Type.Integer(), islanded: Type.Integer(), screened: Type.Integer() }),
  by_violation: Type.Object({ branch_overload: Type.Integer(), low_voltage: Type.Integer(), high_voltage: Type.Integer() }),
  with_violations: Type.Integer(),
  cases_with_new_violations: Type.Integer(),
  cases_with_lost_load: Type.Integer(),
});

export const StudyOut = Type.Object({
  study_id: Type.String(), task_id: Type.String(), network_id: Type.String(), network_version: Type.Integer(), kind: Type.String(),
  status: Status, poll_url: Type.String(), cases_url: Type.String(), csv_url: Type.String(),
  progress: Type.Object({ done: Type.Integer(), total: Type.Integer() }),
  chunks: Type.Object({ done: Type.Integer(), total: Type.Integer(), size: Type.Integer() }),
  request: Type.Object({}, { additionalProperties: true }),
  base: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
  counts: StudyCountsOut,
  timings: Type.Object({
    created_at: Timestamp, started_at: Type.Union([Timestamp, Type.Null()]), completed_at: Type.Union([Timestamp, Type.Null()]),
    queued_ms: Nullable(Type.Number()), wall_ms: Nullable(Type.Number()), solve_ms: Type.Number(),
  }),
  error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: true }), Type.Null()]),
  attempts: Type.Integer(),
});

export const StudyCaseOut = Type.Object({
  case_id: Type.String(),
  scenario: Type.Optional(Type.Integer()),
  contingency: Type.Optional(Type.Object({ id: Type.String(), branches: Type.Array(Type.Integer()), generators: Type.Array(Type.Integer()) })),
  status: literals(STUDY_CASE_STATUSES),
  iterations: Type.Integer(),
  max_loading_percent: Nullable(Type.Number()), max_loading_branch: Nullable(Type.Integer()),
  min_v: Nullable(Type.Number()), min_v_bus: Nullable(Type.Integer()), max_v: Nullable(Type.Number()), max_v_bus: Nullable(Type.Integer()),
  violations: Type.Array(Violation),
  new_violations: Type.Integer({ description: 'violations of kind new or worsened' }),
  max_new_loading_percent: Nullable(Type.Number({ description: 'the largest new or worsened loading' })),
  islanded: Type.Optional(Type.Object({ buses: Type.Array(Type.Integer()), load_mw: Type.Number(), generation_mw: Type.Number() })),
  monitored: Type.Optional(
    Type.Object({
      branches: Type.Array(
        Type.Object({
          index: Type.Integer(),
          p_from: Type.Number(),
          q_from: Type.Number(),
          p_to: Type.Number(),
          q_to: Type.Number(),
          loading: Type.Number(),
        }),
      ),
      buses: Type.Array(Type.Object({ id: Type.Integer(), v: Type.Number(), theta: Type.Number() })),
    }),
  ),
  reason: Type.Optional(
    Type.String({
      description:
        'why a case did not converge (an addition): max_iterations, not_finite, singular, slack_lost, q_limits_infeasible, cancelled',
    }),
  ),
});

const Filters = {
  status: Type.Optional(Type.String({ maxLength: 64, description: 'converged, diverged, islanded (comma-separated)' })),
  violation: Type.Optional(
    Type.String({
      maxLength: 128,
      description:
        'branch_overload, low_voltage, high_voltage, any, none, new (a new or worsened violation); comma-separated: a case matching any',
    }),
  ),
  sort: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'case_index (default), max_loading_percent, max_new_loading_percent, new_violations, min_v, max_v, iterations, violation_count; leading - descends',
    }),
  ),
};
export const CaseQuery = Type.Object({ ...PageQuery, ...Filters }, { additionalProperties: false });
export const CsvQuery = Type.Object({ ...Filters, tz: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: false });

/**
 * The POST body is judged by TypeBox (checkStudyRequest: the first error, naming its field)
 * rather than Ajv: Ajv's union errors name the first alternative only ("must be string"
 * for a list of contingencies), and its type coercion could rewrite a list into a string.
 * Other parts of the route (its path id) are judged by TypeBox too.
 */
export function studyValidator({ httpPart, schema }: { httpPart?: string; schema: unknown }) {
  if (httpPart === 'body') {
    return (data: unknown) => {
      try {
        return { value: checkStudyRequest(data) };
      } catch (error) {
        return { error: error as Error };
      }
    };
  }
  const check = TypeCompiler.Compile(schema as TSchema);
  return (data: unknown) => {
    if (check.Check(data)) return { value: data };
    const e = check.Errors(data).First();
    const field = e?.path.replace(/^\//, '') || httpPart || 'request';
    return { error: new AppError('INVALID_FIELD', `${httpPart ?? 'request'} field "${field}": ${e?.message ?? 'invalid'}`, { field, location: httpPart }) };
  };
}
