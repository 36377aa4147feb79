// `gridops se CASE.m --measurements FILE.json`: a state estimate offline with the same WebAssembly core the service
// uses (CONTRACT "State estimation"). FILE.json is a list of {kind, element, value, sigma}, or an object with such a
// `measurements` list (a file of shared/reference/state-estimation works as it is).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { NetworkModel } from '../domain/networkModel.js';
import type { Measurement, StateEstimationResult } from './types.js';

export const SE_USAGE = `
Usage of se:
  gridops se CASE.m --measurements FILE.json [options]
  --measurements FILE   the measurements: [{kind, element, value, sigma}] or {measurements: [...]}
                        (kind p_from|p_to|q_from|q_to|p_gen|q_gen|v_mag|v_angle|p_inj|q_inj; element a 0-based
                        branch or generator index, or a bus id; MW, MVAr, p.u., degrees)
  --threshold T         largest normalized residual kept by bad-data removal (default 3.0)
  --no-bad-data         doSE alone: no bad-data removal
  --max-iterations N    Gauss–Newton iterations per estimate (default 100)
  --timeout-ms N        give up after N ms (default 30000)
  --json                print the result object (JSON) on standard output
Exit codes: 0 converged or unobservable (named), 1 usage or input error, 2 diverged or timed out.
`;

export interface SeCommand {
  file: string;
  measurementsFile: string;
  json: boolean;
  threshold: number | null;
  maxIterations?: number;
  timeoutMs?: number;
}

export function parseSeArgs(args: string[], usage: (m: string) => Error): SeCommand | 'help' {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      measurements: { type: 'string' },
      threshold: { type: 'string' },
      'no-bad-data': { type: 'boolean' },
      'max-iterations': { type: 'string' },
      'timeout-ms': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return 'help';
  if (positionals.length !== 1) throw usage('se takes one case file');
  if (!values.measurements) throw usage('se needs --measurements FILE.json');
  const num = (name: string, text: string | undefined, integer: boolean): number | undefined => {
    if (text === undefined) return undefined;
    const v = Number(text);
    if (text.trim() === '' || !(v > 0) || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
      throw usage(`--${name} needs a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
    return v;
  };
  return {
    file: positionals[0]!,
    measurementsFile: values.measurements,
    json: values.json ?? false,
    threshold: values['no-bad-data'] ? null : (num('threshold', values.threshold, false) ?? 3.0),
    maxIterations: num('max-iterations', values['max-iterations'], true),
    timeoutMs: num('timeout-ms', values['timeout-ms'], true),
  };
}

export function readMeasurements(path: string, fail: (m: string) => Error): Measurement[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw fail(`${path}: ${(e as Error).message}`);
  }
  const list = Array.isArray(doc) ? doc : (doc as { measurements?: unknown })?.measurements;
  if (!Array.isArray(list)) throw fail(`${path}: expected a list of measurements or an object with "measurements"`);
  return list.map((m, k) => {
    const x = m as Record<string, unknown>;
    if (typeof x?.kind !== 'string' || typeof x.element !== 'number' || typeof x.value !== 'number' || typeof x.sigma !== 'number') {
      throw fail(`${path}: measurement ${k} needs kind (string), element, value and sigma (numbers)`);
    }
    return { kind: x.kind as Measurement['kind'], element: x.element, value: x.value, sigma: x.sigma };
  });
}

/** A few lines for a person: status, J against the chi-square test, the bad data, the unobservable buses. */
export function seSummary(net: NetworkModel, r: StateEstimationResult): string {
  const lines = [`${net.name}: state estimate ${r.status} (${r.iterations} iterations, ${r.passes} pass${r.passes === 1 ? '' : 'es'})`];
  if (r.status === 'unobservable') lines.push(`unobservable buses: ${r.observability.unobservable_buses.join(', ')}`);
  if (r.J !== null) {
    lines.push(
      `J = ${r.J.toFixed(4)}, dof ${r.dof}, chi-square 99 % ${r.chi_square.quantile_99?.toFixed(4) ?? '-'}: ` +
        (r.chi_square.passed ? 'passed' : 'failed'),
    );
  }
  for (const b of r.bad_data)
    lines.push(
      `removed measurement ${b.measurement} (${b.kind} ${b.element} = ${b.value}), |r_N| ${Math.abs(b.normalized_residual).toFixed(3)}`,
    );
  if (r.buses.length > 0) {
    const v = r.buses.map((b) => b.v);
    lines.push(`v from ${Math.min(...v).toFixed(4)} to ${Math.max(...v).toFixed(4)} p.u.`);
  }
  return `${lines.join('\n')}\n`;
}
