// PTDF / LODF of a stored network (CONTRACT "Sensitivities"): the model version as stored, computed on
// a solver thread of this process (src/sensitivities/compute.ts). Synchronous only in this version.
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import { AppError } from '../lib/errors.js';
import { getModel } from './networks.js';
import { requirePermission } from '../security/index.js';
import { computeSensitivities, type SensitivityRequest, type SensitivityResult } from '../sensitivities/compute.js';
import { PowerFlowInputError } from '../powerflow/types.js';

export async function runSensitivities(s: Services, caller: Caller, networkId: string, req: SensitivityRequest & { async?: boolean }, limits: { maxEntries?: number; door?: string } = {}): Promise<SensitivityResult & { network_id: string; network_version: number }> {
  requirePermission(caller, 'compute');
  if (req.async) {
    throw new AppError('INVALID_FIELD', 'async: asynchronous sensitivities are not available in this version; ask for fewer rows ("branches") so the answer stays under 10 million entries, or use ?format=csv', { field: 'async' });
  }
  if (!s.solver) throw new AppError('SERVICE_UNAVAILABLE', 'this process has no solver threads (ROLE=api): sensitivities are computed by an API process with ROLE=all', { dependency: 'solver' });
  const { summary, model } = await getModel(s, caller, networkId);
  try {
    const r = await computeSensitivities(s.solver, model, req, limits);
    return { network_id: summary.id, network_version: summary.version, ...r };
  } catch (e) {
    if (e instanceof PowerFlowInputError) throw new AppError(e.code, e.message, e.details);
    throw e;
  }
}

/**
 * A large answer as JSON text in pieces (the envelope of reply.ok, one matrix row a piece), so writing
 * millions of numbers never holds the event loop for one long turn.
 */
export function* sensitivityJson(r: SensitivityResult & { network_id: string; network_version: number }, requestId: string): Generator<string> {
  const { values, ...head } = r;
  yield `{"data":${JSON.stringify(head).slice(0, -1)},"values":[`;
  for (let i = 0; i < values.length; i++) yield `${i ? ',' : ''}${JSON.stringify(values[i])}`;
  yield `]},"request_id":${JSON.stringify(requestId)},"timestamp":${JSON.stringify(new Date().toISOString())}}`;
}

/** The matrix as CSV lines: a header (row, then the column names), then one line per row; a null is an empty cell. */
export function* sensitivityCsv(r: SensitivityResult): Generator<string> {
  yield `${r.kind === 'ptdf' ? 'branch' : 'branch\\outage'},${r.columns.map((c) => (r.kind === 'ptdf' ? `bus ${c}` : `branch ${c}`)).join(',')}\n`;
  for (let i = 0; i < r.rows.length; i++) yield `${r.rows[i]},${r.values[i]!.map((v) => (v === null ? '' : String(v))).join(',')}\n`;
}
