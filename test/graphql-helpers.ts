// Helpers of the GraphQL tests: HTTP calls through app.inject, SQL statement
// counting per request, and a graphql-ws client over a real socket.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createClient, type Client } from 'graphql-ws';
import type { FormattedExecutionResult as ExecutionResult } from 'graphql';
import WebSocket from 'ws';
import type { TestApp } from './helpers/app.js';

export interface GqlResponse<T = any> {
  status: number;
  headers: Record<string, unknown>;
  body: { data?: T; errors?: { message: string; path?: (string | number)[]; locations?: unknown[]; extensions: { code: string; trace_id: string; details: Record<string, any> } }[]; extensions?: unknown };
}

export async function gql<T = any>(app: TestApp, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): Promise<GqlResponse<T>> {
  const r = await app.app!.inject({
    method: 'POST', url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify({ query, ...(variables ? { variables } : {}), ...extra }),
  });
  return { status: r.statusCode, headers: r.headers as Record<string, unknown>, body: JSON.parse(r.body) };
}

/** The data of a response that must have no errors. */
export function ok<T = any>(r: GqlResponse<T>): T {
  if (r.body.errors) throw new Error(`unexpected GraphQL errors: ${JSON.stringify(r.body.errors, null, 1)}`);
  return r.body.data as T;
}

/** The extension code of the (first) error. */
export function code(r: GqlResponse): string | undefined {
  return r.body.errors?.[0]?.extensions?.code;
}

// ------------------------------------------------------------------ SQL statement counting

const als = new AsyncLocalStorage<{ n: number; sql: string[] }>();
const wrapped = new WeakSet<object>();

/** Counts the SQL statements issued while fn runs (only those caused by fn, not background timers). */
export async function countQueries<T>(app: TestApp, fn: () => Promise<T>): Promise<{ result: T; count: number; sql: string[] }> {
  const db = app.services.db as unknown as { query: (...a: unknown[]) => Promise<unknown> };
  if (!wrapped.has(db)) {
    const original = db.query.bind(db);
    db.query = (...a: unknown[]) => {
      const st = als.getStore();
      if (st) {
        st.n++;
        st.sql.push(String(a[0]).replace(/\s+/g, ' ').slice(0, 160));
      }
      return original(...a);
    };
    wrapped.add(db);
  }
  const store = { n: 0, sql: [] as string[] };
  const result = await als.run(store, fn);
  return { result, count: store.n, sql: store.sql };
}

// ------------------------------------------------------------------ graphql-ws

export function wsUrl(app: TestApp): string {
  return app.url!.replace(/^http/, 'ws') + '/graphql';
}

export interface WsClient {
  client: Client;
  /** Close event when the server closed the connection. */
  closed: Promise<{ code: number; reason: string }>;
  acked: Promise<Record<string, unknown> | undefined>;
}

export function wsClient(app: TestApp, params: Record<string, unknown> | undefined, opts: { retry?: boolean } = {}): WsClient {
  let onClosed!: (e: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (onClosed = r));
  let onAck!: (p: Record<string, unknown> | undefined) => void;
  let noAck!: (e: Error) => void;
  const acked = new Promise<Record<string, unknown> | undefined>((resolve, reject) => {
    onAck = resolve;
    noAck = reject;
  });
  acked.catch(() => {}); // awaited only by the tests that expect an acknowledgement
  const client = createClient({
    url: wsUrl(app),
    webSocketImpl: WebSocket,
    connectionParams: params,
    lazy: false,
    retryAttempts: opts.retry ? 5 : 0,
    retryWait: async () => new Promise((r) => setTimeout(r, 200)),
    shouldRetry: () => !!opts.retry,
    on: {
      closed: (e) => {
        const ev = e as { code: number; reason: string };
        onClosed({ code: ev.code, reason: String(ev.reason) });
        noAck(new Error(`connection closed before acknowledgement: ${ev.code} ${ev.reason}`));
      },
      connected: (_s, payload) => onAck(payload as Record<string, unknown> | undefined),
    },
    onNonLazyError: () => {},
  });
  return { client, closed, acked };
}

/** Subscribes and collects results; stop() ends it. */
export function collect<T = any>(client: Client, query: string, variables?: Record<string, unknown>) {
  const items: ExecutionResult<T, unknown>[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let error: unknown;
  let done = false;
  let onDone!: () => void;
  const completed = new Promise<void>((r) => (onDone = r));
  const check = () => {
    for (const w of [...waiters]) {
      if (items.length >= w.n || done) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const stop = client.subscribe<T>({ query, variables }, {
    next: (v) => {
      items.push(v);
      check();
    },
    error: (e) => {
      error = e;
      done = true;
      check();
      onDone();
    },
    complete: () => {
      done = true;
      check();
      onDone();
    },
  });
  return {
    items,
    get error() {
      return error;
    },
    get done() {
      return done;
    },
    completed,
    stop,
    /** Resolves when n results arrived (or the stream ended); rejects after ms. */
    async waitFor(n: number, ms = 10_000): Promise<void> {
      if (items.length >= n || done) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => waiters.push({ n, resolve })),
        new Promise<void>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${n} results, have ${items.length}: ${JSON.stringify(items).slice(0, 500)}`)), ms);
        }),
      ]).finally(() => clearTimeout(timer));
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until fn returns a truthy value. */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
