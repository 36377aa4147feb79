// Batched reads behind the nested fields (Network.buses/branches/powerFlow/
// agents/alarms/devices, Branch.flow, Agent.actions, X.network). Each loader
// runs one SQL statement per resolver wave, whatever the number of parents, so
// a list of N networks with nested fields costs a constant number of queries.
// Every statement is scoped to the caller's tenant.
import type { Services } from '../services.js';
import type { Caller } from '../domain/caller.js';
import type { NetworkModel, Generator, Load } from '../domain/networkModel.js';
import type { NetworkSummary } from '../domain/networks.js';
import { taskFromRow, type TaskRow } from '../domain/tasks.js';
import type { AgentRow } from '../domain/agents.js';
import type { DeviceRow } from '../domain/devices.js';
import { alarmView, type Alarm, type AlarmRow } from '../domain/alarms.js';
import type { ActionRow } from '../domain/commands/actions.js';
import { summary, type NetworkRow } from '../domain/networks.js';
import type { BranchResult } from '../schemas/powerflowResult.js';
import { decodeResultValues } from '../powerflow/resultValues.js';
import { decodeModel } from '../domain/modelBlob.js';
import { BatchLoader } from './batch.js';

export interface ModelIndex {
  generatorsByBus: Map<number, Generator[]>;
  loadsByBus: Map<number, Load[]>;
}
const indexes = new WeakMap<NetworkModel, ModelIndex>();
export function modelIndex(m: NetworkModel): ModelIndex {
  let ix = indexes.get(m);
  if (!ix) {
    ix = { generatorsByBus: new Map(), loadsByBus: new Map() };
    for (const g of m.generators) {
      const l = ix.generatorsByBus.get(g.bus);
      if (l) l.push(g);
      else ix.generatorsByBus.set(g.bus, [g]);
    }
    for (const d of m.loads) {
      const l = ix.loadsByBus.get(d.bus);
      if (l) l.push(d);
      else ix.loadsByBus.set(d.bus, [d]);
    }
    indexes.set(m, ix);
  }
  return ix;
}


export interface NetworkRef {
  id: string;
  version: number;
}

export interface AlarmKey {
  networkId: string;
  severity?: number;
  status?: string;
}

export interface Loaders {
  network: BatchLoader<string, NetworkSummary | null>;
  model: BatchLoader<NetworkRef, NetworkModel | null>;
  /** Branch flows of the latest converged power flow of exactly this version. */
  branchFlows: BatchLoader<NetworkRef, BranchResult[] | null>;
  latestTask: BatchLoader<{ networkId: string; method?: string }, TaskRow | null>;
  agentsByNetwork: BatchLoader<string, AgentRow[]>;
  alarmsByNetwork: BatchLoader<AlarmKey, Alarm[]>;
  devicesByNetwork: BatchLoader<string, DeviceRow[]>;
  actionsByAgent: BatchLoader<string, ActionRow[]>;
}

// The network summary of src/domain/networks.ts (status "locked" is derived from running tasks).
const NETWORK_SELECT = `SELECT n.*, EXISTS (SELECT 1 FROM tasks t WHERE t.network_id = n.id AND t.status IN ('dispatched', 'running')) AS busy FROM networks n`;
export const networkSummaryFromRow = summary;

function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    const l = m.get(k);
    if (l) l.push(r);
    else m.set(k, [r]);
  }
  return m;
}

