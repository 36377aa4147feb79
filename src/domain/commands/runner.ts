// Running an admitted command: its deadline, its interruption by emergency_shutdown, the
// end of its action (status, result or error, audit entry, command.completed event) and the
// release of the agent's slot. executeCommand() is the whole path of one command.
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import { AppError } from '../../lib/errors.js';
import { insertEvent, publishEvents, type StoredEvent } from '../eventLog.js';
import { ACCEPTS_WORK, findAgentRow, transitionAgent, type AgentRow } from '../agents.js';
import { commandResult, type ActionRow } from './actions.js';
import { admit, waitForSlot, type Admission, type Checked } from './admission.js';
import { auditCommand } from './audit.js';
import { Abort, abortError, runningCommands, type CommandContext } from './context.js';
import { checkRequest } from './params.js';
import { agentNetwork, assertOperable } from './handlers/network.js';
import type { CommandAnswer, CommandRequest, CommandResult, Params } from './vocabulary.js';

/** What a client learns of an unexpected failure: no exception text (#11 finding 9a). */
function internalCommandError(command: string, commandId: string): AppError {
  return new AppError(
    'INTERNAL_ERROR',
    `command ${command} failed with an internal error and changed nothing; the agent is now in status error. Resume it to retry; ` +
      `if it happens again, give an administrator the command_id ${commandId} (the service log has the cause)`,
    { reason: 'internal_error' },
  );
}

function errorStatus(e: AppError): string {
  if (e.code === 'GATEWAY_TIMEOUT') return 'timeout';
  if (e.code === 'CONSTRAINT_VIOLATION' || e.code === 'NETWORK_LOCKED') return 'refused';
  if (e.details?.reason === 'emergency_shutdown') return 'cancelled';
  return 'failed';
}

async function execute(s: Services, caller: Caller, a: Extract<Admission, { kind: 'run' }>, c: Checked): Promise<{ result: CommandResult; error?: AppError }> {
  const started = Date.now();
  const deadline = started + c.timeoutMs;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Abort('timeout')), c.timeoutMs);
  timer.unref?.();
  const ctx: CommandContext = {
    s, caller, agent: a.agent, action: a.action, params: c.params, timeoutMs: c.timeoutMs, deadline, signal: controller.signal,
    checkpoint() {
      if (controller.signal.aborted) throw abortError(ctx, (controller.signal.reason as Abort)?.why ?? 'timeout');
    },
    remaining: () => Math.max(1, deadline - Date.now()),
  };
  // Registered once the slot is held, so emergency_shutdown finds the command that really runs.
  const register = () => runningCommands.set(a.agent.id, { commandId: a.action.command_id, controller });
  if (a.slot === 'held') register();
  let output: Record<string, unknown> | null = null;
  let error: AppError | undefined;
  try {
    if (a.slot === 'wait' && !(await waitForSlot(s, a.agent.id, a.action.command_id, c.timeoutMs, deadline))) {
      const { rows } = await s.db.query<{ status: string }>('SELECT status FROM agent_actions WHERE command_id = $1', [a.action.command_id]);
      throw rows[0]?.status === 'cancelled' ? abortError(ctx, 'shutdown') : abortError(ctx, 'timeout');
    }
    if (a.slot === 'wait') register();
    ctx.checkpoint();
    output = await c.def.run(ctx, c.params);
  } catch (e) {
    if (e instanceof AppError) error = e;
    else if (e instanceof Abort || (e as Error)?.name === 'AbortError')
      error = abortError(ctx, controller.signal.aborted ? ((controller.signal.reason as Abort)?.why ?? 'timeout') : 'timeout');
    else {
      // The cause stays in the log (it may name internals: SQL, file paths, stack frames); the client,
      // the history and the event get a stable code and a message that says what to do.
      s.log.error(
        { err: e, command_id: a.action.command_id, agent_id: a.agent.id, command: a.action.command },
        'agent command failed with an internal error',
      );
      error = internalCommandError(a.action.command, a.action.command_id);
      ctx.agentFailure ??= `internal error in command ${a.action.command} (${a.action.command_id})`;
    }
  } finally {
    clearTimeout(timer);
    if (runningCommands.get(a.agent.id)?.commandId === a.action.command_id) runningCommands.delete(a.agent.id);
  }
  const duration = Date.now() - started;
  const status = error ? errorStatus(error) : 'completed';

  // The audit entry of the command (outside the transaction below: it writes on its own).
  const auditId = await auditCommand(s, caller, a.action, status, error, output);
  if (output) output = { ...output, constraint_checked: output.constraint_checked === true, audit_id: auditId };
  if (error) {
    error = new AppError(error.code, error.message, {
      ...(error.details ?? {}),
      command_id: a.action.command_id,
      action_id: a.action.id,
      audit_id: auditId,
      constraint_checked: error.code === 'CONSTRAINT_VIOLATION',
    });
  }
  const fin = await finish(s, caller, a, c, { status, output, error, duration, auditId, agentFailure: ctx.agentFailure });
  await publishEvents(s.bus, fin.events);
  return { result: commandResult(fin.act, fin.act.result), error };
}

