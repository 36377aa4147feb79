// The executable schema: SDL (schema.ts) + scalars + resolvers of every module.
import { buildSchema, isObjectType, isScalarType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { typeDefs } from './schema.js';
import { studyTypeDefs } from './schemaStudies.js';
import { studyResolvers } from './resolvers/studies.js';
import { opfTypeDefs } from './schemaOpf.js';
import { islandTypeDefs } from './schemaIslands.js';
import { sensitivityTypeDefs } from './schemaSensitivities.js';
import { sensitivityResolvers } from './resolvers/sensitivities.js';
import { layoutTypeDefs } from './schemaLayout.js';
import { layoutResolvers } from './resolvers/layout.js';
import { opfResolvers } from './resolvers/opf.js';
import { stateEstimationTypeDefs } from './schemaStateEstimation.js';
import { dcLineTypeDefs } from './schemaDcLines.js';
import { stateEstimationResolvers } from './resolvers/stateEstimation.js';
import { scalars } from './scalars.js';
import { networkResolvers } from './resolvers/networks.js';
import { powerFlowResolvers } from './resolvers/powerflow.js';
import { agentResolvers } from './resolvers/agents.js';
import { deviceResolvers } from './resolvers/devices.js';
import { alarmResolvers } from './resolvers/alarms.js';
import { timeseriesResolvers } from './resolvers/timeseries.js';
import { eventResolvers } from './resolvers/events.js';
import { subscriptionResolvers } from './resolvers/subscriptions.js';

type FieldDef =
  | GraphQLFieldResolver<unknown, unknown>
  | { subscribe: GraphQLFieldResolver<unknown, unknown>; resolve?: GraphQLFieldResolver<unknown, unknown> };
type ResolverMap = Record<string, Record<string, FieldDef>>;

const modules: ResolverMap[] = [
  networkResolvers,
  powerFlowResolvers,
  agentResolvers,
  deviceResolvers,
  alarmResolvers,
  timeseriesResolvers,
  eventResolvers,
  subscriptionResolvers,
  studyResolvers,
  opfResolvers,
  sensitivityResolvers,
  layoutResolvers,
  stateEstimationResolvers,
] as unknown as ResolverMap[];

export function buildGraphqlSchema(): GraphQLSchema {
  const schema = buildSchema(
    typeDefs + studyTypeDefs + opfTypeDefs + islandTypeDefs + sensitivityTypeDefs + layoutTypeDefs + stateEstimationTypeDefs + dcLineTypeDefs,
  );
  for (const [name, impl] of Object.entries(scalars)) {
    const t = schema.getType(name);
    if (!isScalarType(t)) throw new Error(`scalar ${name} missing from the SDL`);
    t.serialize = impl.serialize;
    t.parseValue = impl.parseValue;
    t.parseLiteral = impl.parseLiteral;
    t.description = t.description ?? impl.description;
  }
  for (const mod of modules) {
    for (const [typeName, fields] of Object.entries(mod)) {
      const type = schema.getType(typeName);
      if (!isObjectType(type)) throw new Error(`resolvers for unknown type ${typeName}`);
      const defs = type.getFields();
      for (const [fieldName, r] of Object.entries(fields)) {
        const f = defs[fieldName];
        if (!f) throw new Error(`resolver for unknown field ${typeName}.${fieldName}`);
        if (typeof r === 'function') f.resolve = r;
        else {
          f.subscribe = r.subscribe;
          if (r.resolve) f.resolve = r.resolve;
        }
      }
    }
  }
  // Every root field must have a resolver (a forgotten one would silently answer null).
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const f of Object.values(root?.getFields() ?? {})) {
      if (!f.resolve && !f.subscribe) throw new Error(`no resolver for ${root!.name}.${f.name}`);
    }
  }
  return schema;
}
