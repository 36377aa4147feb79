// Two-step confirmation of control commands (SPEC 8.1 "two-factor confirmation"), run
// inside the admission transaction: step one records the request and hands out a one-time
// token bound to tenant, agent, command and params (only its SHA-256 is stored); step two
// redeems the token — sent by a second, different operator or admin (four eyes).
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database.js';
import type { Services } from '../../services.js';
import type { Actor, Caller } from '../caller.js';
import type { AgentRow } from '../agents.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { commandResult, insertAction, type ActionRow } from './actions.js';
import { COMMAND_LIMITS, type CheckedRequest, type CommandAnswer, type Params } from './vocabulary.js';

export const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const canonical = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Params)[k])}`).join(',')}}`;
  return JSON.stringify(v);
};

function confirmationTtl(agent: AgentRow): number {
  const v = Number((agent.config as { confirmation_ttl_ms?: unknown })?.confirmation_ttl_ms);
  return Number.isFinite(v) && v >= 100 && v <= 600_000 ? Math.round(v) : COMMAND_LIMITS.confirmationTtlMs;
}

/** Step one: the prompt (an action with status confirmation_required) and its token. */
export async function issueConfirmation(tx: Queryable, caller: Caller, agent: AgentRow, c: CheckedRequest, rawParams: Params): Promise<CommandAnswer> {
  await tx.query(
    `UPDATE agent_actions SET status = 'expired', completed_at = clock_timestamp()
                  WHERE agent_id = $1 AND status = 'confirmation_required' AND command_id IN (
                    SELECT command_id FROM command_confirmations WHERE agent_id = $1 AND used_at IS NULL AND expires_at < clock_timestamp())`,
    [agent.id],
  );
  await tx.query(`DELETE FROM command_confirmations WHERE expires_at < clock_timestamp() - interval '1 hour'`);
  const token = randomBytes(24).toString('base64url');
  const ttl = confirmationTtl(agent);
  const commandId = newId('cmd');
  const { rows: [conf] } = await tx.query<{ expires_at: Date }>(
    `INSERT INTO command_confirmations (token_hash, tenant_id, agent_id, command, params_hash, command_id, requested_by, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + make_interval(secs => $8::double precision / 1000)) RETURNING expires_at`,
    [sha256(token), caller.tenantId, agent.id, c.command, sha256(canonical(c.params)), commandId, caller.actor.id, ttl]);
  const action = await insertAction(tx, caller, agent, commandId, c, true, 'confirmation_required');
  await tx.query('UPDATE agents SET last_active_at = now() WHERE id = $1', [agent.id]);
  const confirmWith = { command: c.command, params: { ...rawParams, confirmation_token: token } };
  return {
    httpStatus: 200,
    result: commandResult(action, {
      confirmation_required: true,
      confirmation_token: token,
      expires_at: new Date(conf.expires_at),
      expires_in_ms: ttl,
      message: `${c.command} is a control command: a second operator or admin of the tenant (not you) repeats it with ` +
        `params.confirmation_token within ${ttl} ms to execute it`,
      confirm_with: confirmWith,
      constraint_checked: false,
      audit_id: null as string | null,
    }),
  };
}

const sameActor = (a: Actor, b: Actor) => a.type === b.type && a.id === b.id && a.tenant === b.tenant;

/** Four-eyes rule (SPEC 8.1 "two-factor confirmation"): a control command is confirmed by a second, different
 *  operator or admin of the tenant (the token binds tenant and agent; the route requires the command permission).
 *  With authentication disabled every request is the same built-in admin, so nobody could confirm: the rule is
 *  then off (docs/agents.md). */
function assertSecondPerson(s: Pick<Services, 'config'>, caller: Caller, requester: Actor | null, agentId: string, command: string, commandId: string): void {
  if (!requester || !sameActor(requester, caller.actor) || s.config.security.authDisabled) return;
  throw new AppError(
    'FORBIDDEN',
    `${command} ${commandId} was requested by ${requester.type} ${requester.id}, who cannot also confirm it: a control command ` +
      `needs a second, different operator or admin of tenant ${caller.tenantId} to send the confirmation_token (four-eyes ` +
      `rule); the token stays valid for them until it expires`,
    { reason: 'four_eyes', field: 'params.confirmation_token', agent_id: agentId, command, command_id: commandId, requested_by: requester },
  );
}

/** Step two: checks and uses the token. Returns the prompt's action, now running (confirmed_by set), or the
 *  refusal to commit (an expired token marks its prompt expired); throws for the other refusals. */
export async function redeemConfirmation(
  s: Pick<Services, 'config'>,
  tx: Queryable,
  caller: Caller,
  agentId: string,
  c: CheckedRequest & { token: string },
): Promise<{ action: ActionRow } | { refused: AppError }> {
  const {
    rows: [conf],
  } = await tx.query<{
    tenant_id: string;
    agent_id: string;
    command: string;
    params_hash: string;
    command_id: string;
    expired: boolean;
    used_at: Date | null;
  }>(`SELECT *, expires_at <= clock_timestamp() AS expired FROM command_confirmations WHERE token_hash = $1 FOR UPDATE`, [sha256(c.token)]);
  const refuse = (reason: string, message: string) =>
    new AppError('VALIDATION_FAILED', message, { field: 'params.confirmation_token', reason, agent_id: agentId, command: c.command });
  if (!conf || conf.tenant_id !== caller.tenantId || conf.agent_id !== agentId)
    throw refuse('unknown', `params.confirmation_token is not a token this agent issued; send the command without it to get one`);
  if (conf.used_at)
    throw refuse('used', 'params.confirmation_token was already used (tokens are one-time); send the command without it to get a new one');
  if (conf.expired) {
    // Committed (not thrown inside the transaction): the prompt's action shows as expired.
    await tx.query(
      `UPDATE agent_actions SET status = 'expired', completed_at = clock_timestamp() WHERE command_id = $1 AND status = 'confirmation_required'`,
      [conf.command_id],
    );
    return { refused: refuse('expired', 'params.confirmation_token has expired; send the command without it to get a new one') };
  }
  if (conf.command !== c.command || conf.params_hash !== sha256(canonical(c.params))) {
    throw refuse(
      'mismatch',
      `params.confirmation_token was issued for a different command or different params; a token confirms exactly the request that returned it`,
    );
  }
  const {
    rows: [prompt],
  } = await tx.query<{ requested_by: Actor | null }>('SELECT requested_by FROM agent_actions WHERE command_id = $1', [conf.command_id]);
  const requester = prompt?.requested_by ?? null;
  assertSecondPerson(s, caller, requester, agentId, c.command, conf.command_id);
  await tx.query('UPDATE command_confirmations SET used_at = clock_timestamp() WHERE token_hash = $1', [sha256(c.token)]);
  const { rows } = await tx.query<ActionRow>(
    `UPDATE agent_actions SET status = $2, priority = $3, executed_at = clock_timestamp(), actor = $4, confirmed_by = $5 WHERE command_id = $1 RETURNING *`,
    [
      conf.command_id,
      'running',
      c.priority,
      JSON.stringify({ requested_by: requester, confirmed_by: caller.actor }),
      JSON.stringify(caller.actor),
    ],
  );
  return { action: rows[0] };
}
