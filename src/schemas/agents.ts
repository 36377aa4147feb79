// TypeBox schemas of the agent resource, its commands and actions (SPEC 2, 4.3).
import { Type } from '@sinclair/typebox';
import { AGENT_STATUSES, AGENT_TYPES, COMMAND_PRIORITIES, literals } from './vocabulary.js';
import { PageQuery, Timestamp } from './common.js';

export const AgentStatus = literals(AGENT_STATUSES);
export const AgentType = literals(AGENT_TYPES);
export const Priority = literals(COMMAND_PRIORITIES);

const Name = Type.String({ minLength: 1, maxLength: 128 });
const NetworkId = Type.String({ pattern: '^net_[A-Za-z0-9]+$', maxLength: 64 });
const Config = Type.Record(Type.String(), Type.Unknown());
const Tools = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 });
const Model = Type.String({ minLength: 1, maxLength: 64 });
const MaxActions = Type.Integer({ minimum: 1, maximum: 600 });

export const AgentIn = Type.Object({
  name: Name,
  type: AgentType,
  network_id: Type.Optional(Type.Union([NetworkId, Type.Null()])),
  config: Type.Optional(Config),
  tools: Type.Optional(Tools),
  reasoning_model: Type.Optional(Model),
  max_actions_per_minute: Type.Optional(MaxActions),
  auto_start: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const AgentUpdate = Type.Object({
  name: Type.Optional(Name),
  type: Type.Optional(AgentType),
  network_id: Type.Optional(Type.Union([NetworkId, Type.Null()])),
  config: Type.Optional(Config),
  tools: Type.Optional(Tools),
  reasoning_model: Type.Optional(Model),
  max_actions_per_minute: Type.Optional(MaxActions),
}, { additionalProperties: false, minProperties: 1 });

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const AgentOut = Type.Object({
  id: Type.String(), name: Type.String(), type: AgentType, network_id: Nullable(Type.String()), status: AgentStatus,
  status_reason: Nullable(Type.String()), config: Config, tools: Type.Array(Type.String()), reasoning_model: Type.String(),
  max_actions_per_minute: Type.Integer(), created_at: Timestamp, updated_at: Timestamp,
  started_at: Nullable(Timestamp), last_active_at: Nullable(Timestamp),
});

export const AgentListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(AgentStatus),
  type: Type.Optional(AgentType),
  network_id: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const BatchCreateIn = Type.Object({ agents: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 50 }) }, { additionalProperties: false });

export const ReasonIn = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 256 })) }, { additionalProperties: false });

export const CommandIn = Type.Object({
  command: Type.String({ minLength: 1, maxLength: 64 }),
  params: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  priority: Type.Optional(Priority),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 300000 })),
  await_result: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const CommandBatchIn = Type.Object({ commands: Type.Array(Type.Unknown(), { minItems: 1, maxItems: 50 }) }, { additionalProperties: false });

/** Who sent or confirmed a command (the caller's actor). */
export const CommandActor = Type.Object({ type: Type.String(), id: Type.String(), tenant: Type.String() });
const ActorOrNull = Type.Union([CommandActor, Type.Null()]);

export const CommandOut = Type.Object({
  command_id: Type.String(), action_id: Type.String(), agent_id: Type.String(), command: Type.String(), status: Type.String(), priority: Priority,
  result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]), duration_ms: Type.Integer(), executed_at: Timestamp,
  requested_by: ActorOrNull, confirmed_by: ActorOrNull,
});

export const ActionOut = Type.Object({
  id: Type.String(), agent_id: Type.String(), command_id: Type.String(), command: Type.String(), params: Type.Record(Type.String(), Type.Unknown()),
  priority: Priority, status: Type.String(), result: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  error: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]), audit_id: Type.Union([Type.String(), Type.Null()]),
  actor: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]), requested_by: ActorOrNull, confirmed_by: ActorOrNull,
  executed_at: Timestamp, completed_at: Type.Union([Timestamp, Type.Null()]), duration_ms: Type.Integer(),
});

export const ActionListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.String({ maxLength: 32 })),
  command: Type.Optional(Type.String({ maxLength: 64 })),
}, { additionalProperties: false });

export const CommandBatchOut = Type.Object({
  succeeded: Type.Array(Type.Object({ index: Type.Integer(), id: Type.String(), status: Type.String(), result: CommandOut })),
  failed: Type.Array(
    Type.Object({
      index: Type.Integer(),
      error: Type.Object({
        code: Type.String(),
        message: Type.String(),
        details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      }),
    }),
  ),
});
