// The gate around each root field: permission (as REST), the REST endpoint's own
// rate limits where it has some (L1 endpoint type + L4 endpoint), and an audit
// entry for every mutation (success, failure or denial) with actor, action
// "graphql <field>", resource and request id, written by the security module.
import type { GraphQLResolveInfo } from 'graphql';
import type { Caller, Permission } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import { assertCallerText } from '../lib/callerText.js';
import { checkRateLimits, recordAudit, logAuditFailure, fromCaller, anonymousCaller } from '../security/index.js';
import { emergencyBypass, endpointBypassMayApply } from '../security/emergency.js';
import type { EndpointKey, IpClass } from '../security/settings.js';
import { allow, type GqlContext } from './context.js';

/** The arguments of a field with none (a resolver that reads one must declare its argument type). */
export type NoArgs = Record<never, never>;

export interface RateClass {
  ipClass: IpClass;
  endpoint?: EndpointKey;
}

/** Takes the REST endpoint's tokens (its IP class and L4 bucket) for this operation. `bypass`: an emergency
 *  shutdown passes a refusal of the endpoint layer once its agent is found (src/security/emergency.ts). */
export async function endpointLimit(
  ctx: GqlContext,
  caller: Caller,
  rc: RateClass,
  bypass?: { command: unknown; agentFound: () => Promise<boolean> },
): Promise<void> {
  const ip = caller.ip ?? ctx.request?.ip ?? 'unknown';
  let rl = await checkRateLimits(ctx.s, { ip, ipClass: rc.ipClass, endpoint: rc.endpoint, caller });
  if (bypass && endpointBypassMayApply(rl, bypass.command))
    rl = (await emergencyBypass(ctx.s, { ip, ipClass: rc.ipClass, caller }, bypass.agentFound)) ?? rl;
  if (!rl.allowed) throw rl.error!;
  if (rl.waitMs > 0) await new Promise((r) => setTimeout(r, rl.waitMs));
}

/** A query field: needs the permission, nothing else. */
export function query<R, A extends object = NoArgs>(
  permission: Permission,
  fn: (caller: Caller, args: A, ctx: GqlContext, info: GraphQLResolveInfo) => Promise<R> | R,
) {
  return (_root: unknown, args: A, ctx: GqlContext, info: GraphQLResolveInfo) => fn(allow(ctx, permission), args, ctx, info);
}

export interface MutationSpec<R, A> {
  permission: Permission;
  resourceType: string;
  rate?: RateClass;
  /** SPEC 8.1: emergency shutdown commands bypass the endpoint layer, once their agent is found in the caller's tenant. */
  rateBypass?: (args: A, caller: Caller, ctx: GqlContext) => { command: unknown; agentFound: () => Promise<boolean> };
  /** Resource id for the audit entry (default: args.id). */
  resourceId?: (args: A, result?: R) => string | undefined;
}

const DENIED = new Set([
  'UNAUTHORIZED',
  'TOKEN_EXPIRED',
  'CERT_INVALID',
  'CERT_EXPIRED',
  'FORBIDDEN',
  'TENANT_MISMATCH',
  'IP_BLOCKED',
  'AUDIT_REQUIRED',
  'RATE_LIMITED',
]);

export function mutation<R, A extends object = NoArgs>(
  spec: MutationSpec<R, A>,
  fn: (caller: Caller, args: A, ctx: GqlContext, info: GraphQLResolveInfo) => Promise<R>,
) {
  return async (_root: unknown, args: A, ctx: GqlContext, info: GraphQLResolveInfo): Promise<R> => {
    const field = info.fieldName;
    const idOf = spec.resourceId ?? ((a: A) => ('id' in a && typeof a.id === 'string' ? a.id : undefined));
    let caller: Caller | undefined;
    try {
      caller = allow(ctx, spec.permission);
      assertCallerText(args); // control characters in ids, names and text: INVALID_FIELD naming the argument
      if (ctx.s.security.auditFailing)
        throw new AppError('AUDIT_REQUIRED', 'the audit trail cannot be written right now; changes are refused until it can', {
          retry_after: 5,
        });
      if (spec.rate) await endpointLimit(ctx, caller, spec.rate, spec.rateBypass?.(args, caller, ctx));
      const result = await fn(caller, args, ctx, info);
      await audit(ctx, caller, field, spec.resourceType, idOf(args, result), 'success', 200);
      return result;
    } catch (e) {
      const code = e instanceof AppError ? e.code : 'INTERNAL_ERROR';
      const status = e instanceof AppError ? e.statusCode : 500;
      const who = caller ?? ctx.caller ?? anonymousCaller(ctx.requestId, ctx.request?.ip, ctx.request?.headers['user-agent'], 'graphql');
      // The refusing layer of a 429 (rate-limit refusals are audited in aggregate per layer).
      const scope = e instanceof AppError && typeof e.details?.scope === 'string' ? { scope: e.details.scope } : {};
      await audit(ctx, who, field, spec.resourceType, idOf(args), DENIED.has(code) ? 'denied' : 'failure', status, {
        error_code: code,
        ...scope,
      });
      throw e;
    }
  };
}

async function audit(
  ctx: GqlContext,
  caller: Caller,
  field: string,
  type: string,
  id: string | undefined,
  result: 'success' | 'failure' | 'denied',
  status: number,
  details: Record<string, unknown> = {},
) {
  try {
    await recordAudit(ctx.s, {
      ...fromCaller(caller),
      tenantId: caller.tenantId || 'default',
      interface: 'graphql',
      action: `graphql ${field}`,
      resource: { type, id },
      requestId: ctx.requestId,
      result,
      status,
      details: { operation: field, transport: ctx.transport, schema_version: ctx.schemaVersion, ...details },
    });
  } catch (err) {
    logAuditFailure(ctx.s.log, err);
  }
}

/** A query field that computes (sensitivities): it takes the REST endpoint's compute-class token and is audited as
 *  a mutation is (REST audits its POST so), each alias on its own: the same gate, not a second one. */
export function computeQuery<R, A extends object = NoArgs>(
  spec: MutationSpec<R, A>, fn: (caller: Caller, args: A, ctx: GqlContext, info: GraphQLResolveInfo) => Promise<R>,
) {
  return mutation(spec, fn);
}
