// Agent commands (SPEC 4.3 "POST /agents/{id}/command", 8.1 command limits):
// admission (state, per-agent limits, the command slot, two-factor confirmation),
// execution with a deadline, and the action history. Every door (REST, GraphQL,
// WebSocket) calls executeCommand(); nothing here knows about HTTP. docs/agents.md.
import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.js';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import type { NetworkModel } from './network.js';
import type { SolveOutcome, PowerFlowMethod } from '../powerflow/types.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import { AppError, type ErrorCode } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import { orderBy, pageMeta, paging, selectPage, type PageQuery } from '../lib/paging.js';
import { insertEvent, publishEvents, type StoredEvent } from './events.js';
import { getModel, getNetworkSummary, loadVersion, saveModelVersion, type NetworkSummary } from './networks.js';
import { runPowerFlow } from './powerflow.js';
import type { TaskRow } from './tasks.js';
import { branchIds, powerFlowConditions } from './alarms.js';
import {
  ACCEPTS_WORK, agentView, findAgentRow, slotTaken, transitionAgent, batchError,
  type AgentOperation, type AgentRow,
} from './agents.js';
import { recordAudit, fromCaller } from '../security/audit.js';

// ---------------------------------------------------------------------------
// Vocabulary and limits

export type Priority = 'low' | 'normal' | 'high' | 'emergency';
export const PRIORITIES: readonly Priority[] = ['low', 'normal', 'high', 'emergency'];
const PRIORITY_RANK: Record<Priority, number> = { emergency: 0, high: 1, normal: 2, low: 3 };

export const COMMANDS = ['status', 'run_powerflow', 'switch_branch', 'set_generation', 'emergency_shutdown', 'start', 'stop', 'pause', 'resume'] as const;
export type CommandName = (typeof COMMANDS)[number];

/** Control commands change the grid: 100 ms spacing, two-factor confirmation, constraint check. */
export const CONTROL_COMMANDS: ReadonlySet<CommandName> = new Set<CommandName>(['switch_branch', 'set_generation']);
/** Commands that occupy the agent's single command slot while they run. */
const SLOT_COMMANDS: ReadonlySet<CommandName> = new Set<CommandName>(['run_powerflow', 'switch_branch', 'set_generation']);
/** Commands taken in every agent state (lifecycle ones still obey the transition table). */
const ANY_STATE: ReadonlySet<CommandName> = new Set<CommandName>(['status', 'emergency_shutdown', 'start', 'stop', 'pause', 'resume']);
const LIFECYCLE: Partial<Record<CommandName, AgentOperation>> = { start: 'start', stop: 'stop', pause: 'pause', resume: 'resume' };

export const COMMAND_LIMITS = {
  /** SPEC 8.1: normal commands at most 10 per second per agent. */
  perSecond: 10,
  /** SPEC 8.1: control commands at least 100 ms apart (from the end of the previous one). */
  controlIntervalMs: 100,
  /** Lifetime of a confirmation token (agent config.confirmation_ttl_ms overrides, 100..600000). */
  confirmationTtlMs: 60_000,
  /** SPEC 8.1: a command batch holds at most 50 commands. */
  batchMax: 50,
  /** SPEC 8.3: command timeout default. */
  defaultTimeoutMs: 5000,
  maxTimeoutMs: 300_000,
  /** The command slot's lease outlives the deadline by this much (a crashed process frees it after). */
  slotGraceMs: 5000,
} as const;

export interface CommandRequest {
  command: string;
  params?: Record<string, unknown>;
  priority?: Priority;
  timeout_ms?: number;
  await_result?: boolean;
}

/** SPEC 2 "Command result" plus action_id and priority (additive). */
export interface CommandResult {
  command_id: string;
  action_id: string;
  agent_id: string;
  command: string;
  status: string;
  priority: Priority;
  result: Record<string, unknown> | null;
  duration_ms: number;
  executed_at: Date;
}

export interface CommandAnswer {
  /** 200 finished (or confirmation required), 202 accepted (await_result false). */
  httpStatus: 200 | 202;
  result: CommandResult;
}

// ---------------------------------------------------------------------------
// Request and parameter checks (every door gets the same errors)

type Params = Record<string, unknown>;

function fieldError(code: ErrorCode, field: string, message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError(code, message, { field, ...extra });
}

