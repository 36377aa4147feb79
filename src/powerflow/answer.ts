// A synchronous power flow's answer. A case13659pegase result is ~6 MB of JSON: one JSON.stringify of it holds the
// event loop ~80 ms (two at once, twice that, /health and every tenant waiting). Above SLICED_ANSWER_ELEMENTS buses,
// branches and generators the same bytes are written in slices with a turn of the event loop between them; smaller
// answers keep reply.ok (one call, no stream), the path a case118 power flow takes.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { renderDates } from '../lib/time.js';
import { inSlices, jsonPieces } from '../lib/slices.js';

/** Buses + branches + generators above which the answer is sliced (~1.6 MB of JSON, ~20 ms of one stringify). */
export const SLICED_ANSWER_ELEMENTS = 10_000;

/** The records a result carries (a failed or diverged one carries none). */
export function answerElements(result: Record<string, unknown>): number {
  const n = (k: string) => (Array.isArray(result[k]) ? (result[k] as unknown[]).length : 0);
  return n('buses') + n('branches') + n('generators');
}

/** reply.ok(result)'s envelope, byte for byte (UTC dates), as text pieces written in slices. */
export function slicedEnvelope(data: Record<string, unknown>, requestId: string): AsyncGenerator<string> {
  const envelope = { data, request_id: requestId, timestamp: new Date().toISOString() };
  // The records are numbers; renderDates of a leaf is what reply.ok does to a Date outside them.
  return inSlices(jsonPieces(envelope, (v) => renderDates(v)));
}

/** Sends a power-flow result: sliced when large, else as reply.ok does. */
export function sendPowerFlowResult(reply: FastifyReply, result: Record<string, unknown>): FastifyReply {
  const req = reply.request;
  // A deprecated endpoint's meta is added to a string body (versioning.ts), and ?tz= renders dates in a zone
  // (envelope.ts): those answers stay one string.
  if (answerElements(result) <= SLICED_ANSWER_ELEMENTS || req.deprecation || req.displayTz) return reply.ok(result);
  return reply.type('application/json; charset=utf-8').send(Readable.from(slicedEnvelope(result, req.id)));
}
