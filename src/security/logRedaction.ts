// What the request log may say about a request. Credentials travel in query
// parameters (?token= on SSE and /ws, where browsers cannot set headers) and in
// headers; neither may reach the log, whatever the log level (issue #11, finding 5).
// Client request ids are accepted only when short and plain (finding 8).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const REDACTED = '[redacted]';

/** Query parameters that carry a credential, lower case with '-' as '_'. */
const SECRET_PARAMS = new Set([
  'token', 'access_token', 'refresh_token', 'id_token', 'jwt', 'bearer', 'auth', 'authorization',
  'api_key', 'apikey', 'key', 'x_api_key', 'secret', 'client_secret', 'password', 'passwd', 'pwd',
  'code', 'signature', 'sig', 'session', 'sessionid', 'cookie', 'ticket',
]);
const SECRET_SUFFIXES = ['_token', '_key', '_secret', '_password'];

function isSecretParam(raw: string): boolean {
  let name = raw;
  try {
    name = decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    /* undecodable: judge the raw spelling */
  }
  name = name.trim().toLowerCase().replaceAll('-', '_');
  return SECRET_PARAMS.has(name) || SECRET_SUFFIXES.some((s) => name.endsWith(s));
}

/** The URL with the value of every credential-carrying query parameter replaced by [redacted]. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const hash = url.indexOf('#', q);
  const query = hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash);
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const name = eq < 0 ? part : part.slice(0, eq);
    return eq >= 0 && isSecretParam(name) ? `${name}=${REDACTED}` : part;
  });
  return `${url.slice(0, q + 1)}${parts.join('&')}${hash < 0 ? '' : url.slice(hash)}`;
}

/** Headers never written to the log, in any serializer (pino redact paths use them too). */
export const SECRET_HEADERS = ['authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie', 'sec-websocket-protocol'] as const;

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

/** Pino serializers for the request log: Fastify's fields, the URL redacted, no headers at all. */
export const logSerializers = {
  req(req: LoggedRequest) {
    return {
      method: req.method,
      url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
      version: req.headers?.['accept-version'],
      host: req.host,
      remoteAddress: req.ip,
      remotePort: req.socket?.remotePort,
    };
  },
};

/** Pino redact paths: credential headers wherever a log call passes headers along. */
export const logRedactPaths = SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `headers["${h}"]`, `request.headers["${h}"]`]);

// ---------------------------------------------------------------- request ids

export const REQUEST_ID_MAX = 128;

/** A client id is kept only if it is 1-128 characters of A-Z a-z 0-9 . _ : - (no regex: plain scan). */
export function isPlainRequestId(v: unknown): v is string {
  if (typeof v !== 'string' || v.length === 0 || v.length > REQUEST_ID_MAX) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 58 || c === 45;
    if (!ok) return false;
  }
  return true;
}

/** Fastify genReqId: the client's X-Request-Id when plain, else a fresh UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const v = req.headers['x-request-id'];
  return isPlainRequestId(v) ? v : randomUUID();
}