const num = (p: Params, k: string, opts: { min?: number; max?: number; exclusiveMin?: number; integer?: boolean } = {}): number | undefined => {
  const v = p[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || (opts.integer && !Number.isInteger(v))) {
    throw fieldError('INVALID_FIELD', `params.${k}`, `params.${k} must be ${opts.integer ? 'an integer' : 'a number'}`);
  }
  if ((opts.min !== undefined && v < opts.min) || (opts.max !== undefined && v > opts.max) || (opts.exclusiveMin !== undefined && v <= opts.exclusiveMin)) {
    const range = [opts.min !== undefined ? `>= ${opts.min}` : opts.exclusiveMin !== undefined ? `> ${opts.exclusiveMin}` : '', opts.max !== undefined ? `<= ${opts.max}` : ''].filter(Boolean).join(' and ');
    throw fieldError('PARAM_OUT_OF_RANGE', `params.${k}`, `params.${k} must be ${range}, got ${v}`, { minimum: opts.min ?? opts.exclusiveMin, maximum: opts.max });
  }
  return v;
};
const str = (p: Params, k: string, allowed?: readonly string[], max = 256): string | undefined => {
  const v = p[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length > max) throw fieldError('INVALID_FIELD', `params.${k}`, `params.${k} must be a string of at most ${max} characters`);
  if (allowed && !allowed.includes(v)) throw fieldError('INVALID_FIELD', `params.${k}`, `params.${k} must be one of ${allowed.join(', ')}, got "${v}"`, { allowed });
  return v;
};
const bool = (p: Params, k: string): boolean | undefined => {
  const v = p[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw fieldError('INVALID_FIELD', `params.${k}`, `params.${k} must be true or false`);
  return v;
};

const PARAM_KEYS: Record<CommandName, readonly string[]> = {
  status: ['actions'],
  run_powerflow: ['method', 'tolerance', 'max_iterations', 'flat_start', 'enforce_q_limits'],
  switch_branch: ['index', 'from', 'to', 'state', 'confirmation_token'],
  set_generation: ['index', 'bus', 'mw', 'vg', 'confirmation_token'],
  emergency_shutdown: ['reason'],
  start: ['reason'], stop: ['reason'], pause: ['reason'], resume: ['reason'],
};


/** Checks the shape of params for a command; returns them normalised (without the token). */
function checkParams(command: CommandName, p: Params): Params {
  for (const k of Object.keys(p)) {
    if (!PARAM_KEYS[command].includes(k)) {
      throw new AppError('INVALID_REQUEST', `params has an unknown field "${k}" for command ${command}; known: ${PARAM_KEYS[command].join(', ') || 'none'}`, { field: `params.${k}`, known: PARAM_KEYS[command] });
    }
  }
  if (p.confirmation_token !== undefined && (typeof p.confirmation_token !== 'string' || p.confirmation_token.length < 10 || p.confirmation_token.length > 200)) {
    throw fieldError('INVALID_FIELD', 'params.confirmation_token', 'params.confirmation_token must be the token string a previous call returned');
  }
  switch (command) {
    case 'status':
      num(p, 'actions', { integer: true, min: 0, max: 50 });
      break;
    case 'run_powerflow':
      str(p, 'method', ['newton_raphson', 'fast_decoupled', 'dc']);
      num(p, 'tolerance', { exclusiveMin: 0, max: 1 });
      num(p, 'max_iterations', { integer: true, min: 1, max: 1000 });
      bool(p, 'flat_start');
      bool(p, 'enforce_q_limits');
      break;
    case 'switch_branch': {
      const state = str(p, 'state', ['open', 'closed']);
      if (!state) throw fieldError('VALIDATION_FAILED', 'params.state', 'switch_branch needs params.state: "open" or "closed"');
      num(p, 'index', { integer: true, min: 0 });
      num(p, 'from', { integer: true, min: 1 });
      num(p, 'to', { integer: true, min: 1 });
      if (p.index === undefined && (p.from === undefined || p.to === undefined)) {
        throw fieldError('VALIDATION_FAILED', 'params.from', 'switch_branch needs the branch: params.from and params.to (bus numbers), or params.index (position in the network\'s branch list)');
      }
      break;
    }
    case 'set_generation': {
      num(p, 'index', { integer: true, min: 0 });
      num(p, 'bus', { integer: true, min: 1 });
      num(p, 'mw', {});
      num(p, 'vg', { min: 0.5, max: 1.5 });
      if (p.index === undefined && p.bus === undefined) throw fieldError('VALIDATION_FAILED', 'params.index', 'set_generation needs the generator: params.index (position in the generator list) or params.bus');
      if (p.mw === undefined && p.vg === undefined) throw fieldError('VALIDATION_FAILED', 'params.mw', 'set_generation needs params.mw (MW) and/or params.vg (p.u. voltage set point)');
      break;
    }
    default:
      str(p, 'reason');
  }
  const { confirmation_token: _t, ...rest } = p;
  void _t;
  return rest;
}

function checkRequest(req: CommandRequest): { command: CommandName; params: Params; token?: string; priority: Priority; timeoutMs: number; awaitResult: boolean } {
  if (typeof req.command !== 'string' || !(COMMANDS as readonly string[]).includes(req.command)) {
    throw new AppError('VALIDATION_FAILED', `unknown command "${String(req.command)}"; known commands: ${COMMANDS.join(', ')}`, { field: 'command', known: COMMANDS });
  }
  const command = req.command as CommandName;
  const raw = req.params ?? {};
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw fieldError('INVALID_FIELD', 'params', 'params must be an object');
  const priority = req.priority ?? 'normal';
  if (!PRIORITIES.includes(priority)) throw fieldError('INVALID_FIELD', 'priority', `priority must be one of ${PRIORITIES.join(', ')}`, { allowed: PRIORITIES });
  const timeoutMs = req.timeout_ms ?? COMMAND_LIMITS.defaultTimeoutMs;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > COMMAND_LIMITS.maxTimeoutMs) {
    throw fieldError('PARAM_OUT_OF_RANGE', 'timeout_ms', `timeout_ms must be an integer from 1 to ${COMMAND_LIMITS.maxTimeoutMs}`, { minimum: 1, maximum: COMMAND_LIMITS.maxTimeoutMs });
  }
  if (req.await_result !== undefined && typeof req.await_result !== 'boolean') throw fieldError('INVALID_FIELD', 'await_result', 'await_result must be true or false');
  const params = checkParams(command, raw as Params);
  const token = (raw as Params).confirmation_token as string | undefined;
  return { command, params, token, priority, timeoutMs, awaitResult: req.await_result ?? true };
}

// ---------------------------------------------------------------------------
// Actions (history rows)

interface ActionRow {
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
  audit_id: string | null;
  duration_ms: number | null;
  created_at: Date;
  executed_at: Date;
  completed_at: Date | null;
}

/** SPEC 2 AgentAction plus command_id, priority, error, audit_id, completed_at (additive). */
export function actionView(r: ActionRow) {
  return {
    id: r.id, agent_id: r.agent_id, command_id: r.command_id, command: r.command, params: r.params ?? {}, priority: r.priority, status: r.status,
    result: r.result, error: r.error, audit_id: r.audit_id, actor: r.actor, executed_at: new Date(r.executed_at),
    completed_at: r.completed_at ? new Date(r.completed_at) : null, duration_ms: r.duration_ms ?? 0,
  };
}

function commandResult(a: ActionRow, result: Record<string, unknown> | null, status = a.status): CommandResult {
  return {
    command_id: a.command_id, action_id: a.id, agent_id: a.agent_id, command: a.command, status, priority: a.priority,
    result, duration_ms: a.duration_ms ?? 0, executed_at: new Date(a.executed_at),
  };
}

export interface ActionListQuery extends PageQuery {
  status?: string;
  command?: string;
}

const ACTION_SORT = { executed_at: 'executed_at', created_at: 'created_at', command: 'command', status: 'status', duration_ms: 'duration_ms', seq: 'seq' };

export async function listActions(s: Services, caller: Caller, agentId: string, q: ActionListQuery) {
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

// ---------------------------------------------------------------------------
// Limits

function rateLimited(agentId: string, rule: 'per_second' | 'control_interval', limit: number, windowSeconds: number, retryAfterMs: number): AppError {
  const ms = Math.max(1, Math.ceil(retryAfterMs));
  const message = rule === 'per_second'
    ? `agent ${agentId} takes at most ${limit} commands per second; retry in ${ms} ms`
    : `agent ${agentId}: control commands must be at least ${COMMAND_LIMITS.controlIntervalMs} ms apart; retry in ${ms} ms`;
  return new AppError('RATE_LIMITED', message, {
    limit, window_seconds: windowSeconds, retry_after: Math.max(1, Math.ceil(ms / 1000)), retry_after_ms: ms,
    reset_at: new Date(Date.now() + ms).toISOString(), scope: 'user', layer: 'agent', rule, agent_id: agentId,
  });
}

function confirmationTtl(agent: AgentRow): number {
  const v = Number((agent.config as { confirmation_ttl_ms?: unknown })?.confirmation_ttl_ms);
  return Number.isFinite(v) && v >= 100 && v <= 600_000 ? Math.round(v) : COMMAND_LIMITS.confirmationTtlMs;
}

const canonical = (v: unknown): string => {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Params)[k])}`).join(',')}}`;
  return JSON.stringify(v);
};
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

// ---------------------------------------------------------------------------
// Admission: one transaction with the agent row locked, so limits hold across
// concurrent requests and processes.

type Admission =
  | { kind: 'prompt'; answer: CommandAnswer }
  | { kind: 'refused'; error: AppError }
  | { kind: 'run'; agent: AgentRow; action: ActionRow; slot: 'held' | 'none' | 'wait' };

interface Checked {
  command: CommandName;
  params: Params;
  token?: string;
  priority: Priority;
  timeoutMs: number;
  awaitResult: boolean;
}

