// GraphQL of MATPOWER DC lines (CONTRACT "PSS/E RAW and MATPOWER DC lines", docs/network-model.md): a network's
// `dc_lines`, read and written. Joined to schema.ts by buildGraphqlSchema.
export const dcLineTypeDefs = /* GraphQL */ `
"""(additive) A MATPOWER DC line: MW, MVAr, p.u. (docs/network-model.md)"""
type DcLine {
  from: Int!
  to: Int!
  inService: Boolean!
  pFrom: Float!
  pTo: Float!
  qFrom: Float!
  qTo: Float!
  vFrom: Float!
  vTo: Float!
  pmin: Float!
  pmax: Float!
  qminFrom: Float!
  qmaxFrom: Float!
  qminTo: Float!
  qmaxTo: Float!
  loss0: Float!
  loss1: Float!
  """(additive) OPF cost of pFrom (MATPOWER mpc.dclinecost); null = none"""
  cost: GeneratorCost
}

input DcLineInput {
  from: Int!
  to: Int!
  inService: Boolean
  pFrom: Float!
  pTo: Float
  qFrom: Float
  qTo: Float
  vFrom: Float
  vTo: Float
  pmin: Float
  pmax: Float
  qminFrom: Float
  qmaxFrom: Float
  qminTo: Float
  qmaxTo: Float
  loss0: Float
  loss1: Float
  cost: GeneratorCostInput
}

extend type Network {
  """(additive) MATPOWER DC lines (mpc.dcline; two-terminal HVDC of a PSS/E import)"""
  dcLines: [DcLine!]!
}

extend input NetworkInput {
  """(additive)"""
  dcLines: [DcLineInput!]
}
`;
