// The words of agent commands (SPEC 4.3 "POST /agents/{id}/command", 8.1 command limits):
// priorities, limits and the request/answer shapes every door shares. The commands
// themselves are defined one per file in handlers/ (registry.ts says how).
import { COMMAND_PRIORITIES, type CommandPriority } from '../../schemas/vocabulary.js';
import type { Actor } from '../caller.js';

export { COMMAND_PRIORITIES as PRIORITIES, type CommandPriority as Priority };
const PRIORITY_RANK: Record<CommandPriority, number> = { emergency: 0, high: 1, normal: 2, low: 3 };
/** 0 = emergency … 3 = low (unknown values rank as normal). */
export const priorityRank = (p: CommandPriority | string | undefined): number => PRIORITY_RANK[(p ?? 'normal') as CommandPriority] ?? 2;

export const COMMAND_LIMITS = {
  /** SPEC 8.1: normal commands at most 10 per second per agent. */
  perSecond: 10,
  /** SPEC 8.1: control commands at least 100 ms apart (from the end of the previous one). */
  controlIntervalMs: 100,
  /** Lifetime of a confirmation token (agent config.confirmation_ttl_ms overrides, 100..600000). */
  confirmationTtlMs: 60_000,
  /** SPEC 8.1: a command batch holds at most 50 commands. */
  batchMax: 50,
  /** SPEC 8.3: command timeout default. */
  defaultTimeoutMs: 5000,
  maxTimeoutMs: 300_000,
  /** The command slot's lease outlives the deadline by this much (a crashed process frees it after). */
  slotGraceMs: 5000,
} as const;

export type Params = Record<string, unknown>;

export interface CommandRequest {
  command: string;
  params?: Params;
  priority?: CommandPriority;
  timeout_ms?: number;
  await_result?: boolean;
}

/** SPEC 2 "Command result" plus action_id, priority, requested_by and confirmed_by (additive). */
export interface CommandResult {
  command_id: string;
  action_id: string;
  agent_id: string;
  command: string;
  status: string;
  priority: CommandPriority;
  result: Record<string, unknown> | null;
  duration_ms: number;
  executed_at: Date;
  /** Who sent the command (for a control command: who asked for it). */
  requested_by: Actor | null;
  /** Control commands: the second person who confirmed it (four-eyes); null until then and for other commands. */
  confirmed_by: Actor | null;
}

export interface CommandAnswer {
  /** 200 finished (or confirmation required), 202 accepted (await_result false). */
  httpStatus: 200 | 202;
  result: CommandResult;
}

/** A request after its checks: the command's params normalised (without the token). */
export interface CheckedRequest {
  command: string;
  params: Params;
  token?: string;
  priority: CommandPriority;
  timeoutMs: number;
  awaitResult: boolean;
}
