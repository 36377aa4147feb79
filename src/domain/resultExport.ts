// Export of a solved power flow (GET /api/v1/tasks/{id}/export): the solved case as a
// MATPOWER file, the way MATPOWER's savecase writes runpf's result (bus VM/VA, generator
// PG/QG, branch PF/QF/PT/QT), or one of the result's tables as CSV.
import type { Services } from '../services.js';
import type { Caller } from './caller.js';
import type { NetworkModel } from './networkModel.js';
import { AppError } from '../lib/errors.js';
import { loadVersion } from './networks.js';
import { findTask } from './tasks.js';
import { writeMatpower } from '../matpower/writer.js';
import type { BranchResult, BusResult, GeneratorResult } from '../powerflow/types.js';

export const EXPORT_FORMATS = ['matpower', 'csv'] as const;
export const CSV_TABLES = ['buses', 'branches', 'generators'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type CsvTable = (typeof CSV_TABLES)[number];

export interface ExportFile {
  contentType: string;
  filename: string;
  body: string;
}

interface SolvedValues {
  buses: BusResult[];
  branches: BranchResult[];
  generators: GeneratorResult[];
}

/**
 * The model with the solution written back, as runpf leaves `mpc`: every bus's VM/VA, every
 * in-service generator's PG/QG (out-of-service ones keep their data, as in MATPOWER).
 */
export function solvedModel(model: NetworkModel, r: SolvedValues): NetworkModel {
  const byId = new Map(r.buses.map((b) => [b.id, b]));
  if (r.generators.length !== model.generators.length || r.branches.length !== model.branches.length) {
    throw new AppError('CONFLICT', 'the stored result does not match its network version (element counts differ)');
  }
  return {
    ...model,
    buses: model.buses.map((b) => {
      const s = byId.get(b.id);
      return s ? { ...b, v: s.v, theta: s.theta } : b;
    }),
    generators: model.generators.map((g, k) => (g.in_service ? { ...g, mw: r.generators[k]!.p_gen, mvar: r.generators[k]!.q_gen } : g)),
  };
}

const COLUMNS: Record<CsvTable, readonly string[]> = {
  buses: ['id', 'v', 'theta', 'p_gen', 'q_gen', 'p_load', 'q_load'],
  branches: ['index', 'from', 'to', 'p_from', 'q_from', 'p_to', 'q_to', 'loading'],
  generators: ['index', 'bus', 'p_gen', 'q_gen'],
};

/** One table of a result as CSV: a header row of the result's field names, numbers as stored (shortest round trip). */
export function resultCsv(r: SolvedValues, table: CsvTable): string {
  const cols = COLUMNS[table];
  const rows: Record<string, number>[] = table === 'generators'
    ? r.generators.map((g, index) => ({ index, ...g }))
    : (r[table] as unknown as Record<string, number>[]);
  const lines = [cols.join(',')];
  for (const row of rows) lines.push(cols.map((c) => String(row[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

function checkFormat(format: string | undefined, table: string | undefined): { format: ExportFormat; table?: CsvTable } {
  if (format === undefined || format === '') {
    throw new AppError('INVALID_REQUEST', `format is required: ${EXPORT_FORMATS.join(' or ')} (csv takes table=${CSV_TABLES.join('|')})`, {
      field: 'format',
      allowed: EXPORT_FORMATS,
    });
  }
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new AppError('INVALID_FIELD', `format must be one of ${EXPORT_FORMATS.join(', ')}, got "${format}"`, { field: 'format', allowed: EXPORT_FORMATS });
  }
  if (format === 'matpower') {
    if (table !== undefined)
      throw new AppError('INVALID_REQUEST', 'table applies to format=csv only; format=matpower is the whole solved case', {
        field: 'table',
      });
    return { format: 'matpower' };
  }
  if (table === undefined || !(CSV_TABLES as readonly string[]).includes(table)) {
    throw new AppError(
      table === undefined ? 'INVALID_REQUEST' : 'INVALID_FIELD',
      `format=csv exports one table: table must be one of ${CSV_TABLES.join(', ')}${table === undefined ? '' : `, got "${table}"`}`,
      { field: 'table', allowed: CSV_TABLES },
    );
  }
  return { format: 'csv', table: table as CsvTable };
}

export async function exportTaskResult(
  s: Pick<Services, 'db' | 'pendingTasks'>,
  caller: Caller,
  taskId: string,
  q: { format?: string; table?: string },
): Promise<ExportFile> {
  const { format, table } = checkFormat(q.format, q.table);
  const t = await findTask(s, caller, taskId);
  const r = t.result as (SolvedValues & { status?: string }) | null;
  if (t.kind !== 'powerflow' || t.status !== 'completed' || !r || r.status !== 'converged' || !Array.isArray(r.buses)) {
    const state = r?.status && r.status !== t.status ? `${t.status} (${r.status})` : t.status;
    throw new AppError(
      'CONFLICT',
      `task ${taskId} is ${t.kind === 'powerflow' ? state : `a ${t.kind} task`}; only a converged power flow has a solved case to export`,
      { task_id: taskId, status: t.status, kind: t.kind },
    );
  }
  if (format === 'csv') {
    return { contentType: 'text/csv; charset=utf-8', filename: `${taskId}-${table}.csv`, body: resultCsv(r, table!) };
  }
  const model = await loadVersion(s.db, t.network_id, t.network_version);
  const note = `Solved case: power flow task ${taskId} (${String((t.result as { method?: string }).method)}), network ` +
    `${t.network_id} version ${t.network_version}.`;
  return { contentType: 'text/plain; charset=utf-8', filename: `${taskId}.m`, body: writeMatpower(solvedModel(model, r), r.branches, note) };
}
