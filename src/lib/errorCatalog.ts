// The one list of error codes with what each means, why it happens and what to do: the
// errors page (/docs/errors, src/plugins/app/docsPages.ts) is generated from it and every
// REST error body's doc_url points to its entry. A Record over ErrorCode: a code added to
// ERROR_STATUS without an entry here does not compile.
import { ERROR_STATUS, type ErrorCode } from './errors.js';

export interface ErrorHelp {
  cause: string;
  fix: string;
}

export const ERROR_HELP: Record<ErrorCode, ErrorHelp> = {
  INVALID_REQUEST: {
    cause: 'The request cannot be read: malformed JSON, an empty JSON body, a required field missing, an unknown field.',
    fix: 'Correct the body or query as the message says (it names the field); the OpenAPI document at /api/v1/openapi.json lists every field.',
  },
  INVALID_FIELD: {
    cause: 'A value has the wrong type or format, or is not one of the allowed values (an enum, a sort field, a time zone, a cursor).',
    fix: 'Use one of the values the message lists (details.allowed when there is a list).',
  },
  INVALID_FORMAT: {
    cause:
      'An imported file (PSS/E RAW or RAWX) is not well formed: details.line and details.record say where, details.expected what was wanted there.',
    fix: 'Correct the file at that line (or ask its author for a clean export); revisions 29 to 35 and RAWX are read.',
  },
  UNAUTHORIZED: {
    cause: 'No credentials, or a token or API key that is not valid (bad signature, revoked, unknown).',
    fix: 'Log in with POST /api/v1/auth/token and send Authorization: Bearer <token>, or a valid X-API-Key.',
  },
  TOKEN_EXPIRED: {
    cause: 'The access token is past its expiry (default validity 3600 s).',
    fix: 'Get a new one with POST /api/v1/auth/refresh {refresh_token} (each refresh token works once) or log in again.',
  },
  CERT_INVALID: {
    cause:
      "The client certificate is not signed by the configured CA, or it is not in the deployment's certificate map " +
        "(TLS_CLIENT_MAP; details.reason CERT_NOT_MAPPED).",
    fix: "Use a certificate issued by the deployment's CA and ask its operator to map its CN or fingerprint to a tenant and role (docs/security.md).",
  },
  CERT_EXPIRED: {
    cause: 'The client certificate is past its validity.',
    fix: 'Renew the certificate (an X-Client-Cert-Warning header announces expiry 30 days ahead).',
  },
  FORBIDDEN: {
    cause: "The caller's role lacks the permission the operation needs (details.permission).",
    fix: 'Ask an admin for a role with that permission (docs/security.md lists which role has which).',
  },
  TENANT_MISMATCH: {
    cause: "X-Tenant-Id names another tenant than the token's, without cross-tenant permission.",
    fix: 'Drop the X-Tenant-Id header, or use credentials of that tenant.',
  },
  IP_BLOCKED: {
    cause: "The client address is on the deployment's block list (BLOCKED_IPS).",
    fix: 'Call from another address, or ask the operator of the deployment.',
  },
  AUDIT_REQUIRED: {
    cause: 'The audit trail cannot be written right now, so changes are refused (reads still work).',
    fix: 'Retry after details.retry_after seconds; operators: check the database.',
  },
  NOT_FOUND: {
    cause: "No such endpoint, or no such resource in the caller's tenant (another tenant's resources look absent).",
    fix: 'Check the id and the path; list the resources (GET /api/v1/networks, /tasks, …).',
  },
  METHOD_NOT_ALLOWED: { cause: 'The path exists but not with this method.', fix: 'Use a method from the Allow header.' },
  CONFLICT: {
    cause:
      'The resource is in a state that does not allow this (a finished task cancelled again, a draft network solved, a quota ' +
        'reached, a task without a solved case exported).',
    fix: 'Read the message: it says the state and what changes it.',
  },
  CONSTRAINT_VIOLATION: {
    cause: 'A command would violate a safety constraint (details may carry branch_id, loading, limit).',
    fix: 'Change the command so the constraint holds, or resolve the overload first.',
  },
  POWERFLOW_DIVERGED: {
    cause: 'The power flow did not converge within max_iterations (details: iterations, mismatch, tolerance).',
    fix: 'Raise max_iterations, try flat_start or another method, or check the model (voltage set points, loads far beyond generation).',
  },
  OPF_INFEASIBLE: {
    cause:
      'The optimal power flow has no solution within the limits (details.binding names the limits that bind: generator Pmax/Pmin, ' +
        'branch flow or angle, total generation).',
    fix: 'Relax the named limits (raise a Pmax or rate_a, lower the load) or check the costs and limits imported with the case; docs/opf.md.',
  },
  NETWORK_LOCKED: {
    cause: 'A power flow on the network is running; the network cannot change meanwhile.',
    fix: 'Wait until the task finishes (GET /api/v1/tasks?network_id=… shows it), then retry.',
  },
  GONE: {
    cause: 'The endpoint has been removed from this API version (details: removed_at, successor).',
    fix: 'Use the successor named in details.successor (docs/versioning.md).',
  },
  PAYLOAD_TOO_LARGE: {
    cause: 'The body is above the limit: 1 MB, or IMPORT_BODY_LIMIT (16 MiB) for MATPOWER import.',
    fix: 'Send less per request (batch endpoints take several calls); import large cases with POST /api/v1/networks/import.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    cause: 'The Content-Type is not one the endpoint takes.',
    fix: 'Send what the message names: application/json, or the .m file as text/plain / multipart upload on the import endpoint.',
  },
  VALIDATION_FAILED: {
    cause:
      'The request is well formed but breaks a business rule (duplicate bus ids, zero impedance, a malformed MATPOWER file with its line, too many entries).',
    fix: 'Correct the data at the place the message names (details.line, details.field).',
  },
  TOPOLOGY_INVALID: {
    cause: 'The network cannot be solved as given: no slack bus, a branch from a bus to itself, an island without a slack.',
    fix: 'Add a slack bus or connect the island; POST /api/v1/networks/{id}/validate lists the problems.',
  },
  PARAM_OUT_OF_RANGE: {
    cause: 'A number is outside its bounds (page_size above 100, max_iterations below 1, tolerance not positive, an expiry too far).',
    fix: 'Use a value inside the bounds the message gives (details.limit).',
  },
  AGENT_BUSY: { cause: 'The agent is executing another command.', fix: 'Retry after it finishes, or send with a higher priority.' },
  BUS_NOT_FOUND: {
    cause: 'A branch, generator, load or command names a bus the network does not have (details.bus).',
    fix: 'Use a bus id of the network (GET /api/v1/networks/{id}).',
  },
  BRANCH_NOT_FOUND: {
    cause: 'A command names a branch the network does not have.',
    fix: 'Name the branch by its 0-based index or an existing from/to pair.',
  },
  ISLANDED_BUS: {
    cause: 'Buses are not connected to any slack through closed branches (details.buses).',
    fix: 'Close a branch to them, make them isolated (type 4), or add a slack in their island.',
  },
  VOLTAGE_OUT_OF_LIMIT: { cause: 'A voltage would leave its bus limits (vmin/vmax).', fix: 'Adjust set points or the limits.' },
  RATE_LIMITED: {
    cause:
      'A rate-limit layer refused the request (details.scope: ip, tenant, user or endpoint; details.limit per details.window_seconds).',
    fix: "Wait Retry-After seconds. For a load test, read /docs/load-testing: an admin can raise or lift a tenant's limits for a " +
      "while (PUT /api/v1/admin/tenants/{id}/rate-limits).",
  },
  INTERNAL_ERROR: {
    cause: 'An unexpected failure inside the service.',
    fix: 'Retry; if it persists, report the request_id and trace_id (they identify the failure in the logs).',
  },
  NOT_IMPLEMENTED: {
    cause: 'The endpoint exists in the specification but not in this deployment.',
    fix: 'Use another endpoint or a later version.',
  },
  BAD_GATEWAY: {
    cause: 'A service this one depends on answered with an error.',
    fix: 'Retry later; operators: check the dependencies (PostgreSQL, Redis).',
  },
  SERVICE_UNAVAILABLE: {
    cause: 'The service is overloaded, starting, stopping or in maintenance, or a dependency is away.',
    fix: 'Retry after the Retry-After header (if any); GET /api/v1/health shows which check fails.',
  },
  GATEWAY_TIMEOUT: {
    cause: 'The operation did not finish in time (a synchronous power flow beyond timeout_ms; details.task_id).',
    fix: 'Use "async": true and poll the task, or raise timeout_ms.',
  },
};

