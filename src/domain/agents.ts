// Agents (SPEC 2 "Agent", 3, 4.3): CRUD scoped to the caller's tenant, and the
// agent state machine (one transition table, enforced in transitionAgent only).
// Every door calls these functions; commands live in commands.ts. docs/agents.md.
import { AGENT_STATUSES, AGENT_TYPES, type AgentStatus, type AgentType } from '../schemas/vocabulary.js';
import type { Queryable } from '../db/database.js';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { findOwnedRow, orderBy, pageMeta, paging, selectPage, } from '../lib/paging.js';
import { insertEvent, publishEvents, type StoredEvent } from './eventLog.js';
import { checkAgentQuota } from '../security/quotas.js';
import { Where } from '../db/where.js';
import type { Static } from '@sinclair/typebox';
import type { AgentIn, AgentListQuery as AgentListQuerySchema, AgentUpdate as AgentUpdateSchema } from '../schemas/agents.js';

export { AGENT_STATUSES, AGENT_TYPES, type AgentStatus, type AgentType };

/** What moves an agent between states. */
export type AgentOperation = 'start' | 'pause' | 'resume' | 'stop' | 'fail' | 'emergency_shutdown';

/**
 * THE agent state machine: from-state → operation → to-state. Anything not listed
 * is illegal and answers 409 CONFLICT naming from and to. docs/agents.md draws it.
 */
export const AGENT_TRANSITIONS: Readonly<Record<AgentStatus, Readonly<Partial<Record<AgentOperation, AgentStatus>>>>> = {
  idle: { start: 'running', resume: 'running', stop: 'stopped', fail: 'error', emergency_shutdown: 'stopped' },
  running: { pause: 'paused', stop: 'stopped', fail: 'error', emergency_shutdown: 'stopped' },
  paused: { resume: 'running', stop: 'stopped', fail: 'error', emergency_shutdown: 'stopped' },
  error: { resume: 'running', start: 'running', stop: 'stopped', emergency_shutdown: 'stopped' },
  stopped: { start: 'running' },
};

/** Where each operation leads when it is legal (for the error message of an illegal one). */
export const OPERATION_TARGET: Readonly<Record<AgentOperation, AgentStatus>> = {
  start: 'running', pause: 'paused', resume: 'running', stop: 'stopped', fail: 'error', emergency_shutdown: 'stopped',
};

/** States in which an agent takes work commands (docs/agents.md "Which commands in which state"). */
export const ACCEPTS_WORK: ReadonlySet<AgentStatus> = new Set<AgentStatus>(['idle', 'running']);

export const MAX_ACTIONS_PER_MINUTE = 600; // 10 commands per second (SPEC 8.1) make more meaningless

export interface Agent {
  id: string;
  name: string;
  type: AgentType;
  network_id: string | null;
  status: AgentStatus;
  status_reason: string | null;
  config: Record<string, unknown>;
  tools: string[];
  reasoning_model: string;
  max_actions_per_minute: number;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  last_active_at: Date | null;
}

/** The stored row: the public view plus the tenant and the command-slot bookkeeping. */
export interface AgentRow extends Agent {
  tenant_id: string;
  busy_command_id: string | null;
  busy_until: Date | null;
  last_control_at: Date | null;
}

const dt = (v: Date | string | null) => (v === null || v === undefined ? null : new Date(v));

export function agentView(r: AgentRow): Agent {
  return {
    id: r.id, name: r.name, type: r.type, network_id: r.network_id, status: r.status, status_reason: r.status_reason,
    config: r.config ?? {}, tools: r.tools ?? [], reasoning_model: r.reasoning_model, max_actions_per_minute: r.max_actions_per_minute,
    created_at: new Date(r.created_at), updated_at: new Date(r.updated_at), started_at: dt(r.started_at), last_active_at: dt(r.last_active_at),
  };
}

/** POST /agents's body and PATCH /agents/{id}'s (src/schemas/agents.ts). */
export type AgentInput = Static<typeof AgentIn>;
export type AgentUpdate = Static<typeof AgentUpdateSchema>;

// ---------------------------------------------------------------------------
// Checks shared by every door (the REST schema repeats them for early 400s)

