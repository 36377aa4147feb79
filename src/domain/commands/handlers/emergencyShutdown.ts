// emergency_shutdown: stops the agent from any state at once, cancels an emergency command
// waiting for the slot and interrupts the command running in this process (one running in
// another process sees the stopped status before it changes anything: control.ts).
import { publishEvents } from '../../eventLog.js';
import { findAgentRow, slotTaken, transitionAgent } from '../../agents.js';
import { Abort, runningCommands } from '../context.js';
import { defineCommand } from '../registry.js';
import { Reason } from './lifecycle.js';

export default defineCommand({
  name: 'emergency_shutdown',
  params: Reason,
  control: false, slot: false, anyState: true,
  async run(ctx, p) {
    const reason = p.reason ?? `emergency shutdown by ${ctx.caller.actor.type} ${ctx.caller.actor.id}`;
    const out = await ctx.s.db.transaction(async (tx) => {
      const row = await findAgentRow(tx, ctx.caller, ctx.agent.id, true);
      const cancelled = await tx.query<{ command_id: string }>(
        `UPDATE agent_actions SET status = 'cancelled', completed_at = clock_timestamp(), error = $2 WHERE agent_id = $1 AND ` +
          `status = 'queued' RETURNING command_id`,
        [
          row.id,
          JSON.stringify({ code: 'CONFLICT', message: 'cancelled by emergency_shutdown', details: { reason: 'emergency_shutdown' } }),
        ],
      );
      if (row.status === 'stopped')
        return { old: row.status, row, event: undefined, cancelled: cancelled.rows.map((r) => r.command_id), busy: row.busy_command_id };
      const t = await transitionAgent(tx, row, 'emergency_shutdown', reason, ctx.caller.actor.id);
      return {
        old: row.status,
        row: t.row,
        event: t.event,
        cancelled: cancelled.rows.map((r) => r.command_id),
        busy: slotTaken(row) ? row.busy_command_id : null,
      };
    });
    if (out.event) await publishEvents(ctx.s.bus, [out.event]);
    const local = runningCommands.get(ctx.agent.id);
    if (local) local.controller.abort(new Abort('shutdown'));
    return {
      old_status: out.old, new_status: 'stopped', already_stopped: out.old === 'stopped', reason,
      interrupted_command_id: out.busy ?? null, cancelled_queued: out.cancelled, constraint_checked: false,
    };
  },
});