async function admit(s: Services, caller: Caller, agentId: string, c: Checked, rawParams: Params): Promise<Admission> {
  const control = CONTROL_COMMANDS.has(c.command);
  const usesSlot = SLOT_COMMANDS.has(c.command);
  return s.db.transaction(async (tx): Promise<Admission> => {
    const agent = await findAgentRow(tx, caller, agentId, true);
    if (!ANY_STATE.has(c.command) && !ACCEPTS_WORK.has(agent.status)) {
      const how = agent.status === 'paused' ? 'resume it first' : agent.status === 'stopped' ? 'start it first' : 'fix the cause (status_reason) and resume it';
      throw new AppError('CONFLICT', `agent ${agentId} is ${agent.status} and refuses ${c.command}; ${how} (only status, emergency_shutdown and the lifecycle commands are taken in this state)`,
        { agent_id: agentId, status: agent.status, command: c.command, accepted_now: [...ANY_STATE] });
    }

    // A slot lease that ran out belongs to a command whose process died.
    if (agent.busy_command_id && !slotTaken(agent)) {
      await tx.query(`UPDATE agent_actions SET status = 'failed', completed_at = clock_timestamp(), error = $2 WHERE command_id = $1 AND status IN ('running', 'queued')`,
        [agent.busy_command_id, JSON.stringify({ code: 'INTERNAL_ERROR', message: 'abandoned: the process executing the command stopped before it finished' })]);
      await tx.query('UPDATE agents SET busy_command_id = NULL, busy_until = NULL WHERE id = $1', [agentId]);
      agent.busy_command_id = null;
      agent.busy_until = null;
    }

    let confirmed: ActionRow | undefined;
    if (c.command !== 'emergency_shutdown') {
      // Rate windows use the database clock (one clock for every process).
      const exclude = control && c.token ? sha256(c.token) : '';
      const { rows: [w] } = await tx.query<{ n1: number; n60: number; wait1: number | null; wait60: number | null; since_control: number | null; waiting: number }>(
        `SELECT count(*) FILTER (WHERE a.created_at > clock_timestamp() - interval '1 second')::int AS n1,
                count(*)::int AS n60,
                extract(epoch FROM (min(a.created_at) FILTER (WHERE a.created_at > clock_timestamp() - interval '1 second') + interval '1 second' - clock_timestamp())) * 1000 AS wait1,
                extract(epoch FROM (min(a.created_at) + interval '60 seconds' - clock_timestamp())) * 1000 AS wait60,
                (SELECT extract(epoch FROM (clock_timestamp() - g.last_control_at)) * 1000 FROM agents g WHERE g.id = $1) AS since_control,
                (SELECT count(*)::int FROM agent_actions q WHERE q.agent_id = $1 AND q.status = 'queued' AND q.created_at > clock_timestamp() - interval '310 seconds') AS waiting
         FROM agent_actions a
         WHERE a.agent_id = $1 AND a.command <> 'emergency_shutdown' AND a.created_at > clock_timestamp() - interval '60 seconds'
           AND a.command_id NOT IN (SELECT command_id FROM command_confirmations WHERE token_hash = $2)`,
        [agentId, exclude]);
      if (w.n1 >= COMMAND_LIMITS.perSecond) throw rateLimited(agentId, 'per_second', COMMAND_LIMITS.perSecond, 1, Number(w.wait1 ?? 1000));
      if (usesSlot && priorityRank(c.priority) > 0) {
        if (slotTaken(agent)) {
          throw new AppError('AGENT_BUSY', `agent ${agentId} is executing command ${agent.busy_command_id}; one command runs at a time (retry when it has finished, or use priority "emergency" to wait for it)`,
            { agent_id: agentId, reason: 'executing', command_id: agent.busy_command_id });
        }
        if (w.waiting > 0) throw new AppError('AGENT_BUSY', `agent ${agentId} has an emergency-priority command waiting to run; it goes first`, { agent_id: agentId, reason: 'emergency_waiting' });
      }
      if (w.n60 >= agent.max_actions_per_minute) {
        throw new AppError('AGENT_BUSY', `agent ${agentId} has taken ${w.n60} commands in the last minute, its max_actions_per_minute (${agent.max_actions_per_minute}); retry in ${Math.max(1, Math.ceil(Number(w.wait60 ?? 60000) / 1000))} s`,
          { agent_id: agentId, reason: 'max_actions_per_minute', limit: agent.max_actions_per_minute, window_seconds: 60, retry_after: Math.max(1, Math.ceil(Number(w.wait60 ?? 60000) / 1000)) });
      }
      if (control && c.token && w.since_control !== null && Number(w.since_control) < COMMAND_LIMITS.controlIntervalMs) {
        throw rateLimited(agentId, 'control_interval', 1, COMMAND_LIMITS.controlIntervalMs / 1000, COMMAND_LIMITS.controlIntervalMs - Number(w.since_control));
      }
    }

    if (control && !c.token) {
      // Step one of two: record the request, hand out a one-time token bound to agent, command and params.
      await tx.query(`UPDATE agent_actions SET status = 'expired', completed_at = clock_timestamp()
                      WHERE agent_id = $1 AND status = 'confirmation_required' AND command_id IN (SELECT command_id FROM command_confirmations WHERE agent_id = $1 AND used_at IS NULL AND expires_at < clock_timestamp())`, [agentId]);
      await tx.query(`DELETE FROM command_confirmations WHERE expires_at < clock_timestamp() - interval '1 hour'`);
      const token = randomBytes(24).toString('base64url');
      const ttl = confirmationTtl(agent);
      const commandId = newId('cmd');
      const { rows: [conf] } = await tx.query<{ expires_at: Date }>(
        `INSERT INTO command_confirmations (token_hash, tenant_id, agent_id, command, params_hash, command_id, requested_by, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, clock_timestamp() + make_interval(secs => $8::double precision / 1000)) RETURNING expires_at`,
        [sha256(token), caller.tenantId, agentId, c.command, sha256(canonical(c.params)), commandId, caller.actor.id, ttl]);
      const action = await insertAction(tx, caller, agent, commandId, c, 'confirmation_required');
      await tx.query('UPDATE agents SET last_active_at = now() WHERE id = $1', [agentId]);
      const confirmWith = { command: c.command, params: { ...rawParams, confirmation_token: token } };
      return {
        kind: 'prompt',
        answer: {
          httpStatus: 200,
          result: commandResult(action, {
            confirmation_required: true, confirmation_token: token, expires_at: new Date(conf.expires_at), expires_in_ms: ttl,
            message: `${c.command} is a control command: repeat it with params.confirmation_token within ${ttl} ms to execute it`,
            confirm_with: confirmWith, constraint_checked: false, audit_id: null as string | null,
          }),
        },
      };
    }

    if (control && c.token) {
      const { rows: [conf] } = await tx.query<{ tenant_id: string; agent_id: string; command: string; params_hash: string; command_id: string; expired: boolean; used_at: Date | null }>(
        `SELECT *, expires_at <= clock_timestamp() AS expired FROM command_confirmations WHERE token_hash = $1 FOR UPDATE`, [sha256(c.token)]);
      const refuse = (reason: string, message: string) => new AppError('VALIDATION_FAILED', message, { field: 'params.confirmation_token', reason, agent_id: agentId, command: c.command });
      if (!conf || conf.tenant_id !== caller.tenantId || conf.agent_id !== agentId) throw refuse('unknown', `params.confirmation_token is not a token this agent issued; send the command without it to get one`);
      if (conf.used_at) throw refuse('used', 'params.confirmation_token was already used (tokens are one-time); send the command without it to get a new one');
      if (conf.expired) {
        // Committed (not thrown inside the transaction): the prompt's action shows as expired.
        await tx.query(`UPDATE agent_actions SET status = 'expired', completed_at = clock_timestamp() WHERE command_id = $1 AND status = 'confirmation_required'`, [conf.command_id]);
        return { kind: 'refused', error: refuse('expired', 'params.confirmation_token has expired; send the command without it to get a new one') };
      }
      if (conf.command !== c.command || conf.params_hash !== sha256(canonical(c.params))) {
        throw refuse('mismatch', `params.confirmation_token was issued for a different command or different params; a token confirms exactly the request that returned it`);
      }
      await tx.query('UPDATE command_confirmations SET used_at = clock_timestamp() WHERE token_hash = $1', [sha256(c.token)]);
      const { rows } = await tx.query<ActionRow>(
        `UPDATE agent_actions SET status = $2, priority = $3, executed_at = clock_timestamp(), actor = $4 WHERE command_id = $1 RETURNING *`,
        [conf.command_id, 'running', c.priority, JSON.stringify({ requested_by: (await actorOf(tx, conf.command_id)), confirmed_by: caller.actor })]);
      confirmed = rows[0];
    }

    let slot: 'held' | 'none' | 'wait' = 'none';
    if (usesSlot) slot = slotTaken(agent) ? 'wait' : 'held';
    const action = confirmed
      ? (slot === 'wait' ? (await tx.query<ActionRow>(`UPDATE agent_actions SET status = 'queued' WHERE id = $1 RETURNING *`, [confirmed.id])).rows[0] : confirmed)
      : await insertAction(tx, caller, agent, newId('cmd'), c, slot === 'wait' ? 'queued' : 'running');
    if (slot === 'held') {
      await tx.query(`UPDATE agents SET busy_command_id = $2, busy_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000), last_active_at = now() WHERE id = $1`,
        [agentId, action.command_id, c.timeoutMs + COMMAND_LIMITS.slotGraceMs]);
    } else {
      await tx.query('UPDATE agents SET last_active_at = now() WHERE id = $1', [agentId]);
    }
    return { kind: 'run', agent, action, slot };
  });
}