function checkFields(input: AgentUpdate, creating: boolean): void {
  if (creating || input.name !== undefined) {
    if (typeof input.name !== 'string' || input.name.trim() === '' || input.name.length > 128) {
      throw new AppError(input.name === undefined ? 'INVALID_REQUEST' : 'INVALID_FIELD', 'name is required: 1 to 128 characters', { field: 'name' });
    }
  }
  if (creating || input.type !== undefined) {
    if (!AGENT_TYPES.includes(input.type as AgentType)) {
      throw new AppError(input.type === undefined ? 'INVALID_REQUEST' : 'INVALID_FIELD', `type must be one of ${AGENT_TYPES.join(', ')}`, {
        field: 'type',
        allowed: AGENT_TYPES,
      });
    }
  }
  if (input.max_actions_per_minute !== undefined) {
    const m = input.max_actions_per_minute;
    if (!Number.isInteger(m) || m < 1 || m > MAX_ACTIONS_PER_MINUTE) {
      throw new AppError('PARAM_OUT_OF_RANGE', `max_actions_per_minute must be an integer from 1 to ${MAX_ACTIONS_PER_MINUTE}, got ${m}`, {
        field: 'max_actions_per_minute',
        minimum: 1,
        maximum: MAX_ACTIONS_PER_MINUTE,
      });
    }
  }
  if (input.config !== undefined && (input.config === null || typeof input.config !== 'object' || Array.isArray(input.config))) {
    throw new AppError('INVALID_FIELD', 'config must be an object', { field: 'config' });
  }
  if (input.tools !== undefined && (!Array.isArray(input.tools) || input.tools.some((t) => typeof t !== 'string'))) {
    throw new AppError('INVALID_FIELD', 'tools must be an array of strings', { field: 'tools' });
  }
}

async function checkNetwork(q: Queryable, caller: Caller, networkId: string | null | undefined): Promise<void> {
  if (networkId === undefined || networkId === null) return;
  const { rows } = await q.query('SELECT 1 FROM networks WHERE id = $1 AND tenant_id = $2', [networkId, caller.tenantId]);
  if (!rows[0]) {
    throw new AppError('VALIDATION_FAILED', `network_id ${networkId} does not name a network of tenant ${caller.tenantId}`, {
      field: 'network_id',
      network_id: networkId,
    });
  }
}

/** Agent count quota (quota agent_count, default 100; src/security/quotas.ts); the tenant row lock
 *  serialises concurrent creations so two cannot both take the last place. */
async function checkQuota(s: Services, q: Queryable, tenantId: string): Promise<void> {
  await q.query('SELECT id FROM tenants WHERE id = $1 FOR UPDATE', [tenantId]);
  await checkAgentQuota(s, q, tenantId);
}

/** The agent event of SPEC 6.1: agent_id, old_status, new_status (+ name, reason, timestamp). */
export function agentStatusEvent(r: AgentRow, oldStatus: AgentStatus | null, reason: string, kind = 'agent.status_changed', actor?: string) {
  return {
    tenantId: r.tenant_id,
    topic: 'agent' as const,
    kind,
    agentId: r.id,
    networkId: r.network_id ?? undefined,
    payload: {
      agent_id: r.id,
      name: r.name,
      old_status: oldStatus,
      new_status: r.status,
      reason,
      timestamp: new Date().toISOString(),
      ...(actor ? { actor } : {}),
    },
  };
}

// ---------------------------------------------------------------------------
// CRUD

export async function createAgent(s: Services, caller: Caller, input: AgentInput): Promise<Agent> {
  checkFields(input, true);
  const out = await s.db.transaction(async (tx) => {
    await checkNetwork(tx, caller, input.network_id);
    await checkQuota(s, tx, caller.tenantId);
    const id = newId('agent');
    const start = input.auto_start === true;
    const { rows } = await tx.query<AgentRow>(
      `INSERT INTO agents (id, tenant_id, name, type, network_id, status, status_reason, config, tools, reasoning_model, max_actions_per_minute,
                           started_at, last_active_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11, CASE WHEN $12::boolean THEN now() END, NULL) RETURNING *`,
      [
        id,
        caller.tenantId,
        input.name,
        input.type,
        input.network_id ?? null,
        start ? 'running' : 'idle',
        start ? 'auto_start' : 'created',
        JSON.stringify(input.config ?? {}),
        JSON.stringify(input.tools ?? []),
        input.reasoning_model ?? 'default',
        input.max_actions_per_minute ?? 60,
        start,
      ],
    );
    const ev = await insertEvent(tx, agentStatusEvent(rows[0], null, start ? 'created with auto_start' : 'created', 'agent.created', caller.actor.id));
    return { agent: agentView(rows[0]), ev };
  });
  await publishEvents(s.bus, [out.ev]);
  return out.agent;
}

