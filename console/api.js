// The console's only way to the service: the public REST API and the SSE stream, with the token
// in sessionStorage (never in a URL: the stream is read with fetch and an Authorization header).
const KEY = 'gridops.console.token';

export const session = {
  get token() { return sessionStorage.getItem(KEY); },
  set token(t) { if (t) sessionStorage.setItem(KEY, t); else sessionStorage.removeItem(KEY); },
  /** tenant, role, username from the token's claims (display only: the server checks every call) */
  get claims() {
    const t = this.token;
    if (!t) return null;
    try { return JSON.parse(atob(t.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))); } catch { return null; }
  },
};

/** What a role may do (CONTRACT roles): actions a role may not take are not offered. */
export function may(action) {
  const role = session.claims?.role;
  if (role === 'admin') return true;
  if (role === 'operator') return ['write', 'compute', 'ack'].includes(action);
  return false;
}

export class ApiError extends Error {
  constructor(status, body) {
    const e = body?.error ?? {};
    super(e.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = e.code ?? 'HTTP_' + status;
    this.details = e.details;
  }
}

const HINTS = {
  UNAUTHORIZED: 'Your session is not valid any more: sign in again.',
  FORBIDDEN: 'Your role may not do this; ask an administrator.',
  RATE_LIMITED: 'Too many requests for now: wait a moment and try again.',
  NETWORK_LOCKED: 'The network is busy with another task: try again when it has finished.',
  POWERFLOW_DIVERGED: 'The power flow did not converge: check the loads and limits, or try another method.',
  OPF_INFEASIBLE: 'No dispatch meets the limits: relax a limit or add capacity.',
  VALIDATION_FAILED: 'The request or the model has a problem:',
  INVALID_FIELD: 'The request has a problem:',
  NOT_FOUND: 'It no longer exists (it may have been deleted).',
};

/** The error as a sentence a person can act on. */
export function sentence(err) {
  if (!(err instanceof ApiError)) return `The service could not be reached (${err?.message ?? err}). Check the connection and try again.`;
  const hint = HINTS[err.code];
  return hint ? `${hint} ${err.message}` : err.message;
}

export async function api(method, path, body, { raw = false, text = false, signal } = {}) {
  const headers = {};
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  let payload;
  if (body !== undefined) {
    if (text) { headers['content-type'] = 'text/plain'; payload = body; } else { headers['content-type'] = 'application/json'; payload = JSON.stringify(body); }
  }
  const r = await fetch(path, { method, headers, body: payload, signal });
  if (raw && r.ok) return r;
  const json = await r.json().catch(() => null);
  if (!r.ok) {
    if (r.status === 401) session.token = null;
    throw new ApiError(r.status, json);
  }
  return json;
}

/** Reads GET /api/v1/events/stream (SSE) with the token in a header; calls onEvent({topic, id, data}) per event
 *  until the signal aborts. Reconnects after 3 s when the stream ends. */
export async function listen(query, onEvent, signal) {
  while (!signal.aborted) {
    try {
      const r = await fetch(`/api/v1/events/stream?${new URLSearchParams(query)}`, {
        headers: { authorization: `Bearer ${session.token}`, accept: 'text/event-stream' }, signal,
      });
      if (!r.ok) throw new ApiError(r.status, await r.json().catch(() => null));
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let end;
        while ((end = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          let topic = 'message', id = null; const data = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) continue;
            const k = line.indexOf(':');
            const f = k < 0 ? line : line.slice(0, k), v = k < 0 ? '' : line.slice(k + 1).replace(/^ /, '');
            if (f === 'event') topic = v; else if (f === 'id') id = v; else if (f === 'data') data.push(v);
          }
          if (data.length === 0) continue;
          let parsed; try { parsed = JSON.parse(data.join('\n')); } catch { parsed = data.join('\n'); }
          onEvent({ topic, id, data: parsed });
        }
      }
    } catch (e) {
      if (signal.aborted) return;
      if (e instanceof ApiError && (e.status === 401 || e.status === 403)) return;
    }
    await new Promise((res) => setTimeout(res, 3000));
  }
}

/** A file download of an API answer (export, CSV), with the token in the header. */
export async function download(path, name) {
  const r = await api('GET', path, undefined, { raw: true });
  const url = URL.createObjectURL(await r.blob());
  const a = document.createElement('a');
  a.href = url; a.download = name; document.body.append(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
