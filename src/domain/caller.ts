// Who is asking: every domain function takes the caller, and every repository
// query is scoped to caller.tenantId. The security layer (src/security) builds it
// from a token, an API key or a client certificate; the same object serves REST,
// GraphQL, SSE and WebSocket.
import type { Role as RoleName } from '../schemas/vocabulary.js';

export type { RoleName };
export type Permission = 'read' | 'write' | 'compute' | 'command' | 'audit' | 'admin' | 'cross_tenant';

export interface Actor {
  type: 'user' | 'service' | 'agent' | 'system' | 'anonymous';
  id: string;
  tenant: string;
}

export interface Caller {
  tenantId: string;
  actor: Actor;
  role: RoleName;
  permissions: ReadonlySet<Permission>;
  requestId: string;
  ip?: string;
  userAgent?: string;
  interface: 'rest' | 'graphql' | 'sse' | 'websocket' | 'cli' | 'internal';
}

export const ROLE_PERMISSIONS: Record<RoleName, readonly Permission[]> = {
  admin: ['read', 'write', 'compute', 'command', 'audit', 'admin', 'cross_tenant'],
  operator: ['read', 'write', 'compute', 'command'],
  viewer: ['read'],
  auditor: ['read', 'audit'],
};

export function systemCaller(tenantId: string, requestId = 'system'): Caller {
  return {
    tenantId,
    actor: { type: 'system', id: 'gridops', tenant: tenantId },
    role: 'admin',
    permissions: new Set(ROLE_PERMISSIONS.admin),
    requestId,
    interface: 'internal',
  };
}
