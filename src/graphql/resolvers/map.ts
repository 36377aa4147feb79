// Shape mapping between the domain (REST snake_case, lowercase enums) and
// GraphQL (camelCase, UPPERCASE enums). Nothing here reads or writes storage.
import type { NetworkSummary } from '../../domain/networks.js';
import type { Branch, Bus, DcLine, Generator, GeneratorCost, Load, NetworkModel } from '../../domain/networkModel.js';
import type { TaskRow } from '../../domain/tasks.js';
import type { Alarm } from '../../domain/alarms.js';
import type { ActionRow } from '../../domain/commands/actions.js';
import type { BranchResult, PowerFlowResult } from '../../schemas/powerflowResult.js';
import { eventSeq } from '../../lib/ids.js';
import { SEVERITIES as SEVERITY_VALUES } from '../../schemas/vocabulary.js';
import type { Agent } from '../../domain/agents.js';
import type { CommandResult } from '../../domain/commands/index.js';
import type { Device } from '../../domain/devices.js';
import type { AuditEntry } from '../../security/audit.js';
import type { ProgressMessage } from '../streams.js';

/** A stored JSON object or an event payload: fields read by name, each checked where it matters. */
type Fields = Record<string, unknown>;
type Nullish<T> = T | null | undefined;
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

// GraphQL inputs as the SDL declares them (camelCase, UPPERCASE enums); graphql-js has checked their shape.
type Enum = Uppercase<string>;
interface GqlBusInput {
  id: number;
  type: Enum;
  v?: Nullish<number>;
  theta?: Nullish<number>;
  area?: Nullish<number>;
  gs?: Nullish<number>;
  bs?: Nullish<number>;
  baseKv?: Nullish<number>;
  vmin?: Nullish<number>;
  vmax?: Nullish<number>;
  name?: Nullish<string>;
  zone?: Nullish<number>;
  lat?: Nullish<number>;
  lon?: Nullish<number>;
}
interface GqlBranchInput {
  from: number;
  to: number;
  r: number;
  x: number;
  b?: Nullish<number>;
  status?: Nullish<Enum>;
  ratio?: Nullish<number>;
  shift?: Nullish<number>;
  rateA?: Nullish<number>;
  rateB?: Nullish<number>;
  rateC?: Nullish<number>;
  angmin?: Nullish<number>;
  angmax?: Nullish<number>;
}
interface GqlCostInput { model: Enum; startup?: Nullish<number>; shutdown?: Nullish<number>; coefficients: number[] }
interface GqlGeneratorInput {
  bus: number;
  mw: number;
  mvar?: Nullish<number>;
  pmin: number;
  pmax: number;
  qmin: number;
  qmax: number;
  vg?: Nullish<number>;
  inService?: Nullish<boolean>;
  cost?: Nullish<GqlCostInput>;
  reactiveCost?: Nullish<GqlCostInput>;
}
interface GqlLoadInput { bus: number; mw: number; mvar?: Nullish<number>; inService?: Nullish<boolean> }
type N = Nullish<number>;
interface GqlDcLineInput { from: number; to: number; inService?: Nullish<boolean>; pFrom: number; pTo?: N; qFrom?: N; qTo?: N; vFrom?: N; vTo?: N;
  pmin?: N; pmax?: N;
  qminFrom?: N; qmaxFrom?: N; qminTo?: N; qmaxTo?: N; loss0?: N; loss1?: N; cost?: Nullish<GqlCostInput> }
/** GraphQL NetworkInput / NetworkUpdateInput (every field optional in the update). */
export interface GqlNetworkInput {
  name?: string; description?: Nullish<string>; baseKv?: Nullish<number>; baseMva?: Nullish<number>;
  buses?: Nullish<GqlBusInput[]>; branches?: Nullish<GqlBranchInput[]>; generators?: Nullish<GqlGeneratorInput[]>; loads?: Nullish<GqlLoadInput[]>;
  dcLines?: Nullish<GqlDcLineInput[]>;
  tags?: Nullish<Record<string, string>>; status?: Nullish<Enum>;
}

export const up = (v: string | null | undefined) => (v === null || v === undefined ? null : v.toUpperCase());
/** A GraphQL enum value as the domain's (lowercase) value. */
export const down = <T extends string>(v: Uppercase<T> | null | undefined): T | undefined =>
  v === null || v === undefined ? undefined : (v.toLowerCase() as T);
