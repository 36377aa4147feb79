// Parsing, validation (with the limits of SPEC 8.3), operation selection,
// complexity and execution with the 30 s timeout; shared by POST/GET /graphql
// and the graphql-ws transport.
import {
  execute, getOperationAST, getVariableValues, parse, specifiedRules, validate, GraphQLError,
  type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, type ValidationRule,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { aliasLimitRule, costOf, depthLimitRule, LIMITS, noIntrospectionRule } from './limits.js';
import { gqlError } from './errors.js';
import type { GqlContext } from './context.js';

export interface EngineOptions {
  introspection: boolean;
  timeoutMs: number;
  maxDepth?: number;
  maxComplexity?: number;
  maxAliases?: number;
}

export interface GraphqlRequest {
  query?: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface Prepared {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Record<string, unknown>;
  complexity: number;
}

const CACHE_SIZE = 1000;
const MAX_QUERY_LENGTH = 200_000;
/** The cache holds documents by their text: at most this many characters of text in all (#21: a fuzz of
 *  large random documents grew the heap by ~80 MB through 1,000 cached entries of up to 200 kB each, with
 *  their syntax trees and errors), and no document longer than CACHE_MAX_SOURCE (it is parsed each time). */
const CACHE_MAX_CHARS = 2_000_000;
const CACHE_MAX_SOURCE = 20_000;

export class GraphqlEngine {
  readonly rules: readonly ValidationRule[];
  readonly maxComplexity: number;
  // source -> parsed+validated document, or its errors (LRU; failed sources are
  // cached too, so a flood of one bad query costs one parse).
  private cache = new Map<string, { document?: DocumentNode; errors?: readonly GraphQLError[] }>();
  private cachedChars = 0;
  // Cached documents' operations compiled to plain functions (graphql-jit): graphql-js resolves every field of
  // every bus and branch of a result through its generic executor, which made runPowerFlow a third slower
  // than the REST door (issue 36). Keyed by the cached document, so a document's compilations leave with it.
  private compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  constructor(readonly schema: GraphQLSchema, readonly opts: EngineOptions) {
    this.rules = [
      ...specifiedRules,
      depthLimitRule(opts.maxDepth ?? LIMITS.depth),
      aliasLimitRule(opts.maxAliases ?? LIMITS.aliases),
      ...(opts.introspection ? [] : [noIntrospectionRule]),
    ];
    this.maxComplexity = opts.maxComplexity ?? LIMITS.complexity;
  }

  /** Parses and validates a document (cached by source text). */
  document(source: string): { document?: DocumentNode; errors?: readonly GraphQLError[] } {
    const hit = this.cache.get(source);
    if (hit) {
      this.cache.delete(source);
      this.cache.set(source, hit);
      return hit;
    }
    let entry: { document?: DocumentNode; errors?: readonly GraphQLError[] };
    if (source.length > MAX_QUERY_LENGTH) {
      entry = { errors: [gqlError('VALIDATION_FAILED', `the query text is longer than ${MAX_QUERY_LENGTH} characters`, { reason: 'QUERY_TOO_LONG' })] };
    } else {
      try {
        const document = parse(source, { maxTokens: 20_000 });
        const errors = validate(this.schema, document, this.rules, { maxErrors: 50 });
        entry = errors.length > 0 ? { errors } : { document };
      } catch (e) {
        entry = { errors: [e instanceof GraphQLError ? e : gqlError('VALIDATION_FAILED', String(e))] };
      }
    }
    if (source.length > CACHE_MAX_SOURCE) return entry;
    this.cache.set(source, entry);
    this.cachedChars += source.length;
    while (this.cache.size > CACHE_SIZE || this.cachedChars > CACHE_MAX_CHARS) {
      const oldest = this.cache.keys().next().value!;
      this.cache.delete(oldest);
      this.cachedChars -= oldest.length;
    }
    return entry;
  }

  /**
   * Everything before execution: document, operation, variables, complexity.
   * allowed: which operation types this transport runs.
   */
  prepare(req: GraphqlRequest, allowed: ReadonlySet<'query' | 'mutation' | 'subscription'>): Prepared | { errors: readonly GraphQLError[] } {
    if (typeof req.query !== 'string' || req.query.trim() === '') {
      return { errors: [gqlError('VALIDATION_FAILED', 'the request has no query (send {"query": "...", "variables": {...}})', { reason: 'MISSING_QUERY' })] };
    }
    if (req.variables !== undefined && req.variables !== null && (typeof req.variables !== 'object' || Array.isArray(req.variables))) {
      return { errors: [gqlError('VALIDATION_FAILED', 'variables must be a JSON object', { reason: 'INVALID_VARIABLES' })] };
    }
    const { document, errors } = this.document(req.query);
    if (!document) return { errors: errors! };
    const operation = getOperationAST(document, req.operationName ?? undefined);
    if (!operation) {
      const msg = req.operationName ? `no operation named "${req.operationName}" in the document` : 'the document holds several operations; send operationName';
      return { errors: [gqlError('VALIDATION_FAILED', msg, { reason: 'OPERATION_NOT_FOUND' })] };
    }
    if (!allowed.has(operation.operation)) {
      const why = operation.operation === 'subscription'
        ? 'subscriptions run over the graphql-ws WebSocket protocol at /graphql (subprotocol graphql-transport-ws)'
        : `${operation.operation} operations are not allowed here (GET runs queries only; use POST)`;
      return { errors: [gqlError('VALIDATION_FAILED', why, { reason: 'OPERATION_NOT_ALLOWED', operation: operation.operation }, operation)] };
    }
    let variables: Record<string, unknown> = {};
    if (operation.variableDefinitions && operation.variableDefinitions.length > 0) {
      const coerced = getVariableValues(this.schema, operation.variableDefinitions, req.variables ?? {}, { maxErrors: 50 });
      if (coerced.errors) return { errors: coerced.errors };
      variables = coerced.coerced;
    }
    const { complexity, points, longList } = costOf(this.schema, document, operation, variables);
    if (longList) {
      return {
        errors: [
          gqlError(
            'QUERY_TOO_COMPLEX',
            `${longList.field}(${longList.argument}: ...) holds ${longList.length} entries; at most ${LIMITS.listArgument} are allowed (split the request)`,
            {
              reason: 'LIST_TOO_LONG',
              field: longList.field,
              argument: longList.argument,
              got: longList.length,
              limit: LIMITS.listArgument,
            },
            operation,
          ),
        ],
      };
    }
    if (complexity > this.maxComplexity) {
      return {
        errors: [
          gqlError(
            'QUERY_TOO_COMPLEX',
            `query complexity ${complexity} exceeds the limit of ${this.maxComplexity} (every field counts 1; a list multiplies ` +
              `what it selects by its pageSize, its list argument's length, its points limit / 1000, or by 10)`,
            { complexity, limit: this.maxComplexity },
            operation,
          ),
        ],
      };
    }
    if (points > LIMITS.points) {
      return {
        errors: [
          gqlError(
            'QUERY_TOO_COMPLEX',
            `the operation asks for ${points} time-series points in all (the sum of the limits, 10000 each by default); at most ` +
              `${LIMITS.points} per request: lower limit or split the request`,
            { reason: 'POINT_BUDGET', points, limit: LIMITS.points },
            operation,
          ),
        ],
      };
    }
    return { document, operation, variables, complexity };
  }

  /** Executes a prepared query or mutation within the timeout; partial data is dropped on timeout. */
  execute(p: Prepared, req: GraphqlRequest, ctx: GqlContext): Promise<ExecutionResult> {
    const args = {
      schema: this.schema, document: p.document, contextValue: ctx, variableValues: req.variables ?? {}, operationName: req.operationName ?? undefined,
    };
    const jit = this.compiledFor(p.document, args.operationName);
    return this.executeArgs(args, jit);
  }

  /** The compiled operation of a cached document (null: graphql-jit declined it, graphql-js runs it). */
  private compiledFor(document: DocumentNode, operationName: string | undefined): CompiledQuery | undefined {
    let byName = this.compiled.get(document);
    if (!byName) this.compiled.set(document, (byName = new Map()));
    const key = operationName ?? '';
    let c = byName.get(key);
    if (c === undefined) {
      const out = compileQuery(this.schema, document, operationName);
      c = isCompiledQuery(out) ? out : null;
      byName.set(key, c);
    }
    return c ?? undefined;
  }

  /** graphql-js execute raced against the operation timeout (SPEC 8.3). */
  async executeArgs(args: ExecutionArgs, jit?: CompiledQuery): Promise<ExecutionResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.opts.timeoutMs);
    });
    try {
      const run = jit ? jit.query(args.rootValue, args.contextValue, args.variableValues) : execute(args);
      const out = await Promise.race([run, timeout]);
      if (out === 'timeout') {
        // The resolvers still running finish in the background; their results are dropped.
        Promise.resolve(run).catch(() => {});
        return {
          data: null,
          errors: [
            gqlError('INTERNAL_ERROR', `the operation did not finish within the ${this.opts.timeoutMs / 1000} s limit`, {
              reason: 'QUERY_TIMEOUT',
              timeout_ms: this.opts.timeoutMs,
            }),
          ],
        };
      }
      return out;
    } finally {
      clearTimeout(timer);
    }
  }
}
