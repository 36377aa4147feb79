// Optimal power flow requests (CONTRACT "Optimal power flow"): like a power flow, every OPF
// is a task (kind 'opf') on the tenant's FIFO queue, counted against concurrent_powerflow and
// run by any solver process; the caller waits for it (synchronous) or polls it ("async": true).
// REST, GraphQL and the task runner (src/queue/opf.ts) share these functions.
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { getNetworkState, loadVersion, saveModelVersion } from './networks.js';
import { taskView, type TaskRow } from './tasks.js';
import { requirePermission } from '../security/index.js';
import { DEFAULT_OPF_OPTIONS, type OpfOptions, type OpfResult } from '../opf/types.js';
import { securityPlan } from '../opf/security.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import type { Static } from '@sinclair/typebox';
import type { OpfIn } from '../schemas/opf.js';

/** POST /networks/{id}/opf's body (src/schemas/opf.ts): apply stores the dispatch as the network's next version
 *  (synchronous requests), security asks for the preventive N-1 DC-OPF (CONTRACT "Security-constrained DC-OPF"). */
export type OpfRequest = Static<typeof OpfIn>;

export function opfOptions(r: OpfRequest): OpfOptions {
  return {
    method: r.method ?? DEFAULT_OPF_OPTIONS.method,
    tolerance: r.tolerance ?? DEFAULT_OPF_OPTIONS.tolerance,
    maxIterations: r.max_iterations ?? DEFAULT_OPF_OPTIONS.maxIterations,
    timeoutMs: r.timeout_ms ?? DEFAULT_OPF_OPTIONS.timeoutMs,
    ...(r.islanding && r.islanding !== 'refuse' ? { islanding: r.islanding } : {}),
    ...(r.security ? { security: r.security } : {}),
    ...(r.start && r.start !== 'default' ? { start: r.start } : {}),
  };
}

/** What a request with `security` must also satisfy (the doors answer 400 before queueing). */
function checkSecurity(r: OpfRequest): void {
  if (!r.security) return;
  if ((r.method ?? DEFAULT_OPF_OPTIONS.method) !== 'dc')
    throw new AppError('INVALID_FIELD', 'security: the security-constrained OPF is a DC-OPF in this version; send "method": "dc" with it', {
      field: 'security',
    });
  if (r.islanding && r.islanding !== 'refuse')
    throw new AppError('INVALID_FIELD', 'security: the security-constrained OPF needs a connected network; leave "islanding" out', {
      field: 'islanding',
    });
}

export type OpfAnswer =
  | { kind: 'queued'; task: ReturnType<typeof taskView> }
  | { kind: 'result'; result: Record<string, unknown>; task: TaskRow; applied?: AppliedDispatch };

/** What an applied OPF wrote (its audit entry names them). */
export interface AppliedDispatch { task_id: string; from_version: number; to_version: number }

