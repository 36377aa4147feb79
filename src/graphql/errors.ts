// GraphQL errors of SPEC 7.3: every error carries extensions {code, trace_id,
// details}. Domain errors (AppError, REST codes of 7.2) are mapped onto the
// GraphQL code set; the original code stays in details.reason.
import { GraphQLError, type ASTNode, type GraphQLFormattedError } from 'graphql';
import { serviceUnavailable, unavailableDependency } from '../lib/unavailable.js';
import { dataExceptionError, isDataException } from '../lib/callerText.js';
import type { FastifyBaseLogger } from 'fastify';
import { AppError, type ErrorCode } from '../lib/errors.js';

export type GqlCode =
  | 'UNAUTHENTICATED' | 'FORBIDDEN' | 'NOT_FOUND' | 'VALIDATION_FAILED' | 'CONSTRAINT_VIOLATION' | 'RATE_LIMITED'
  | 'QUERY_TOO_COMPLEX' | 'QUERY_TOO_DEEP' | 'INTERNAL_ERROR' | 'POWERFLOW_DIVERGED'
  // Apollo automatic persisted queries: clients look for these two.
  | 'PERSISTED_QUERY_NOT_FOUND' | 'PERSISTED_QUERY_NOT_SUPPORTED';

const MAP: Partial<Record<ErrorCode, GqlCode>> = {
  UNAUTHORIZED: 'UNAUTHENTICATED',
  TOKEN_EXPIRED: 'UNAUTHENTICATED',
  CERT_INVALID: 'UNAUTHENTICATED',
  CERT_EXPIRED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  TENANT_MISMATCH: 'FORBIDDEN',
  IP_BLOCKED: 'FORBIDDEN',
  AUDIT_REQUIRED: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  INVALID_REQUEST: 'VALIDATION_FAILED',
  INVALID_FIELD: 'VALIDATION_FAILED',
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  TOPOLOGY_INVALID: 'VALIDATION_FAILED',
  PARAM_OUT_OF_RANGE: 'VALIDATION_FAILED',
  BUS_NOT_FOUND: 'VALIDATION_FAILED',
  BRANCH_NOT_FOUND: 'VALIDATION_FAILED',
  ISLANDED_BUS: 'VALIDATION_FAILED',
  VOLTAGE_OUT_OF_LIMIT: 'VALIDATION_FAILED',
  PAYLOAD_TOO_LARGE: 'VALIDATION_FAILED',
  UNSUPPORTED_MEDIA_TYPE: 'VALIDATION_FAILED',
  METHOD_NOT_ALLOWED: 'VALIDATION_FAILED',
  // State conflicts are business-rule refusals: the request is valid GraphQL but
  // cannot be done now (locked network, busy agent, quota reached, wrong state).
  CONFLICT: 'VALIDATION_FAILED',
  NETWORK_LOCKED: 'VALIDATION_FAILED',
  AGENT_BUSY: 'VALIDATION_FAILED',
  CONSTRAINT_VIOLATION: 'CONSTRAINT_VIOLATION',
  RATE_LIMITED: 'RATE_LIMITED',
  POWERFLOW_DIVERGED: 'POWERFLOW_DIVERGED',
  OPF_INFEASIBLE: 'VALIDATION_FAILED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
  NOT_IMPLEMENTED: 'VALIDATION_FAILED', // a request for what this version cannot do (AC-OPF): the message says what it can
  BAD_GATEWAY: 'INTERNAL_ERROR',
  SERVICE_UNAVAILABLE: 'INTERNAL_ERROR',
  GATEWAY_TIMEOUT: 'INTERNAL_ERROR',
  GONE: 'INTERNAL_ERROR',
};

export function gqlCodeOf(code: string): GqlCode {
  return MAP[code as ErrorCode] ?? (isGqlCode(code) ? code : 'INTERNAL_ERROR');
}

const GQL_CODES = new Set<string>([
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'VALIDATION_FAILED',
  'CONSTRAINT_VIOLATION',
  'RATE_LIMITED',
  'QUERY_TOO_COMPLEX',
  'QUERY_TOO_DEEP',
  'INTERNAL_ERROR',
  'POWERFLOW_DIVERGED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);
function isGqlCode(c: string): c is GqlCode {
  return GQL_CODES.has(c);
}

/** A GraphQL error with our extensions, for request-level failures (no path). */
export function gqlError(code: GqlCode, message: string, details: Record<string, unknown> = {}, nodes?: ASTNode | readonly ASTNode[]): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { code, details } });
}

export interface FormatOptions {
  traceId: string;
  log?: FastifyBaseLogger;
  production?: boolean;
}

/** Error object of SPEC 7.3: message, locations, path, extensions {code, trace_id, details}. */
export function formatError(err: GraphQLError, o: FormatOptions): GraphQLFormattedError {
  const original = err.originalError;
  let code: GqlCode;
  let message = err.message;
  let details: Record<string, unknown> = {};
  if (original instanceof AppError) {
    code = gqlCodeOf(original.code);
    details = { ...(original.details ?? {}) };
    if (code !== original.code) details.reason = original.code;
    if (original.statusCode >= 500) o.log?.error({ err: original, path: err.path }, 'graphql field failed');
  } else if (original && (original as GraphQLError).extensions?.code && original instanceof GraphQLError) {
    code = gqlCodeOf(String(original.extensions.code));
    details = (original.extensions.details as Record<string, unknown>) ?? {};
  } else if (typeof err.extensions?.code === 'string') {
    code = gqlCodeOf(err.extensions.code);
    details = (err.extensions.details as Record<string, unknown>) ?? {};
  } else if (original && !(original instanceof GraphQLError) && unavailableDependency(original)) {
    // PostgreSQL or Redis away: SPEC 7.3 has no 503 code; the reason says it and the client may retry.
    const e = serviceUnavailable(unavailableDependency(original)!);
    code = 'INTERNAL_ERROR';
    message = e.message;
    details = { ...e.details, reason: e.code };
  } else if (original && !(original instanceof GraphQLError) && isDataException(original)) {
    // The database refused a value the caller sent (SQLSTATE class 22): the caller's mistake, a warning.
    const e = dataExceptionError(original);
    const sqlstate = (original as { code?: string }).code;
    o.log?.warn({ sqlstate, reason: original.message, path: err.path }, 'the database refused a value of the request');
    code = 'VALIDATION_FAILED';
    message = e.message;
    details = { ...e.details, reason: e.code };
  } else if (original && !(original instanceof GraphQLError)) {
    // Uncaught core error: log it, tell the client only that it happened.
    o.log?.error({ err: original, path: err.path }, 'graphql resolver failed');
    code = 'INTERNAL_ERROR';
    message = 'internal error; the trace id identifies it in the logs';
  } else {
    // graphql-js parse / validation / variable coercion errors.
    code = 'VALIDATION_FAILED';
    details = { reason: err.message.startsWith('Syntax Error') ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED' };
  }
  const out: GraphQLFormattedError = {
    message,
    ...(err.locations ? { locations: err.locations } : {}),
    ...(err.path ? { path: err.path } : {}),
    extensions: { code, trace_id: o.traceId, details },
  };
  return out;
}

export function toGraphQLError(e: unknown): GraphQLError {
  if (e instanceof GraphQLError) return e;
  const err = e instanceof Error ? e : new Error(String(e));
  return new GraphQLError(err.message, { originalError: err });
}
