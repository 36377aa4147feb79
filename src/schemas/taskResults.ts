// The result of GET /tasks/{id}?include=result, by task kind, for the OpenAPI document: each calculation's
// result schema. The route writes results as they are stored (TaskDetailOut's permissive `result` is its
// serializer's schema), so a field a schema does not name yet still reaches the caller.
import { Type } from '@sinclair/typebox';
import { PowerFlowResultOut } from './powerflowResult.js';
import { OpfResultOut } from './opfResult.js';
import { StateEstimationResultOut } from './stateEstimation.js';
import { SensitivityTaskResultOut } from './sensitivities.js';
import { StudyCountsOut } from './studies.js';
import { TaskDetailOut } from './tasks.js';

/** A study task's own result: the study and its counts; the cases are at /studies/{id}/cases. */
export const StudyTaskResultOut = Type.Object({
  study_id: Type.String(),
  cases: Type.Integer({ description: 'the number of cases' }),
  counts: StudyCountsOut,
});

/** The result of a task by its kind: powerflow, opf, state_estimation, sensitivities, study. */
export const TaskResultOut = Type.Union(
  [PowerFlowResultOut, OpfResultOut, StateEstimationResultOut, SensitivityTaskResultOut, StudyTaskResultOut, Type.Null()],
  {
    description:
      'only with include=result; by kind: powerflow PowerFlowResult, opf OpfResult, state_estimation StateEstimationResult, ' +
      'sensitivities the matrix head (values inline when small), study the study id and counts; null until the task has finished',
  },
);

/** GET /tasks/{id} as documented: the task with its result typed by kind. */
export const TaskDetailDocumented = Type.Object({ ...TaskDetailOut.properties, result: Type.Optional(TaskResultOut) });
