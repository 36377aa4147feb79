// Admission of a command: one transaction with the agent row locked, so the per-agent
// limits (SPEC 8.1), the single command slot and the confirmation hold across concurrent
// requests and processes. Time is the database's clock (one clock for every process).
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { ACCEPTS_WORK, findAgentRow, slotTaken, type AgentRow } from '../agents.js';
import { insertAction, type ActionRow } from './actions.js';
import { issueConfirmation, redeemConfirmation, sha256 } from './confirmation.js';
import type { CommandDefinition } from './registry.js';
import { COMMAND_DEFINITIONS } from './handlers/index.js';
import { COMMAND_LIMITS, priorityRank, type CheckedRequest, type CommandAnswer, type Params } from './vocabulary.js';

export type Admission =
  | { kind: 'prompt'; answer: CommandAnswer }
  | { kind: 'refused'; error: AppError }
  | { kind: 'run'; agent: AgentRow; action: ActionRow; slot: 'held' | 'none' | 'wait' };

export type Checked = CheckedRequest & { def: CommandDefinition };

const ANY_STATE = COMMAND_DEFINITIONS.filter((d) => d.anyState).map((d) => d.name);

export function rateLimited(agentId: string, rule: 'per_second' | 'control_interval', limit: number, windowSeconds: number, retryAfterMs: number): AppError {
  const ms = Math.max(1, Math.ceil(retryAfterMs));
  const message = rule === 'per_second'
    ? `agent ${agentId} takes at most ${limit} commands per second; retry in ${ms} ms`
    : `agent ${agentId}: control commands must be at least ${COMMAND_LIMITS.controlIntervalMs} ms apart; retry in ${ms} ms`;
  return new AppError('RATE_LIMITED', message, {
    limit, window_seconds: windowSeconds, retry_after: Math.max(1, Math.ceil(ms / 1000)), retry_after_ms: ms,
    reset_at: new Date(Date.now() + ms).toISOString(), scope: 'user', layer: 'agent', rule, agent_id: agentId,
  });
}

