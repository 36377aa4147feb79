// The audit entry of a command (action agent.command.<command>), written on its own (outside
// the command's transactions) so that a refused or failed command is audited too.
import type { Services } from '../../services.js';
import type { Caller } from '../caller.js';
import type { AppError } from '../../lib/errors.js';
import { recordAudit, fromCaller } from '../../security/audit.js';
import type { ActionRow } from './actions.js';

export type AuditedCommand = Pick<ActionRow, 'agent_id' | 'command_id' | 'command' | 'params' | 'priority'>;

/** The audit entry's id, or null when it could not be written (logged; the command's outcome stands). */
export async function auditCommand(
  s: Services,
  caller: Caller,
  a: AuditedCommand,
  status: string,
  error: AppError | undefined,
  output: Record<string, unknown> | null,
): Promise<string | null> {
  try {
    const entry = await recordAudit(s, {
      ...fromCaller(caller),
      action: `agent.command.${a.command}`,
      resource: { type: 'agent', id: a.agent_id },
      result: error ? 'failure' : 'success',
      status: error ? error.statusCode : 200,
      details: {
        command_id: a.command_id,
        command: a.command,
        params: a.params,
        priority: a.priority,
        status,
        ...(error ? { error: { code: error.code, message: error.message } } : {}),
        ...(output?.change ? { change: output.change } : {}),
      },
    });
    return entry.id;
  } catch (e) {
    s.log.warn({ err: e, command: a.command_id }, 'could not record the audit entry of an agent command');
    return null;
  }
}
