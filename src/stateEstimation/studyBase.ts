// A study from an estimated state (CONTRACT "State estimation": study field base: {state_estimation: <task id>}):
// the network version's model with its loads and generation set to the estimate's injections, substituted before
// the study is planned and solved. Every bus's net injection becomes the estimated one (a bus with in-service
// generators: its generation is the estimate's generator output, doSE's p_gen/q_gen, shared by its generators in
// proportion to their set-points; a bus without: its load is minus the injection), the voltage set-points and start
// voltages the estimated ones, so the study's base case solves back to the estimated state.
import type { Queryable } from '../db/database.js';
import type { NetworkModel } from '../domain/networkModel.js';
import { AppError } from '../lib/errors.js';
import type { StateEstimationResult } from './types.js';

/** The estimate of task `taskId` (tenant's own, kind state_estimation, converged, same network and version). */
export async function estimateForStudy(
  db: Queryable,
  tenantId: string,
  networkId: string,
  version: number,
  taskId: string,
): Promise<StateEstimationResult> {
  const { rows } = await db.query<{
    kind: string;
    status: string;
    network_id: string;
    network_version: number;
    result: StateEstimationResult | null;
  }>('SELECT kind, status, network_id, network_version, result FROM tasks WHERE id = $1 AND tenant_id = $2', [taskId, tenantId]);
  const t = rows[0];
  const field = 'base.state_estimation';
  if (!t) throw new AppError('NOT_FOUND', `task ${taskId} does not exist`, { resource: 'task', id: taskId, field });
  if (t.kind !== 'state_estimation')
    throw new AppError('VALIDATION_FAILED', `${field}: task ${taskId} is a ${t.kind} task, not a state estimate`, {
      field,
      task_id: taskId,
    });
  if (t.network_id !== networkId)
    throw new AppError('VALIDATION_FAILED', `${field}: task ${taskId} estimated network ${t.network_id}, not ${networkId}`, {
      field,
      task_id: taskId,
    });
  if (t.network_version !== version) {
    throw new AppError(
      'VALIDATION_FAILED',
      `${field}: task ${taskId} estimated version ${t.network_version} of the network; it is at version ${version} now: estimate it again`,
      { field, task_id: taskId, estimated_version: t.network_version, version },
    );
  }
  if (t.status !== 'completed' || t.result?.status !== 'converged') {
    throw new AppError(
      'VALIDATION_FAILED',
      `${field}: task ${taskId} has no converged estimate (task ${t.status}${t.result ? `, estimate ${t.result.status}` : ''})`,
      { field, task_id: taskId },
    );
  }
  return t.result;
}

export function estimatedModel(model: NetworkModel, r: StateEstimationResult): NetworkModel {
  const at = new Map(model.buses.map((b, k) => [b.id, k]));
  const v = new Map(r.buses.map((b) => [b.id, b]));
  // the injection of each bus from the estimated flows: its branch ends plus its shunt
  const injP = new Float64Array(model.buses.length),
    injQ = new Float64Array(model.buses.length);
  for (const f of r.branches) {
    const a = at.get(f.from)!,
      b = at.get(f.to)!;
    injP[a] += f.p_from;
    injQ[a] += f.q_from;
    injP[b] += f.p_to;
    injQ[b] += f.q_to;
  }
  model.buses.forEach((b, k) => {
    const e = v.get(b.id);
    if (!e || b.type === 'isolated') return;
    injP[k] += e.v ** 2 * b.gs;
    injQ[k] -= e.v ** 2 * b.bs;
  });
  const loadP = new Float64Array(model.buses.length),
    loadQ = new Float64Array(model.buses.length);
  for (const l of model.loads)
    if (l.in_service) {
      loadP[at.get(l.bus)!] += l.mw;
      loadQ[at.get(l.bus)!] += l.mvar;
    }
  const genAt = new Map<number, number[]>();
  model.generators.forEach((g, k) => {
    if (g.in_service) genAt.set(g.bus, [...(genAt.get(g.bus) ?? []), k]);
  });
  const generators = model.generators.map((g) => ({ ...g }));
  for (const [bus, ks] of genAt) {
    const k = at.get(bus)!,
      e = v.get(bus);
    const pTotal = injP[k]! + loadP[k]!,
      qTotal = injQ[k]! + loadQ[k]!;
    const sum = ks.reduce((s, i) => s + Math.abs(model.generators[i]!.mw), 0);
    for (const i of ks) {
      const share = sum > 0 ? Math.abs(model.generators[i]!.mw) / sum : 1 / ks.length;
      generators[i] = { ...generators[i]!, mw: pTotal * share, mvar: qTotal * share, ...(e ? { vg: e.v } : {}) };
    }
  }
  // buses without generators: their in-service load is minus the injection (on the first load, the others 0; a bus
  // with an injection and no load gets one)
  const loads = model.loads.map((l) => ({ ...l }));
  const seen = new Set<number>();
  loads.forEach((l, i) => {
    if (!l.in_service || genAt.has(l.bus)) return;
    const k = at.get(l.bus)!;
    loads[i] = seen.has(l.bus) ? { ...l, mw: 0, mvar: 0 } : { ...l, mw: -injP[k]!, mvar: -injQ[k]! };
    seen.add(l.bus);
  });
  model.buses.forEach((b, k) => {
    if (b.type === 'isolated' || genAt.has(b.id) || seen.has(b.id)) return;
    if (Math.abs(injP[k]!) > 1e-9 || Math.abs(injQ[k]!) > 1e-9) loads.push({ bus: b.id, mw: -injP[k]!, mvar: -injQ[k]!, in_service: true });
  });
  const buses = model.buses.map((b) => {
    const e = v.get(b.id);
    return e && b.type !== 'isolated' ? { ...b, v: e.v, theta: e.theta } : b;
  });
  return { ...model, buses, generators, loads };
}