export async function runOpf(s: Services, caller: Caller, networkId: string, req: OpfRequest): Promise<OpfAnswer> {
  requirePermission(caller, 'compute');
  // apply writes the network: the role and the token's scope must allow a write, as PUT /networks/{id} does
  if (req.apply) requirePermission(caller, 'write');
  checkSecurity(req);
  if (req.apply && req.async)
    throw new AppError(
      'INVALID_FIELD',
      'apply: applying the dispatch is available for synchronous OPF requests in this version; leave out "async" (or apply the ' +
        'result yourself with PUT /networks/{id})',
      { field: 'apply' },
    );
  const options = opfOptions(req);
  const net = await getNetworkState(s, caller, networkId);
  if (req.security) {
    // the listed branches checked against the version the task will solve, and the work bounded, before it is queued
    try { securityPlan(await loadVersion(s.db, networkId, net.version), req.security); } catch (e) {
      if (e instanceof PowerFlowInputError) throw new AppError('INVALID_FIELD', e.message, e.details);
      throw e;
    }
  }
  if (net.status === 'archived')
    throw new AppError('CONFLICT', `network ${networkId} is archived; restore it (status "ready") before running an OPF`, {
      network_id: networkId,
      status: net.status,
    });
  if (net.status === 'draft')
    throw new AppError('CONFLICT', `network ${networkId} is a draft; set its status to "ready" before running an OPF`, {
      network_id: networkId,
      status: net.status,
    });
  const task = await s.tasks.submitWith(caller, networkId, net.version, 'opf', { ...options }, async () => {});
  if (req.async) return { kind: 'queued', task: taskView(task) };

  // Synchronous: wait for the task, bounded by timeout_ms (queueing included).
  const done = await s.tasks.waitFor(task.id, options.timeoutMs + 250);
  if (!done) {
    await s.tasks.cancel(caller, task.id).catch(() => {});
    throw new AppError(
      'GATEWAY_TIMEOUT',
      `the OPF did not finish within timeout_ms ${options.timeoutMs}; the task was stopped (poll it for details, or use "async": true)`,
      { task_id: task.id, timeout_ms: options.timeoutMs },
    );
  }
  if (done.status === 'completed' && done.result) {
    if (!req.apply) return { kind: 'result', result: done.result, task: done };
    const applied = await applyDispatch(s, caller, networkId, done.id, done.network_version, done.result as unknown as OpfResult);
    const written = { task_id: done.id, from_version: done.network_version, to_version: applied.network_version };
    return { kind: 'result', result: { ...done.result, applied }, task: done, applied: written };
  }
  const err = done.error ?? { code: 'INTERNAL_ERROR', message: `task ended ${done.status}` };
  if (done.status === 'cancelled') throw new AppError('CONFLICT', `OPF task ${done.id} was cancelled before it finished`, { task_id: done.id });
  const known = [
    'OPF_INFEASIBLE', 'POWERFLOW_DIVERGED', 'GATEWAY_TIMEOUT', 'VALIDATION_FAILED', 'ISLANDED_BUS', 'TOPOLOGY_INVALID', 'BUS_NOT_FOUND', 'PARAM_OUT_OF_RANGE',
  ] as const;
  const code = known.find((c) => c === err.code) ?? 'INTERNAL_ERROR';
  throw new AppError(code, err.message, { task_id: done.id, ...err.details });
}

/**
 * Stores an OPF's dispatch as the network's next version (CONTRACT "Security-constrained DC-OPF": apply):
 * every in-service generator's p set-point, and for AC its voltage set-point (the bus voltage the OPF
 * chose), and every in-service DC line's flow (p_from, p_to; AC also q and the terminal voltages, as MATPOWER's
 * int2ext writes them back), so a power flow or a study of the new version checks the dispatch. Refused with CONFLICT when
 * the network changed since the OPF's version, and with the write-time checks of PUT /networks/{id} when
 * it is stored (NETWORK_LOCKED while another task solves it, CONFLICT when archived meanwhile).
 */
async function applyDispatch(s: Services, caller: Caller, networkId: string, taskId: string, version: number, r: OpfResult):
  Promise<{ network_version: number }> {
  const model = await loadVersion(s.db, networkId, version);
  const vAt = new Map(r.buses.map((b) => [b.id, b.v]));
  const byIndex = new Map(r.generators.map((g) => [g.index, g]));
  const generators = model.generators.map((g, k) => {
    const d = byIndex.get(k);
    if (!d || !g.in_service) return g;
    return { ...g, mw: d.p_mw, ...(r.method === 'ac' ? { mvar: d.q_mvar, vg: vAt.get(g.bus) ?? g.vg } : {}) };
  });
  const dcAt = new Map((r.dc_lines ?? []).map((d) => [d.index, d]));
  const dcLines = model.dc_lines?.map((d, k) => {
    const x = dcAt.get(k);
    if (!x || !d.in_service) return d;
    return { ...d, p_from: x.p_from, p_to: x.p_to, ...(r.method === 'ac' ? { q_from: x.q_from, q_to: x.q_to, v_from: x.v_from, v_to: x.v_to } : {}) };
  });
  const change = { kind: 'network.opf_applied', method: r.method, objective: r.objective, task_id: taskId };
  const applied = { ...model, generators, ...(dcLines ? { dc_lines: dcLines } : {}) };
  const saved = await saveModelVersion(s, caller, networkId, version, applied, change, { asWrite: true });
  return { network_version: saved.version };
}
