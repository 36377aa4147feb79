// What a running command sees (its context), and the commands running in this process,
// so that emergency_shutdown can interrupt them.
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import type { AgentRow } from '../agents.js';
import { AppError } from '../../lib/errors.js';
import type { ActionRow } from './actions.js';
import type { Params } from './vocabulary.js';

export interface CommandContext {
  s: Services;
  caller: Caller;
  agent: AgentRow;
  action: ActionRow;
  params: Params;
  timeoutMs: number;
  deadline: number;
  signal: AbortSignal;
  /** Throws if the deadline passed or the agent was shut down. */
  checkpoint(): void;
  remaining(): number;
  /** Set when the failure should move the agent to status error. */
  agentFailure?: string;
}

/** The reason an abort signal carries. */
export class Abort extends Error {
  constructor(readonly why: 'timeout' | 'shutdown') {
    super(why);
  }
}

/** Commands running in this process, by agent id, so emergency_shutdown can stop them. */
export const runningCommands = new Map<string, { commandId: string; controller: AbortController }>();

export function abortError(ctx: Pick<CommandContext, 'action' | 'timeoutMs'>, why: 'timeout' | 'shutdown'): AppError {
  return why === 'timeout'
    ? new AppError(
        'GATEWAY_TIMEOUT',
        `command ${ctx.action.command} did not finish within timeout_ms ${ctx.timeoutMs}; nothing was changed`,
        { command_id: ctx.action.command_id, timeout_ms: ctx.timeoutMs },
      )
    : new AppError(
        'CONFLICT',
        `command ${ctx.action.command} was cancelled: the agent was shut down (emergency_shutdown) while it ran; nothing was changed`,
        { command_id: ctx.action.command_id, reason: 'emergency_shutdown' },
      );
}
