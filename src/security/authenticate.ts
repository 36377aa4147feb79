// Who is asking: bearer token, API key and/or client certificate -> Caller.
// One function for every door; REST calls it from the caller plugin, GraphQL,
// SSE and WebSocket call it with what they have (header, ?token=, first frame).
import type { TLSSocket, PeerCertificate } from 'node:tls';
import type { Caller, RoleName } from '../domain/caller.js';
import { ROLE_PERMISSIONS } from '../domain/caller.js';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import type { SecurityState } from './context.js';
import { permissionsFor, verifyAccessToken } from './tokens.js';
import { lookupApiKey } from './apikeys.js';
import { tenantExists } from './quotas.js';
import { normalizeIp } from './ip.js';
import { mappingOf } from './certMap.js';

export interface AuthInput {
  /** The Authorization header value. */
  authorization?: string;
  /** A bare token (SSE ?token=, WebSocket ?token= or first frame, GraphQL connection param). */
  token?: string;
  /** The X-API-Key header value. */
  apiKey?: string;
  /** The X-Tenant-Id header value. */
  tenantHeader?: string;
  /** The TLS socket of the connection (mutual TLS). */
  socket?: unknown;
  ip?: string;
  userAgent?: string;
  requestId: string;
  interface: Caller['interface'];
}

export interface CertIdentity {
  cn: string;
  kind: 'agent' | 'service';
  id: string;
  tenant: string;
  role: RoleName;
  serial?: string;
  valid_to?: string;
  expires_in_days?: number;
}

export interface AuthResult {
  caller: Caller;
  method: 'bearer' | 'api_key' | 'mtls' | 'bearer+mtls' | 'api_key+mtls';
  cert?: CertIdentity;
  /** Set when the client certificate expires within 30 days (SPEC 5). */
  certWarning?: string;
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Validates the client certificate of a mutual-TLS connection; undefined when none was presented. */
export async function certificateIdentity(st: SecurityState, socket: unknown): Promise<CertIdentity | undefined> {
  if (!st.s.config.tlsCaFile) return undefined;
  const tls = socket as TLSSocket | undefined;
  if (!tls || typeof tls.getPeerCertificate !== 'function') return undefined;
  const peer = tls.getPeerCertificate() as PeerCertificate & { bits?: number; pubkey?: Buffer; asn1Curve?: string };
  if (!peer || Object.keys(peer).length === 0) return undefined;
  if (!tls.authorized) {
    const reason = String(tls.authorizationError ?? 'unknown');
    if (reason === 'CERT_HAS_EXPIRED') throw new AppError('CERT_EXPIRED', `the client certificate expired on ${peer.valid_to}`, { valid_to: peer.valid_to });
    throw new AppError('CERT_INVALID', `the client certificate is not valid: ${reason}`, { reason });
  }
  const cn = String(first((peer.subject as unknown as Record<string, string | string[] | undefined>)?.CN) ?? '');
  if (peer.bits !== undefined && !peer.asn1Curve && peer.bits < 2048)
    throw new AppError('CERT_INVALID', `the client certificate's RSA key has ${peer.bits} bits; at least 2048 are required`, {
      bits: peer.bits,
    });
  // Identity from configuration only: the subject's O and OU are ignored (docs/security.md).
  const mapped = mappingOf(st.s.config.clientCertMap, cn, peer.fingerprint256);
  if (!mapped) {
    throw new AppError(
      'CERT_INVALID',
      `the client certificate (CN "${cn}", SHA-256 ${peer.fingerprint256 ?? 'unknown'}) is signed by the trusted CA but is not ` +
        `mapped to an identity; an administrator must add its CN or fingerprint to TLS_CLIENT_MAP`,
      { reason: 'CERT_NOT_MAPPED', cn, fingerprint256: peer.fingerprint256 },
    );
  }
  const prefixed = /^(agent|service)-(.{1,128})$/.exec(cn);
  const kind = mapped.kind ?? (prefixed?.[1] === 'agent' ? 'agent' : 'service');
  const id = mapped.user ?? prefixed?.[2] ?? cn;
  const { tenant, role } = mapped;
  if (!(await tenantExists(st, tenant)))
    throw new AppError('CERT_INVALID', `the client certificate is mapped to tenant "${tenant}", which does not exist`, { tenant });
  const validTo = new Date(peer.valid_to);
  const days = Math.floor((validTo.getTime() - Date.now()) / 86_400_000);
  return { cn, kind, id, tenant, role, serial: peer.serialNumber, valid_to: validTo.toISOString(), expires_in_days: days };
}

/** The token of "Bearer <token>" (scheme case-insensitive, surrounding blanks allowed); undefined otherwise. */
export function bearerToken(header: string): string | undefined {
  // Most requests carry exactly "Bearer <token>": no regular expression over a 700-character header for them.
  if (header.startsWith('Bearer ') && header.indexOf(' ', 7) === -1 && header.length > 7 && !/\s/.test(header[7])) return header.slice(7);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1] : undefined;
}

