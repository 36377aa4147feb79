// Query limits of SPEC 8.3: depth 7, complexity 1000, 20 aliases (the 30 s
// timeout is in engine.ts). Depth, aliases and the introspection switch are
// validation rules (cached with the parsed document); complexity depends on
// variables (page sizes) and is computed per request.
//
// Complexity: every selected field costs 1; a list field multiplies the cost of
// what is selected inside it by its expected length: `items` of a connection by
// the connection's pageSize (default of the argument), any other list by 10.
// Introspection fields (__schema, __type, __typename) are not counted, neither
// for depth nor for complexity; introspection has its own switch.
import {
  type GraphQLObjectType, getNamedType, getNullableType, isListType, isObjectType, getArgumentValues, Kind,
  type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLField, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode, type ValidationRule, type ValidationContext,
} from 'graphql';
import { gqlError } from './errors.js';

export const LIMITS = { depth: 7, complexity: 1000, aliases: 20, listFactor: 10 } as const;

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
            context.reportError(gqlError('QUERY_TOO_COMPLEX', `the request uses ${count} aliases; at most ${limit} are allowed`, { reason: 'TOO_MANY_ALIASES', aliases: count, limit }, nodes));
          }
        },
      },
    };
  };
}

export const noIntrospectionRule: ValidationRule = (context: ValidationContext) => ({
  Field(node: FieldNode) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(gqlError('VALIDATION_FAILED', 'introspection is disabled on this deployment (GRAPHQL_INTROSPECTION=true enables it)', { reason: 'INTROSPECTION_DISABLED' }, node));
    }
  },
});

/** Complexity of one operation with its coerced variables. */
export function complexityOf(schema: GraphQLSchema, doc: DocumentNode, op: OperationDefinitionNode, variables: Record<string, unknown>): number {
  const fragments = fragmentsOf(doc);
  const root = op.operation === 'query' ? schema.getQueryType() : op.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (!root) return 0;

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
  return cost(op.selectionSet, root, undefined, new Set());
}