export function createLoaders(s: Pick<Services, 'db' | 'models'>, caller: Caller): Loaders {
  const tenant = caller.tenantId;
  const refKey = (r: NetworkRef) => `${r.id}@${r.version}`;

  const network = new BatchLoader<string, NetworkSummary | null>(async (ids) => {
    const { rows } = await s.db.query<NetworkRow>(`${NETWORK_SELECT} WHERE n.tenant_id = $1 AND n.id = ANY($2::text[])`, [tenant, ids]);
    const by = new Map(rows.map((r) => [r.id, networkSummaryFromRow(r)]));
    return ids.map((id) => by.get(id) ?? null);
  });

  const model = new BatchLoader<NetworkRef, NetworkModel | null>(async (refs) => {
    const found = new Map<string, NetworkModel>();
    const missing: NetworkRef[] = [];
    for (const r of refs) {
      const m = s.models.peek(r.id, r.version);
      if (m) found.set(refKey(r), m);
      else missing.push(r);
    }
    if (missing.length > 0) {
      // The refs come from tenant-scoped network rows; the join re-checks the tenant anyway.
      const { rows } = await s.db.query<{ network_id: string; version: number; model: NetworkModel | null; model_z: Uint8Array | null }>(
        `SELECT v.network_id, v.version, v.model, v.model_z FROM network_versions v JOIN networks n ON n.id = v.network_id
         WHERE n.tenant_id = $1 AND (v.network_id, v.version) IN (SELECT * FROM unnest($2::text[], $3::int[]))`,
        [tenant, missing.map((r) => r.id), missing.map((r) => r.version)]);
      for (const r of rows) {
        found.set(`${r.network_id}@${r.version}`, s.models.put(r.network_id, r.version, await decodeModel(r)));
      }
    }
    return refs.map((r) => found.get(refKey(r)) ?? null);
  }, refKey);

  const branchFlows = new BatchLoader<NetworkRef, BranchResult[] | null>(async (refs) => {
    const { rows: stored } = await s.db.query<{ network_id: string; branches: BranchResult[] | null; result_values: Uint8Array | null }>(
      `SELECT DISTINCT ON (network_id) network_id, CASE WHEN result_values IS NULL THEN result->'branches' END AS branches, result_values FROM tasks
       WHERE tenant_id = $1 AND status = 'completed' AND result IS NOT NULL
         AND (network_id, network_version) IN (SELECT * FROM unnest($2::text[], $3::int[]))
       ORDER BY network_id, completed_at DESC, seq DESC`,
      [tenant, refs.map((r) => r.id), refs.map((r) => r.version)],
    );
    const by = new Map(
      stored.map((r) => [
        r.network_id,
        r.result_values ? (decodeResultValues(r.result_values).branches as unknown as BranchResult[]) : r.branches,
      ]),
    );
    return refs.map((r) => by.get(r.id) ?? null);
  }, refKey);

  const latestTask = new BatchLoader<{ networkId: string; method?: string }, TaskRow | null>(
    async (keys) => {
      const ids = [...new Set(keys.map((k) => k.networkId))];
      const anyMethod = keys.some((k) => !k.method);
      const withMethod = keys.some((k) => k.method);
      const [all, byMethod] = await Promise.all([
        anyMethod
          ? s.db.query<TaskRow>(
              `SELECT DISTINCT ON (network_id) * FROM tasks WHERE tenant_id = $1 AND network_id = ANY($2::text[]) AND kind = 'powerflow'
               ORDER BY network_id, seq DESC`,
              [tenant, ids],
            )
          : { rows: [] as TaskRow[] },
        withMethod
          ? s.db.query<TaskRow>(
              `SELECT DISTINCT ON (network_id, options->>'method') * FROM tasks
               WHERE tenant_id = $1 AND network_id = ANY($2::text[]) AND kind = 'powerflow' ORDER BY network_id, options->>'method', seq DESC`,
              [tenant, ids],
            )
          : { rows: [] as TaskRow[] },
      ]);
      const a = new Map(all.rows.map((t) => [t.network_id, taskFromRow(t)]));
      const m = new Map(
        byMethod.rows.map((t) => taskFromRow(t)).map((t) => [`${t.network_id}|${(t.options as { method?: string }).method}`, t]),
      );
      return keys.map((k) => (k.method ? m.get(`${k.networkId}|${k.method}`) : a.get(k.networkId)) ?? null);
    },
    (k) => `${k.networkId}|${k.method ?? ''}`,
  );

  const agentsByNetwork = new BatchLoader<string, AgentRow[]>(async (ids) => {
    const { rows } = await s.db.query<AgentRow>(
      `SELECT * FROM agents WHERE tenant_id = $1 AND network_id = ANY($2::text[]) ORDER BY created_at DESC, id`,
      [tenant, ids],
    );
    const by = groupBy(rows, (r) => r.network_id ?? '');
    return ids.map((id) => by.get(id) ?? []);
  });

  const alarmsByNetwork = new BatchLoader<AlarmKey, Alarm[]>(async (keys) => {
    // One statement per distinct filter (usually one), newest 100 per network.
    const filters = groupBy(keys, (k) => `${k.severity ?? ''}|${k.status ?? ''}`);
    const results = new Map<string, Alarm[]>();
    await Promise.all([...filters.values()].map(async (group) => {
      const { severity, status } = group[0];
      const ids = [...new Set(group.map((k) => k.networkId))];
      const { rows } = await s.db.query<AlarmRow>(
        `SELECT * FROM (SELECT a.*, row_number() OVER (PARTITION BY network_id ORDER BY raised_at DESC, id) AS rn FROM alarms a
           WHERE tenant_id = $1 AND network_id = ANY($2::text[]) AND ($3::smallint IS NULL OR severity = $3) AND ($4::text IS NULL OR status = $4)) x
         WHERE rn <= 100 ORDER BY network_id, raised_at DESC, id`,
        [tenant, ids, severity ?? null, status ?? null]);
      const by = groupBy(rows.map(alarmView), (r) => r.network_id ?? '');
      for (const k of group) results.set(`${k.networkId}|${k.severity ?? ''}|${k.status ?? ''}`, by.get(k.networkId) ?? []);
    }));
    return keys.map((k) => results.get(`${k.networkId}|${k.severity ?? ''}|${k.status ?? ''}`) ?? []);
  }, (k) => `${k.networkId}|${k.severity ?? ''}|${k.status ?? ''}`);

  const devicesByNetwork = new BatchLoader<string, DeviceRow[]>(async (ids) => {
    const { rows } = await s.db.query<DeviceRow>(
      `SELECT * FROM devices WHERE tenant_id = $1 AND network_id = ANY($2::text[]) ORDER BY created_at DESC, id`,
      [tenant, ids],
    );
    const by = groupBy(rows, (r) => r.network_id ?? '');
    return ids.map((id) => by.get(id) ?? []);
  });

  const actionsByAgent = new BatchLoader<string, ActionRow[]>(async (ids) => {
    const { rows } = await s.db.query<ActionRow>(
      `SELECT * FROM (SELECT a.*, row_number() OVER (PARTITION BY agent_id ORDER BY seq DESC) AS rn FROM agent_actions a
         WHERE tenant_id = $1 AND agent_id = ANY($2::text[])) x WHERE rn <= 50 ORDER BY agent_id, seq DESC`, [tenant, ids]);
    const by = groupBy(rows, (r) => r.agent_id);
    return ids.map((id) => by.get(id) ?? []);
  });

  return { network, model, branchFlows, latestTask, agentsByNetwork, alarmsByNetwork, devicesByNetwork, actionsByAgent };
}

/** Total batch-function calls of a loader set (tests: no N+1). */
export function loaderBatches(l: Loaders): number {
  return Object.values(l).reduce((n, x: BatchLoader<unknown, unknown>) => n + x.batches, 0);
}
