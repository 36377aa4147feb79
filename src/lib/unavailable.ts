// Recognises errors that mean "a store this process depends on is away" (PostgreSQL
// restarting, Redis unreachable), so every door answers them as SPEC's 503
// SERVICE_UNAVAILABLE with Retry-After instead of a 500, and the queue can wait for
// the store to return instead of failing the task (docs/reliability.md).
import { AppError } from './errors.js';

export type Dependency = 'database' | 'redis';

/** Seconds a client is told to wait (Retry-After) before trying again. */
export const RETRY_AFTER_S = 5;

// PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01–57P03 (the server is shutting
// down, crashed or is starting), 53300 (too many connections).
const PG_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTCONN', 'EAI_AGAIN']);
const PG_MESSAGES = new RegExp(
  '^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error' +
    '|Client was closed and is not queryable|Cannot use a pool after calling end)',
);
const REDIS_MESSAGES = /^(Connection is closed|Stream isn't writeable|Reached the max retries per request limit|the queue \(Redis\) is unavailable)/;

/** Which store an error says is unavailable, or undefined for any other error. */
export function unavailableDependency(err: unknown): Dependency | undefined {
  if (!err || typeof err !== 'object') return undefined;
  const e = err as { name?: string; code?: unknown; message?: string; cause?: unknown; errors?: unknown[] };
  const message = typeof e.message === 'string' ? e.message : '';
  if (e.name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.test(message)) return 'redis';
  if (typeof e.code === 'string' && PG_UNAVAILABLE.test(e.code)) return 'database';
  if (PG_MESSAGES.test(message)) return 'database';
  // Raw socket errors reach callers from pg (ioredis wraps its own in the errors above).
  if (typeof e.code === 'string' && NET_CODES.has(e.code)) return 'database';
  // AggregateError (connect to several addresses) and wrapped causes.
  if (Array.isArray(e.errors)) for (const inner of e.errors) { const d = unavailableDependency(inner); if (d) return d; }
  if (e.cause && e.cause !== err) return unavailableDependency(e.cause);
  return undefined;
}

const WHAT: Record<Dependency, string> = {
  database: 'the database (PostgreSQL) is unavailable',
  redis: 'the queue and event bus (Redis) are unavailable',
};

/** The 503 a client sees for an unavailable store. */
export function serviceUnavailable(dep: Dependency, doing?: string): AppError {
  return new AppError('SERVICE_UNAVAILABLE',
    `${WHAT[dep]}${doing ? ` while ${doing}` : ''}; gridops reconnects on its own: retry in ${RETRY_AFTER_S} seconds`,
    { dependency: dep, retry_after_s: RETRY_AFTER_S });
}
