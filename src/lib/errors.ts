// The error codes of SPEC section 7.2 and the one error type every layer throws.
// Routes and domain functions throw AppError; the envelope plugin renders the
// REST error body (7.1), GraphQL renders extensions.code (7.3).

export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_FIELD: 400,
  INVALID_FORMAT: 400,
  UNAUTHORIZED: 401,
  TOKEN_EXPIRED: 401,
  CERT_INVALID: 401,
  CERT_EXPIRED: 401,
  FORBIDDEN: 403,
  TENANT_MISMATCH: 403,
  IP_BLOCKED: 403,
  AUDIT_REQUIRED: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  CONSTRAINT_VIOLATION: 409,
  POWERFLOW_DIVERGED: 409,
  OPF_INFEASIBLE: 409,
  NETWORK_LOCKED: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  VALIDATION_FAILED: 422,
  TOPOLOGY_INVALID: 422,
  PARAM_OUT_OF_RANGE: 422,
  AGENT_BUSY: 422,
  BUS_NOT_FOUND: 422,
  BRANCH_NOT_FOUND: 422,
  ISLANDED_BUS: 422,
  VOLTAGE_OUT_OF_LIMIT: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  NOT_IMPLEMENTED: 501,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly statusCode: number;
  constructor(
    public readonly code: ErrorCode,
    message: string,
    public readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'AppError';
    this.statusCode = ERROR_STATUS[code];
  }
}

export const notFound = (kind: string, id: string) => new AppError('NOT_FOUND', `${kind} ${id} does not exist`, { resource: kind, id });