/** GraphQL-only codes (SPEC 7.3), beside the REST ones GraphQL maps onto its set. */
export const GRAPHQL_ERROR_HELP: Record<string, ErrorHelp> = {
  UNAUTHENTICATED: {
    cause: "GraphQL's code for UNAUTHORIZED, TOKEN_EXPIRED, CERT_INVALID and CERT_EXPIRED (details.reason says which).",
    fix: 'As for those: log in, refresh the token, renew the certificate.',
  },
  QUERY_TOO_COMPLEX: {
    cause:
      "The query's complexity is above 1000 (every field 1, lists multiplied by their page size), a list argument has more than 20 " +
        "entries (details.reason LIST_TOO_LONG), or its time-series limits add up to more than 100,000 points (POINT_BUDGET).",
    fix: 'Select fewer fields or smaller pages, fewer queries per timeseriesMulti, smaller limits; split the query.',
  },
  QUERY_TOO_DEEP: {
    cause: 'The query nests deeper than 7 levels.',
    fix: 'Flatten it: query the nested objects by id in a second request.',
  },
  PERSISTED_QUERY_NOT_FOUND: {
    cause: 'A persisted-query hash the service does not know yet.',
    fix: 'Send the query text once with the hash (the client does this by itself).',
  },
  PERSISTED_QUERY_NOT_SUPPORTED: {
    cause: 'The persisted-query extension was sent in a form this service does not take.',
    fix: 'Send version 1 with a sha256Hash.',
  },
};