const priorityRank = (p: Priority) => PRIORITY_RANK[p];

async function actorOf(tx: Queryable, commandId: string): Promise<unknown> {
  const { rows } = await tx.query<{ actor: { requested_by?: unknown } | null }>('SELECT actor FROM agent_actions WHERE command_id = $1', [commandId]);
  const a = rows[0]?.actor;
  return a && typeof a === 'object' && 'requested_by' in a ? a.requested_by : a ?? null;
}

async function insertAction(tx: Queryable, caller: Caller, agent: AgentRow, commandId: string, c: Checked, status: string): Promise<ActionRow> {
  const { rows } = await tx.query<ActionRow>(
    `INSERT INTO agent_actions (id, tenant_id, agent_id, command_id, command, params, priority, status, control, actor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING *`,
    [newId('act'), caller.tenantId, agent.id, commandId, c.command, JSON.stringify(c.params), c.priority, status, CONTROL_COMMANDS.has(c.command),
      JSON.stringify(status === 'confirmation_required' ? { requested_by: caller.actor } : caller.actor)]);
  return rows[0];
}

/** An emergency-priority command waits for the slot (ahead of everyone: others are refused while it waits). */
async function waitForSlot(s: Services, agentId: string, commandId: string, timeoutMs: number, deadline: number): Promise<boolean> {
  for (;;) {
    const { rows } = await s.db.query(
      `UPDATE agents SET busy_command_id = $2, busy_until = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
       WHERE id = $1 AND (busy_command_id IS NULL OR busy_until < clock_timestamp()) RETURNING id`,
      [agentId, commandId, timeoutMs + COMMAND_LIMITS.slotGraceMs]);
    if (rows[0]) {
      await s.db.query(`UPDATE agent_actions SET status = 'running', executed_at = clock_timestamp() WHERE command_id = $1 AND status = 'queued'`, [commandId]);
      return true;
    }
    const { rows: st } = await s.db.query<{ status: string }>('SELECT status FROM agent_actions WHERE command_id = $1', [commandId]);
    if (st[0]?.status !== 'queued') return false; // cancelled by an emergency shutdown
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 15));
  }
}

// ---------------------------------------------------------------------------
// Execution

/** Commands running in this process, so emergency_shutdown can stop them. */
const running = new Map<string, { commandId: string; controller: AbortController }>();

class Abort extends Error {
  constructor(readonly why: 'timeout' | 'shutdown') {
    super(why);
  }
}

interface Ctx {
  s: Services;
  caller: Caller;
  agent: AgentRow;
  action: ActionRow;
  params: Params;
  timeoutMs: number;
  deadline: number;
  signal: AbortSignal;
  /** Throws if the deadline passed or the agent was shut down. */
  checkpoint(): void;
  remaining(): number;
  /** Set when the failure should move the agent to status error. */
  agentFailure?: string;
}

function abortError(ctx: Ctx, why: 'timeout' | 'shutdown'): AppError {
  return why === 'timeout'
    ? new AppError('GATEWAY_TIMEOUT', `command ${ctx.action.command} did not finish within timeout_ms ${ctx.timeoutMs}; nothing was changed`, { command_id: ctx.action.command_id, timeout_ms: ctx.timeoutMs })
    : new AppError('CONFLICT', `command ${ctx.action.command} was cancelled: the agent was shut down (emergency_shutdown) while it ran; nothing was changed`, { command_id: ctx.action.command_id, reason: 'emergency_shutdown' });
}