/** The alarm severities as GraphQL spells them, in the vocabulary's order (index = level). */
export const SEVERITIES = SEVERITY_VALUES.map((v) => v.toUpperCase() as Uppercase<typeof v>);
export const severityLevel = (s: string) => SEVERITIES.indexOf(s as (typeof SEVERITIES)[number]);
const date = (v: unknown) => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(v as string));

export function connection<T>(items: T[], meta: Record<string, unknown>) {
  return { items, total: meta.total as number, page: meta.page as number, pageSize: meta.page_size as number, totalPages: meta.total_pages as number };
}

/** Drops undefined values (GraphQL omitted arguments) so domain defaults apply. */
export function defined<T extends object>(o: T): T {
  const r = o as Record<string, unknown>;
  for (const k of Object.keys(r)) if (r[k] === undefined) delete r[k];
  return o;
}

// ------------------------------------------------------------------ networks

export interface GqlNetwork {
  __summary: NetworkSummary;
  [k: string]: unknown;
}

export function toNetwork(n: NetworkSummary): GqlNetwork {
  return {
    __summary: n,
    id: n.id, name: n.name, description: n.description, baseKv: n.base_kv, baseMva: n.base_mva,
    busCount: n.bus_count, branchCount: n.branch_count, generatorCount: n.generator_count, loadCount: n.load_count,
    status: up(n.status), tags: n.tags, version: n.version, createdAt: n.created_at, updatedAt: n.updated_at,
  };
}

export function toBus(b: Bus, model: NetworkModel) {
  return {
    __model: model,
    id: b.id, type: up(b.type), voltage: { magnitude: b.v, angle: b.theta }, area: b.area,
    gs: b.gs, bs: b.bs, baseKv: b.base_kv, vmin: b.vmin, vmax: b.vmax, name: b.name, zone: b.zone, v: b.v, theta: b.theta,
    lat: b.lat ?? null, lon: b.lon ?? null,
  };
}

export function toBranch(br: Branch, index: number, ref: { id: string; version: number }) {
  return {
    __ref: ref,
    index,
    from: br.from,
    to: br.to,
    r: br.r,
    x: br.x,
    b: br.b,
    status: up(br.status),
    ratio: br.ratio,
    shift: br.shift,
    rateA: br.rate_a,
    rateB: br.rate_b ?? null,
    rateC: br.rate_c ?? null,
    angmin: br.angmin,
    angmax: br.angmax,
  };
}

export function toGenerator(g: Generator) {
  return { bus: g.bus, mw: g.mw, mvar: g.mvar, pmin: g.pmin, pmax: g.pmax, qmin: g.qmin, qmax: g.qmax, vg: g.vg, inService: g.in_service,
    cost: costOut(g.cost), reactiveCost: costOut(g.reactive_cost) };
}

function costOut(c: GeneratorCost | null | undefined) {
  return c ? { model: up(c.model), startup: c.startup, shutdown: c.shutdown, coefficients: c.coefficients } : null;
}

function costIn(c: Nullish<GqlCostInput>): Fields | undefined {
  return c == null
    ? undefined
    : defined({ model: down(c.model), startup: c.startup ?? undefined, shutdown: c.shutdown ?? undefined, coefficients: c.coefficients });
}

export function toDcLine(d: DcLine) {
  return { from: d.from, to: d.to, inService: d.in_service, pFrom: d.p_from, pTo: d.p_to, qFrom: d.q_from, qTo: d.q_to, vFrom: d.v_from, vTo: d.v_to,
    pmin: d.pmin, pmax: d.pmax, qminFrom: d.qmin_from, qmaxFrom: d.qmax_from, qminTo: d.qmin_to, qmaxTo: d.qmax_to, loss0: d.loss0, loss1: d.loss1,
    cost: costOut(d.cost) };
}

export function toLoad(l: Load) {
  return { bus: l.bus, mw: l.mw, mvar: l.mvar, inService: l.in_service };
}

export function toBranchFlow(f: BranchResult | undefined) {
  if (!f) return null;
  return { pFrom: f.p_from, qFrom: f.q_from, pTo: f.p_to, qTo: f.q_to, loading: f.loading };
}

