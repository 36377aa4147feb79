// The shared run of control commands (switch_branch, set_generation): plan the change on the
// current model, ask the what-if check (src/studies/whatIf.ts) whether the grid stays within
// its limits, and store the change as a new network version — or refuse with 409
// CONSTRAINT_VIOLATION, leaving the network exactly as it was. docs/agents.md.
import type { TObject } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../../lib/errors.js';
import { getNetworkSummary, saveModelVersion } from '../../networks.js';
import { branchIds } from '../../alarmRules.js';
import type { NetworkModel } from '../../networkModel.js';
import { whatIf, type BaseFlows, type WhatIfVerdict } from '../../../studies/whatIf.js';
import { abortError, type CommandContext } from '../context.js';
import { defineCommand, type ChangePlan, type CommandDefinition } from '../registry.js';
import type { Params } from '../vocabulary.js';
import { agentNetwork, assertOperable, flowSummary } from './network.js';

/** The one-time token of the second step; accepted by every control command (registry.ts). */
export const ConfirmationToken = Type.Optional(Type.String({ minLength: 10, maxLength: 200 }));

/** A control command: holds the slot, needs confirmation by a second person, is checked by what-if. */
export function defineControlCommand<P extends TObject>(def: {
  name: string;
  params: P;
  require: (p: Params) => void;
  plan: (model: NetworkModel, p: Params) => ChangePlan;
}): CommandDefinition {
  return defineCommand({
    name: def.name,
    params: Type.Object({ ...def.params.properties, confirmation_token: ConfirmationToken }),
    require: def.require,
    control: true, slot: true, anyState: false,
    plan: def.plan,
    run: (ctx) => controlCommand(ctx, def.plan),
  });
}

/** A refusal of the what-if check as the 409 CONSTRAINT_VIOLATION of SPEC 7.2 (details: docs/agents.md). */
function refusal(ctx: CommandContext, v: Exclude<WhatIfVerdict, { ok: true }>): AppError {
  switch (v.reason) {
    case 'islanding':
      return new AppError(
        'CONSTRAINT_VIOLATION',
        `the change would island the network: ${v.buses.length} bus(es) lose their connection ` +
          `(${v.buses.slice(0, 20).join(', ')}${v.buses.length > 20 ? ', …' : ''})`,
        { reason: 'islanding', buses: v.buses.slice(0, 50), islands_before: v.islandsBefore, islands_after: v.islandsAfter },
      );
    case 'topology':
      return new AppError('CONSTRAINT_VIOLATION', `the changed network cannot be solved: ${v.error.message}`, {
        reason: 'topology',
        cause: v.error.code,
        ...v.error.details,
      });
    case 'incomplete':
      ctx.checkpoint();
      return abortError(ctx, 'timeout');
    case 'diverged':
      return new AppError(
        'CONSTRAINT_VIOLATION',
        `the power flow of the changed network does not converge (${Number.isFinite(v.mismatch) ? `mismatch ${v.mismatch.toExponential(3)} ` : ''}` +
          `after ${v.iterations} iterations); the change is refused`,
        { reason: 'diverged', iterations: v.iterations, mismatch: Number.isFinite(v.mismatch) ? v.mismatch : null },
      );
    case 'limits': {
      const first = v.violations[0]!;
      const n = v.violations.length;
      const what = first.type === 'overload'
        ? `branch ${first.branch_id} would be loaded ${first.loading.toFixed(1)}% of rate_a ${first.rate_a} MVA`
        : `bus ${first.bus} voltage would be ${first.voltage.toFixed(4)} p.u., outside [${first.vmin}, ${first.vmax}]`;
      return new AppError('CONSTRAINT_VIOLATION', `the change is refused: ${what}${n > 1 ? ` (and ${n - 1} more violation${n > 2 ? 's' : ''})` : ''}`,
        { reason: first.type, ...first, violations: v.violations.slice(0, 50), violation_count: n });
    }
  }
}

/** A kept base solution weighs its buses and branches (Services.models' bound). */
const flowsWeight = (f: BaseFlows | null) => 1 + (f ? f.buses.length + f.branches.length : 0);

async function controlCommand(ctx: CommandContext, plan: (m: NetworkModel, p: Params) => ChangePlan): Promise<Record<string, unknown>> {
  const { s, caller } = ctx;
  const { summary, model } = await agentNetwork(s, caller, ctx.agent, ctx);
  assertOperable(summary);
  const p = plan(model, ctx.params);
  if (!s.solver)
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'this process has no power-flow solver (ROLE=api), so control commands cannot be checked here; send them to a process with ROLE=all',
    );
  const verdict = await whatIf(s.solver, model, p.model, branchIds(p.model), {
    baseMemo: s.models.memo<BaseFlows | null>(summary.id, summary.version, 'whatIf.base', flowsWeight),
    timeoutMs: Math.max(1, ctx.remaining()),
    signal: ctx.signal,
  });
  if (!verdict.ok) throw refusal(ctx, verdict);
  const checked = {
    constraint_checked: true,
    checks: {
      ...flowSummary(p.model, { ...verdict.outcome, duration_ms: Math.round(verdict.outcome.duration_ms) }),
      islands: verdict.islands,
    },
  };
  // Last look before the change: deadline, emergency shutdown (from any process), lock.
  ctx.checkpoint();
  const { rows } = await s.db.query<{ status: string }>('SELECT status FROM agents WHERE id = $1', [ctx.agent.id]);
  if (rows[0]?.status === 'stopped') throw abortError(ctx, 'shutdown');
  assertOperable(await getNetworkSummary(s, caller, summary.id));
  const saved = await saveModelVersion(s, caller, summary.id, summary.version, p.model, {
    ...p.change,
    agent_id: ctx.agent.id,
    command_id: ctx.action.command_id,
  });
  return { network_id: summary.id, version: saved.version, previous_version: summary.version, change: p.change, ...checked };
}
