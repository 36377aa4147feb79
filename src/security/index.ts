// The security gate shared by every door (REST via src/plugins/app/caller.ts,
// GraphQL, SSE, WebSocket): authenticate -> rate limit -> permission -> audit.
//
//   const { caller, headers } = await gate(s, { door: 'graphql', ip, authorization, ... , permission: 'read' });
//   ... core ...
//   await recordAudit(s, { ...fromCaller(caller), action: 'graphql createNetwork', resource: {type: 'network', id}, result: 'success' });
//
// Doors that cannot use the REST hook (a WebSocket authenticating with its first
// frame, GraphQL resolving several operations in one request) call these directly.
import type { Caller, Permission } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { authenticate, anonymousCaller, identifiedBy, type AuthInput, type AuthResult } from './authenticate.js';
import { checkRateLimits, type RateLimitDecision } from './ratelimit.js';
import { recordAudit, fromCaller } from './audit.js';
import { getQuotas } from './quotas.js';
import type { EndpointKey, IpClass } from './settings.js';
import type { ConnKind, Slot } from './connections.js';
import { normalizeIp } from './ip.js';

export { createSecurity, closeSecurity } from './state.js';
export { authenticate, anonymousCaller, certificateIdentity, type AuthInput, type AuthResult } from './authenticate.js';
export { checkRateLimits, classifyRoute, type RateLimitDecision, type RateLimitRequest } from './ratelimit.js';
export { recordAudit, logAuditFailure, fromCaller, listAudit, purgeAudit, type AuditInput, type AuditEntry } from './audit.js';
export { getQuotas, checkAgentQuota, checkNetworkQuota, checkCountQuota, consumeTimeseriesQuota, quotaView, PLANS, type Quotas } from './quotas.js';
export type { EndpointKey, IpClass } from './settings.js';

export function isBlockedIp(s: Pick<Services, 'security'>, ip: string | undefined): boolean {
  return s.security.isBlocked(normalizeIp(ip));
}

export function requirePermission(caller: Caller, p: Permission): void {
  if (!caller.permissions.has(p)) {
    throw new AppError('FORBIDDEN', `role ${caller.role} lacks the "${p}" permission this operation needs`, { permission: p, role: caller.role });
  }
}

export interface GateInput extends Omit<AuthInput, 'interface'> {
  door: Caller['interface'];
  ipClass: IpClass;
  endpoint?: EndpointKey;
  permission?: Permission;
  /** Action name for the audit entry written when the gate denies. */
  action: string;
}

export interface GateResult {
  caller: Caller;
  auth: AuthResult;
  rate: RateLimitDecision;
}

/**
 * The whole gate for a non-REST door: blocked address, authentication, the four
 * rate-limit layers (waiting in the tenant queue if need be), permission. A denial
 * is audited here and thrown as AppError (its rate headers in error.details are for WebSocket/SSE replies).
 */
export async function gate(s: Services, g: GateInput): Promise<GateResult> {
  const anon = anonymousCaller(g.requestId, g.ip, g.userAgent, g.door);
  const deny = async (caller: Caller, e: AppError) => {
    await recordAudit(s, {
      ...fromCaller(caller),
      tenantId: caller.tenantId || 'default',
      action: g.action,
      result: 'denied',
      status: e.statusCode,
      details: { code: e.code, reason: e.message },
    }).catch(() => {});
    throw e;
  };
  if (isBlockedIp(s, g.ip)) await deny(anon, new AppError('IP_BLOCKED', `address ${normalizeIp(g.ip)} is blocked`));
  let auth: AuthResult | undefined;
  let authError: AppError | undefined;
  try {
    auth = await authenticate(s, { ...g, interface: g.door });
  } catch (e) {
    if (!(e instanceof AppError)) throw e;
    authError = e;
  }
  const identified = authError ? identifiedBy(authError) : undefined;
  const rate = await checkRateLimits(s, { ip: g.ip ?? 'unknown', ipClass: g.ipClass, endpoint: g.endpoint, caller: authError ? null : auth!.caller });
  if (!rate.allowed) await deny(auth?.caller ?? anon, rate.error!);
  if (authError) await deny(identified ?? anon, authError);
  if (rate.waitMs > 0) await new Promise((r) => setTimeout(r, rate.waitMs));
  if (g.permission && !auth!.caller.permissions.has(g.permission)) {
    await deny(
      auth!.caller,
      new AppError('FORBIDDEN', `role ${auth!.caller.role} lacks the "${g.permission}" permission this operation needs`, {
        permission: g.permission,
        role: auth!.caller.role,
      }),
    );
  }
  return { caller: auth!.caller, auth: auth!, rate };
}

/**
 * Takes one concurrent WebSocket or SSE connection slot for the caller: the
 * tenant's ws_connections / sse_connections quota and the per-user limit (5 WS,
 * 10 SSE). Throws 429 RATE_LIMITED when full; release() the slot on close.
 */
export async function acquireConnection(s: Pick<Services, 'security'>, caller: Caller, kind: ConnKind): Promise<Slot> {
  const q = await getQuotas(s, caller.tenantId);
  const tenantLimit = kind === 'ws' ? q.ws_connections : q.sse_connections;
  const userLimit = kind === 'ws' ? 5 : 10;
  const r = await s.security.conns.acquire(kind, caller.tenantId, `${caller.actor.type}:${caller.actor.id}`, tenantLimit, userLimit);
  if (!r.ok) {
    const what = kind === 'ws' ? 'WebSocket' : 'SSE';
    throw new AppError(
      'RATE_LIMITED',
      r.scope === 'tenant'
        ? `tenant ${caller.tenantId} already has ${r.count} ${what} connections, its quota`
        : `${caller.actor.id} already has ${r.count} ${what} connections, the per-user limit`,
      {
        scope: r.scope,
        limit: r.limit,
        current: r.count,
        retry_after: 5,
        window_seconds: 0,
        reset_at: new Date(Date.now() + 5000).toISOString(),
        ...(r.scope === 'tenant' ? { tenant_id: caller.tenantId } : {}),
      },
    );
  }
  return r.slot;
}
