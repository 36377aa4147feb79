import { Type } from '@sinclair/typebox';
import { PLAN_NAMES, ROLES, literals } from './vocabulary.js';
import { Timestamp } from './common.js';

export const TenantId = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'lowercase letters, digits, _ and -, at most 63' });
export const Role = literals(ROLES);
export const Plan = literals(PLAN_NAMES);

export const TenantIn = Type.Object({ tenant_id: TenantId, plan: Type.Optional(Plan) }, { additionalProperties: false });
export const TenantOut = Type.Object({
  tenant_id: Type.String(),
  plan: Type.String(),
  quotas: Type.Optional(Type.Record(Type.String(), Type.Number())),
  created_at: Timestamp,
});

export const UserIn = Type.Object({
  username: Type.String({ pattern: '^[A-Za-z0-9._@-]{1,64}$' }),
  password: Type.String({ minLength: 8, maxLength: 1024 }),
  tenant_id: TenantId,
  role: Role,
}, { additionalProperties: false });
export const UserPatch = Type.Object({
  role: Type.Optional(Role),
  disabled: Type.Optional(Type.Boolean({ description: 'true ends every session of the user at once, open connections included' })),
}, { additionalProperties: false, minProperties: 1 });
export const UserIdParams = Type.Object({ id: Type.String({ pattern: '^usr_[0-9a-f]+$' }) });
export const UserOut = Type.Object({
  id: Type.String(),
  username: Type.String(),
  tenant_id: Type.String(),
  role: Type.String(),
  disabled: Type.Boolean(),
  created_at: Timestamp,
});

export const ApiKeyIn = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), tenant_id: TenantId, role: Role }, { additionalProperties: false });
export const ApiKeyOut = Type.Object({
  id: Type.String(), name: Type.String(), tenant_id: Type.String(), role: Type.String(), created_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp, revoked_at: Type.Union([Timestamp, Type.Null()]),
  key: Type.Optional(Type.String({ description: 'shown once, at creation' })),
});

const Count = Type.Integer({ minimum: 0, maximum: 1_000_000_000 });
export const QuotaIn = Type.Object({
  api_requests_per_hour: Type.Optional(Count),
  ws_connections: Type.Optional(Count),
  sse_connections: Type.Optional(Count),
  concurrent_powerflow: Type.Optional(Count),
  timeseries_daily_gb: Type.Optional(Count),
  timeseries_daily_points: Type.Optional(Count),
  agent_count: Type.Optional(Count),
  network_count: Type.Optional(Count),
  study_cases: Type.Optional(Count),
  result_storage_mb: Type.Optional(Count),
  reason: Type.String({ minLength: 1, maxLength: 500, description: 'recorded in the audit trail' }),
  expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'makes the change temporary; the previous quota returns then' })),
}, { additionalProperties: false });

export const Quotas = Type.Record(Type.String(), Type.Number());
export const QuotaChangeOut = Type.Object({
  tenant_id: Type.String(),
  quotas: Quotas,
  previous: Quotas,
  changed: Quotas,
  reason: Type.String(),
  expires_at: Type.Union([Timestamp, Type.Null()]),
  override_id: Type.Union([Type.String(), Type.Null()]),
});

export const RateOverrideIn = Type.Object(
  {
    factor: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 10000,
        description: "multiplies every rate and burst of the tenant's requests (all four layers), e.g. 100",
      }),
    ),
    lift: Type.Optional(Type.Boolean({ description: "true: no rate limit applies to the tenant's requests" })),
    expires_in_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 604800, description: 'default 3600; at most 7 days' })),
    expires_at: Type.Optional(Type.String({ format: 'date-time', description: 'instead of expires_in_seconds' })),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'recorded in the audit trail' }),
  },
  { additionalProperties: false },
);

export const RateOverrideOut = Type.Object({
  tenant_id: Type.String(), active: Type.Boolean(), factor: Type.Union([Type.Number(), Type.Null()]), lifted: Type.Boolean(),
  reason: Type.Union([Type.String(), Type.Null()]), set_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.Union([Timestamp, Type.Null()]), expires_at: Type.Union([Timestamp, Type.Null()]),
});
