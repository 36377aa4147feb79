// The action history of agents (SPEC 2 AgentAction): one row per command, from its
// admission (or its confirmation prompt) to its end, and how a row is shown.
import type { Queryable } from '../../db/database.js';
import type { Services } from '../../services.js';
import type { Actor, Caller } from '../caller.js';
import { newId } from '../../lib/ids.js';
import { orderBy, pageMeta, paging, selectPage, } from '../../lib/paging.js';
import { findAgentRow, type AgentRow } from '../agents.js';
import type { CheckedRequest, CommandResult, Params, Priority } from './vocabulary.js';
import type { Static } from '@sinclair/typebox';
import type { ActionListQuery as ActionListQuerySchema } from '../../schemas/agents.js';

export interface ActionRow {
  id: string;
  seq: number;
  tenant_id: string;
  agent_id: string;
  command_id: string;
  command: string;
  params: Params;
  priority: Priority;
  status: string;
  result: Record<string, unknown> | null;
  error: { code: string; message: string; details?: Record<string, unknown> } | null;
  control: boolean;
  actor: Record<string, unknown> | null;
  requested_by: Actor | null;
  confirmed_by: Actor | null;
  audit_id: string | null;
  duration_ms: number | null;
  created_at: Date;
  executed_at: Date;
  completed_at: Date | null;
}

/** SPEC 2 AgentAction plus command_id, priority, error, audit_id, requested_by, confirmed_by, completed_at (additive). */
export function actionView(r: ActionRow) {
  return {
    id: r.id, agent_id: r.agent_id, command_id: r.command_id, command: r.command, params: r.params ?? {}, priority: r.priority, status: r.status,
    result: r.result, error: r.error, audit_id: r.audit_id, actor: r.actor, requested_by: r.requested_by ?? null, confirmed_by: r.confirmed_by ?? null,
    executed_at: new Date(r.executed_at),
    completed_at: r.completed_at ? new Date(r.completed_at) : null, duration_ms: r.duration_ms ?? 0,
  };
}

export function commandResult(a: ActionRow, result: Record<string, unknown> | null, status = a.status): CommandResult {
  return {
    command_id: a.command_id, action_id: a.id, agent_id: a.agent_id, command: a.command, status, priority: a.priority,
    result, duration_ms: a.duration_ms ?? 0, executed_at: new Date(a.executed_at), requested_by: a.requested_by ?? null, confirmed_by: a.confirmed_by ?? null,
  };
}

export async function insertAction(
  tx: Queryable,
  caller: Caller,
  agent: AgentRow,
  commandId: string,
  c: CheckedRequest,
  control: boolean,
  status: string,
): Promise<ActionRow> {
  const { rows } = await tx.query<ActionRow>(
    `INSERT INTO agent_actions (id, tenant_id, agent_id, command_id, command, params, priority, status, control, actor, requested_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
    [
      newId('act'),
      caller.tenantId,
      agent.id,
      commandId,
      c.command,
      JSON.stringify(c.params),
      c.priority,
      status,
      control,
      JSON.stringify(status === 'confirmation_required' ? { requested_by: caller.actor } : caller.actor),
      JSON.stringify(caller.actor),
    ],
  );
  return rows[0];
}

/** GET /agents/{id}/actions's query (src/schemas/agents.ts). */
export type ActionListQuery = Static<typeof ActionListQuerySchema>;

const ACTION_SORT = { executed_at: 'executed_at', created_at: 'created_at', command: 'command', status: 'status', duration_ms: 'duration_ms', seq: 'seq' };

export async function listActions(s: Pick<Services, 'db'>, caller: Caller, agentId: string, q: ActionListQuery) {
  await findAgentRow(s.db, caller, agentId);
  const p = paging(q);
  const params: unknown[] = [agentId, caller.tenantId];
  const where = ['agent_id = $1', 'tenant_id = $2'];
  if (q.status) {
    params.push(q.status);
    where.push(`status = $${params.length}`);
  }
  if (q.command) {
    params.push(q.command);
    where.push(`command = $${params.length}`);
  }
  const w = where.join(' AND ');
  const order = orderBy(q.sort, ACTION_SORT);
  const { rows, total } = await selectPage<ActionRow>(s.db, { from: 'agent_actions', where: w, params, order: `${order}, seq DESC` }, p);
  return { items: rows.map(actionView), meta: pageMeta(p, total, rows.length) };
}
