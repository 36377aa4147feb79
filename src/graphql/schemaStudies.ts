// GraphQL of studies (CONTRACT "Studies", docs/studies.md): root fields and types, kept
// apart from schema.ts (buildGraphqlSchema joins them with `extend type`).
import {
  STUDY_CASE_STATUSES, STUDY_ISLANDING, STUDY_KINDS, STUDY_SCREENING_METHODS, STUDY_VIOLATION_KINDS, STUDY_VIOLATION_TYPES, STUDY_WARM_STARTS, TASK_STATUSES,
  graphqlEnum,
} from '../schemas/vocabulary.js';
export const studyTypeDefs = /* GraphQL */ `
extend type Query {
  """(additive) A study (docs/studies.md): status, progress, base case, counts and its cases page by page."""
  study(id: ID!): Study
}

extend type Mutation {
  """(additive) Queues a study of network id and returns it at once (status QUEUED); follow it with studyProgress(studyId) or study(id).
  contingencies: "n-1-branches" | "n-1-generators" | "n-1" or a list [{id, branches, generators}]; scenarios and monitor: the REST forms (docs/studies.md)."""
  runStudy(id: ID!, kind: StudyKind!, contingencies: JSON, scenarios: JSON, monitor: JSON, loadingLimitPercent: Float, options: StudyOptions): Study!
  """(additive) Stops every chunk of a study; the cases finished so far stay readable."""
  cancelStudy(id: ID!): Study!
}

extend type Subscription {
  """(additive) A study's progress wherever its chunks run: its state now, then every chunk finished; completes when the study ends."""
  studyProgress(studyId: ID!): StudyProgress!
}

# ------------------------------------------------------------------ studies (docs/studies.md)

${graphqlEnum('StudyKind', STUDY_KINDS)}
${graphqlEnum('StudyStatus', TASK_STATUSES)}
${graphqlEnum('StudyCaseStatus', STUDY_CASE_STATUSES)}
${graphqlEnum('StudyViolationType', STUDY_VIOLATION_TYPES)}
${graphqlEnum('StudyViolationKind', STUDY_VIOLATION_KINDS)}
${graphqlEnum('StudyScreeningMethod', STUDY_SCREENING_METHODS)}

input StudyOptions {
  method: PowerFlowMethod
  tolerance: Float
  maxIterations: Int
  enforceQLimits: Boolean
  """(additive) an outage that splits the network: ISOLATE (default), NEW_REFERENCE or SKIP (CONTRACT "Islands")"""
  islanding: StudyIslanding
  """(additive) contingency screening (kind CONTINGENCY; CONTRACT "Contingency screening"): the threshold, default 90 when a method is given"""
  screeningThresholdPercent: Float
  """(additive) AC_LINEAR (default) or DC"""
  screeningMethod: StudyScreeningMethod
  """(additive) violation_filter: an overload already in the base case is worsened from base × (1 + this / 100) (default 10)"""
  flowIncreasePercent: Float
  """(additive) violation_filter: a voltage violation in the base case is worsened this many p.u. further out (default 0.01)"""
  voltageIncreasePu: Float
  """(additive) kind SCENARIOS: each scenario starts like a power flow (DEFAULT) or from the scenario before it (PREVIOUS)"""
  warmStart: StudyWarmStart
}

${graphqlEnum('StudyWarmStart', STUDY_WARM_STARTS)}

${graphqlEnum('StudyIslanding', STUDY_ISLANDING)}

type Study {
  id: ID!
  taskId: ID!
  networkId: ID!
  networkVersion: Int!
  kind: StudyKind!
  status: StudyStatus!
  """cases stored so far / cases of the study"""
  done: Int!
  total: Int!
  """the request as submitted (REST form)"""
  request: JSON!
  """the base case summary (REST form), once solved"""
  base: JSON
  counts: StudyCounts!
  createdAt: DateTime!
  startedAt: DateTime
  completedAt: DateTime
  wallMs: Float
  """solver time summed over chunks, inside the workers"""
  solveMs: Float!
  error: JSON
  """Filters and sort as GET /studies/{id}/cases (sort e.g. "-max_loading_percent")."""
  cases(status: [StudyCaseStatus!], violation: [StudyViolationType!], newViolations: Boolean, sort: String, page: Int = 1,
    pageSize: Int = 20): StudyCaseConnection!
}

type StudyCounts {
  converged: Int!
  diverged: Int!
  islanded: Int!
  """(additive) cases the DC screen kept below its threshold (not solved in AC)"""
  screened: Int!
  """cases with at least one violation of the type"""
  branchOverload: Int!
  lowVoltage: Int!
  highVoltage: Int!
  withViolations: Int!
  """(additive) cases that lost load (islanding: solved on what stayed energized, or skipped)"""
  casesWithLostLoad: Int!
  """(additive) cases with a new or worsened violation against the base case"""
  casesWithNewViolations: Int!
}

type StudyCaseConnection {
  items: [StudyCase!]!
  total: Int!
  page: Int!
  pageSize: Int!
  totalPages: Int!
}

type StudyCase {
  caseId: String!
  scenario: Int
  contingency: StudyContingency
  status: StudyCaseStatus!
  """why a case did not converge: max_iterations, not_finite, singular, slack_lost, q_limits_infeasible, cancelled"""
  reason: String
  iterations: Int!
  maxLoadingPercent: Float
  maxLoadingBranch: Int
  minV: Float
  minVBus: Int
  maxV: Float
  maxVBus: Int
  violations: [StudyViolation!]!
  """(additive) violations of kind NEW or WORSENED"""
  newViolations: Int!
  """(additive) the largest loading among new or worsened overloads"""
  maxNewLoadingPercent: Float
  islanded: StudyIsland
  """monitored branches and buses (REST form), when the study asked for them"""
  monitored: JSON
}

type StudyContingency {
  id: String!
  branches: [Int!]!
  generators: [Int!]!
}

type StudyViolation {
  type: StudyViolationType!
  """branch index (BRANCH_OVERLOAD) or bus id"""
  element: Int!
  value: Float!
  limit: Float!
  """(additive) the element's value in the base case"""
  baseValue: Float
  """(additive) against the base case: NEW, WORSENED or PRE_EXISTING"""
  kind: StudyViolationKind!
}

type StudyIsland {
  buses: [Int!]!
  loadMw: Float!
  generationMw: Float!
}

type StudyProgress {
  studyId: ID!
  status: StudyStatus!
  done: Int!
  total: Int!
  timestamp: DateTime!
}
`;