/** GraphQL NetworkInput -> the REST/domain network input (snake_case, lowercase enums). */
export function fromNetworkInput(i: GqlNetworkInput): Fields {
  const out: Fields = defined({
    name: i.name, description: i.description ?? undefined, base_kv: i.baseKv ?? undefined, base_mva: i.baseMva ?? undefined,
    buses: (i.buses ?? []).map((b) => defined({
      id: b.id, type: down(b.type), v: b.v ?? undefined, theta: b.theta ?? undefined, area: b.area ?? undefined, gs: b.gs ?? undefined, bs: b.bs ?? undefined,
      base_kv: b.baseKv ?? undefined, vmin: b.vmin ?? undefined, vmax: b.vmax ?? undefined, name: b.name ?? undefined, zone: b.zone ?? undefined,
      lat: b.lat ?? undefined, lon: b.lon ?? undefined,
    })),
    branches:
      i.branches == null
        ? undefined
        : i.branches.map((b) =>
            defined({
              from: b.from,
              to: b.to,
              r: b.r,
              x: b.x,
              b: b.b ?? undefined,
              status: down(b.status),
              ratio: b.ratio ?? undefined,
              shift: b.shift ?? undefined,
              rate_a: b.rateA ?? undefined,
              rate_b: b.rateB ?? undefined,
              rate_c: b.rateC ?? undefined,
              angmin: b.angmin ?? undefined,
              angmax: b.angmax ?? undefined,
            }),
          ),
    generators:
      i.generators == null
        ? undefined
        : i.generators.map((g) =>
            defined({
              bus: g.bus,
              mw: g.mw,
              mvar: g.mvar ?? undefined,
              pmin: g.pmin,
              pmax: g.pmax,
              qmin: g.qmin,
              qmax: g.qmax,
              vg: g.vg ?? undefined,
              in_service: g.inService ?? undefined,
              cost: costIn(g.cost),
              reactive_cost: costIn(g.reactiveCost),
            }),
          ),
    loads: i.loads == null ? undefined : i.loads.map((l) => defined({ bus: l.bus, mw: l.mw, mvar: l.mvar ?? undefined, in_service: l.inService ?? undefined })),
    dc_lines: i.dcLines == null ? undefined : i.dcLines.map((d) => defined({
      from: d.from, to: d.to, in_service: d.inService ?? undefined, p_from: d.pFrom, p_to: d.pTo ?? undefined,
      q_from: d.qFrom ?? undefined, q_to: d.qTo ?? undefined,
      v_from: d.vFrom ?? undefined, v_to: d.vTo ?? undefined, pmin: d.pmin ?? undefined, pmax: d.pmax ?? undefined, qmin_from: d.qminFrom ?? undefined,
      qmax_from: d.qmaxFrom ?? undefined, qmin_to: d.qminTo ?? undefined, qmax_to: d.qmaxTo ?? undefined,
      loss0: d.loss0 ?? undefined, loss1: d.loss1 ?? undefined,
      cost: costIn(d.cost),
    })),
    tags: i.tags ?? undefined,
    status: down(i.status),
  });
  return out;
}

// ------------------------------------------------------------------ power flow

/** GraphQL PowerFlowStatus of a task. */
export function powerFlowStatus(t: Pick<TaskRow, 'status' | 'result' | 'error'>): string {
  switch (t.status) {
    case 'queued':
    case 'dispatched':
      return 'QUEUED';
    case 'running':
      return 'RUNNING';
    case 'cancelled':
      return 'CANCELLED';
    case 'completed':
      return 'CONVERGED';
    default: {
      const rs = (t.result as { status?: string } | null)?.status;
      if (rs === 'diverged' || t.error?.code === 'POWERFLOW_DIVERGED') return 'DIVERGED';
      if (rs === 'timeout' || t.error?.code === 'GATEWAY_TIMEOUT') return 'TIMEOUT';
      return 'FAILED';
    }
  }
}

