// `gridops opf CASE.m [--method dc|ac] [--json] [...]` (docs/cli.md): the OPF offline, through
// the same solveOpf the service calls. src/cli.ts dispatches here.
import { parseArgs } from 'node:util';
import type { NetworkModel } from '../domain/networkModel.js';
import { OPF_METHODS, type OpfMethod, type OpfOptions, type OpfResult } from './types.js';
import { ISLANDING_RULES, type IslandingRule } from '../powerflow/types.js';
import { SECURITY_LIMITS, type SecurityLimit } from './security.js';
import { OPF_STARTS, type OpfStart } from '../schemas/vocabulary.js';

export const OPF_USAGE = `Options of opf:
  --method M            ac (MATPOWER runopf, the default) or dc (rundcopf); docs/opf.md
  --tolerance T         MIPS gradient / complementarity / cost tolerance (default 1e-6)
  --max-iterations N    MIPS iteration limit (default 150)
  --timeout-ms N        give up after N ms (default 30000)
  --islanding R         islands without a slack: refuse (default), isolate or new_reference
  --start S             where the interior point starts: default (MATPOWER's, then for AC the case's state if
                        that does not converge), case (MATPOWER opf.start 2) or powerflow (opf.start 3)
  --security n-1-branches  preventive N-1 of the DC-OPF (with --method dc): every branch outage
  --limit L             the post-contingency rating: rate_c (default), rate_b or rate_a
  --json                print only the OPF result object (JSON) on standard output
Exit codes: 0 converged, 1 usage or input error, 2 infeasible, diverged or timed out.
`;

export interface OpfCommand { file: string; json: boolean; options: Partial<OpfOptions> & { method: OpfMethod } }

/** argv after the word `opf`; `usage(message)` builds the caller's usage error. */
export function parseOpfArgs(argv: string[], usage: (message: string) => Error): OpfCommand | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: {
        method: { type: 'string' },
        tolerance: { type: 'string' },
        'max-iterations': { type: 'string' },
        'timeout-ms': { type: 'string' },
        islanding: { type: 'string' },
        start: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        security: { type: 'string' },
        limit: { type: 'string' },
      },
    });
  } catch (e) {
    const unknown = /Unknown option '([^']+)'/.exec((e as Error).message);
    throw usage(unknown ? `unknown option '${unknown[1]}'` : (e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) throw usage(positionals.length === 0 ? 'opf needs a case file' : `opf takes one case file, got ${positionals.length}`);
  const method = (values.method ?? 'ac') as OpfMethod;
  if (!OPF_METHODS.includes(method)) throw usage(`--method must be dc or ac, got '${values.method}'`);
  const num = (name: string, text: string | undefined, integer: boolean): number | undefined => {
    if (text === undefined) return undefined;
    const v = Number(text);
    if (text.trim() === '' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v)))
      throw usage(`--${name} needs a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
    return v;
  };
  const options: OpfCommand['options'] = { method };
  const tolerance = num('tolerance', values.tolerance, false);
  const maxIterations = num('max-iterations', values['max-iterations'], true);
  const timeoutMs = num('timeout-ms', values['timeout-ms'], true);
  if (tolerance !== undefined) options.tolerance = tolerance;
  if (maxIterations !== undefined) options.maxIterations = maxIterations;
  if (timeoutMs !== undefined) options.timeoutMs = timeoutMs;
  if (values.islanding !== undefined) {
    if (!(ISLANDING_RULES as readonly string[]).includes(values.islanding))
      throw usage(`--islanding must be one of ${ISLANDING_RULES.join(', ')}, got '${values.islanding}'`);
    options.islanding = values.islanding as IslandingRule;
  }
  if (values.start !== undefined) {
    if (!(OPF_STARTS as readonly string[]).includes(values.start)) throw usage(`--start must be one of ${OPF_STARTS.join(', ')}, got '${values.start}'`);
    options.start = values.start as OpfStart;
  }
  if (values.security !== undefined) {
    if (values.security !== 'n-1-branches')
      throw usage(
        `--security takes n-1-branches (a contingency list goes through the service's "security" body), got '${values.security}'`,
      );
    if (method !== 'dc') throw usage('--security needs --method dc: the security-constrained OPF is a DC-OPF');
    if (values.limit !== undefined && !(SECURITY_LIMITS as readonly string[]).includes(values.limit))
      throw usage(`--limit must be one of ${SECURITY_LIMITS.join(', ')}, got '${values.limit}'`);
    options.security = { contingencies: 'n-1-branches', ...(values.limit ? { limit: values.limit as SecurityLimit } : {}) };
  } else if (values.limit !== undefined) throw usage('--limit goes with --security');
  return { file: positionals[0]!, json: values.json ?? false, options };
}

