// GraphQL of the optimal power flow (CONTRACT "Optimal power flow", docs/opf.md): runOpf and
// its result type (the REST result in camelCase), and the generator cost of the model (Generator.cost). Joined to schema.ts by buildGraphqlSchema.
import { COST_MODELS, OPF_METHODS, OPF_STARTS, graphqlEnum } from '../schemas/vocabulary.js';

export const opfTypeDefs = /* GraphQL */ `
extend type Mutation {
  """(additive) Runs an optimal power flow on network id, as POST /networks/{id}/opf: the result, or with async: true
  the queued task (status QUEUED, empty lists; follow it with task events or tasks { ... }). AC (MATPOWER runopf) by default, or DC."""
  runOpf(id: ID!, method: OpfMethod = AC, async: Boolean = false, timeoutMs: Int, tolerance: Float, maxIterations: Int, islanding: Islanding,
    """(additive) preventive N-1 of a DC-OPF (method DC), as the REST body field security"""
    security: OpfSecurityInput,
    """(additive) where the interior point starts, as the REST body field start (default DEFAULT)"""
    start: OpfStart): OpfResult!
}

${graphqlEnum('OpfStart', OPF_STARTS)}

"""(additive) A run that did not converge before the one that answered (start DEFAULT retries from the case's state)."""
type OpfEarlierRun { start: OpfStart! status: String! iterations: Int! durationMs: Float! message: String }

"""(additive) Preventive N-1: contingencies N_1_BRANCHES, or a list (list wins when both are given); limit RATE_C (default), RATE_B or RATE_A."""
input OpfSecurityInput {
  n1Branches: Boolean
  contingencies: [OpfContingencyInput!]
  limit: SecurityLimit
}
input OpfContingencyInput { id: String, branches: [Int!]! }
enum SecurityLimit { RATE_C RATE_B RATE_A }

"""(additive) A post-contingency limit that binds: outage (its id, or the branch index as text), the monitored branch, ` +
  `its flow after the outage, the limit (MW) and the multiplier (currency/MWh)."""
type OpfBindingContingency { outage: String! branch: Int! flowMw: Float! limitMw: Float! mu: Float! }
type OpfSecurity { contingencies: Int! limit: SecurityLimit! binding: [OpfBindingContingency!]! excluded: [String!]! rounds: Int! constraintsAdded: Int! }

extend type OpfResult {
  """(additive) with security: what the preventive N-1 found"""
  security: OpfSecurity
  """(additive) where the interior point of this answer started; null while queued"""
  start: OpfStart
  """(additive) runs that did not converge before this one"""
  earlierRuns: [OpfEarlierRun!]
}

${graphqlEnum('OpfMethod', OPF_METHODS)}

"""(additive) Polynomial: coefficients highest order first (currency/h, P in MW); piecewise linear: x1,y1,x2,y2,..."""
type GeneratorCost {
  model: CostModel!
  startup: Float!
  shutdown: Float!
  coefficients: [Float!]!
}

input GeneratorCostInput {
  model: CostModel!
  startup: Float
  shutdown: Float
  coefficients: [Float!]!
}

extend type Generator {
  """(additive) cost of reactive power (MATPOWER gencost rows ng+1..2ng, MVAr for MW): AC-OPF only; null when none"""
  reactiveCost: GeneratorCost
}

extend input GeneratorInput {
  reactiveCost: GeneratorCostInput
}

${graphqlEnum('CostModel', COST_MODELS)}

"""An OPF answer (currency/h, MW, MVAr, p.u., radians as power flow; LMPs in currency/MWh)."""
type OpfResult {
  taskId: ID!
  """QUEUED for an async request, else CONVERGED"""
  status: String!
  method: OpfMethod!
  """mips, or highs for a DC-OPF with linear costs that MIPS did not solve (docs/opf.md); null while queued"""
  solver: String
  objective: Float
  iterations: Int
  buses: [OpfBus!]!
  generators: [OpfGenerator!]!
  branches: [OpfBranch!]!
  """(additive) MATPOWER DC lines as the OPF dispatched them (docs/opf.md "DC lines"); null when the network has none"""
  dcLines: [OpfDcLine!]
}

type OpfBus { id: Int! v: Float! theta: Float! lmpP: Float! lmpQ: Float! muVmin: Float! muVmax: Float! }
type OpfGenerator { index: Int! bus: Int! pMw: Float! qMvar: Float! muPmin: Float! muPmax: Float! muQmin: Float! muQmax: Float! }
type OpfDcLine { index: Int! from: Int! to: Int! inService: Boolean! pFrom: Float! pTo: Float! qFrom: Float! qTo: Float! vFrom: Float! vTo: Float!
  muPmin: Float! muPmax: Float! muQminFrom: Float! muQmaxFrom: Float! muQminTo: Float! muQmaxTo: Float! }
type OpfBranch { index: Int! from: Int! to: Int! pFrom: Float! qFrom: Float! pTo: Float! qTo: Float! loading: Float! muSf: Float! muSt: Float! }
`;
