// GraphQL of the DC sensitivities (CONTRACT "Sensitivities", docs/sensitivities.md): the same domain
// function as POST /networks/{id}/sensitivities. Joined to schema.ts by buildGraphqlSchema.
export const sensitivityTypeDefs = /* GraphQL */ `
extend type Query {
  """(additive) PTDF or LODF of the DC model of a network, as MATPOWER makePTDF / makeLODF (permission compute)"""
  sensitivities(networkId: ID!, input: SensitivityInput!): Sensitivities!
}

enum SensitivityKind { PTDF LODF }

input SensitivityInput {
  kind: SensitivityKind!
  """rows: branch positions (default every in-service branch)"""
  branches: [Int!]
  """PTDF columns: bus ids (default every bus)"""
  buses: [Int!]
  """LODF columns: outaged branch positions (default the rows)"""
  outages: [Int!]
}

type Sensitivities {
  networkId: ID!
  networkVersion: Int!
  kind: SensitivityKind!
  rows: [Int!]!
  columns: [Int!]!
  """row-major, MW per MW; an LODF column of a bridge is null"""
  values: [[Float]!]!
  bridges: [Int!]!
}
`;
