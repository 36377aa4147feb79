// One source for every enumeration (issue #12 item 4): the GraphQL enums are the vocabulary's
// lists in UPPER_CASE, the REST schemas accept exactly those lists, and the GraphQL and
// WebSocket doors import nothing from the REST routes folder.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GraphQLEnumType } from 'graphql';
import { buildGraphqlSchema } from '../src/graphql/build.js';
import * as V from '../src/schemas/vocabulary.js';
import { AgentStatus, AgentType, Priority } from '../src/schemas/agents.js';
import { AlarmStatus, Severity } from '../src/schemas/alarms.js';
import { DeviceType } from '../src/schemas/devices.js';
import { BranchStatus, NetworkStatus } from '../src/schemas/networks.js';
import { TaskStatus } from '../src/schemas/tasks.js';
import { Role, Plan } from '../src/schemas/admin.js';

const GRAPHQL_ENUMS: Record<string, readonly string[]> = {
  NetworkStatus: V.NETWORK_STATUSES, AgentStatus: V.AGENT_STATUSES, AgentType: V.AGENT_TYPES, BusType: V.BUS_TYPES, DeviceType: V.DEVICE_TYPES,
  PowerFlowMethod: V.POWERFLOW_METHODS, PowerFlowStatus: V.POWERFLOW_STATUSES, Aggregation: V.AGGREGATIONS, Severity: V.SEVERITIES,
  AlarmStatus: V.ALARM_STATUSES, CommandPriority: V.COMMAND_PRIORITIES, BranchStatus: V.BRANCH_STATUSES, TaskStatus: V.TASK_STATUSES,
  StudyKind: V.STUDY_KINDS, StudyStatus: V.TASK_STATUSES, StudyCaseStatus: V.STUDY_CASE_STATUSES, StudyViolationType: V.STUDY_VIOLATION_TYPES, OpfMethod: V.OPF_METHODS, CostModel: V.COST_MODELS,
};

/** The literals a TypeBox union of literals accepts. */
const literalsOf = (schema: { anyOf?: { const?: unknown }[] }) => (schema.anyOf ?? []).map((s) => s.const);

describe('one vocabulary', () => {
  it('every GraphQL enum of the schema is its vocabulary list in UPPER_CASE', () => {
    const schema = buildGraphqlSchema();
    for (const [name, list] of Object.entries(GRAPHQL_ENUMS)) {
      const t = schema.getType(name);
      assert.ok(t instanceof GraphQLEnumType, `${name} is an enum of the schema`);
      assert.deepEqual(t.getValues().map((v) => v.name), list.map((x) => x.toUpperCase()), name);
    }
  });

  it('the REST schemas accept exactly the vocabulary lists', () => {
    const pairs: [string, { anyOf?: { const?: unknown }[] }, readonly string[]][] = [
      ['AgentStatus', AgentStatus, V.AGENT_STATUSES], ['AgentType', AgentType, V.AGENT_TYPES], ['Priority', Priority, V.COMMAND_PRIORITIES],
      ['AlarmStatus', AlarmStatus, V.ALARM_STATUSES], ['Severity', Severity, V.SEVERITIES], ['DeviceType', DeviceType, V.DEVICE_TYPES],
      ['BranchStatus', BranchStatus, V.BRANCH_STATUSES], ['NetworkStatus', NetworkStatus, V.NETWORK_STATUSES], ['TaskStatus', TaskStatus, V.TASK_STATUSES],
      ['Role', Role, V.ROLES], ['Plan', Plan, V.PLAN_NAMES],
    ];
    for (const [name, schema, list] of pairs) assert.deepEqual(literalsOf(schema), [...list], name);
  });

  it('the GraphQL, WebSocket and SSE code imports nothing from the REST routes folder', () => {
    const root = join(process.cwd(), 'src');
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith('.ts') && /from '[^']*\/routes\//.test(readFileSync(p, 'utf8'))) offenders.push(p.slice(root.length + 1));
      }
    };
    for (const d of ['graphql', 'realtime', 'domain', 'queue', 'security', 'studies', 'opf', 'powerflow']) walk(join(root, d));
    assert.deepEqual(offenders, []);
  });
});
