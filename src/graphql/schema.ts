// The GraphQL schema (SPEC 2, 4.5, 6.2, CONTRACT extras) as SDL. Field names are
// the camelCase forms of the REST names; enums are UPPERCASE. Additive fields
// beyond the specification are marked "(additive)"; deprecated ones carry
// @deprecated(reason) and stay answerable until their sunset (docs/graphql.md).
import { AGENT_STATUSES, AGENT_TYPES, AGGREGATIONS, ALARM_STATUSES, BRANCH_STATUSES, BUS_TYPES, COMMAND_PRIORITIES, DEVICE_TYPES,
  NETWORK_STATUSES, POWERFLOW_METHODS, POWERFLOW_STATUSES, SEVERITIES, TASK_STATUSES, graphqlEnum } from '../schemas/vocabulary.js';
export const typeDefs = /* GraphQL */ `
"""RFC 3339 date-time in UTC, e.g. 2026-07-01T12:00:00.000Z."""
scalar DateTime
"""Any JSON value."""
scalar JSON
"""IEEE 754 double (non-finite values are refused)."""
scalar Float64
"""Unsigned 64-bit integer. Serialised as a number up to 2^53-1, as a decimal string above; accepts both."""
scalar UInt64
"""High-precision decimal, carried as a string (e.g. "1234.567890123456789") so no digit is lost."""
scalar Decimal

${graphqlEnum('NetworkStatus', NETWORK_STATUSES)}
${graphqlEnum('AgentStatus', AGENT_STATUSES)}
${graphqlEnum('AgentType', AGENT_TYPES)}
"""ISOLATED (additive): MATPOWER bus type 4, left out of the solve."""
${graphqlEnum('BusType', BUS_TYPES)}
${graphqlEnum('DeviceType', DEVICE_TYPES)}
${graphqlEnum('PowerFlowMethod', POWERFLOW_METHODS)}
"""FAILED (additive): the task failed for another reason than divergence or timeout (see PowerFlowResult.error)."""
${graphqlEnum('PowerFlowStatus', POWERFLOW_STATUSES)}
${graphqlEnum('Aggregation', AGGREGATIONS)}
${graphqlEnum('Severity', SEVERITIES)}
${graphqlEnum('AlarmStatus', ALARM_STATUSES)}
${graphqlEnum('CommandPriority', COMMAND_PRIORITIES)}
${graphqlEnum('BranchStatus', BRANCH_STATUSES)}

type Query {
  networks(filter: NetworkFilter, page: Int = 1, pageSize: Int = 20, sort: String): NetworkConnection!
  network(id: ID!): Network
  agents(status: AgentStatus, type: AgentType, networkId: ID, page: Int = 1, pageSize: Int = 20): AgentConnection!
  agent(id: ID!): Agent
  devices(type: DeviceType, online: Boolean, status: String, networkId: ID, page: Int = 1, pageSize: Int = 20): DeviceConnection!
  device(id: ID!): Device
  timeseries(query: TimeSeriesQuery!): [TimeSeriesPoint!]!
  """One list of points per query, in query order."""
  timeseriesMulti(queries: [TimeSeriesQuery!]!): [[TimeSeriesPoint!]!]!
  """Newest first. topic may list several topics separated by commas."""
  events(topic: String, from: DateTime, to: DateTime, networkId: ID, agentId: ID, severity: Severity, page: Int = 1, pageSize: Int = 20): EventConnection!
  """Newest first, at most 100 (use REST GET /api/v1/alarms for paging). severity: exactly these."""
  alarms(severity: Severity, status: AlarmStatus, networkId: ID, from: DateTime, to: DateTime): [Alarm!]!
  alarm(id: ID!): Alarm
  """Needs the audit permission.""" audit(actor: String, action: String, resourceType: String, resourceId: String, from: DateTime, to: DateTime,
    page: Int = 1, pageSize: Int = 50): AuditConnection!
  health: HealthStatus!
  """(additive) A power-flow task: poll an asynchronous runPowerFlow.""" task(id: ID!): PowerFlowResult
  """(additive) The tenant's tasks (REST GET /api/v1/tasks): newest first by default; status and kind may list several, ` +
  `comma-separated for kind. from/to bound createdAt. sort: as REST (createdAt, startedAt, completedAt, status, kind, networkId; leading - descending)."""
  tasks(status: [TaskStatus!], kind: String, networkId: ID, from: DateTime, to: DateTime, page: Int = 1, pageSize: Int = 20, sort: String): TaskConnection!
}

type Mutation {
  createNetwork(input: NetworkInput!): Network!
  updateNetwork(id: ID!, input: NetworkInput!): Network!
  deleteNetwork(id: ID!): Boolean!
  validateNetwork(id: ID!): ValidationResult!
  """async true: returns at once with status QUEUED (poll task(id) or subscribe to powerFlowProgress(taskId)); false: waits for the result."""
  runPowerFlow(id: ID!, method: PowerFlowMethod = NEWTON_RAPHSON, async: Boolean = false, options: PowerFlowOptions): PowerFlowResult!
  cancelTask(taskId: ID!): Boolean!
  createAgent(input: AgentInput!): Agent!
  updateAgent(id: ID!, input: AgentInput!): Agent!
  deleteAgent(id: ID!): Boolean!
  pauseAgent(id: ID!): Agent!
  resumeAgent(id: ID!): Agent!
  sendCommand(agentId: ID!, command: CommandInput!): CommandResult!
  acknowledgeAlarm(id: ID!, note: String, acknowledgedBy: String): Alarm!
  writeTimeseries(points: [TimeSeriesPointInput!]!): WriteResult!
}

type Subscription {
  """Topology events of one network (id) or all networks of the tenant. replay: first the latest 100 stored events (oldest first), then live."""
  networkChanged(id: ID, replay: Boolean = false, after: ID): NetworkEvent!
  agentStatusChanged(id: ID, replay: Boolean = false, after: ID): AgentStatusEvent!
  """Alarms raised, acknowledged or cleared with at least this severity."""
  alarmStream(severity: Severity, replay: Boolean = false, after: ID): Alarm!
  """All events of the tenant, or of one topic (comma-separated for several). Audit events need the audit permission."""
  eventStream(topic: String, replay: Boolean = false, after: ID): Event!
  """Every iteration of a power-flow task, wherever it runs; completes when the task ends."""
  powerFlowProgress(taskId: ID!): PowerFlowProgress!
}

# ------------------------------------------------------------------ networks

type Network {
  id: ID!
  name: String!
  description: String!
  baseKv: Float!
  baseMva: Float!
  busCount: Int!
  branchCount: Int!
  generatorCount: Int!
  loadCount: Int!
  status: NetworkStatus!
  tags: JSON!
  """(additive) Model version; every update stores a new immutable version."""
  version: Int!
  createdAt: DateTime!
  updatedAt: DateTime!
  buses: [Bus!]!
  branches: [Branch!]!
  generators: [Generator!]!
  loads: [Load!]!
  """The latest power flow run on this network (with this method when given), whatever its status."""
  powerFlow(method: PowerFlowMethod): PowerFlowResult
  agents: [Agent!]!
  """Newest first, at most 100; severity: exactly this severity."""
  alarms(severity: Severity, status: AlarmStatus): [Alarm!]!
  """(additive)"""
  devices: [Device!]!
  """(additive) exact decimal sum of the in-service loads' MW"""
  totalLoadMw: Decimal!
  """(additive) exact decimal sum of the in-service generators' MW set points"""
  totalGenerationMw: Decimal!
}

type Voltage {
  """p.u."""
  magnitude: Float!
  """radians"""
  angle: Float!
}

type Bus {
  id: Int!
  type: BusType!
  voltage: Voltage!
  area: Int!
  generators: [Generator!]!
  loads: [Load!]!
  gs: Float!
  bs: Float!
  baseKv: Float!
  vmin: Float!
  vmax: Float!
  name: String!
  zone: Int!
  v: Float! @deprecated(reason: "Use voltage.magnitude. Kept for clients of schema 2026-01; removed after 2026-10.")
  theta: Float! @deprecated(reason: "Use voltage.angle. Kept for clients of schema 2026-01; removed after 2026-10.")
}

type BranchFlow {
  pFrom: Float!
  qFrom: Float!
  pTo: Float!
  qTo: Float!
  """percent of rateA; 0 when unlimited or out of service"""
  loading: Float!
}

type Branch {
  """(additive) position in the network's branch list, from 0"""
  index: Int!
  from: Int!
  to: Int!
  r: Float!
  x: Float!
  b: Float!
  status: BranchStatus!
  ratio: Float!
  shift: Float!
  rateA: Float!
  """(additive) MATPOWER RATE_B / RATE_C, MVA (0 = not set; rateC is the security-constrained DC-OPF's default limit)"""
  rateB: Float
  rateC: Float
  """(additive) OPF angle-difference limits, degrees (MATPOWER ANGMIN/ANGMAX; -360/360 = none)"""
  angmin: Float!
  angmax: Float!
  """From the latest converged power flow of the network's current version; null when there is none."""
  flow: BranchFlow
}

type Generator {
  bus: Int!
  mw: Float!
  mvar: Float!
  pmin: Float
  pmax: Float
  qmin: Float
  qmax: Float
  vg: Float!
  inService: Boolean!
  """(additive) OPF cost (MATPOWER gencost row); null when the case gave none"""
  cost: GeneratorCost
}


type Load {
  bus: Int!
  mw: Float!
  mvar: Float!
  inService: Boolean!
}

type NetworkConnection {
  items: [Network!]!
  total: Int!
  page: Int!
  pageSize: Int!
  totalPages: Int!
}

input NetworkFilter {
  status: NetworkStatus
  nameContains: String
  """Every tag must match; a tag without value matches any value of that key."""
  tags: [TagFilterInput!]
  createdAfter: DateTime
  createdBefore: DateTime
}

input TagFilterInput {
  key: String!
  value: String
}

input NetworkInput {
  name: String!
  description: String
  baseKv: Float
  baseMva: Float
  buses: [BusInput!]!
  branches: [BranchInput!]
  generators: [GeneratorInput!]
  loads: [LoadInput!]
  tags: JSON
  """(additive) DRAFT or READY on create; also ARCHIVED on update."""
  status: NetworkStatus
}

input BusInput {
  id: Int!
  type: BusType!
  v: Float
  theta: Float
  area: Int
  gs: Float
  bs: Float
  baseKv: Float
  vmin: Float
  vmax: Float
  name: String
  zone: Int
}

input BranchInput {
  from: Int!
  to: Int!
  r: Float!
  x: Float!
  b: Float
  status: BranchStatus
  ratio: Float
  shift: Float
  rateA: Float
  rateB: Float
  rateC: Float
  angmin: Float
  angmax: Float
}

input GeneratorInput {
  bus: Int!
  mw: Float!
  mvar: Float
  pmin: Float
  pmax: Float
  qmin: Float
  qmax: Float
  vg: Float
  inService: Boolean
  cost: GeneratorCostInput
}

input LoadInput {
  bus: Int!
  mw: Float!
  mvar: Float
  inService: Boolean
}

type ValidationIssue {
  field: String!
  message: String!
  code: String!
}

type ValidationResult {
  valid: Boolean!
  errors: [ValidationIssue!]
}


# ------------------------------------------------------------------ power flow

"""(additive) The remaining request fields of REST POST /networks/{id}/powerflow."""
input PowerFlowOptions {
  tolerance: Float
  maxIterations: Int
  flatStart: Boolean
  timeoutMs: Int
  enforceQLimits: Boolean
}

type BusResult {
  id: Int!
  v: Float!
  theta: Float!
  pGen: Float
  qGen: Float
  pLoad: Float
  qLoad: Float
}


type BranchResult {
  """(additive) 0-based position in the network's branch list (parallel branches share from/to)"""
  index: Int!
  from: Int!
  to: Int!
  pFrom: Float!
  qFrom: Float!
  pTo: Float!
  qTo: Float!
  loading: Float!
}

type GeneratorResult {
  bus: Int!
  pGen: Float!
  qGen: Float!
}

type Losses {
  pMw: Float!
  qMvar: Float!
}

type TaskError {
  code: String!
  message: String!
  details: JSON
}

type PowerFlowResult {
  taskId: ID!
  networkId: ID!
  """(additive)"""
  network: Network
  status: PowerFlowStatus!
  method: PowerFlowMethod!
  iterations: Int
  """(additive) last max-norm power mismatch, p.u."""
  mismatch: Float64
  durationMs: Int
  tolerance: Float!
  buses: [BusResult!]!
  branches: [BranchResult!]!
  """(additive)"""
  generators: [GeneratorResult!]!
  losses: Losses
  startedAt: DateTime
  completedAt: DateTime
  """(additive)"""
  createdAt: DateTime!
  """(additive) REST address of the task."""
  pollUrl: String!
  """(additive) the latest stored progress of a running task"""
  progress: PowerFlowProgress
  """(additive) why the task did not converge / failed"""
  error: TaskError
}

"""(additive) The state of a task (REST lowercase)."""
${graphqlEnum('TaskStatus', TASK_STATUSES)}

"""(additive) How a finished solve ended, without its per-element values."""
type TaskSummary {
  """converged, diverged, timeout or cancelled"""
  status: String!
  method: PowerFlowMethod
  iterations: Int
  mismatch: Float64
  durationMs: Int
  tolerance: Float
  losses: Losses
  busCount: Int!
  branchCount: Int!
  generatorCount: Int!
  message: String
}

"""(additive) A task of the tenant's queue: a power flow, a study, …"""
type Task {
  id: ID!
  """powerflow, study, …"""
  kind: String!
  status: TaskStatus!
  networkId: ID!
  networkVersion: Int!
  """the request options (camelCase, as PowerFlowOptions)"""
  options: JSON!
  """place in the tenant's FIFO queue while queued (1 = next), else null"""
  queuePosition: Int
  progress: PowerFlowProgress
  error: TaskError
  summary: TaskSummary
  attempts: Int!
  createdAt: DateTime!
  startedAt: DateTime
  completedAt: DateTime
  pollUrl: String!
  """the whole result of a power-flow task (reads the per-element values: ask for it only where needed)"""
  powerFlow: PowerFlowResult
  """(additive) the study of a study task (kind "study"): status, progress, counts and its cases; null for other kinds"""
  study: Study
}

type TaskConnection {
  items: [Task!]!
  total: Int!
  page: Int!
  pageSize: Int!
  totalPages: Int!
}

type PowerFlowProgress {
  taskId: ID!
  iteration: Int!
  maxIterations: Int!
  mismatch: Float!
  timestamp: DateTime!
}

# ------------------------------------------------------------------ agents

type AgentAction {
  id: ID!
  agentId: ID!
  command: String!
  params: JSON
  status: String!
  result: JSON
  executedAt: DateTime
  durationMs: Int
  """(additive) who sent the command (for a control command: who asked for it)"""
  requestedBy: CommandActor
  """(additive) control commands: the second person who confirmed it (four-eyes)"""
  confirmedBy: CommandActor
}

"""(additive) the user, service account or certificate that sent or confirmed a command"""
type CommandActor {
  type: String!
  id: ID!
  tenant: String!
}

type Agent {
  id: ID!
  name: String!
  type: AgentType!
  networkId: ID
  network: Network
  status: AgentStatus!
  """(additive) why the agent is in its status"""
  statusReason: String
  config: JSON!
  tools: [String!]!
  reasoningModel: String!
  maxActionsPerMinute: Int!
  createdAt: DateTime!
  startedAt: DateTime
  lastActiveAt: DateTime
  """Newest first, at most 50."""
  actions: [AgentAction!]!
}

type AgentConnection {
  items: [Agent!]!
  total: Int!
  page: Int!
  pageSize: Int!
  totalPages: Int!
}

input AgentInput {
  name: String!
  type: AgentType!
  networkId: ID
  config: JSON
  tools: [String!]
  reasoningModel: String
  maxActionsPerMinute: Int
  autoStart: Boolean
}

input CommandInput {
  command: String!
  params: JSON
  priority: CommandPriority
  timeoutMs: Int
  awaitResult: Boolean
  """(additive) one-time token of a control command's two-factor confirmation"""
  confirmationToken: String
}

type CommandResult {
  commandId: ID!
  agentId: ID!
  command: String!
  status: String!
  result: JSON
  durationMs: Int
  executedAt: DateTime
  """(additive) who sent the command (for a control command: who asked for it)"""
  requestedBy: CommandActor
  """(additive) control commands: the second person who confirmed it (four-eyes)"""
  confirmedBy: CommandActor
}

# ------------------------------------------------------------------ devices, time series

type Device {
  id: ID!
  name: String!
  type: DeviceType!
  status: String!
  networkId: ID
  network: Network
  bus: Int
  capacityMw: Float
  online: Boolean!
  metadata: JSON
  lastSeenAt: DateTime
  """(additive)"""
  createdAt: DateTime
}

type DeviceConnection {
  items: [Device!]!
  total: Int!
  page: Int!
  pageSize: Int!
  totalPages: Int!
}

type TimeSeriesPoint {
  metric: String!
  timestamp: DateTime!
  """null in a gap filled with fill "null"."""
  value: Float
  tags: JSON!
}

input TimeSeriesQuery {
  metric: String!
  """object of key/value strings, or "k:v,k2:v2" """
  tags: JSON
  from: DateTime!
  to: DateTime!
  aggregation: Aggregation
  """downsampling interval such as 5m"""
  interval: String
  """null, zero, linear"""
  fill: String
  limit: Int
}

input TimeSeriesPointInput {
  metric: String!
  timestamp: DateTime
  value: Float!
  tags: JSON
}

type WriteError {
  index: Int!
  message: String!
}

type WriteResult {
  accepted: Int!
  rejected: Int!
  errors: [WriteError!]!
}

# ------------------------------------------------------------------ alarms, events, audit, health

type AlarmSource {
  type: String!
  id: String!
}

type Alarm {
  id: ID!
  severity: Severity!
  status: AlarmStatus!
  type: String!
  message: String!
  networkId: ID
  network: Network
  source: AlarmSource!
  details: JSON!
  raisedAt: DateTime!
  acknowledgedAt: DateTime
  clearedAt: DateTime
  acknowledgedBy: String
  """(additive)"""
  note: String
  """(additive) how often the condition was seen while open"""
  occurrences: Int
}

type Event {
  id: ID!
  """(additive) position in the tenant-wide event log (the number in the id)"""
  sequence: UInt64!
  topic: String!
  kind: String!
  payload: JSON!
  timestamp: DateTime!
  """(additive)"""
  networkId: ID
  """(additive)"""
  agentId: ID
  """(additive)"""
  severity: Severity
}

type EventConnection {
  items: [Event!]!
  total: Int!
  page: Int!
  pageSize: Int!
  totalPages: Int!
}

type NetworkEvent {
  """(additive) the event id, for subscribe(after:)"""
  eventId: ID!
  networkId: ID!
  kind: String!
  changes: JSON
  timestamp: DateTime!
  """(additive)"""
  actor: String
}

type AgentStatusEvent {
  """(additive)"""
  eventId: ID!
  agentId: ID!
  oldStatus: AgentStatus
  newStatus: AgentStatus!
  reason: String
  timestamp: DateTime!
}

type AuditEntry {
  id: ID!
  timestamp: DateTime!
  actorType: String!
  actorId: String!
  tenant: String!
  action: String!
  resourceType: String
  resourceId: String
  requestId: String
  ip: String
  userAgent: String
  result: String!
  details: JSON
}

type AuditConnection {
  items: [AuditEntry!]!
  total: Int!
  page: Int!
  pageSize: Int!
  totalPages: Int!
}

type HealthStatus {
  """ok, degraded or down"""
  status: String!
  version: String!
  uptimeSeconds: Int!
  """subsystem name -> ok / down"""
  checks: JSON!
  """(additive) the GraphQL schema version that answered"""
  schemaVersion: String!
}
`;