/** Path of the errors page and the anchor of a code in it. */
export const ERRORS_PAGE = '/docs/errors';
export const errorAnchor = (code: string) => code.toLowerCase();

export function errorsPageHtml(): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  const entry = (code: string, status: string, h: ErrorHelp) =>
    `<section id="${errorAnchor(code)}"><h3><a href="#${errorAnchor(code)}">${code}</a> ` +
      `<small>${status}</small></h3>\n<p><b>Cause.</b> ${esc(h.cause)}</p>\n<p><b>Fix.</b> ${esc(h.fix)}</p></section>`;
  const rest = (Object.keys(ERROR_HELP) as ErrorCode[]).map((c) => entry(c, `HTTP ${ERROR_STATUS[c]}`, ERROR_HELP[c]));
  const gql = Object.entries(GRAPHQL_ERROR_HELP).map(([c, h]) => entry(c, 'GraphQL', h));
  const style =
    'body{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;line-height:1.45}h3{margin-bottom:.2rem}' +
    'small{color:#666;font-weight:normal}section{border-bottom:1px solid #eee;padding-bottom:.5rem}:target{background:#fff8d6}';
  const intro =
    '<p>Every REST error body is <code>{"error": {"code", "message", "details", "trace_id", "doc_url"}, "request_id"}</code>; ' +
    '<code>doc_url</code> points to the entry below. GraphQL errors carry the code in <code>extensions.code</code> ' +
    "(REST codes are mapped onto GraphQL's set; the original is in <code>extensions.details.reason</code>).</p>";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>gridops error codes</title>
<style>${style}</style></head>
<body><h1>gridops error codes</h1>
${intro}
<h2>REST</h2>
${rest.join('\n')}
<h2>GraphQL only</h2>
${gql.join('\n')}
</body></html>
`;
}
