// Query limits of SPEC 8.3: depth 7, complexity 1000, 20 aliases (the 30 s
// timeout is in execute.ts). Depth, aliases and the introspection switch are
// validation rules (cached with the parsed document); complexity depends on
// variables (page sizes) and is computed per request.
//
// Complexity: every selected field costs 1; a list field multiplies the cost of
// what is selected inside it by its expected length: `items` of a connection by
// the connection's pageSize (default of the argument), a list field with one
// result per entry of a list argument (timeseriesMulti) by that argument's length,
// time-series points by their `limit` (1 per 1,000 points, so the default 10,000
// costs the old flat 10), any other list by 10.
// Beyond complexity, two request-level caps computed in the same walk: a list
// argument of such a field holds at most 20 entries, and the time-series points
// asked for in all (sum of the limits) stay within the request's point budget.
// Introspection fields (__schema, __type, __typename) are not counted, neither
// for depth nor for complexity; introspection has its own switch.
import {
  type GraphQLObjectType, getNamedType, getNullableType, isListType, isObjectType, getArgumentValues, Kind,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode, type ValidationRule, type ValidationContext,
} from 'graphql';
import { gqlError } from './errors.js';
import { limitOf, TS_MULTI_QUERIES_MAX, TS_REQUEST_POINT_BUDGET } from '../domain/timeseriesBudget.js';

export const LIMITS = {
  depth: 7, complexity: 1000, aliases: 20, listFactor: 10,
  listArgument: TS_MULTI_QUERIES_MAX, points: TS_REQUEST_POINT_BUDGET, pointsPerCost: 1000,
} as const;
/** Input type of a time-series query: its `limit` prices the points list. */
const POINT_QUERY_INPUT = 'TimeSeriesQuery';

export interface Cost {
  complexity: number;
  /** Time-series points asked for in all. */
  points: number;
  /** The longest list argument of a field returning one result per entry, if above LIMITS.listArgument. */
  longList?: { field: string; argument: string; length: number };
}

type Fragments = Map<string, FragmentDefinitionNode>;

function fragmentsOf(doc: DocumentNode): Fragments {
  const m: Fragments = new Map();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) m.set(d.name.value, d);
  return m;
}

function depthOf(sel: SelectionSetNode, fragments: Fragments, depth: number, visiting: Set<string>): number {
  let max = depth;
  for (const s of sel.selections) {
    if (s.kind === Kind.FIELD) {
      if (s.name.value.startsWith('__')) continue;
      max = Math.max(max, s.selectionSet ? depthOf(s.selectionSet, fragments, depth + 1, visiting) : depth + 1);
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      max = Math.max(max, depthOf(s.selectionSet, fragments, depth, visiting));
    } else {
      const f = fragments.get(s.name.value);
      if (!f || visiting.has(f.name.value)) continue; // unknown / cyclic: other rules report it
      visiting.add(f.name.value);
      max = Math.max(max, depthOf(f.selectionSet, fragments, depth, visiting));
      visiting.delete(f.name.value);
    }
  }
  return max;
}

export function depthLimitRule(limit: number = LIMITS.depth): ValidationRule {
  return (context: ValidationContext) => {
    const fragments = fragmentsOf(context.getDocument());
    return {
      OperationDefinition(node: OperationDefinitionNode) {
        const depth = depthOf(node.selectionSet, fragments, 0, new Set());
        if (depth > limit) {
          context.reportError(gqlError('QUERY_TOO_DEEP', `query depth ${depth} exceeds the limit of ${limit} levels`, { depth, limit }, node));
        }
      },
    };
  };
}

export function aliasLimitRule(limit: number = LIMITS.aliases): ValidationRule {
  return (context: ValidationContext) => {
    let count = 0;
    const nodes: FieldNode[] = [];
    return {
      Field(node: FieldNode) {
        if (node.alias) {
          count++;
          if (nodes.length < 3) nodes.push(node);
        }
      },
      Document: {
        leave() {
          if (count > limit) {
            context.reportError(
              gqlError(
                'QUERY_TOO_COMPLEX',
                `the request uses ${count} aliases; at most ${limit} are allowed`,
                { reason: 'TOO_MANY_ALIASES', aliases: count, limit },
                nodes,
              ),
            );
          }
        },
      },
    };
  };
}

