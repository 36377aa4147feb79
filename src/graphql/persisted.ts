// Automatic persisted queries (Apollo APQ semantics), request extension
// {"persistedQuery": {"version": 1, "sha256Hash": "<hex>"}}:
//   hash only, known      -> runs the stored query
//   hash only, unknown    -> error PERSISTED_QUERY_NOT_FOUND (client resends with the query)
//   hash + query          -> checks sha256(query) == hash, stores it, runs it
//   version other than 1  -> error PERSISTED_QUERY_NOT_SUPPORTED
// Stored in a per-process LRU and, with REDIS_URL, in Redis (shared by every API
// process, 30 days since last registration).
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { gqlError } from './errors.js';

const LRU_SIZE = 2000;
const REDIS_TTL_SECONDS = 30 * 24 * 3600;
const MAX_QUERY_BYTES = 100_000;

export class PersistedQueries {
  private lru = new Map<string, string>();
  private redis?: Redis;

  constructor(redisUrl: string | undefined, private readonly prefix: string, private readonly log: Logger) {
    if (redisUrl) {
      this.redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true, enableOfflineQueue: true });
      this.redis.on('error', (err) => this.log.debug({ err }, 'persisted-query redis error'));
    }
  }

  private key(hash: string) {
    return `${this.prefix}:gql:apq:${hash}`;
  }

  private remember(hash: string, query: string) {
    this.lru.delete(hash);
    this.lru.set(hash, query);
    while (this.lru.size > LRU_SIZE) this.lru.delete(this.lru.keys().next().value!);
  }

  async get(hash: string): Promise<string | undefined> {
    const q = this.lru.get(hash);
    if (q !== undefined) {
      this.remember(hash, q);
      return q;
    }
    if (this.redis) {
      try {
        const r = await this.redis.get(this.key(hash));
        if (r !== null) {
          this.remember(hash, r);
          return r;
        }
      } catch (err) {
        this.log.warn({ err }, 'persisted-query lookup in Redis failed; using the local cache only');
      }
    }
    return undefined;
  }

  async set(hash: string, query: string): Promise<void> {
    this.remember(hash, query);
    if (this.redis) {
      try {
        await this.redis.set(this.key(hash), query, 'EX', REDIS_TTL_SECONDS);
      } catch (err) {
        this.log.warn({ err }, 'persisted-query store in Redis failed; kept in the local cache');
      }
    }
  }

  /**
   * Resolves the query text of a request, or throws the APQ error. Without a
   * persistedQuery extension the query is returned unchanged. register: the hash
   * to store the query under once it has passed validation (hash + query).
   */
  async resolve(query: unknown, extensions: unknown): Promise<{ query?: string; register?: string }> {
    const pq = (extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)?.persistedQuery;
    if (!pq) return { query: typeof query === 'string' ? query : undefined };
    if (pq.version !== 1)
      throw gqlError('PERSISTED_QUERY_NOT_SUPPORTED', 'PersistedQueryNotSupported', {
        reason: 'only persistedQuery version 1 is supported',
        version: pq.version,
      });
    const hash = typeof pq.sha256Hash === 'string' ? pq.sha256Hash.toLowerCase() : '';
    if (!/^[0-9a-f]{64}$/.test(hash))
      throw gqlError('VALIDATION_FAILED', 'persistedQuery.sha256Hash must be 64 hexadecimal characters', {
        reason: 'INVALID_PERSISTED_QUERY_HASH',
      });
    if (typeof query === 'string' && query !== '') {
      if (Buffer.byteLength(query) > MAX_QUERY_BYTES)
        throw gqlError('VALIDATION_FAILED', `a persisted query is limited to ${MAX_QUERY_BYTES} bytes`, {
          reason: 'PERSISTED_QUERY_TOO_LARGE',
        });
      const actual = createHash('sha256').update(query, 'utf8').digest('hex');
      if (actual !== hash)
        throw gqlError('VALIDATION_FAILED', 'provided sha256Hash does not match the query', {
          reason: 'PERSISTED_QUERY_HASH_MISMATCH',
          expected: actual,
        });
      return { query, register: hash };
    }
    const stored = await this.get(hash);
    if (stored === undefined) throw gqlError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound', { sha256Hash: hash });
    return { query: stored };
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}
