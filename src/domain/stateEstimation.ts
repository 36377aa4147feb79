// State-estimation requests (CONTRACT "State estimation"): like an OPF, every estimate is a task (kind
// 'state_estimation') on the tenant's FIFO queue, counted against concurrent_powerflow and run by any solver
// process; the caller waits for it (synchronous) or polls it ("async": true). The measurements are fixed when the
// request is made: inline ones, or each stored measure's latest reading at `at` (src/stateEstimation/stored.ts),
// checked against the network version before anything is queued. REST, GraphQL and the runner share this.
import type { Static } from '@sinclair/typebox';
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { parseDateTime } from '../lib/time.js';
import { getNetworkState, loadVersion } from './networks.js';
import { taskView, type TaskRow } from './tasks.js';
import { requirePermission } from '../security/index.js';
import { PowerFlowInputError } from '../powerflow/types.js';
import type { StateEstimationIn } from '../schemas/stateEstimation.js';
import { packEstimate } from '../stateEstimation/pack.js';
import { storedMeasurements, type MeasurementSource, type Unread } from '../stateEstimation/stored.js';
import { DEFAULT_SE_OPTIONS, type Measurement, type StateEstimationOptions } from '../stateEstimation/types.js';

export type StateEstimationRequest = Static<typeof StateEstimationIn>;

/** What the task row carries: options, the measurement list, and where stored ones came from. */
export interface StateEstimationTaskOptions extends StateEstimationOptions {
  measurements: Measurement[];
  at: string;
  max_age_s: number;
  sources: MeasurementSource[];
  unread: Unread[];
}

export const DEFAULT_MAX_AGE_S = 300;

export type StateEstimationAnswer =
  | { kind: 'queued'; task: ReturnType<typeof taskView> }
  | { kind: 'result'; result: Record<string, unknown>; task: TaskRow };

function asAppError(e: unknown): never {
  if (e instanceof PowerFlowInputError) throw new AppError(e.code, e.message, e.details);
  throw e;
}

/** The task options of a request: its measurements fixed and checked against the network version (422 on a
 *  measurement the model cannot read, on none at all). */
/** bad_data: false, or {method?: "lnr", threshold?: positive number up to 1000} -> the threshold (null: off). */
function badDataThreshold(b: unknown): number | null {
  if (b === undefined) return DEFAULT_SE_OPTIONS.badDataThreshold;
  if (b === false) return null;
  if (typeof b !== 'object' || b === null || Array.isArray(b))
    throw new AppError('INVALID_FIELD', 'bad_data must be false or {method: "lnr", threshold}', { field: 'bad_data' });
  const o = b as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => k !== 'method' && k !== 'threshold');
  if (extra) throw new AppError('INVALID_FIELD', `bad_data has no field "${extra}" (method, threshold)`, { field: `bad_data.${extra}` });
  if (o.method !== undefined && o.method !== 'lnr')
    throw new AppError('INVALID_FIELD', 'bad_data.method must be "lnr"', { field: 'bad_data.method' });
  if (o.threshold === undefined) return DEFAULT_SE_OPTIONS.badDataThreshold;
  if (typeof o.threshold !== 'number')
    throw new AppError('INVALID_FIELD', 'bad_data.threshold must be a number', { field: 'bad_data.threshold' });
  if (!(o.threshold > 0 && o.threshold <= 1000)) {
    throw new AppError('PARAM_OUT_OF_RANGE', 'bad_data.threshold must be > 0 and at most 1000', { field: 'bad_data.threshold', limit: 0 });
  }
  return o.threshold;
}

export async function prepareStateEstimation(
  s: Pick<Services, 'db' | 'networkStates'>,
  caller: Caller,
  networkId: string,
  req: StateEstimationRequest,
): Promise<{ version: number; options: StateEstimationTaskOptions }> {
  const threshold = badDataThreshold(req.bad_data);
  const net = await getNetworkState(s, caller, networkId);
  if (net.status === 'archived')
    throw new AppError('CONFLICT', `network ${networkId} is archived; restore it (status "ready") before estimating its state`, {
      network_id: networkId,
      status: net.status,
    });
  const at = req.at !== undefined ? parseDateTime('at', req.at) : new Date();
  const maxAge = req.max_age_s ?? DEFAULT_MAX_AGE_S;
  const stored = req.measurements
    ? { measurements: [], sources: [], unread: [] }
    : await storedMeasurements(s.db, caller.tenantId, networkId, at, maxAge).catch(asAppError);
  const measurements: Measurement[] = req.measurements ?? stored.measurements;
  if (measurements.length === 0) {
    throw new AppError(
      'VALIDATION_FAILED',
      'no measurements: none given inline, and no measure of the network\'s devices has a reading within ' +
        `max_age_s ${maxAge} s before ${at.toISOString()}`,
      { field: 'measurements', unread: stored.unread.slice(0, 100) },
    );
  }
  const options: StateEstimationTaskOptions = {
    maxIterations: req.max_iterations ?? DEFAULT_SE_OPTIONS.maxIterations,
    badDataThreshold: threshold,
    timeoutMs: req.timeout_ms ?? DEFAULT_SE_OPTIONS.timeoutMs,
    measurements,
    at: at.toISOString(),
    max_age_s: maxAge,
    sources: stored.sources,
    unread: stored.unread,
  };
  // the same checks the solver makes, before queueing: a bad element is the caller's 422 now, not a failed task
  try {
    packEstimate(await loadVersion(s.db, networkId, net.version), measurements, options);
  } catch (e) {
    asAppError(e);
  }
  return { version: net.version, options };
}

export async function runStateEstimation(
  s: Pick<Services, 'db' | 'networkStates' | 'tasks'>,
  caller: Caller,
  networkId: string,
  req: StateEstimationRequest,
): Promise<StateEstimationAnswer> {
  requirePermission(caller, 'compute');
  const { version, options } = await prepareStateEstimation(s, caller, networkId, req);
  const task = await s.tasks.submitWith(caller, networkId, version, 'state_estimation', { ...options }, async () => {});
  if (req.async) return { kind: 'queued', task: taskView(task) };
  const done = await s.tasks.waitFor(task.id, options.timeoutMs + 250);
  if (!done) {
    await s.tasks.cancel(caller, task.id).catch(() => {});
    throw new AppError(
      'GATEWAY_TIMEOUT',
      `the state estimate did not finish within timeout_ms ${options.timeoutMs}; ` +
        'the task was stopped (poll it for details, or use "async": true)',
      { task_id: task.id, timeout_ms: options.timeoutMs },
    );
  }
  if (done.status === 'completed' && done.result) return { kind: 'result', result: done.result, task: done };
  const err = done.error ?? { code: 'INTERNAL_ERROR', message: `task ended ${done.status}` };
  if (done.status === 'cancelled')
    throw new AppError('CONFLICT', `state-estimation task ${done.id} was cancelled before it finished`, { task_id: done.id });
  const code =
    (['POWERFLOW_DIVERGED', 'GATEWAY_TIMEOUT', 'VALIDATION_FAILED', 'TOPOLOGY_INVALID', 'BUS_NOT_FOUND'] as const).find(
      (c) => c === err.code,
    ) ?? 'INTERNAL_ERROR';
  throw new AppError(code, err.message, { task_id: done.id, ...err.details });
}