/** GET /agents's query (src/schemas/agents.ts); GraphQL passes the same fields. */
export type AgentListQuery = Static<typeof AgentListQuerySchema>;

const SORTABLE = {
  name: 'name',
  created_at: 'created_at',
  updated_at: 'updated_at',
  status: 'status',
  type: 'type',
  last_active_at: 'last_active_at',
  started_at: 'started_at',
  id: 'id',
};

export async function listAgents(s: Pick<Services, 'db'>, caller: Caller, q: AgentListQuery) {
  const p = paging(q);
  const where = Where.tenant(caller.tenantId);
  if (q.status) {
    if (!AGENT_STATUSES.includes(q.status)) throw new AppError('INVALID_FIELD', `status must be one of ${AGENT_STATUSES.join(', ')}`, { field: 'status' });
    where.add('status = ?', q.status);
  }
  if (q.type) {
    if (!AGENT_TYPES.includes(q.type)) throw new AppError('INVALID_FIELD', `type must be one of ${AGENT_TYPES.join(', ')}`, { field: 'type' });
    where.add('type = ?', q.type);
  }
  if (q.network_id) where.add('network_id = ?', q.network_id);
  const order = orderBy(q.sort, SORTABLE);
  const { rows, total } = await selectPage<AgentRow>(s.db, { from: 'agents', ...where.toSql(), order: `${order}, id ASC` }, p);
  return { items: rows.map(agentView), meta: pageMeta(p, total, rows.length) };
}

export async function findAgentRow(q: Queryable, caller: Caller, id: string, lock = false): Promise<AgentRow> {
  return findOwnedRow<AgentRow>(q, 'agents', 'agent', caller.tenantId, id, lock);
}

/** Whether the caller's tenant has this agent (one indexed read, no lock: the rate-limit gate's question). */
export async function agentInTenant(q: Queryable, caller: Caller, id: string): Promise<boolean> {
  const { rows } = await q.query('SELECT 1 FROM agents WHERE id = $1 AND tenant_id = $2', [id, caller.tenantId]);
  return rows.length > 0;
}

export async function getAgent(s: Pick<Services, 'db'>, caller: Caller, id: string): Promise<Agent> {
  return agentView(await findAgentRow(s.db, caller, id));
}

/** Changes the given configuration fields; absent fields keep their values. Status moves only through operations. */
export async function updateAgent(s: Pick<Services, 'db'>, caller: Caller, id: string, input: AgentUpdate): Promise<Agent> {
  checkFields(input, false);
  const row = await s.db.transaction(async (tx) => {
    const cur = await findAgentRow(tx, caller, id, true);
    if (input.network_id !== undefined) await checkNetwork(tx, caller, input.network_id);
    const { rows } = await tx.query<AgentRow>(
      `UPDATE agents SET name = $3, type = $4, network_id = $5, config = $6, tools = $7, reasoning_model = $8, max_actions_per_minute = $9, updated_at = now()
       WHERE id = $1 AND tenant_id = $2 RETURNING *`,
      [id, caller.tenantId, input.name ?? cur.name, input.type ?? cur.type, input.network_id === undefined ? cur.network_id : input.network_id,
        JSON.stringify(input.config ?? cur.config), JSON.stringify(input.tools ?? cur.tools), input.reasoning_model ?? cur.reasoning_model,
        input.max_actions_per_minute ?? cur.max_actions_per_minute]);
    return rows[0];
  });
  return agentView(row);
}

export function slotTaken(r: AgentRow): boolean {
  return r.busy_command_id !== null && r.busy_until !== null && new Date(r.busy_until).getTime() > Date.now();
}

export async function deleteAgent(s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string): Promise<void> {
  const ev = await s.db.transaction(async (tx) => {
    const cur = await findAgentRow(tx, caller, id, true);
    if (slotTaken(cur))
      throw new AppError(
        'AGENT_BUSY',
        `agent ${id} is executing command ${cur.busy_command_id}; delete it when the command has finished (or stop it with emergency_shutdown)`,
        { agent_id: id, command_id: cur.busy_command_id },
      );
    await tx.query('DELETE FROM agents WHERE id = $1', [id]);
    return insertEvent(tx, {
      ...agentStatusEvent(cur, cur.status, 'deleted', 'agent.deleted', caller.actor.id),
      payload: {
        agent_id: id,
        name: cur.name,
        old_status: cur.status,
        new_status: null,
        reason: 'deleted',
        timestamp: new Date().toISOString(),
        actor: caller.actor.id,
      },
    });
  });
  await publishEvents(s.bus, [ev]);
}

