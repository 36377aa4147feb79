// GraphQL of state estimation (CONTRACT "State estimation", docs/state-estimation.md): runStateEstimation and its
// result type (the REST result in camelCase). Joined to schema.ts by buildGraphqlSchema.
import { SE_MEASUREMENT_KINDS, graphqlEnum } from '../schemas/vocabulary.js';

export const stateEstimationTypeDefs = /* GraphQL */ `
extend type Mutation {
  """(additive) Estimates network id's state, as POST /networks/{id}/state-estimation: from the stored measures' readings
  at \`at\` (default now, none older than maxAgeS), or from inline measurements; badData false turns the lnr removal off.
  With async: true the queued task (status QUEUED, empty lists)."""
  runStateEstimation(id: ID!, measurements: [StateMeasurementInput!], at: DateTime, maxAgeS: Float, badData: Boolean = true,
    threshold: Float, maxIterations: Int, timeoutMs: Int, async: Boolean = false): StateEstimate!
}

${graphqlEnum('StateMeasurementKind', SE_MEASUREMENT_KINDS)}

"""(additive) A measurement: element a 0-based branch or generator index, or a bus id; MW, MVAr, p.u., degrees."""
input StateMeasurementInput { kind: StateMeasurementKind!, element: Int!, value: Float!, sigma: Float! }

type StateEstimateBus { id: Int! v: Float! theta: Float! }
type StateEstimateBranch { index: Int! from: Int! to: Int! pFrom: Float! qFrom: Float! pTo: Float! qTo: Float! loading: Float! }
type StateEstimateGenerator { index: Int! bus: Int! pMw: Float! qMvar: Float! }
type StateBadDatum { measurement: Int! kind: StateMeasurementKind! element: Int! value: Float! normalizedResidual: Float! }
type StateResidual { measurement: Int! kind: StateMeasurementKind! element: Int! value: Float! estimate: Float! residual: Float!
  """null when the measurement is critical"""
  normalizedResidual: Float
  critical: Boolean! }
type StateChiSquare { J: Float dof: Int! quantile99: Float passed: Boolean }
type StateObservability { observable: Boolean! unobservableBuses: [Int!]! }

"""(additive) A state estimate: status CONVERGED, DIVERGED, UNOBSERVABLE, TIMEOUT, CANCELLED (QUEUED while queued)."""
type StateEstimate {
  taskId: ID!
  status: String!
  iterations: Int
  passes: Int
  J: Float
  dof: Int
  chiSquare: StateChiSquare
  buses: [StateEstimateBus!]!
  branches: [StateEstimateBranch!]!
  generators: [StateEstimateGenerator!]!
  badData: [StateBadDatum!]!
  residuals: [StateResidual!]!
  observability: StateObservability
}
`;