/** The CONTRACT result object (the doors add task metadata). */
export function opfResultObject(r: OpfResult): Record<string, unknown> {
  const { status, objective, iterations, method, buses, generators, branches, message, binding } = r;
  return {
    status, objective: Number.isFinite(objective) ? objective : null, iterations, method, duration_ms: Math.round(r.duration_ms),
    ...(message !== undefined ? { message } : {}), ...(binding ? { binding } : {}), buses, generators, branches,
    ...(r.dc_lines ? { dc_lines: r.dc_lines } : {}),
    ...(r.islands ? { islands: r.islands, lost_load_mw: r.lost_load_mw, lost_generation_mw: r.lost_generation_mw } : {}),
    ...(r.security ? { security: r.security } : {}),
    ...(r.start ? { start: r.start } : {}), ...(r.earlier_runs ? { earlier_runs: r.earlier_runs } : {}),
  };
}

const f = (x: number, d: number): string => (Number.isFinite(x) ? x.toFixed(d) : String(x));

/** The human-readable summary printed without --json. */
export function opfSummary(net: NetworkModel, r: OpfResult): string {
  const lines = [`${net.name}: ${net.buses.length} buses, ${net.branches.length} branches, ${net.generators.length} generators, base ${net.base_mva} MVA`];
  const how = r.method === 'dc' ? 'DC-OPF (MIPS)' : 'AC-OPF (MIPS)';
  lines.push(`${how}: ${r.status} after ${r.iterations} iterations, ${Math.round(r.duration_ms)} ms`);
  if (r.message) lines.push(`  ${r.message}`);
  for (const b of r.binding ?? []) lines.push(`  binding: ${b.message}`);
  if (r.status !== 'converged') return `${lines.join('\n')}\n`;
  lines.push(`Objective: ${f(r.objective, 2)} per hour`);
  lines.push('Dispatch:');
  for (const g of r.generators.slice(0, 20)) {
    const at = g.mu_pmax > 0 ? '  at pmax' : g.mu_pmin > 0 ? '  at pmin' : '';
    const q = r.method === 'ac' ? ` ${f(g.q_mvar, 2).padStart(9)} MVAr` : '';
    lines.push(`  gen ${String(g.index).padEnd(5)} bus ${String(g.bus).padEnd(7)} ${f(g.p_mw, 2).padStart(9)} MW${q}${at}`);
  }
  if (r.generators.length > 20) lines.push(`  ... ${r.generators.length - 20} more (--json for all)`);
  const lmps = r.buses.map((b) => b.lmp_p).filter((x) => x !== 0);
  if (lmps.length > 0) lines.push(`LMP: ${f(Math.min(...lmps), 3)} .. ${f(Math.max(...lmps), 3)} per MWh`);
  if (r.method === 'ac' && r.buses.length > 0) {
    const v = r.buses.map((b) => b.v);
    lines.push(`Voltage: ${f(Math.min(...v), 4)} .. ${f(Math.max(...v), 4)} p.u.`);
  }
  const dcLines = (r.dc_lines ?? []).filter((d) => d.in_service);
  if (dcLines.length > 0) lines.push('DC lines:');
  for (const d of dcLines.slice(0, 10)) lines.push(`  #${d.index} ${d.from}-${d.to}  ${f(d.p_from, 2)} MW in, ${f(d.p_to, 2)} MW out`);
  const congested = r.branches.filter((b) => b.mu_sf > 0 || b.mu_st > 0);
  lines.push(congested.length === 0 ? 'Congested branches: none' : 'Congested branches:');
  for (const b of congested.slice(0, 10))
    lines.push(`  #${b.index} ${b.from}-${b.to}  ${f(b.loading, 1)} %  shadow price ${f(Math.max(b.mu_sf, b.mu_st), 3)} per MWh`);
  if (r.security) {
    const s = r.security;
    lines.push(
      `Security (N-1, ${s.limit}): ${s.contingencies} outages, ${s.excluded.length} excluded (they split the network), ${s.rounds} ` +
        `rounds, ${s.constraints_added} post-contingency rows added`,
    );
    for (const b of s.binding.slice(0, 10))
      lines.push(
        `  binding: branch ${b.branch} after outage ${b.outage}: ${f(b.flow_mw, 2)} MW of ${f(b.limit_mw, 2)}, ${f(b.mu, 4)} per MWh`,
      );
  }
  return `${lines.join('\n')}\n`;
}
