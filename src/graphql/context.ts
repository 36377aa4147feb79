// What every resolver gets: the services, the authenticated caller (the same
// Caller the REST routes use), per-operation loaders, ids for errors and audit.
import type { FastifyRequest } from 'fastify';
import type { Services } from '../services.js';
import type { Caller, Permission } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { createLoaders, type Loaders } from './loaders.js';
import type { PointBudget } from '../domain/timeseriesBudget.js';

export interface GqlContext {
  s: Services;
  /** null: the request carried no (valid) credentials; fields needing a permission fail with UNAUTHENTICATED. */
  caller: Caller | null;
  /** Why caller is null (expired token, bad key...), reported on the first guarded field. */
  authError?: AppError;
  requestId: string;
  traceId: string;
  /** Schema version that serves the operation (SPEC 9). */
  schemaVersion: string;
  transport: 'http' | 'ws';
  request?: FastifyRequest;
  /** Time-series points the operation may still ask for (created on first use). */
  pointBudget?: PointBudget;
  /** Created on first use, so unauthenticated operations never build them. */
  readonly loaders: Loaders;
}

export function createContext(init: Omit<GqlContext, 'loaders'>): GqlContext {
  let loaders: Loaders | undefined;
  const ctx = init as GqlContext;
  Object.defineProperty(ctx, 'loaders', {
    get() {
      if (!loaders) loaders = createLoaders(ctx.s, need(ctx));
      return loaders;
    },
    enumerable: false,
  });
  return ctx;
}

/** The caller, or UNAUTHENTICATED. */
export function need(ctx: GqlContext): Caller {
  if (!ctx.caller)
    throw (
      ctx.authError ??
      new AppError(
        'UNAUTHORIZED',
        'authentication required: send Authorization: Bearer <token> (or the token connection parameter on the WebSocket)',
      )
    );
  return ctx.caller;
}

/** The caller if it holds the permission (the same permission the REST endpoint needs). */
export function allow(ctx: GqlContext, p: Permission): Caller {
  const c = need(ctx);
  if (!c.permissions.has(p)) {
    throw new AppError('FORBIDDEN', `role ${c.role} lacks the "${p}" permission this operation needs`, { permission: p, role: c.role });
  }
  return c;
}
