// GraphQL of split networks (CONTRACT "Islands", docs/powerflow.md): the islanding rule of a power flow
// or an OPF, the islands of a result and of a stored network. Joined to schema.ts by buildGraphqlSchema.
import { ISLANDING_RULES, graphqlEnum } from '../schemas/vocabulary.js';

export const islandTypeDefs = /* GraphQL */ `
"""(additive) What a power flow or an OPF does with islands left without a reference."""
${graphqlEnum('Islanding', ISLANDING_RULES)}

"""(additive) One island of a split network (islanding ISOLATE / NEW_REFERENCE)."""
type Island {
  buses: [Int!]!
  referenceBus: Int
  energized: Boolean!
  loadMw: Float!
  generationMw: Float!
}

"""(additive) One island of a stored network; slackBus null: it has none, and a power flow refuses it unless islanding says otherwise."""
type NetworkIsland {
  buses: [Int!]!
  slackBus: Int
}

extend input PowerFlowOptions {
  """(additive) islands without a slack: REFUSE (default), ISOLATE or NEW_REFERENCE"""
  islanding: Islanding
}

extend type PowerFlowResult {
  """(additive) with islanding ISOLATE / NEW_REFERENCE: every island, the largest first"""
  islands: [Island!]
  """(additive) MW of load in de-energized islands"""
  lostLoadMw: Float
  """(additive) MW of generation set-points in de-energized islands"""
  lostGenerationMw: Float
}

extend type BusResult {
  """(additive) with islanding ISOLATE / NEW_REFERENCE: false for a de-energized bus (v = theta = 0)"""
  energized: Boolean
}

extend type ValidationResult {
  """(additive) the islands over closed branches, the largest first"""
  islands: [NetworkIsland!]
}

extend type OpfResult {
  """(additive) with islanding ISOLATE / NEW_REFERENCE: MW of load and generation in de-energized islands"""
  lostLoadMw: Float
  lostGenerationMw: Float
}

extend type OpfBus {
  """(additive) false for a de-energized bus"""
  energized: Boolean
}
`;
