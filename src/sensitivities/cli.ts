// `gridops ptdf|lodf CASE.m [--branches i,j] [--buses a,b | --outages k,l] [--csv]` (docs/cli.md): the
// DC sensitivities of a case file, offline, with the service's code (src/sensitivities/compute.ts).
import { parseArgs } from 'node:util';
import type { NetworkModel } from '../domain/networkModel.js';
import type { SensitivityKind, SensitivityRequest } from './compute.js';

export const SENSITIVITY_USAGE = `Usage: gridops ptdf|lodf CASE.m [options]   PTDF or LODF of the DC model (MATPOWER makePTDF / makeLODF)

Options of ptdf / lodf:
  --branches i,j,...    rows: branch positions, 0-based (default every in-service branch)
  --buses a,b,...       ptdf columns: bus ids (default every bus)
  --outages k,l,...     lodf columns: outaged branch positions (default the rows)
  --csv                 the matrix as CSV (default: JSON {kind, rows, columns, values, bridges})
`;

export interface SensitivityCommand { file: string; csv: boolean; request: SensitivityRequest }

export function parseSensitivityArgs(kind: SensitivityKind, argv: string[], usage: (message: string) => Error): SensitivityCommand | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        branches: { type: 'string' },
        buses: { type: 'string' },
        outages: { type: 'string' },
        csv: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    const unknown = /Unknown option '([^']+)'/.exec((e as Error).message);
    throw usage(unknown ? `unknown option '${unknown[1]}'` : (e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw usage(positionals.length === 0 ? `${kind} needs a case file` : `${kind} takes one case file, got ${positionals.length}`);
  const list = (name: string, text: string | undefined): number[] | undefined => {
    if (text === undefined) return undefined;
    const xs = text.split(',').map((x) => x.trim());
    if (xs.some((x) => !/^-?\d+$/.test(x))) throw usage(`--${name} takes integers separated by commas, got '${text}'`);
    return xs.map(Number);
  };
  const request: SensitivityRequest = { kind };
  const branches = list('branches', values.branches), buses = list('buses', values.buses), outages = list('outages', values.outages);
  if (branches) request.branches = branches;
  if (buses) request.buses = buses;
  if (outages) request.outages = outages;
  return { file: positionals[0]!, csv: values.csv ?? false, request };
}

export async function runSensitivityCommand(cmd: SensitivityCommand, network: NetworkModel, write: (text: string) => Promise<void>): Promise<void> {
  const { createSolverPool } = await import('../engine/pool.js');
  const { matrixValues, sensitivityMatrix } = await import('./compute.js');
  const { matrixRows, sensitivityCsv } = await import('../domain/sensitivities.js');
  const pool = createSolverPool({ threads: 1 });
  try {
    const m = await sensitivityMatrix(pool, network, cmd.request);
    if (!cmd.csv) return await write(`${JSON.stringify(matrixValues(m))}\n`);
    for await (const line of sensitivityCsv(m, matrixRows(m))) await write(line);
  } finally {
    await pool.close();
  }
}