const HANDLERS: Record<CommandName, (ctx: Ctx) => Promise<Record<string, unknown>>> = {
  status: statusCommand,
  run_powerflow: runPowerflowCommand,
  switch_branch: (ctx) => controlCommand(ctx, planSwitch),
  set_generation: (ctx) => controlCommand(ctx, planGeneration),
  emergency_shutdown: shutdownCommand,
  start: lifecycleCommand,
  stop: lifecycleCommand,
  pause: lifecycleCommand,
  resume: lifecycleCommand,
};

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
  const ctx: Ctx = {
    s, caller, agent: a.agent, action: a.action, params: c.params, timeoutMs: c.timeoutMs, deadline, signal: controller.signal,
    checkpoint() {
      if (controller.signal.aborted) throw abortError(ctx, (controller.signal.reason as Abort)?.why ?? 'timeout');
    },
    remaining: () => Math.max(1, deadline - Date.now()),
  };
  // Registered once the slot is held, so emergency_shutdown finds the command that really runs.
  const register = () => running.set(a.agent.id, { commandId: a.action.command_id, controller });
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
    output = await HANDLERS[a.action.command as CommandName](ctx);
  } catch (e) {
    if (e instanceof AppError) error = e;
    else if (e instanceof Abort || (e as Error)?.name === 'AbortError') error = abortError(ctx, controller.signal.aborted ? ((controller.signal.reason as Abort)?.why ?? 'timeout') : 'timeout');
    else {
      s.log.error({ err: e, command: a.action.command_id }, 'agent command failed');
      error = new AppError('INTERNAL_ERROR', `command ${a.action.command} failed: ${(e as Error)?.message ?? 'internal error'}`);
      ctx.agentFailure ??= `internal error in command ${a.action.command} (${a.action.command_id})`;
    }
  } finally {
    clearTimeout(timer);
    if (running.get(a.agent.id)?.commandId === a.action.command_id) running.delete(a.agent.id);
  }
  const duration = Date.now() - started;
  const status = error ? errorStatus(error) : 'completed';

  // The audit entry of the command (outside the transaction below: it writes on its own).
  const auditId = await auditCommand(s, caller, a.action, status, error, output);
  if (output) output = { ...output, constraint_checked: output.constraint_checked === true, audit_id: auditId };
  if (error) {
    error = new AppError(error.code, error.message, { ...(error.details ?? {}), command_id: a.action.command_id, action_id: a.action.id, audit_id: auditId, constraint_checked: error.code === 'CONSTRAINT_VIOLATION' });
  }

  const fin = await s.db.transaction(async (tx) => {
    const { rows } = await tx.query<ActionRow>(
      `UPDATE agent_actions SET status = $2, result = $3, error = $4, duration_ms = $5, completed_at = clock_timestamp(), audit_id = $6 WHERE id = $1 RETURNING *`,
      [a.action.id, status, output ? JSON.stringify(output) : null, error ? JSON.stringify({ code: error.code, message: error.message, details: error.details }) : null, duration, auditId]);
    const control = CONTROL_COMMANDS.has(a.action.command as CommandName);
    await tx.query(
      `UPDATE agents SET busy_command_id = CASE WHEN busy_command_id = $2 THEN NULL ELSE busy_command_id END,
                         busy_until = CASE WHEN busy_command_id = $2 THEN NULL ELSE busy_until END,
                         last_control_at = CASE WHEN $3::boolean THEN clock_timestamp() ELSE last_control_at END,
                         last_active_at = now()
       WHERE id = $1`, [a.agent.id, a.action.command_id, control]);
    const events: StoredEvent[] = [];
    if (ctx.agentFailure) {
      const cur = await tx.query<AgentRow>('SELECT * FROM agents WHERE id = $1 FOR UPDATE', [a.agent.id]);
      if (cur.rows[0] && cur.rows[0].status !== 'error' && (['idle', 'running', 'paused'] as string[]).includes(cur.rows[0].status)) {
        events.push((await transitionAgent(tx, cur.rows[0], 'fail', ctx.agentFailure, caller.actor.id)).event);
      }
    }
    const act = rows[0];
    events.push(await insertEvent(tx, {
      tenantId: caller.tenantId, topic: 'agent', kind: 'command.completed', agentId: a.agent.id, networkId: a.agent.network_id ?? undefined,
      payload: {
        agent_id: a.agent.id, command_id: act.command_id, action_id: act.id, command: act.command, status: act.status, priority: act.priority,
        result: act.result, error: act.error, duration_ms: act.duration_ms, executed_at: new Date(act.executed_at).toISOString(), timestamp: new Date().toISOString(),
      },
    }));
    return { act, events };
  });
  await publishEvents(s.bus, fin.events);
  return { result: commandResult(fin.act, fin.act.result), error };
}

type AuditedCommand = Pick<ActionRow, 'agent_id' | 'command_id' | 'command' | 'params' | 'priority'>;