/** One transaction: the action's end, the slot released, the agent moved to error if the failure says so, the event. */
async function finish(s: Pick<Services, 'db'>, caller: Caller, a: Extract<Admission, { kind: 'run' }>, c: Checked,
  r: { status: string; output: Record<string, unknown> | null; error?: AppError; duration: number; auditId: string | null; agentFailure?: string }) {
  return s.db.transaction(async (tx) => {
    const { rows } = await tx.query<ActionRow>(
      `UPDATE agent_actions SET status = $2, result = $3, error = $4, duration_ms = $5, completed_at = clock_timestamp(), audit_id ` +
        `= $6 WHERE id = $1 RETURNING *`,
      [
        a.action.id,
        r.status,
        r.output ? JSON.stringify(r.output) : null,
        r.error ? JSON.stringify({ code: r.error.code, message: r.error.message, details: r.error.details }) : null,
        r.duration,
        r.auditId,
      ],
    );
    await tx.query(
      `UPDATE agents SET busy_command_id = CASE WHEN busy_command_id = $2 THEN NULL ELSE busy_command_id END,
                         busy_until = CASE WHEN busy_command_id = $2 THEN NULL ELSE busy_until END,
                         last_control_at = CASE WHEN $3::boolean THEN clock_timestamp() ELSE last_control_at END,
                         last_active_at = now()
       WHERE id = $1`, [a.agent.id, a.action.command_id, c.def.control]);
    const events: StoredEvent[] = [];
    if (r.agentFailure) {
      const cur = await tx.query<AgentRow>('SELECT * FROM agents WHERE id = $1 FOR UPDATE', [a.agent.id]);
      if (cur.rows[0] && cur.rows[0].status !== 'error' && (['idle', 'running', 'paused'] as string[]).includes(cur.rows[0].status)) {
        events.push((await transitionAgent(tx, cur.rows[0], 'fail', r.agentFailure, caller.actor.id)).event);
      }
    }
    const act = rows[0];
    events.push(await insertEvent(tx, {
      tenantId: caller.tenantId, topic: 'agent', kind: 'command.completed', agentId: a.agent.id, networkId: a.agent.network_id ?? undefined,
      payload: {
        agent_id: a.agent.id,
        command_id: act.command_id,
        action_id: act.id,
        command: act.command,
        status: act.status,
        priority: act.priority,
        result: act.result,
        error: act.error,
        duration_ms: act.duration_ms,
        executed_at: new Date(act.executed_at).toISOString(),
        timestamp: new Date().toISOString(),
        requested_by: act.requested_by ?? null,
        confirmed_by: act.confirmed_by ?? null,
      },
    }));
    return { act, events };
  });
}

/**
 * Sends one command to an agent: the function behind REST POST /agents/{id}/command,
 * GraphQL sendCommand and the WebSocket "command" frame. Throws AppError for a
 * refused or failed command; resolves with the command result otherwise.
 */
export async function executeCommand(s: Services, caller: Caller, agentId: string, req: CommandRequest): Promise<CommandAnswer> {
  const c = checkRequest(req);
  const rawParams = { ...(req.params ?? {}) } as Params;
  delete rawParams.confirmation_token;
  // A control command is checked against the network before a token is handed out.
  if (c.def.plan && !c.token) {
    const agent = await findAgentRow(s.db, caller, agentId);
    if (ACCEPTS_WORK.has(agent.status)) {
      const { summary, model } = await agentNetwork(s, caller, agent);
      assertOperable(summary);
      c.def.plan(model, c.params);
    }
  }
  const a = await admit(s, caller, agentId, c, rawParams);
  if (a.kind === 'refused') throw a.error;
  if (a.kind === 'prompt') {
    const auditId = await auditCommand(
      s,
      caller,
      { agent_id: agentId, command_id: a.answer.result.command_id, command: c.command, params: c.params, priority: c.priority },
      'confirmation_required',
      undefined,
      null,
    );
    if (auditId) {
      await s.db.query('UPDATE agent_actions SET audit_id = $2 WHERE command_id = $1', [a.answer.result.command_id, auditId]);
      a.answer.result.result!.audit_id = auditId;
    }
    return a.answer;
  }
  if (c.awaitResult) {
    const { result, error } = await execute(s, caller, a, c);
    if (error) throw error;
    return { httpStatus: 200, result };
  }
  // await_result false: answer at once; the result arrives as an agent event and in the history.
  void execute(s, caller, a, c).catch((e) => s.log.error({ err: e, command: a.action.command_id }, 'background agent command failed'));
  return { httpStatus: 202, result: { ...commandResult(a.action, null, 'accepted'), duration_ms: 0 } };
}
