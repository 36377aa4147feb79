// status: the agent, its network summary, whether it is busy, and its last actions.
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../lib/errors.js';
import { getNetworkSummary, type NetworkSummary } from '../../networks.js';
import { agentView, findAgentRow, slotTaken } from '../../agents.js';
import { actionView, type ActionRow } from '../actions.js';
import { defineCommand } from '../registry.js';

export default defineCommand({
  name: 'status',
  params: Type.Object({ actions: Type.Optional(Type.Integer({ minimum: 0, maximum: 50 })) }),
  control: false, slot: false, anyState: true,
  async run(ctx, p) {
    const { s, caller } = ctx;
    const agent = await findAgentRow(s.db, caller, ctx.agent.id);
    let network: NetworkSummary | null = null;
    let networkError: string | undefined;
    if (agent.network_id) {
      try {
        network = await getNetworkSummary(s, caller, agent.network_id);
      } catch (e) {
        if (!(e instanceof AppError && e.code === 'NOT_FOUND')) throw e;
        networkError = `network ${agent.network_id} no longer exists`;
      }
    }
    const n = p.actions ?? 10;
    const { rows } = await s.db.query<ActionRow>(
      `SELECT * FROM agent_actions WHERE agent_id = $1 AND command_id <> $2 ORDER BY seq DESC LIMIT ${n}`,
      [agent.id, ctx.action.command_id],
    );
    return {
      agent: agentView(agent), network, ...(networkError ? { network_error: networkError } : {}),
      busy: slotTaken(agent), busy_command_id: slotTaken(agent) ? agent.busy_command_id : null,
      // Summaries only: a full result would nest earlier status results (and grow with every call).
      last_actions: rows.map((r) => {
        const { result: _r, actor: _a, ...rest } = actionView(r);
        void _r;
        void _a;
        return { ...rest, error: r.error ? { code: r.error.code, message: r.error.message } : null };
      }),
      constraint_checked: false,
    };
  },
});
