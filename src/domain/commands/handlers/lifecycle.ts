// start, stop, pause, resume as commands: the agent state machine's operations (docs/agents.md).
import { Type } from '@sinclair/typebox';
import { publishEvents } from '../../eventLog.js';
import { findAgentRow, transitionAgent } from '../../agents.js';
import { defineCommand, type CommandDefinition } from '../registry.js';

export const Reason = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 256 })) });

function lifecycle(op: 'start' | 'stop' | 'pause' | 'resume'): CommandDefinition {
  return defineCommand({
    name: op,
    params: Reason,
    control: false, slot: false, anyState: true,
    async run(ctx, p) {
      const reason = p.reason ?? `${op} command from ${ctx.caller.actor.type} ${ctx.caller.actor.id}`;
      const out = await ctx.s.db.transaction(async (tx) => {
        const row = await findAgentRow(tx, ctx.caller, ctx.agent.id, true);
        return { old: row.status, ...(await transitionAgent(tx, row, op, reason, ctx.caller.actor.id)) };
      });
      await publishEvents(ctx.s.bus, [out.event]);
      return { old_status: out.old, new_status: out.row.status, reason, constraint_checked: false };
    },
  });
}

export const start = lifecycle('start');
export const stop = lifecycle('stop');
export const pause = lifecycle('pause');
export const resume = lifecycle('resume');