export const noIntrospectionRule: ValidationRule = (context: ValidationContext) => ({
  Field(node: FieldNode) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(
        gqlError(
          'VALIDATION_FAILED',
          'introspection is disabled on this deployment (GRAPHQL_INTROSPECTION=true enables it)',
          { reason: 'INTROSPECTION_DISABLED' },
          node,
        ),
      );
    }
  },
});

/** The list factor of a field by its arguments, or undefined (the default rules apply); notes points and long lists. */
function argumentFactor(def: GraphQLField<unknown, unknown>, args: Record<string, unknown>, out: Cost): number | undefined {
  let factor: number | undefined;
  for (const a of def.args) {
    const value = args[a.name];
    if (value === undefined || value === null) continue;
    const entries = Array.isArray(value) ? value : [value];
    if (getNamedType(a.type).name === POINT_QUERY_INPUT) {
      let units = 0;
      for (const q of entries) {
        const limit = limitOf((q as { limit?: unknown } | null)?.limit);
        out.points += limit;
        units += Math.ceil(limit / LIMITS.pointsPerCost);
      }
      factor = (factor ?? 0) + units;
    } else if (Array.isArray(value) && isListType(getNullableType(def.type))) {
      factor = Math.max(factor ?? 0, value.length);
    }
    if (Array.isArray(value) && isListType(getNullableType(def.type)) && value.length > LIMITS.listArgument
      && (!out.longList || value.length > out.longList.length)) {
      out.longList = { field: def.name, argument: a.name, length: value.length };
    }
  }
  return factor;
}

/** Complexity, time-series points and over-long list arguments of one operation. */
export function costOf(schema: GraphQLSchema, doc: DocumentNode, op: OperationDefinitionNode, variables: Record<string, unknown>): Cost {
  const fragments = fragmentsOf(doc);
  const root = op.operation === 'query' ? schema.getQueryType() : op.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  const out: Cost = { complexity: 0, points: 0 };
  if (!root) return out;

  const cost = (sel: SelectionSetNode, parent: GraphQLObjectType, pageSize: number | undefined, visiting: Set<string>): number => {
    let total = 0;
    for (const s of sel.selections) {
      if (s.kind === Kind.FIELD) {
        const name = s.name.value;
        if (name.startsWith('__')) continue;
        const def = parent.getFields()[name] as GraphQLField<unknown, unknown> | undefined;
        if (!def) continue;
        let args: Record<string, unknown> = {};
        try {
          args = getArgumentValues(def, s, variables);
        } catch {
          /* invalid arguments are reported by execution */
        }
        const named = getNamedType(def.type);
        const childPageSize = typeof args.pageSize === 'number' ? args.pageSize : undefined;
        const inner = s.selectionSet && isObjectType(named) ? cost(s.selectionSet, named, childPageSize, visiting) : 0;
        let factor = 1;
        if (isListType(getNullableType(def.type))) factor = name === 'items' && pageSize !== undefined ? pageSize : LIMITS.listFactor;
        factor = argumentFactor(def, args, out) ?? factor;
        total += 1 + factor * inner;
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const t = s.typeCondition ? schema.getType(s.typeCondition.name.value) : parent;
        total += cost(s.selectionSet, isObjectType(t) ? t : parent, pageSize, visiting);
      } else {
        const f = fragments.get(s.name.value);
        if (!f || visiting.has(f.name.value)) continue;
        const t = schema.getType(f.typeCondition.name.value);
        visiting.add(f.name.value);
        total += cost(f.selectionSet, isObjectType(t) ? t : parent, pageSize, visiting);
        visiting.delete(f.name.value);
      }
    }
    return total;
  };
  out.complexity = cost(op.selectionSet, root, undefined, new Set());
  return out;
}
