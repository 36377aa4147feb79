// GraphQL of the network drawing (docs/console.md "Layout"): bus coordinates in the model and the layout
// of GET /networks/{id}/layout (src/layout/networkLayout.ts). Joined to schema.ts by buildGraphqlSchema.
export const layoutTypeDefs = /* GraphQL */ `
extend type Bus {
  """(additive) geographic position, WGS84 degrees (null when the model has none)"""
  lat: Float
  lon: Float
}

extend input BusInput {
  """both or neither"""
  lat: Float
  lon: Float
}

extend type Query {
  """(additive) where to draw each bus of the network's current version (permission read)"""
  networkLayout(id: ID!): NetworkLayout!
}

enum LayoutSource { COORDINATES COMPUTED MIXED }

type NetworkLayout {
  networkId: ID!
  version: Int!
  source: LayoutSource!
  """bus ids in model order"""
  busIds: [Int!]!
  """x, y per bus in busIds order, interleaved (y up)"""
  positions: [Float!]!
}
`;