async function auditCommand(s: Services, caller: Caller, a: AuditedCommand, status: string, error: AppError | undefined, output: Record<string, unknown> | null): Promise<string | null> {
  try {
    const entry = await recordAudit(s, {
      ...fromCaller(caller), action: `agent.command.${a.command}`, resource: { type: 'agent', id: a.agent_id },
      result: error ? 'failure' : 'success', status: error ? error.statusCode : 200,
      details: {
        command_id: a.command_id, command: a.command, params: a.params, priority: a.priority, status,
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
  if (CONTROL_COMMANDS.has(c.command) && !c.token) {
    const agent = await findAgentRow(s.db, caller, agentId);
    if (ACCEPTS_WORK.has(agent.status)) {
      const { summary, model } = await agentNetwork(s, caller, agent);
      assertOperable(summary);
      (c.command === 'switch_branch' ? planSwitch : planGeneration)(model, c.params);
    }
  }
  const a = await admit(s, caller, agentId, c, rawParams);
  if (a.kind === 'refused') throw a.error;
  if (a.kind === 'prompt') {
    const auditId = await auditCommand(s, caller, { agent_id: agentId, command_id: a.answer.result.command_id, command: c.command, params: c.params, priority: c.priority }, 'confirmation_required', undefined, null);
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

/** Up to 50 commands for one agent, run one after another, highest priority first (stable);
 *  each entry succeeds or fails alone. Entries that hit the per-second or control-interval
 *  limit wait for their turn (at most a few seconds) instead of failing. */
export async function executeCommandBatch(s: Services, caller: Caller, agentId: string, entries: CommandRequest[]) {
  if (entries.length > COMMAND_LIMITS.batchMax) throw new AppError('VALIDATION_FAILED', `a command batch holds at most ${COMMAND_LIMITS.batchMax} commands, got ${entries.length}`, { limit: COMMAND_LIMITS.batchMax });
  await findAgentRow(s.db, caller, agentId);
  const order = entries.map((e, i) => ({ e, i, rank: PRIORITY_RANK[(e?.priority ?? 'normal') as Priority] ?? 2 })).sort((x, y) => x.rank - y.rank || x.i - y.i);
  const succeeded: { index: number; id: string; status: string; result: CommandResult }[] = [];
  const failed: { index: number; error: ReturnType<typeof batchError> }[] = [];
  for (const { e, i } of order) {
    for (let attempt = 0; ; attempt++) {
      try {
        const { result } = await executeCommand(s, caller, agentId, { ...e, await_result: true });
        succeeded.push({ index: i, id: result.command_id, status: result.status, result });
        break;
      } catch (err) {
        const wait = err instanceof AppError && err.code === 'RATE_LIMITED' ? Number(err.details?.retry_after_ms ?? 0) : 0;
        if (wait > 0 && wait <= 2000 && attempt < 5) {
          await new Promise((r) => setTimeout(r, wait + 5));
          continue;
        }
        failed.push({ index: i, error: batchError(err) });
        break;
      }
    }
  }
  succeeded.sort((x, y) => x.index - y.index);
  failed.sort((x, y) => x.index - y.index);
  return { succeeded, failed };
}

// ---------------------------------------------------------------------------
// Handlers

async function agentNetwork(s: Services, caller: Caller, agent: AgentRow, ctx?: Ctx): Promise<{ summary: NetworkSummary; model: NetworkModel }> {
  if (!agent.network_id) {
    throw new AppError('VALIDATION_FAILED', `agent ${agent.id} has no network_id; set one with PUT /api/v1/agents/${agent.id}`, { field: 'network_id', agent_id: agent.id });
  }
  try {
    return await getModel(s, caller, agent.network_id);
  } catch (e) {
    if (e instanceof AppError && e.code === 'NOT_FOUND') {
      if (ctx) ctx.agentFailure = `network ${agent.network_id} no longer exists`;
      throw new AppError('VALIDATION_FAILED', `agent ${agent.id}'s network ${agent.network_id} no longer exists${ctx ? '; the agent is now in status error (PUT a network_id, then resume it)' : ''}`,
        { field: 'network_id', network_id: agent.network_id, agent_id: agent.id });
    }
    throw e;
  }
}

function assertOperable(n: NetworkSummary): void {
  if (n.status === 'locked') throw new AppError('NETWORK_LOCKED', `network ${n.id} is locked while a power flow on it runs; send the command again when the task has finished`, { network_id: n.id });
  if (n.status === 'archived' || n.status === 'draft') {
    throw new AppError('CONFLICT', `network ${n.id} is ${n.status}; control commands need a ready network`, { network_id: n.id, status: n.status });
  }
}

async function statusCommand(ctx: Ctx): Promise<Record<string, unknown>> {
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
  const n = (ctx.params.actions as number | undefined) ?? 10;
  const { rows } = await s.db.query<ActionRow>(`SELECT * FROM agent_actions WHERE agent_id = $1 AND command_id <> $2 ORDER BY seq DESC LIMIT ${n}`, [agent.id, ctx.action.command_id]);
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
}

async function lifecycleCommand(ctx: Ctx): Promise<Record<string, unknown>> {
  const op = LIFECYCLE[ctx.action.command as CommandName]!;
  const reason = (ctx.params.reason as string | undefined) ?? `${op} command from ${ctx.caller.actor.type} ${ctx.caller.actor.id}`;
  const out = await ctx.s.db.transaction(async (tx) => {
    const row = await findAgentRow(tx, ctx.caller, ctx.agent.id, true);
    return { old: row.status, ...(await transitionAgent(tx, row, op, reason, ctx.caller.actor.id)) };
  });
  await publishEvents(ctx.s.bus, [out.event]);
  return { old_status: out.old, new_status: out.row.status, reason, constraint_checked: false };
}

async function shutdownCommand(ctx: Ctx): Promise<Record<string, unknown>> {
  const reason = (ctx.params.reason as string | undefined) ?? `emergency shutdown by ${ctx.caller.actor.type} ${ctx.caller.actor.id}`;
  const out = await ctx.s.db.transaction(async (tx) => {
    const row = await findAgentRow(tx, ctx.caller, ctx.agent.id, true);
    const cancelled = await tx.query<{ command_id: string }>(
      `UPDATE agent_actions SET status = 'cancelled', completed_at = clock_timestamp(), error = $2 WHERE agent_id = $1 AND status = 'queued' RETURNING command_id`,
      [row.id, JSON.stringify({ code: 'CONFLICT', message: 'cancelled by emergency_shutdown', details: { reason: 'emergency_shutdown' } })]);
    if (row.status === 'stopped') return { old: row.status, row, event: undefined, cancelled: cancelled.rows.map((r) => r.command_id), busy: row.busy_command_id };
    const t = await transitionAgent(tx, row, 'emergency_shutdown', reason, ctx.caller.actor.id);
    return { old: row.status, row: t.row, event: t.event, cancelled: cancelled.rows.map((r) => r.command_id), busy: slotTaken(row) ? row.busy_command_id : null };
  });
  if (out.event) await publishEvents(ctx.s.bus, [out.event]);
  // Stop a command of this agent running in this process; one running elsewhere sees
  // the stopped status before it changes anything (controlCommand).
  const local = running.get(ctx.agent.id);
  if (local) local.controller.abort(new Abort('shutdown'));
  return {
    old_status: out.old, new_status: 'stopped', already_stopped: out.old === 'stopped', reason,
    interrupted_command_id: out.busy ?? null, cancelled_queued: out.cancelled, constraint_checked: false,
  };
}

// --- run_powerflow --------------------------------------------------------

async function runPowerflowCommand(ctx: Ctx): Promise<Record<string, unknown>> {
  const { s, caller, params } = ctx;
  const { summary } = await agentNetwork(s, caller, ctx.agent, ctx);
  const budget = ctx.remaining();
  const answer = await runPowerFlow(s, caller, summary.id, {
    method: params.method as PowerFlowMethod | undefined, tolerance: params.tolerance as number | undefined, max_iterations: params.max_iterations as number | undefined,
    flat_start: params.flat_start as boolean | undefined, enforce_q_limits: params.enforce_q_limits as boolean | undefined, async: true, timeout_ms: Math.max(1, budget - 20),
  });
  if (answer.kind !== 'queued') throw new Error('runPowerFlow answered synchronously to an async request');
  const taskId = answer.task.task_id;
  const aborted = new Promise<'aborted'>((resolve) => {
    if (ctx.signal.aborted) resolve('aborted');
    else ctx.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  const done = await Promise.race([s.tasks.waitFor(taskId, budget + 250), aborted]);
  if (done === 'aborted' || done === undefined) {
    await s.tasks.cancel(caller, taskId).catch(() => {});
    ctx.checkpoint();
    throw abortError(ctx, 'timeout');
  }
  const t: TaskRow = done;
  if (t.status !== 'completed' || !t.result) {
    const err = t.error ?? { code: 'INTERNAL_ERROR', message: `power flow task ${t.id} ended ${t.status}` };
    const known: ErrorCode[] = ['POWERFLOW_DIVERGED', 'GATEWAY_TIMEOUT', 'TOPOLOGY_INVALID', 'ISLANDED_BUS', 'BUS_NOT_FOUND', 'VALIDATION_FAILED'];
    const code = (known.find((k) => k === err.code) ?? (t.status === 'cancelled' ? 'CONFLICT' : 'INTERNAL_ERROR')) as ErrorCode;
    throw new AppError(code, err.message, { task_id: t.id, ...(err.details ?? {}) });
  }
  const r = t.result as { status: string; method: string; iterations: number; duration_ms: number; losses: { p_mw: number; q_mvar: number }; buses: SolveOutcome['buses']; branches: SolveOutcome['branches'] };
  const model = await loadVersion(s.db, summary.id, t.network_version);
  return { task_id: t.id, network_id: summary.id, network_version: t.network_version, ...flowSummary(model, r), constraint_checked: false };
}

function flowSummary(model: NetworkModel, r: { status: string; method: string; iterations: number; duration_ms: number; losses: { p_mw: number; q_mvar: number }; buses: SolveOutcome['buses']; branches: SolveOutcome['branches'] }) {
  const ids = branchIds(model);
  const byId = new Map(model.buses.map((b) => [b.id, b]));
  let worst: Record<string, unknown> | null = null;
  let worstDev = -Infinity;
  let vmin: { bus: number; v: number } | null = null;
  let vmax: { bus: number; v: number } | null = null;
  for (const b of r.buses) {
    const bus = byId.get(b.id);
    if (!bus || bus.type === 'isolated') continue;
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
    if (!maxLoading || f.loading > (maxLoading.loading as number)) maxLoading = { branch_id: ids[i], index: i, from: br.from, to: br.to, loading: f.loading, rate_a: br.rate_a };
  });
  const conditions = powerFlowConditions(model, r);
  return {
    status: r.status, method: r.method, iterations: r.iterations, duration_ms: r.duration_ms, losses: r.losses,
    worst_voltage: worst, min_voltage: vmin, max_voltage: vmax, max_loading: maxLoading,
    violations: { overload: conditions.filter((c) => c.type === 'overload').length, voltage: conditions.filter((c) => c.type === 'voltage').length },
  };
}

// --- control commands -----------------------------------------------------

interface Plan {
  model: NetworkModel;
  change: Record<string, unknown>;
}

function findBranch(model: NetworkModel, p: Params): number {
  if (p.index !== undefined) {
    const i = p.index as number;
    if (i >= model.branches.length) throw new AppError('BRANCH_NOT_FOUND', `branch index ${i} does not exist (the network has ${model.branches.length} branches, 0-based)`, { index: i, branch_count: model.branches.length });
    const br = model.branches[i];
    if ((p.from !== undefined && p.from !== br.from) || (p.to !== undefined && p.to !== br.to)) {
      throw new AppError('VALIDATION_FAILED', `branch index ${i} connects ${br.from}-${br.to}, not ${String(p.from)}-${String(p.to)}`, { field: 'params.index', index: i, from: br.from, to: br.to });
    }
    return i;
  }
  const from = p.from as number;
  const to = p.to as number;
  const matches: number[] = [];
  model.branches.forEach((br, i) => {
    if ((br.from === from && br.to === to) || (br.from === to && br.to === from)) matches.push(i);
  });
  if (matches.length === 0) throw new AppError('BRANCH_NOT_FOUND', `no branch connects bus ${from} and bus ${to}`, { from, to });
  if (matches.length > 1) throw new AppError('VALIDATION_FAILED', `${matches.length} parallel branches connect bus ${from} and bus ${to}; name one with params.index (${matches.join(', ')})`, { field: 'params.index', from, to, indexes: matches });
  return matches[0];
}

function planSwitch(model: NetworkModel, p: Params): Plan {
  const i = findBranch(model, p);
  const br = model.branches[i];
  const state = p.state as 'open' | 'closed';
  if (br.status === state) throw new AppError('CONFLICT', `branch ${branchIds(model)[i]} (index ${i}) is already ${state}`, { index: i, from: br.from, to: br.to, state });
  const branches = model.branches.slice();
  branches[i] = { ...br, status: state };
  return {
    model: { ...model, branches },
    change: { kind: 'branch.switched', branch: { index: i, from: br.from, to: br.to, id: branchIds(model)[i] }, state, previous_state: br.status },
  };
}

function planGeneration(model: NetworkModel, p: Params): Plan {
  let i: number;
  if (p.index !== undefined) {
    i = p.index as number;
    if (i >= model.generators.length) throw new AppError('VALIDATION_FAILED', `generator index ${i} does not exist (the network has ${model.generators.length} generators, 0-based)`, { field: 'params.index', index: i });
    if (p.bus !== undefined && model.generators[i].bus !== p.bus) throw new AppError('VALIDATION_FAILED', `generator ${i} is at bus ${model.generators[i].bus}, not ${String(p.bus)}`, { field: 'params.bus', index: i });
  } else {
    const bus = p.bus as number;
    if (!model.buses.some((b) => b.id === bus)) throw new AppError('BUS_NOT_FOUND', `bus ${bus} does not exist`, { bus });
    const at = model.generators.map((g, k) => (g.bus === bus && g.in_service ? k : -1)).filter((k) => k >= 0);
    if (at.length === 0) throw new AppError('VALIDATION_FAILED', `bus ${bus} has no in-service generator`, { field: 'params.bus', bus });
    if (at.length > 1) throw new AppError('VALIDATION_FAILED', `bus ${bus} has ${at.length} generators; name one with params.index (${at.join(', ')})`, { field: 'params.index', bus, indexes: at });
    i = at[0];
  }
  const g = model.generators[i];
  if (!g.in_service) throw new AppError('VALIDATION_FAILED', `generator ${i} (bus ${g.bus}) is out of service`, { field: 'params.index', index: i });
  const mw = p.mw as number | undefined;
  const vg = p.vg as number | undefined;
  if (mw !== undefined && ((g.pmin !== null && mw < g.pmin) || (g.pmax !== null && mw > g.pmax))) {
    throw new AppError('PARAM_OUT_OF_RANGE', `params.mw ${mw} is outside generator ${i}'s limits [${g.pmin ?? '-∞'}, ${g.pmax ?? '∞'}] MW`, { field: 'params.mw', index: i, pmin: g.pmin, pmax: g.pmax });
  }
  if ((mw === undefined || mw === g.mw) && (vg === undefined || vg === g.vg)) {
    throw new AppError('CONFLICT', `generator ${i} (bus ${g.bus}) already runs at ${g.mw} MW, vg ${g.vg}`, { index: i, mw: g.mw, vg: g.vg });
  }
  const generators = model.generators.slice();
  generators[i] = { ...g, ...(mw !== undefined ? { mw } : {}), ...(vg !== undefined ? { vg } : {}) };
  return {
    model: { ...model, generators },
    change: { kind: 'generation.set', generator: { index: i, bus: g.bus }, ...(mw !== undefined ? { mw, previous_mw: g.mw } : {}), ...(vg !== undefined ? { vg, previous_vg: g.vg } : {}) },
  };
}

/** Connected components over closed branches (isolated buses left out): bus id → component. */
function components(model: NetworkModel): Map<number, number> {
  const idx = new Map(model.buses.map((b, i) => [b.id, i]));
  const parent = model.buses.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const br of model.branches) {
    if (br.status !== 'closed') continue;
    const a = idx.get(br.from);
    const b = idx.get(br.to);
    if (a === undefined || b === undefined || model.buses[a].type === 'isolated' || model.buses[b].type === 'isolated') continue;
    parent[find(a)] = find(b);
  }
  const out = new Map<number, number>();
  model.buses.forEach((b, i) => {
    if (b.type !== 'isolated') out.set(b.id, find(i));
  });
  return out;
}

/** Buses that lose their connection to the main island (the first slack's) through the change, when the
 *  change raises the number of islands. */
function islanding(before: NetworkModel, after: NetworkModel): { buses: number[]; islandsBefore: number; islandsAfter: number } | null {
  const cb = components(before);
  const ca = components(after);
  const islandsBefore = new Set(cb.values()).size;
  const islandsAfter = new Set(ca.values()).size;
  if (islandsAfter <= islandsBefore) return null;
  const slack = after.buses.find((b) => b.type === 'slack' && ca.has(b.id));
  const cut = slack ? after.buses.filter((b) => cb.get(b.id) === cb.get(slack.id) && ca.has(b.id) && ca.get(b.id) !== ca.get(slack.id)).map((b) => b.id) : [];
  return { buses: cut, islandsBefore, islandsAfter };
}

interface Violation {
  type: 'overload' | 'voltage';
  [k: string]: unknown;
}

/** How much worse an element already outside its limit before the change may get (percentage points of
 *  loading, p.u. of voltage) before the change is refused: a change must not be blocked by an existing
 *  violation it barely touches (an operator may be relieving it step by step). */
export const WORSEN_TOLERANCE = { loading: 1, voltage: 0.005 } as const;

// Base-case solutions per network version (immutable), to judge "new or worse".
const baseCache = new Map<string, SolveOutcome>();
const BASE_CACHE_SIZE = 32;

async function solveChecked(ctx: Ctx, model: NetworkModel): Promise<SolveOutcome> {
  if (!ctx.s.solver) throw new AppError('SERVICE_UNAVAILABLE', 'this process has no power-flow solver (ROLE=api), so control commands cannot be checked here; send them to a process with ROLE=all');
  return ctx.s.solver.solve(model, { method: 'newton_raphson', tolerance: 1e-8, maxIterations: 30, flatStart: false, enforceQLimits: false, timeoutMs: ctx.remaining() }, { signal: ctx.signal });
}

/** The constraint check of a control command: refuses (409 CONSTRAINT_VIOLATION) a change that islands the
 *  network, makes the power flow diverge, or creates (or worsens) a branch overload or a voltage outside [vmin, vmax]. */
async function checkConstraints(ctx: Ctx, key: string, before: NetworkModel, after: NetworkModel): Promise<Record<string, unknown>> {
  const isl = islanding(before, after);
  if (isl) {
    throw new AppError('CONSTRAINT_VIOLATION', `the change would island the network: ${isl.buses.length} bus(es) lose their connection (${isl.buses.slice(0, 20).join(', ')}${isl.buses.length > 20 ? ', …' : ''})`,
      { reason: 'islanding', buses: isl.buses.slice(0, 50), islands_before: isl.islandsBefore, islands_after: isl.islandsAfter });
  }
  let base: SolveOutcome | null | undefined = baseCache.get(key);
  const basePromise = base ? Promise.resolve(base) : solveChecked(ctx, before).then((o) => (o.status === 'converged' ? o : null), () => null);
  let outcome: SolveOutcome;
  try {
    [base, outcome] = await Promise.all([basePromise, solveChecked(ctx, after)]);
  } catch (e) {
    if (e instanceof PowerFlowInputError) throw new AppError('CONSTRAINT_VIOLATION', `the changed network cannot be solved: ${e.message}`, { reason: 'topology', cause: e.code, ...e.details });
    throw e;
  }
  if (base && !baseCache.has(key)) {
    baseCache.set(key, base);
    if (baseCache.size > BASE_CACHE_SIZE) baseCache.delete(baseCache.keys().next().value!);
  }
  if (outcome.status === 'cancelled' || outcome.status === 'timeout') {
    ctx.checkpoint();
    throw abortError(ctx, 'timeout');
  }
  if (outcome.status !== 'converged') {
    throw new AppError('CONSTRAINT_VIOLATION', `the power flow of the changed network does not converge (mismatch ${outcome.mismatch.toExponential(3)} after ${outcome.iterations} iterations); the change is refused`,
      { reason: 'diverged', iterations: outcome.iterations, mismatch: Number.isFinite(outcome.mismatch) ? outcome.mismatch : null });
  }
  const ids = branchIds(after);
  const violations: Violation[] = [];
  outcome.branches.forEach((f, i) => {
    const br = after.branches[i];
    if (br?.status !== 'closed' || !(br.rate_a > 0) || !(f.loading > 100 + 1e-6)) return;
    const was = base?.branches[i]?.loading;
    // Already overloaded before the change: refused only when the change makes it clearly worse.
    if (was !== undefined && before.branches[i]?.status === 'closed' && was > 100 + 1e-6 && f.loading <= was + WORSEN_TOLERANCE.loading) return;
    violations.push({
      type: 'overload', branch_id: ids[i], branch: { index: i, from: br.from, to: br.to }, loading: round(f.loading, 3), limit: 100, rate_a: br.rate_a,
      flow_mva: round(Math.max(Math.hypot(f.p_from, f.q_from), Math.hypot(f.p_to, f.q_to)), 3), ...(was !== undefined ? { loading_before: round(was, 3) } : {}),
    });
  });
  const baseV = new Map((base?.buses ?? []).map((b) => [b.id, b.v]));
  const busById = new Map(after.buses.map((b) => [b.id, b]));
  for (const r of outcome.buses) {
    const bus = busById.get(r.id);
    if (!bus || bus.type === 'isolated') continue;
    const dev = Math.max(bus.vmin - r.v, r.v - bus.vmax);
    if (!(dev > 1e-6)) continue;
    const was = baseV.get(r.id);
    if (was !== undefined && Math.max(bus.vmin - was, was - bus.vmax) > 1e-6 && dev <= Math.max(bus.vmin - was, was - bus.vmax) + WORSEN_TOLERANCE.voltage) continue;
    violations.push({ type: 'voltage', bus: r.id, voltage: round(r.v, 6), vmin: bus.vmin, vmax: bus.vmax, limit: r.v < bus.vmin ? bus.vmin : bus.vmax, ...(was !== undefined ? { voltage_before: round(was, 6) } : {}) });
  }
  if (violations.length > 0) {
    const weight = (v: Violation) => (v.type === 'overload' ? 1000 + (v.loading as number) : Math.abs((v.voltage as number) - (v.limit as number)));
    violations.sort((a, b) => weight(b) - weight(a));
    const first = violations[0];
    const what = first.type === 'overload'
      ? `branch ${first.branch_id} would be loaded ${(first.loading as number).toFixed(1)}% of rate_a ${first.rate_a} MVA`
      : `bus ${first.bus} voltage would be ${(first.voltage as number).toFixed(4)} p.u., outside [${first.vmin}, ${first.vmax}]`;
    throw new AppError('CONSTRAINT_VIOLATION', `the change is refused: ${what}${violations.length > 1 ? ` (and ${violations.length - 1} more violation${violations.length > 2 ? 's' : ''})` : ''}`,
      { reason: first.type, ...first, violations: violations.slice(0, 50), violation_count: violations.length });
  }
  return { constraint_checked: true, checks: { ...flowSummary(after, { ...outcome, duration_ms: Math.round(outcome.duration_ms) }), islands: new Set(components(after).values()).size } };
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

async function controlCommand(ctx: Ctx, plan: (m: NetworkModel, p: Params) => Plan): Promise<Record<string, unknown>> {
  const { s, caller } = ctx;
  const { summary, model } = await agentNetwork(s, caller, ctx.agent, ctx);
  assertOperable(summary);
  const p = plan(model, ctx.params);
  const checked = await checkConstraints(ctx, `${summary.id}@${summary.version}`, model, p.model);
  // Last look before the change: deadline, emergency shutdown (from any process), lock.
  ctx.checkpoint();
  const { rows } = await s.db.query<{ status: string }>('SELECT status FROM agents WHERE id = $1', [ctx.agent.id]);
  if (rows[0]?.status === 'stopped') throw abortError(ctx, 'shutdown');
  assertOperable(await getNetworkSummary(s, caller, summary.id));
  const saved = await saveModelVersion(s, caller, summary.id, summary.version, p.model, { ...p.change, agent_id: ctx.agent.id, command_id: ctx.action.command_id });
  return { network_id: summary.id, version: saved.version, previous_version: summary.version, change: p.change, ...checked };
}
