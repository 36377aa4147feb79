// GraphQL schema versions (SPEC 9): negotiated per request by
//   Schema-Version: YYYY-MM                         (wins when present)
//   Accept: application/graphql; version=YYYY-MM   (or application/graphql+json,
//           application/graphql-response+json, application/json with version=)
// Quarterly versions share one additive schema: what a newer version added is
// visible to older ones, deprecated fields stay until the version that
// introduced their replacement sunsets. Deprecated versions are answered with
// Deprecation, Sunset and Link rel="successor-version" headers; a planned
// version is refused until it ships; an unknown version is refused. The
// lifecycle is this table, not the wall clock.
import { AppError } from '../lib/errors.js';

export type VersionStatus = 'deprecated' | 'current' | 'planned';

export interface SchemaVersionInfo {
  version: string;
  status: VersionStatus;
  /** End of support (SPEC 9: "end YYYY-MM"): the last moment of that month, UTC. */
  end: Date;
}

const endOf = (ym: string) => {
  const [y, m] = ym.split('-').map(Number);
  return new Date(Date.UTC(y, m, 1) - 1000);
};

export const SCHEMA_VERSIONS: readonly SchemaVersionInfo[] = [
  { version: '2026-01', status: 'deprecated', end: endOf('2026-07') },
  { version: '2026-04', status: 'deprecated', end: endOf('2026-10') },
  { version: '2026-07', status: 'current', end: endOf('2027-01') },
  { version: '2026-10', status: 'planned', end: endOf('2027-04') },
];

export const CURRENT_VERSION = SCHEMA_VERSIONS.find((v) => v.status === 'current')!.version;
export const SUPPORTED_VERSIONS = SCHEMA_VERSIONS.filter((v) => v.status !== 'planned').map((v) => v.version);

export interface Negotiated {
  info: SchemaVersionInfo;
  /** Response headers to add (Schema-Version always; deprecation headers for deprecated versions). */
  headers: Record<string, string>;
  /** Content type of the answer: application/graphql-response+json when the client asked for it. */
  contentType: string;
}

const MEDIA_WITH_VERSION = new Set(['application/graphql', 'application/graphql+json', 'application/graphql-response+json', 'application/json']);

/** The version= parameter of the first Accept media range that has one. */
export function versionFromAccept(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((p) => p.trim());
    if (!MEDIA_WITH_VERSION.has(type.toLowerCase())) continue;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq > 0 && p.slice(0, eq).trim().toLowerCase() === 'version') return p.slice(eq + 1).trim().replace(/^"|"$/g, '');
    }
  }
  return undefined;
}

function wantsGraphqlResponse(accept: string | undefined): boolean {
  if (!accept) return false;
  const first = accept
    .split(',')
    .map((r) => r.split(';')[0].trim().toLowerCase())
    .find((t) => t === 'application/json' || t === 'application/graphql-response+json');
  return first === 'application/graphql-response+json';
}

export function negotiateVersion(headers: { accept?: string; 'schema-version'?: string | string[] }): Negotiated {
  const header = Array.isArray(headers['schema-version']) ? headers['schema-version'][0] : headers['schema-version'];
  const requested = header?.trim() || versionFromAccept(headers.accept);
  const version = requested ?? CURRENT_VERSION;
  const info = SCHEMA_VERSIONS.find((v) => v.version === version);
  if (!info) {
    throw new AppError(
      'VALIDATION_FAILED',
      `unknown GraphQL schema version "${version}"; supported: ${SUPPORTED_VERSIONS.join(', ')} (current ${CURRENT_VERSION})`,
      {
        reason: 'UNSUPPORTED_SCHEMA_VERSION',
        requested: version,
        supported: SUPPORTED_VERSIONS,
        current: CURRENT_VERSION,
      },
    );
  }
  if (info.status === 'planned') {
    throw new AppError(
      'VALIDATION_FAILED',
      `GraphQL schema version ${version} is planned and not served yet; supported: ${SUPPORTED_VERSIONS.join(', ')} (current ${CURRENT_VERSION})`,
      {
        reason: 'UNSUPPORTED_SCHEMA_VERSION',
        requested: version,
        status: 'planned',
        supported: SUPPORTED_VERSIONS,
        current: CURRENT_VERSION,
      },
    );
  }
  const out: Record<string, string> = { 'Schema-Version': info.version };
  if (info.status === 'deprecated') {
    out.Deprecation = 'true';
    out.Sunset = info.end.toUTCString();
    out.Link = `</graphql>; rel="successor-version"; version="${CURRENT_VERSION}"`;
  }
  return {
    info,
    headers: out,
    contentType: wantsGraphqlResponse(headers.accept) ? 'application/graphql-response+json; charset=utf-8' : 'application/json; charset=utf-8',
  };
}
