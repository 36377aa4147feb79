// The power-flow alarm rules (docs/alarms.md): which limits a converged result violates, and how
// badly. Pure functions of the solved version and its result; the alarm store (./alarms.ts) raises,
// refreshes and clears alarms from what these find.
import type { NetworkModel } from './networkModel.js';

/** Power-flow alarm rules (docs/alarms.md). */
export const OVERLOAD_LIMIT_PCT = 100;
export const OVERLOAD_CRITICAL_PCT = 120;
/** A voltage this far (p.u.) outside [vmin, vmax] is critical. */
export const VOLTAGE_CRITICAL_MARGIN = 0.05;
const EPS = 1e-6;

/** A limit a converged result violates: what an open alarm stands for. */
export interface Condition {
  type: 'overload' | 'voltage';
  sourceType: 'branch' | 'bus';
  sourceId: string;
  severity: number;
  message: string;
  details: Record<string, unknown>;
  /** For the constraint event (SPEC 6.1: element, quantity, value, limit). */
  quantity: 'loading' | 'voltage';
  value: number;
  limit: number;
}

/** Branch id used as alarm source and in constraint details: "from-to", ":k" for the k-th parallel circuit. */
export function branchIds(model: Pick<NetworkModel, 'branches'>): string[] {
  const seen = new Map<string, number>();
  return model.branches.map((br) => {
    const key = `${br.from}-${br.to}`;
    const k = (seen.get(key) ?? 0) + 1;
    seen.set(key, k);
    return k === 1 ? key : `${key}:${k}`;
  });
}

/** What the rules read of a power-flow result. */
export interface ResultLike {
  status?: string;
  task_id?: string;
  buses?: { id: number; v: number }[];
  branches?: { loading: number; p_from: number; q_from: number; p_to: number; q_to: number }[];
}

/** The overload and voltage conditions a converged result shows (docs/alarms.md). */
export function powerFlowConditions(model: NetworkModel, result: ResultLike): Condition[] {
  const out: Condition[] = [];
  const ids = branchIds(model);
  (result.branches ?? []).forEach((f, i) => {
    const br = model.branches[i];
    if (br?.status !== 'closed' || !(br.rate_a > 0)) return;
    if (!(f.loading > OVERLOAD_LIMIT_PCT + EPS)) return;
    const loading = round(f.loading, 4);
    out.push({
      type: 'overload',
      sourceType: 'branch',
      sourceId: ids[i],
      quantity: 'loading',
      value: loading,
      limit: OVERLOAD_LIMIT_PCT,
      severity: f.loading > OVERLOAD_CRITICAL_PCT ? 3 : 2,
      message: `branch ${ids[i]} loaded ${loading.toFixed(1)}% of its rating rate_a ${br.rate_a} MVA`,
      details: {
        branch_index: i,
        branch_id: ids[i],
        from: br.from,
        to: br.to,
        loading,
        limit: OVERLOAD_LIMIT_PCT,
        rate_a: br.rate_a,
        p_from: f.p_from,
        q_from: f.q_from,
        p_to: f.p_to,
        q_to: f.q_to,
        task_id: result.task_id,
      },
    });
  });
  const busIndex = new Map(model.buses.map((b, i) => [b.id, i]));
  for (const r of result.buses ?? []) {
    const bus = model.buses[busIndex.get(r.id) ?? -1];
    // A de-energized bus (islanding isolate) is not a voltage violation: the result lists it under islands.
    if (!bus || bus.type === 'isolated' || (r as { energized?: boolean }).energized === false || !Number.isFinite(r.v)) continue;
    const low = r.v < bus.vmin - EPS;
    const high = r.v > bus.vmax + EPS;
    if (!low && !high) continue;
    const limit = low ? bus.vmin : bus.vmax;
    const v = round(r.v, 6);
    out.push({
      type: 'voltage',
      sourceType: 'bus',
      sourceId: String(bus.id),
      quantity: 'voltage',
      value: v,
      limit,
      severity: Math.abs(r.v - limit) > VOLTAGE_CRITICAL_MARGIN ? 3 : 2,
      message: `bus ${bus.id} voltage ${v.toFixed(4)} p.u. ${low ? 'below vmin' : 'above vmax'} ${limit}`,
      details: { bus: bus.id, v, vmin: bus.vmin, vmax: bus.vmax, limit, direction: low ? 'low' : 'high', task_id: result.task_id },
    });
  }
  return out;
}

/** Rounded as alarm details and constraint events show values. */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
