// Which identity a client certificate stands for: explicit configuration, never
// the certificate's own subject fields. Trusting O (tenant) and OU (role) made any
// certificate the CA signs with OU=admin a cross-tenant admin (issue #11, 9b).
// TLS_CLIENT_MAP (inline JSON) or TLS_CLIENT_MAP_FILE (a JSON file) maps a subject
// CN, or a certificate's SHA-256 fingerprint ("sha256:AB:CD:..."), to
// {tenant, role, user?, kind?}. A certificate in neither is refused. docs/security.md.
import { ROLES as ALL_ROLES } from '../schemas/vocabulary.js';
import { readFileSync } from 'node:fs';
import type { RoleName } from '../domain/caller.js';

export interface CertMapping {
  tenant: string;
  role: RoleName;
  /** Actor id (default: the CN without its agent-/service- prefix). */
  user?: string;
  /** Actor type (default: agent for CN agent-*, else service). */
  kind?: 'agent' | 'service';
}

export interface ClientCertMap {
  byCn: Map<string, CertMapping>;
  /** Upper-case hex without colons. */
  byFingerprint: Map<string, CertMapping>;
}

const ROLES: readonly string[] = ALL_ROLES;
const FINGERPRINT_PREFIX = 'sha256:';

/** Hex digits of a fingerprint, upper case, without separators. */
export const fingerprintKey = (f: string) => f.replaceAll(':', '').toUpperCase();

function entryOf(key: string, v: unknown): CertMapping {
  const where = `TLS_CLIENT_MAP entry "${key}"`;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new Error(`${where} must be an object {tenant, role, user?, kind?}`);
  const e = v as Record<string, unknown>;
  for (const k of Object.keys(e))
    if (!['tenant', 'role', 'user', 'kind'].includes(k))
      throw new Error(`${where}: unknown field "${k}" (allowed: tenant, role, user, kind)`);
  if (typeof e.tenant !== 'string' || e.tenant === '') throw new Error(`${where}: tenant must be a non-empty string`);
  if (typeof e.role !== 'string' || !ROLES.includes(e.role)) throw new Error(`${where}: role must be one of ${ROLES.join(', ')}`);
  if (e.user !== undefined && (typeof e.user !== 'string' || e.user === '' || e.user.length > 128)) throw new Error(`${where}: user must be 1-128 characters`);
  if (e.kind !== undefined && e.kind !== 'agent' && e.kind !== 'service') throw new Error(`${where}: kind must be agent or service`);
  return {
    tenant: e.tenant,
    role: e.role as RoleName,
    ...(e.user ? { user: e.user as string } : {}),
    ...(e.kind ? { kind: e.kind as 'agent' | 'service' } : {}),
  };
}

/** Parses the mapping (JSON text); throws with a message naming the bad entry. */
export function parseCertMap(text: string): ClientCertMap {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`TLS_CLIENT_MAP is not valid JSON: ${(e as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new Error('TLS_CLIENT_MAP must be a JSON object {"<CN or sha256:fingerprint>": {tenant, role, user?, kind?}}');
  const map: ClientCertMap = { byCn: new Map(), byFingerprint: new Map() };
  for (const [key, v] of Object.entries(raw)) {
    const entry = entryOf(key, v);
    if (key.toLowerCase().startsWith(FINGERPRINT_PREFIX)) map.byFingerprint.set(fingerprintKey(key.slice(FINGERPRINT_PREFIX.length)), entry);
    else map.byCn.set(key, entry);
  }
  return map;
}

/** The mapping of the environment: inline TLS_CLIENT_MAP wins over TLS_CLIENT_MAP_FILE; undefined when neither is set. */
export function loadCertMap(env: Record<string, string | undefined>): ClientCertMap | undefined {
  if (env.TLS_CLIENT_MAP) return parseCertMap(env.TLS_CLIENT_MAP);
  if (env.TLS_CLIENT_MAP_FILE) return parseCertMap(readFileSync(env.TLS_CLIENT_MAP_FILE, 'utf8'));
  return undefined;
}

/** The mapping of a certificate: by fingerprint first (one certificate), then by CN. */
export function mappingOf(map: ClientCertMap | undefined, cn: string, fingerprint256: string | undefined): CertMapping | undefined {
  if (!map) return undefined;
  return (fingerprint256 ? map.byFingerprint.get(fingerprintKey(fingerprint256)) : undefined) ?? map.byCn.get(cn);
}