export function toPowerFlowResult(t: TaskRow) {
  // a stored power-flow result (src/schemas/powerflowResult.ts), or none yet
  const r = (t.result ?? {}) as Partial<PowerFlowResult> & { duration_ms?: number; started_at?: string; completed_at?: string };
  const o = (t.options ?? {}) as { method?: string; tolerance?: number };
  const p = t.progress;
  return {
    taskId: t.id,
    networkId: t.network_id,
    status: powerFlowStatus(t),
    method: up(r.method ?? o.method ?? 'newton_raphson'),
    iterations: r.iterations ?? (p ? p.iteration : null),
    mismatch: r.mismatch ?? (p ? p.mismatch : null),
    durationMs: r.duration_ms ?? null,
    tolerance: r.tolerance ?? o.tolerance ?? 1e-8,
    buses: (r.buses ?? []).map((b) => ({
      id: b.id,
      v: b.v,
      theta: b.theta,
      pGen: b.p_gen,
      qGen: b.q_gen,
      pLoad: b.p_load,
      qLoad: b.q_load,
      energized: b.energized ?? null,
    })),
    branches: (r.branches ?? []).map((b, index) => ({
      index: (b as { index?: number }).index ?? index,
      from: b.from,
      to: b.to,
      pFrom: b.p_from,
      qFrom: b.q_from,
      pTo: b.p_to,
      qTo: b.q_to,
      loading: b.loading,
    })),
    generators: (r.generators ?? []).map((g) => ({ bus: g.bus, pGen: g.p_gen, qGen: g.q_gen })),
    losses: r.losses ? { pMw: r.losses.p_mw, qMvar: r.losses.q_mvar } : null,
    islands: r.islands
      ? r.islands.map((i) => ({
          buses: i.buses,
          referenceBus: i.reference_bus,
          energized: i.energized,
          loadMw: i.load_mw,
          generationMw: i.generation_mw,
        }))
      : null,
    lostLoadMw: r.lost_load_mw ?? null,
    lostGenerationMw: r.lost_generation_mw ?? null,
    startedAt: date(r.started_at ?? t.started_at),
    completedAt: date(r.completed_at ?? t.completed_at),
    createdAt: date(t.created_at),
    pollUrl: `/api/v1/tasks/${t.id}`,
    progress: p
      ? {
          taskId: t.id,
          iteration: p.iteration,
          maxIterations: p.max_iterations,
          mismatch: p.mismatch,
          timestamp: date(p.updated_at ?? t.started_at ?? t.created_at),
        }
      : null,
    error: t.error ? { code: t.error.code, message: t.error.message, details: t.error.details ?? null } : null,
  };
}

export function toProgress(m: ProgressMessage) {
  return { taskId: m.task_id, iteration: m.iteration, maxIterations: m.max_iterations, mismatch: m.mismatch, timestamp: m.timestamp };
}

// ------------------------------------------------------------------ agents, devices, alarms

export function toAgent(a: Agent) {
  return {
    id: a.id, name: a.name, type: up(a.type), networkId: a.network_id ?? null, status: up(a.status), statusReason: a.status_reason ?? null,
    config: a.config ?? {}, tools: a.tools ?? [], reasoningModel: a.reasoning_model, maxActionsPerMinute: a.max_actions_per_minute,
    createdAt: date(a.created_at), startedAt: date(a.started_at), lastActiveAt: date(a.last_active_at),
  };
}

export function toAgentAction(x: ActionRow) {
  return {
    id: x.id, agentId: x.agent_id, command: x.command, params: x.params ?? {}, status: x.status, result: x.result ?? x.error ?? null,
    executedAt: date(x.executed_at), durationMs: x.duration_ms ?? null, requestedBy: x.requested_by ?? null, confirmedBy: x.confirmed_by ?? null,
  };
}

export function toCommandResult(r: CommandResult) {
  return {
    commandId: r.command_id, agentId: r.agent_id, command: r.command, status: r.status, result: r.result ?? null,
    durationMs: r.duration_ms ?? null, executedAt: date(r.executed_at), requestedBy: r.requested_by ?? null, confirmedBy: r.confirmed_by ?? null,
  };
}

/** From the domain view or a stored row (which has no `online`: it follows the status). */
export function toDevice(d: Omit<Device, 'online'> & { online?: boolean }) {
  return {
    id: d.id, name: d.name, type: d.type, status: d.status, networkId: d.network_id ?? null, bus: d.bus ?? null, capacityMw: d.capacity_mw ?? null,
    online: d.online ?? d.status === 'online', metadata: d.metadata ?? {}, lastSeenAt: date(d.last_seen_at), createdAt: date(d.created_at),
  };
}