/**
 * Authenticates one request. Throws 401 (UNAUTHORIZED, TOKEN_EXPIRED, CERT_INVALID,
 * CERT_EXPIRED), 403 TENANT_MISMATCH, 404 for X-Tenant-Id naming no tenant.
 * Bearer token decides tenant and role when combined with a certificate.
 */
export async function authenticate(s: Pick<Services, 'security'>, input: AuthInput): Promise<AuthResult> {
  const st = s.security;
  const cert = await certificateIdentity(st, input.socket);
  let token = input.token;
  if (input.authorization) {
    token = bearerToken(input.authorization);
    if (!token) throw new AppError('UNAUTHORIZED', 'the Authorization header must be "Bearer <token>"');
  }
  let base: { tenant: string; actor: Caller['actor']; role: RoleName; permissions: ReadonlySet<import('../domain/caller.js').Permission> } | undefined;
  let method: AuthResult['method'] | undefined;
  if (token) {
    const c = verifyAccessToken(st, token);
    base = { tenant: c.tenant, actor: { type: 'user', id: c.sub, tenant: c.tenant }, role: c.role, permissions: permissionsFor(c.role, c.scope ?? 'default') };
    method = cert ? 'bearer+mtls' : 'bearer';
  } else if (input.apiKey) {
    const k = await lookupApiKey(st, input.apiKey);
    if (!k) throw new AppError('UNAUTHORIZED', 'the API key is not valid or was revoked');
    base = { tenant: k.tenant_id, actor: { type: 'service', id: k.id, tenant: k.tenant_id }, role: k.role, permissions: permissionsFor(k.role, 'default') };
    method = cert ? 'api_key+mtls' : 'api_key';
  } else if (cert) {
    base = {
      tenant: cert.tenant,
      actor: { type: cert.kind, id: cert.id, tenant: cert.tenant },
      role: cert.role,
      permissions: permissionsFor(cert.role, 'default'),
    };
    method = 'mtls';
  }
  if (!base || !method)
    throw new AppError(
      'UNAUTHORIZED',
      'authentication required: send Authorization: Bearer <token> (POST /api/v1/auth/token), X-API-Key, or a client certificate',
    );
  let tenantId = base.tenant;
  const wanted = input.tenantHeader?.trim();
  if (wanted && wanted !== base.tenant) {
    if (!base.permissions.has('cross_tenant')) {
      const err = new AppError(
        'TENANT_MISMATCH',
        `X-Tenant-Id names tenant ${wanted}, but this credential belongs to tenant ${base.tenant} and has no cross-tenant permission`,
        { tenant_id: wanted },
      );
      // The credential itself was good: the denial is audited as this actor, in its own tenant.
      Object.defineProperty(err, 'identified', {
        value: {
          ...anonymousCaller(input.requestId, input.ip, input.userAgent, input.interface),
          tenantId: base.tenant,
          actor: base.actor,
          role: base.role,
          permissions: base.permissions,
        },
      });
      throw err;
    }
    if (!(await tenantExists(st, wanted))) throw new AppError('NOT_FOUND', `tenant ${wanted} does not exist`, { resource: 'tenant', id: wanted });
    tenantId = wanted;
  }
  const caller: Caller = {
    tenantId,
    actor: base.actor,
    role: base.role,
    permissions: base.permissions,
    requestId: input.requestId,
    ip: input.ip ? normalizeIp(input.ip) : undefined,
    userAgent: input.userAgent,
    interface: input.interface,
  };
  const out: AuthResult = { caller, method, cert };
  if (cert?.expires_in_days !== undefined && cert.expires_in_days <= 30) {
    out.certWarning = `client certificate ${cert.cn} expires in ${cert.expires_in_days} days (${cert.valid_to})`;
  }
  return out;
}

/** The caller of a public endpoint: no tenant, no permissions. */
export function anonymousCaller(requestId: string, ip: string | undefined, userAgent: string | undefined, iface: Caller['interface']): Caller {
  return {
    tenantId: '',
    actor: { type: 'anonymous', id: 'anonymous', tenant: '' },
    role: 'viewer',
    permissions: new Set(),
    requestId,
    ip: ip ? normalizeIp(ip) : undefined,
    userAgent,
    interface: iface,
  };
}

/** The bootstrap admin of tenant default (GRIDOPS_AUTH=off benchmark baselines only). */
export function unauthenticatedAdmin(s: Pick<Services, 'config'>, requestId: string, ip?: string, userAgent?: string): Caller {
  return {
    tenantId: 'default',
    actor: { type: 'user', id: s.config.adminUsername, tenant: 'default' },
    role: 'admin',
    permissions: new Set(ROLE_PERMISSIONS.admin),
    requestId,
    ip,
    userAgent,
    interface: 'rest',
  };
}

/** The caller a denied authentication had identified (TENANT_MISMATCH), for the audit entry. */
export function identifiedBy(e: unknown): Caller | undefined {
  return (e as { identified?: Caller } | undefined)?.identified;
}