export interface BatchResult {
  succeeded: { index: number; id: string }[];
  failed: { index: number; error: { code: string; message: string; details?: Record<string, unknown> } }[];
}

export function batchError(e: unknown) {
  if (e instanceof AppError) return { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) };
  return { code: 'INTERNAL_ERROR', message: 'internal error' };
}

export const AGENT_BATCH_MAX = 50;

/** Each entry is judged alone (SPEC 4.3 batch endpoints). */
export async function batchCreateAgents(s: Services, caller: Caller, inputs: AgentInput[]): Promise<BatchResult> {
  if (inputs.length > AGENT_BATCH_MAX)
    throw new AppError('VALIDATION_FAILED', `a batch holds at most ${AGENT_BATCH_MAX} agents, got ${inputs.length}`, {
      limit: AGENT_BATCH_MAX,
    });
  const out: BatchResult = { succeeded: [], failed: [] };
  for (let i = 0; i < inputs.length; i++) {
    try {
      out.succeeded.push({ index: i, id: (await createAgent(s, caller, inputs[i])).id });
    } catch (e) {
      out.failed.push({ index: i, error: batchError(e) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// The state machine

export function illegalTransition(r: Pick<AgentRow, 'id' | 'status'>, op: AgentOperation): AppError {
  const to = OPERATION_TARGET[op];
  const legal = Object.keys(AGENT_TRANSITIONS[r.status]);
  return new AppError(
    'CONFLICT',
    `cannot ${op.replace('_', ' ')} agent ${r.id}: it is ${r.status} (${r.status} → ${to} is not a legal transition; from ` +
      `${r.status}: ${legal.join(', ') || 'nothing'})`,
    { agent_id: r.id, operation: op, from: r.status, to, allowed_operations: legal },
  );
}

/** Applies one operation inside tx (the only place an agent's status changes after creation). */
export async function transitionAgent(
  tx: Queryable,
  row: AgentRow,
  op: AgentOperation,
  reason: string,
  actor?: string,
): Promise<{ row: AgentRow; event: StoredEvent }> {
  const to = AGENT_TRANSITIONS[row.status][op];
  if (!to) throw illegalTransition(row, op);
  // started_at marks the start of the current run: set when the agent (re)starts, kept across pause/resume.
  const restart = to === 'running' && row.status !== 'paused';
  const { rows } = await tx.query<AgentRow>(
    `UPDATE agents SET status = $2, status_reason = $3, updated_at = now(), started_at = CASE WHEN $4::boolean THEN now() ELSE started_at END
     WHERE id = $1 RETURNING *`,
    [row.id, to, reason, restart],
  );
  const event = await insertEvent(tx, agentStatusEvent(rows[0], row.status, reason, 'agent.status_changed', actor));
  return { row: rows[0], event };
}

/** pause / resume / start / stop through REST (and the lifecycle commands). */
export async function changeAgentStatus(
  s: Pick<Services, 'bus' | 'db'>,
  caller: Caller,
  id: string,
  op: 'start' | 'pause' | 'resume' | 'stop',
  reason?: string,
): Promise<Agent> {
  const out = await s.db.transaction(async (tx) => {
    const row = await findAgentRow(tx, caller, id, true);
    return transitionAgent(tx, row, op, reason ?? `${op} by ${caller.actor.type} ${caller.actor.id}`, caller.actor.id);
  });
  await publishEvents(s.bus, [out.event]);
  return agentView(out.row);
}

export const pauseAgent = (s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string, reason?: string) => changeAgentStatus(s, caller, id, 'pause', reason);
export const resumeAgent = (s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string, reason?: string) => changeAgentStatus(s, caller, id, 'resume', reason);
export const startAgent = (s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string, reason?: string) => changeAgentStatus(s, caller, id, 'start', reason);
export const stopAgent = (s: Pick<Services, 'bus' | 'db'>, caller: Caller, id: string, reason?: string) => changeAgentStatus(s, caller, id, 'stop', reason);
