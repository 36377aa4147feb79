// What a WebSocket connection's error is logged as. A frame over the size limit, invalid
// UTF-8 or a bad close code is the client's mistake: `ws` closes the connection (1009, 1007,
// 1002) and emits the error. Such errors are a warning without a stack, once per connection,
// so no client can fill the error log; anything else is the server's and keeps its stack (#21).
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';

const CLIENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
const reported = new WeakSet<WebSocket>();

/** A socket error that the client caused (ws protocol errors, a peer gone). */
export function clientSocketError(err: unknown): boolean {
  const code = String((err as { code?: unknown } | undefined)?.code ?? '');
  return code.startsWith('WS_ERR_') || CLIENT_CODES.has(code);
}

/** errorHandler of @fastify/websocket: log once per connection at the level the cause deserves, then end it. */
export function websocketErrorHandler(err: Error, socket: WebSocket, request: FastifyRequest): void {
  if (!reported.has(socket)) {
    reported.add(socket);
    if (clientSocketError(err))
      request.log.warn({ code: (err as { code?: string }).code, reason: err.message }, 'WebSocket connection closed on a client error');
    else request.log.error({ err }, 'WebSocket connection failed');
  }
  socket.terminate();
}
