// Every enumeration of the interface, written once. The domain's types come from these
// lists (`(typeof LIST)[number]`), the REST schemas use `literals(LIST)` and the GraphQL SDL
// `graphqlEnum(Name, LIST)` (values in UPPER_CASE, as SPEC's GraphQL enums). A leaf module:
// it imports nothing of the project, so every layer may import it.
import { type TLiteral, type TUnion, Type } from '@sinclair/typebox';

export const NETWORK_STATUSES = ['draft', 'ready', 'locked', 'archived'] as const;
export type NetworkStatus = (typeof NETWORK_STATUSES)[number];

/** MATPOWER bus types 3 (slack), 2 (pv), 1 (pq), 4 (isolated: left out of the solve). */
export const BUS_TYPES = ['slack', 'pv', 'pq', 'isolated'] as const;
export type BusType = (typeof BUS_TYPES)[number];

export const BRANCH_STATUSES = ['closed', 'open', 'maintenance'] as const;
export type BranchStatus = (typeof BRANCH_STATUSES)[number];

export const COST_MODELS = ['polynomial', 'piecewise_linear'] as const;
export type CostModel = (typeof COST_MODELS)[number];

export const POWERFLOW_METHODS = ['newton_raphson', 'fast_decoupled', 'dc'] as const;
export type PowerFlowMethod = (typeof POWERFLOW_METHODS)[number];
/** What a power flow does with islands left without a reference (CONTRACT "Islands"). */
export const ISLANDING_RULES = ['refuse', 'isolate', 'new_reference'] as const;
export type IslandingRule = (typeof ISLANDING_RULES)[number];
/** What a study does with an outage that splits the network (CONTRACT "Islands"): skip is MATPOWER's N-1 loop. */
export const STUDY_ISLANDING = ['isolate', 'new_reference', 'skip'] as const;
/** Where a scenario of a sweep starts: like a power flow (default, CONTRACT "Studies") or from the scenario before it. */
export const STUDY_WARM_STARTS = ['default', 'previous'] as const;
export type StudyWarmStart = (typeof STUDY_WARM_STARTS)[number];
export type StudyIslanding = (typeof STUDY_ISLANDING)[number];

export const POWERFLOW_STATUSES = ['queued', 'running', 'converged', 'diverged', 'timeout', 'cancelled', 'failed'] as const;
export type PowerFlowStatus = (typeof POWERFLOW_STATUSES)[number];

/** Optimal power flow formulations (CONTRACT "Optimal power flow"; default ac). */
export const OPF_METHODS = ['dc', 'ac'] as const;
/** Where the OPF's interior point starts (docs/opf.md "Start points"). */
export const OPF_STARTS = ['default', 'case', 'powerflow'] as const;
export type OpfStart = (typeof OPF_STARTS)[number];
export type OpfMethod = (typeof OPF_METHODS)[number];

export const TASK_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

export const AGENT_STATUSES = ['idle', 'running', 'paused', 'error', 'stopped'] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

export const AGENT_TYPES = ['dispatch', 'self_healing', 'trading', 'maintenance', 'planning'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

export const COMMAND_PRIORITIES = ['low', 'normal', 'high', 'emergency'] as const;
export type CommandPriority = (typeof COMMAND_PRIORITIES)[number];

export const DEVICE_TYPES = ['PV', 'WIND', 'BESS', 'EV', 'LOAD', 'TRANSFORMER', 'BREAKER'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

export const DEVICE_STATUSES = ['online', 'offline', 'maintenance', 'fault'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

/** Stored numerically (SPEC enumerations: info 0, warn 1, error 2, critical 3), shown by name. */
export const SEVERITIES = ['info', 'warn', 'error', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ALARM_STATUSES = ['active', 'acknowledged', 'cleared'] as const;
export type AlarmStatus = (typeof ALARM_STATUSES)[number];

export const AGGREGATIONS = ['none', 'avg', 'sum', 'max', 'min', 'count', 'percentile_50', 'percentile_95', 'percentile_99'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export const STUDY_KINDS = ['contingency', 'scenarios'] as const;
export type StudyKind = (typeof STUDY_KINDS)[number];

export const STUDY_CASE_STATUSES = ['converged', 'diverged', 'islanded', 'screened'] as const;
export type StudyCaseStatus = (typeof STUDY_CASE_STATUSES)[number];

export const STUDY_VIOLATION_TYPES = ['branch_overload', 'low_voltage', 'high_voltage'] as const;
export type StudyViolationType = (typeof STUDY_VIOLATION_TYPES)[number];

/** A case's violation against the base case (CONTRACT "Violations relative to the base case"). */
export const STUDY_VIOLATION_KINDS = ['new', 'worsened', 'pre_existing'] as const;
export type StudyViolationKind = (typeof STUDY_VIOLATION_KINDS)[number];

/** How a contingency study screens its cases (CONTRACT "Contingency screening"). */
export const STUDY_SCREENING_METHODS = ['ac_linear', 'dc'] as const;
export type StudyScreeningMethod = (typeof STUDY_SCREENING_METHODS)[number];

export const ROLES = ['admin', 'operator', 'viewer', 'auditor'] as const;
export type Role = (typeof ROLES)[number];

/** Tenant plans: quota presets (src/security/quotas.ts PLANS). */
export const PLAN_NAMES = ['free', 'pro', 'enterprise', 'custom'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** A TypeBox union of the list's literals (REST schemas, OpenAPI `enum`). */
export function literals<T extends string>(list: readonly T[]): TUnion<TLiteral<T>[]> {
  return Type.Union(list.map((x) => Type.Literal(x)));
}

/** The GraphQL SDL of an enum with the list's values in UPPER_CASE. */
export function graphqlEnum(name: string, list: readonly string[]): string {
  return `enum ${name} { ${list.map((x) => x.toUpperCase()).join(' ')} }`;
}

/** State estimation (CONTRACT "State estimation"): what an inline measurement reads, what a stored `measures`
 *  entry names, and how an estimate ends. */
export const SE_MEASUREMENT_KINDS = ['p_from', 'p_to', 'q_from', 'q_to', 'p_gen', 'q_gen', 'v_mag', 'v_angle', 'p_inj', 'q_inj'] as const;
export const SE_QUANTITIES = ['p', 'q', 'v_mag', 'v_angle', 'p_inj', 'q_inj'] as const;
export const SE_STATUSES = ['converged', 'diverged', 'unobservable', 'timeout', 'cancelled'] as const;
