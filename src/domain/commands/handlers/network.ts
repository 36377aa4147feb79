// What several handlers need: the agent's network, whether it can be changed now, and the
// summary of a solved flow (as run_powerflow answers it).
import type { Services } from '../../../services.js';
import type { Caller } from '../../caller.js';
import type { NetworkModel } from '../../networkModel.js';
import { AppError } from '../../../lib/errors.js';
import { getModel, type NetworkSummary } from '../../networks.js';
import { branchIds, powerFlowConditions } from '../../alarmRules.js';
import type { AgentRow } from '../../agents.js';
import type { CommandContext } from '../context.js';

/** The result fields flowSummary reads. */
/** What flowSummary reads of a solved network: a power-flow result, or the what-if check's flows. */
export type FlowLike = {
  status: string; method: string; iterations: number; duration_ms: number; losses: { p_mw: number; q_mvar: number };
  buses: { id: number; v: number }[]; branches: { p_from: number; q_from: number; p_to: number; q_to: number; loading: number }[];
};

export async function agentNetwork(
  s: Pick<Services, 'db'>,
  caller: Caller,
  agent: AgentRow,
  ctx?: CommandContext,
): Promise<{ summary: NetworkSummary; model: NetworkModel }> {
  if (!agent.network_id) {
    throw new AppError('VALIDATION_FAILED', `agent ${agent.id} has no network_id; set one with PUT /api/v1/agents/${agent.id}`, {
      field: 'network_id',
      agent_id: agent.id,
    });
  }
  try {
    return await getModel(s, caller, agent.network_id);
  } catch (e) {
    if (e instanceof AppError && e.code === 'NOT_FOUND') {
      if (ctx) ctx.agentFailure = `network ${agent.network_id} no longer exists`;
      throw new AppError(
        'VALIDATION_FAILED',
        `agent ${agent.id}'s network ${agent.network_id} no longer exists${ctx ? '; the agent is now in status error (PUT a network_id, then resume it)' : ''}`,
        { field: 'network_id', network_id: agent.network_id, agent_id: agent.id },
      );
    }
    throw e;
  }
}

export function assertOperable(n: NetworkSummary): void {
  if (n.status === 'locked')
    throw new AppError(
      'NETWORK_LOCKED',
      `network ${n.id} is locked while a power flow on it runs; send the command again when the task has finished`,
      { network_id: n.id },
    );
  if (n.status === 'archived' || n.status === 'draft') {
    throw new AppError('CONFLICT', `network ${n.id} is ${n.status}; control commands need a ready network`, { network_id: n.id, status: n.status });
  }
}

/** The summary of a solved flow: worst voltage, extremes, highest loading, violation counts. */
export function flowSummary(model: NetworkModel, r: FlowLike) {
  const ids = branchIds(model);
  const byId = new Map(model.buses.map((b) => [b.id, b]));
  let worst: Record<string, unknown> | null = null;
  let worstDev = -Infinity;
  let vmin: { bus: number; v: number } | null = null;
  let vmax: { bus: number; v: number } | null = null;
  for (const b of r.buses) {
    const bus = byId.get(b.id);
    if (!bus || bus.type === 'isolated' || (b as { energized?: boolean }).energized === false) continue;
    if (!vmin || b.v < vmin.v) vmin = { bus: b.id, v: b.v };
    if (!vmax || b.v > vmax.v) vmax = { bus: b.id, v: b.v };
    // Distance to the nearer limit, negative inside the band: the worst is the largest.
    const dev = Math.max(bus.vmin - b.v, b.v - bus.vmax);
    if (dev > worstDev) {
      worstDev = dev;
      worst = { bus: b.id, v: b.v, vmin: bus.vmin, vmax: bus.vmax, violation: dev > 1e-6 ? Math.round(dev * 1e6) / 1e6 : 0 };
    }
  }
  let maxLoading: Record<string, unknown> | null = null;
  r.branches.forEach((f, i) => {
    const br = model.branches[i];
    if (!br || !(br.rate_a > 0) || br.status !== 'closed') return;
    if (!maxLoading || f.loading > (maxLoading.loading as number))
      maxLoading = { branch_id: ids[i], index: i, from: br.from, to: br.to, loading: f.loading, rate_a: br.rate_a };
  });
  const conditions = powerFlowConditions(model, r);
  return {
    status: r.status, method: r.method, iterations: r.iterations, duration_ms: r.duration_ms, losses: r.losses,
    worst_voltage: worst, min_voltage: vmin, max_voltage: vmax, max_loading: maxLoading,
    violations: { overload: conditions.filter((c) => c.type === 'overload').length, voltage: conditions.filter((c) => c.type === 'voltage').length },
  };
}