export async function admit(s: Pick<Services, 'config' | 'db'>, caller: Caller, agentId: string, c: Checked, rawParams: Params): Promise<Admission> {
  const { control, slot: usesSlot } = c.def;
  return s.db.transaction(async (tx): Promise<Admission> => {
    const agent = await findAgentRow(tx, caller, agentId, true);
    if (!c.def.anyState && !ACCEPTS_WORK.has(agent.status)) {
      const how = agent.status === 'paused' ? 'resume it first' : agent.status === 'stopped' ? 'start it first' : 'fix the cause (status_reason) and resume it';
      throw new AppError(
        'CONFLICT',
        `agent ${agentId} is ${agent.status} and refuses ${c.command}; ${how} (only status, emergency_shutdown and the lifecycle ` +
          `commands are taken in this state)`,
        { agent_id: agentId, status: agent.status, command: c.command, accepted_now: ANY_STATE },
      );
    }

    // A slot lease that ran out belongs to a command whose process died.
    if (agent.busy_command_id && !slotTaken(agent)) {
      await tx.query(
        `UPDATE agent_actions SET status = 'failed', completed_at = clock_timestamp(), error = $2 WHERE command_id = $1 AND status IN ('running', 'queued')`,
        [
          agent.busy_command_id,
          JSON.stringify({ code: 'INTERNAL_ERROR', message: 'abandoned: the process executing the command stopped before it finished' }),
        ],
      );
      await tx.query('UPDATE agents SET busy_command_id = NULL, busy_until = NULL WHERE id = $1', [agentId]);
      agent.busy_command_id = null;
      agent.busy_until = null;
    }

    // emergency_shutdown skips every per-agent limit (its agent was found above, in the caller's tenant).
    if (c.command !== 'emergency_shutdown') {
      const exclude = control && c.token ? sha256(c.token) : '';
      const {
        rows: [w],
      } = await tx.query<{
        n1: number;
        n60: number;
        wait1: number | null;
        wait60: number | null;
        since_control: number | null;
        waiting: number;
      }>(
        `SELECT count(*) FILTER (WHERE a.created_at > clock_timestamp() - interval '1 second')::int AS n1,
                count(*)::int AS n60,
                extract(epoch FROM (min(a.created_at) FILTER (WHERE a.created_at > clock_timestamp() - interval '1 second')
                                    + interval '1 second' - clock_timestamp())) * 1000 AS wait1,
                extract(epoch FROM (min(a.created_at) + interval '60 seconds' - clock_timestamp())) * 1000 AS wait60,
                (SELECT extract(epoch FROM (clock_timestamp() - g.last_control_at)) * 1000 FROM agents g WHERE g.id = $1) AS since_control,
                (SELECT count(*)::int FROM agent_actions q
                  WHERE q.agent_id = $1 AND q.status = 'queued' AND q.created_at > clock_timestamp() - interval '310 seconds') AS waiting
         FROM agent_actions a
         WHERE a.agent_id = $1 AND a.command <> 'emergency_shutdown' AND a.created_at > clock_timestamp() - interval '60 seconds'
           AND a.command_id NOT IN (SELECT command_id FROM command_confirmations WHERE token_hash = $2)`,
        [agentId, exclude],
      );
      if (w.n1 >= COMMAND_LIMITS.perSecond) throw rateLimited(agentId, 'per_second', COMMAND_LIMITS.perSecond, 1, Number(w.wait1 ?? 1000));
      if (usesSlot && priorityRank(c.priority) > 0) {
        if (slotTaken(agent)) {
          throw new AppError(
            'AGENT_BUSY',
            `agent ${agentId} is executing command ${agent.busy_command_id}; one command runs at a time (retry when it has ` +
              `finished, or use priority "emergency" to wait for it)`,
            { agent_id: agentId, reason: 'executing', command_id: agent.busy_command_id },
          );
        }
        if (w.waiting > 0)
          throw new AppError('AGENT_BUSY', `agent ${agentId} has an emergency-priority command waiting to run; it goes first`, {
            agent_id: agentId,
            reason: 'emergency_waiting',
          });
      }
      if (w.n60 >= agent.max_actions_per_minute) {
        const retry = Math.max(1, Math.ceil(Number(w.wait60 ?? 60000) / 1000));
        throw new AppError(
          'AGENT_BUSY',
          `agent ${agentId} has taken ${w.n60} commands in the last minute, its max_actions_per_minute (${agent.max_actions_per_minute}); retry in ${retry} s`,
          {
            agent_id: agentId,
            reason: 'max_actions_per_minute',
            limit: agent.max_actions_per_minute,
            window_seconds: 60,
            retry_after: retry,
          },
        );
      }
      if (control && c.token && w.since_control !== null && Number(w.since_control) < COMMAND_LIMITS.controlIntervalMs) {
        throw rateLimited(agentId, 'control_interval', 1, COMMAND_LIMITS.controlIntervalMs / 1000, COMMAND_LIMITS.controlIntervalMs - Number(w.since_control));
      }
    }

    // Step one of two: record the request, hand out a one-time token bound to agent, command and params.
    if (control && !c.token) return { kind: 'prompt', answer: await issueConfirmation(tx, caller, agent, c, rawParams) };

    let confirmed: ActionRow | undefined;
    if (control && c.token) {
      const r = await redeemConfirmation(s, tx, caller, agentId, { ...c, token: c.token });
      if ('refused' in r) return { kind: 'refused', error: r.refused };
      confirmed = r.action;
    }

    let slot: 'held' | 'none' | 'wait' = 'none';
    if (usesSlot) slot = slotTaken(agent) ? 'wait' : 'held';
    const action = confirmed
      ? slot === 'wait'
        ? (await tx.query<ActionRow>(`UPDATE agent_actions SET status = 'queued' WHERE id = $1 RETURNING *`, [confirmed.id])).rows[0]
        : confirmed
      : await insertAction(tx, caller, agent, newId('cmd'), c, control, slot === 'wait' ? 'queued' : 'running');
    if (slot === 'held') {
      await tx.query(
        `UPDATE agents SET busy_command_id = $2, busy_until = clock_timestamp() + make_interval(secs => $3::double precision / ` +
          `1000), last_active_at = now() WHERE id = $1`,
        [agentId, action.command_id, c.timeoutMs + COMMAND_LIMITS.slotGraceMs],
      );
    } else {
      await tx.query('UPDATE agents SET last_active_at = now() WHERE id = $1', [agentId]);
    }
    return { kind: 'run', agent, action, slot };
  });
}

/** An emergency-priority command waits for the slot (ahead of everyone: others are refused while it waits). */
export async function waitForSlot(s: Pick<Services, 'db'>, agentId: string, commandId: string, timeoutMs: number, deadline: number): Promise<boolean> {
  for (;;) {
    const { rows } = await s.db.query(
      `UPDATE agents SET busy_command_id = $2, busy_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
       WHERE id = $1 AND (busy_command_id IS NULL OR busy_until < clock_timestamp()) RETURNING id`,
      [agentId, commandId, timeoutMs + COMMAND_LIMITS.slotGraceMs]);
    if (rows[0]) {
      await s.db.query(`UPDATE agent_actions SET status = 'running', executed_at = clock_timestamp() WHERE command_id = $1 AND status = 'queued'`, [commandId]);
      return true;
    }
    const { rows: st } = await s.db.query<{ status: string }>('SELECT status FROM agent_actions WHERE command_id = $1', [commandId]);
    if (st[0]?.status !== 'queued') return false; // cancelled by an emergency shutdown
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 15));
  }
}