/** From the domain Alarm view or an alarm event payload (alarm_id, severity as a level or a name). */
export type AlarmLike = Omit<Partial<Alarm>, 'severity' | 'source'> & {
  alarm_id?: string;
  severity?: string | number | null;
  source?: { type: string; id: string };
  source_type?: string;
  source_id?: string;
};
export function toAlarm(a: AlarmLike) {
  const sev = typeof a.severity === 'number' ? SEVERITIES[a.severity] : up(a.severity);
  return {
    id: a.id ?? a.alarm_id, severity: sev, status: up(a.status), type: a.type, message: a.message, networkId: a.network_id ?? null,
    source: a.source ?? (a.source_type ? { type: a.source_type, id: a.source_id } : { type: 'unknown', id: '' }),
    details: a.details ?? {}, raisedAt: date(a.raised_at), acknowledgedAt: date(a.acknowledged_at), clearedAt: date(a.cleared_at),
    acknowledgedBy: a.acknowledged_by ?? null, note: a.note ?? null, occurrences: a.occurrences ?? null,
  };
}

// ------------------------------------------------------------------ events, audit

/** An event from the log (eventRecord) or from the bus (eventWire). */
export interface LiveEvent {
  id: string;
  seq: number;
  tenant_id?: string;
  topic: string;
  kind: string;
  payload: Fields;
  network_id: string | null;
  agent_id: string | null;
  severity: number | null;
  timestamp: Date | string;
}

/** An event from the bus or the log, as a plain object (src/events/bus.ts sends JSON): each field checked. */
export function normalizeEvent(e: Fields): LiveEvent {
  const id = str(e.id) ?? '';
  const sev =
    typeof e.severity === 'string'
      ? SEVERITIES.indexOf(e.severity.toUpperCase() as (typeof SEVERITIES)[number])
      : typeof e.severity === 'number'
        ? e.severity
        : null;
  const ts = e.timestamp;
  return {
    id, seq: typeof e.seq === 'number' ? e.seq : eventSeq(id) ?? 0, tenant_id: str(e.tenant_id), topic: str(e.topic) ?? '', kind: str(e.kind) ?? '',
    payload: e.payload && typeof e.payload === 'object' ? (e.payload as Fields) : {},
    network_id: str(e.network_id) ?? null, agent_id: str(e.agent_id) ?? null, severity: sev === null || sev < 0 ? null : sev,
    timestamp: ts instanceof Date || typeof ts === 'string' ? ts : new Date(0),
  };
}

export function toEvent(e: LiveEvent) {
  return {
    id: e.id, sequence: e.seq, topic: e.topic, kind: e.kind, payload: e.payload, timestamp: date(e.timestamp),
    networkId: e.network_id, agentId: e.agent_id, severity: e.severity === null ? null : SEVERITIES[e.severity] ?? null,
  };
}

export function toNetworkEvent(e: LiveEvent) {
  const p = e.payload;
  return {
    eventId: e.id, networkId: e.network_id ?? str(p.network_id) ?? null, kind: str(p.kind) ?? e.kind, changes: p.changes ?? null,
    timestamp: date(e.timestamp), actor: p.actor ?? null,
  };
}

export function toAgentStatusEvent(e: LiveEvent) {
  const p = e.payload;
  return {
    eventId: e.id, agentId: str(p.agent_id) ?? e.agent_id, oldStatus: up(str(p.old_status)), newStatus: up(str(p.new_status)), reason: p.reason ?? null,
    timestamp: date(p.timestamp ?? e.timestamp),
  };
}

export function toAuditEntry(a: AuditEntry) {
  return {
    id: a.id, timestamp: date(a.timestamp), actorType: a.actor.type, actorId: a.actor.id, tenant: a.actor.tenant, action: a.action,
    resourceType: a.resource?.type ?? null, resourceId: a.resource?.id ?? null, requestId: a.request_id ?? null, ip: a.ip ?? null,
    userAgent: a.user_agent ?? null, result: a.result, details: a.details ?? {},
  };
}
