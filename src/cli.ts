// The `gridops` command (bin/gridops.js imports this file): docs/cli.md.
//
//   gridops solve CASE.m [options]   solve a MATPOWER case offline with the WebAssembly core
//   (CASE.raw / CASE.rawx: a PSS/E file, read by src/psse, for every command)
//   gridops study CASE.m [options]   contingency analysis offline with the study engine (cliStudy.ts)
//   gridops opf CASE.m [options]     optimal power flow of a MATPOWER case (src/opf/cli.ts)
//   gridops se CASE.m --measurements FILE.json   state estimation (src/stateEstimation/cli.ts)
//   gridops serve                    the same as `npm start` (the HTTP service)
//
// Exit codes: 0 converged (or help), 1 usage or input error, 2 diverged / infeasible / timeout / cancelled.

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MatpowerParseError, parseMatpower } from './matpower/reader.js';
import { parsePsse } from './psse/reader.js';
import { PsseParseError } from './psse/scanner.js';
import {
  ISLANDING_RULES,
  POWERFLOW_METHODS,
  PowerFlowInputError,
  type IslandingRule,
  type PowerFlowMethod,
  type SolveOptions,
  type SolveOutcome,
} from './powerflow/types.js';
import type { NetworkModel } from './domain/networkModel.js';
import type { SolverPool } from './engine/pool.js';
import { STUDY_USAGE, parseStudyArgs, runStudyCommand } from './cliStudy.js';
import { SENSITIVITY_USAGE, parseSensitivityArgs, runSensitivityCommand } from './sensitivities/cli.js';
import { OPF_USAGE, opfResultObject, opfSummary, parseOpfArgs, type OpfCommand } from './opf/cli.js';
import { SE_USAGE, parseSeArgs, readMeasurements, seSummary, type SeCommand } from './stateEstimation/cli.js';
import { solvePowerFlow } from './powerflow/solve.js';

export const USAGE = `Usage:
  gridops solve CASE.m [options]   solve a MATPOWER case file (use - to read standard input)
  gridops study CASE.m [options]   N-1 contingency analysis of a case file (gridops study --help)
  gridops opf CASE.m [options]     optimal power flow (least-cost dispatch, LMPs) of a MATPOWER case
  gridops ptdf|lodf CASE.m [options]  PTDF or LODF of the DC model (gridops ptdf --help)
  CASE.raw or CASE.rawx: a PSS/E RAW (revisions 29-35) or RAWX file instead of a MATPOWER case
  gridops se CASE.m --measurements FILE.json  state estimation (weighted least squares, bad-data removal)
  gridops serve                    start the HTTP service (the same as npm start)
  gridops --help | --version

Options of solve:
  --method M            newton_raphson (default), fast_decoupled or dc
  --tolerance T         max-norm of the p.u. power mismatch (default 1e-8)
  --max-iterations N    default 10 for newton_raphson, 30 for fast_decoupled (MATPOWER's)
  --flat-start          start from 1.0 p.u. and the slack angle instead of the case's voltages
  --enforce-q-limits    hold generators at their reactive limits (pv buses become pq)
  --islanding R         islands without a slack: refuse (default), isolate (de-energize them) or
                        new_reference (an island with a generator gets a reference); CONTRACT "Islands"
  --timeout-ms N        give up after N ms (default 30000)
  --json                print only the power flow result object (JSON) on standard output

Exit codes: 0 converged, 1 usage or input error, 2 diverged or timed out.
${OPF_USAGE}${SE_USAGE}`;

/** Raised for a bad command line: printed with the usage, exit code 1. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT = { ok: 0, error: 1, notConverged: 2, interrupted: 130 } as const;

export interface SolveCommand {
  file: string;
  json: boolean;
  options: Partial<SolveOptions> & Pick<SolveOptions, 'method' | 'tolerance' | 'maxIterations' | 'flatStart' | 'enforceQLimits'>;
}

const MAX_ITERATIONS_DEFAULT: Record<PowerFlowMethod, number> = { newton_raphson: 10, fast_decoupled: 30, dc: 1 };

function positiveNumber(name: string, text: string, integer: boolean): number {
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new UsageError(`--${name} needs a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
  }
  return v;
}

/** The options of `gridops solve` (argv without the command word). */
export function parseSolveArgs(argv: string[]): SolveCommand | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        method: { type: 'string' },
        tolerance: { type: 'string' },
        'max-iterations': { type: 'string' },
        'flat-start': { type: 'boolean' },
        'enforce-q-limits': { type: 'boolean' },
        islanding: { type: 'string' },
        'timeout-ms': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const unknown = /Unknown option '([^']+)'/.exec(err.message);
    if (unknown) throw new UsageError(`unknown option '${unknown[1]}'`);
    throw new UsageError(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length === 0) throw new UsageError('solve needs a case file');
  if (positionals.length > 1) throw new UsageError(`solve takes one case file, got ${positionals.length}: ${positionals.join(' ')}`);
  const method = (values.method ?? 'newton_raphson') as PowerFlowMethod;
  if (!POWERFLOW_METHODS.includes(method)) throw new UsageError(`--method must be one of ${POWERFLOW_METHODS.join(', ')}, got '${values.method}'`);
  const options: SolveCommand['options'] = {
    method,
    tolerance: values.tolerance === undefined ? 1e-8 : positiveNumber('tolerance', values.tolerance, false),
    maxIterations: values['max-iterations'] === undefined ? MAX_ITERATIONS_DEFAULT[method] : positiveNumber('max-iterations', values['max-iterations'], true),
    flatStart: values['flat-start'] ?? false,
    enforceQLimits: values['enforce-q-limits'] ?? false,
  };
  if (values['timeout-ms'] !== undefined) options.timeoutMs = positiveNumber('timeout-ms', values['timeout-ms'], true);
  if (values.islanding !== undefined) {
    if (!ISLANDING_RULES.includes(values.islanding as IslandingRule))
      throw new UsageError(`--islanding must be one of ${ISLANDING_RULES.join(', ')}, got '${values.islanding}'`);
    options.islanding = values.islanding as IslandingRule;
  }
  return { file: positionals[0]!, json: values.json ?? false, options };
}

/** The power flow result object of the specification (section 2), without task_id / network_id. */
export function resultObject(outcome: SolveOutcome): Record<string, unknown> {
  const out: Record<string, unknown> = {
    status: outcome.status,
    method: outcome.method,
    iterations: outcome.iterations,
    duration_ms: Math.round(outcome.duration_ms),
    tolerance: outcome.tolerance,
    mismatch: outcome.mismatch,
    buses: outcome.buses,
    branches: outcome.branches,
    generators: outcome.generators,
    losses: outcome.losses,
  };
  if (outcome.islands) Object.assign(out, { islands: outcome.islands, lost_load_mw: outcome.lost_load_mw, lost_generation_mw: outcome.lost_generation_mw });
  if (outcome.message !== undefined) out.message = outcome.message;
  return out;
}

const METHOD_NAMES: Record<PowerFlowMethod, string> = {
  newton_raphson: 'Newton-Raphson',
  fast_decoupled: 'fast-decoupled (XB)',
  dc: 'DC power flow',
};

const fmt = (x: number, digits: number): string => (Number.isFinite(x) ? x.toFixed(digits) : String(x));

/** The human-readable summary printed without --json. */
export function summary(network: NetworkModel, outcome: SolveOutcome): string {
  const lines: string[] = [];
  lines.push(
    `${network.name}: ${network.buses.length} buses, ${network.branches.length} branches, ${network.generators.length} generators, ` +
      `base ${network.base_mva} MVA`,
  );
  const how = METHOD_NAMES[outcome.method] ?? outcome.method;
  const its = `${outcome.iterations} iteration${outcome.iterations === 1 ? '' : 's'}`;
  const mism = `max mismatch ${outcome.mismatch.toExponential(2)} p.u., tolerance ${outcome.tolerance}`;
  const ms = `${Math.round(outcome.duration_ms)} ms`;
  switch (outcome.status) {
    case 'converged': lines.push(`${how}: converged in ${its} (${mism}), ${ms}`); break;
    case 'diverged': lines.push(`${how}: did NOT converge after ${its} (${mism}), ${ms}`); break;
    case 'timeout': lines.push(`${how}: timed out after ${its}, ${ms}`); break;
    default: lines.push(`${how}: ${outcome.status} after ${its}, ${ms}`);
  }
  if (outcome.message) lines.push(`  ${outcome.message}`);
  if (outcome.status !== 'converged') return `${lines.join('\n')}\n`;

  lines.push(`Losses: ${fmt(outcome.losses.p_mw, 3)} MW, ${fmt(outcome.losses.q_mvar, 3)} MVAr`);
  if (outcome.islands && outcome.islands.length > 1) {
    const off = outcome.islands.filter((i) => !i.energized);
    lines.push(
      `Islands: ${outcome.islands.length}, ${off.length} de-energized (${fmt(outcome.lost_load_mw ?? 0, 1)} MW of load and ` +
        `${fmt(outcome.lost_generation_mw ?? 0, 1)} MW of generation lost)`,
    );
    for (const i of off.slice(0, 5))
      lines.push(
        `  de-energized: bus${i.buses.length === 1 ? '' : 'es'} ${i.buses.slice(0, 8).join(', ')}${i.buses.length > 8 ? ', …' : ''}`,
      );
  }
  const deg = (rad: number) => fmt(rad * 180 / Math.PI, 2);
  if (outcome.method === 'dc') {
    lines.push('Voltages: 1.0 p.u. everywhere (DC power flow)');
  } else if (outcome.buses.length > 0) {
    const byV = outcome.buses.slice().sort((a, b) => a.v - b.v || a.id - b.id);
    const row = (b: SolveOutcome['buses'][number]) => `  bus ${String(b.id).padEnd(8)} ${fmt(b.v, 4)} p.u.  ${deg(b.theta).padStart(8)} deg`;
    lines.push('Lowest bus voltages:');
    for (const b of byV.slice(0, 5)) lines.push(row(b));
    lines.push('Highest bus voltages:');
    for (const b of byV.slice(-5).reverse()) lines.push(row(b));
  }
  const rated = outcome.branches
    .map((br, i) => ({ br, i }))
    .filter(({ br }) => br.loading > 0)
    .sort((a, b) => b.br.loading - a.br.loading || a.i - b.i);
  if (rated.length === 0) {
    lines.push('Most loaded branches: none rated (rate_a is 0 on every branch)');
  } else {
    lines.push('Most loaded branches:');
    for (const { br, i } of rated.slice(0, 5)) {
      const flow = Math.max(Math.hypot(br.p_from, br.q_from), Math.hypot(br.p_to, br.q_to));
      lines.push(`  #${String(i + 1).padEnd(6)} ${`${br.from}-${br.to}`.padEnd(14)} ${fmt(br.loading, 1).padStart(6)} %  (${fmt(flow, 1)} MVA)`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (err) => (err ? reject(err) : resolve())));
}

function readCaseText(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : err.message;
    throw new InputError(`cannot read ${file}: ${why}`);
  }
}

/** A case file by its extension: .raw / .rawx are PSS/E (src/psse; warnings go to standard error), else MATPOWER. */
function readCase(file: string): NetworkModel {
  const lower = file.toLowerCase();
  const format = lower.endsWith('.rawx') ? 'rawx' : lower.endsWith('.raw') ? 'psse' : undefined;
  if (!format) return parseMatpower(readCaseText(file), file === '-' ? 'stdin' : file);
  let imported;
  try {
    imported = parsePsse(readCaseText(file), { format, fileName: file });
  } catch (e) {
    if (e instanceof PsseParseError) throw new InputError(`${file} ${e.message}`);
    throw e;
  }
  for (const w of imported.warnings) process.stderr.write(`gridops: ${file}: ${w.code} (${w.count}): ${w.message}\n`);
  return imported.model;
}

class InputError extends Error {
  override name = 'InputError';
}

/** One solver thread for one command: Ctrl-C cancels the calculation, and the thread is closed either way. */
async function withSolverThread<T>(run: (pool: SolverPool, signal: AbortSignal) => Promise<T>): Promise<T> {
  const { createSolverPool } = await import('./engine/pool.js');
  const pool = createSolverPool({ threads: 1 });
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  try {
    return await run(pool, abort.signal);
  } finally {
    process.off('SIGINT', onSigint);
    await pool.close();
  }
}

export async function runSolve(cmd: SolveCommand): Promise<number> {
  const network = readCase(cmd.file);
  const outcome: SolveOutcome = await withSolverThread((pool, signal) => solvePowerFlow(pool, network, cmd.options, { signal }));
  if (cmd.json) await write(process.stdout, `${JSON.stringify(resultObject(outcome))}\n`);
  else await write(process.stdout, summary(network, outcome));
  if (outcome.status === 'converged') return EXIT.ok;
  if (outcome.status === 'cancelled') return EXIT.interrupted;
  return EXIT.notConverged;
}

async function runOpf(cmd: OpfCommand): Promise<number> {
  const network = readCase(cmd.file);
  const { solveOpf } = await import('./opf/solve.js');
  const { solveSecurityConstrainedDcOpf } = await import('./opf/security.js');
  const security = cmd.options.security;
  const result = await withSolverThread((pool, signal) =>
    security
      ? solveSecurityConstrainedDcOpf(pool, network, security, { ...cmd.options, signal })
      : solveOpf(pool, network, { ...cmd.options, signal }),
  );
  await write(process.stdout, cmd.json ? `${JSON.stringify(opfResultObject(result))}\n` : opfSummary(network, result));
  if (result.status === 'converged') return EXIT.ok;
  return result.status === 'cancelled' ? EXIT.interrupted : EXIT.notConverged;
}

async function runSe(cmd: SeCommand): Promise<number> {
  const network = readCase(cmd.file);
  const measurements = readMeasurements(cmd.measurementsFile, (m) => new InputError(m));
  const { solveStateEstimation } = await import('./stateEstimation/solve.js');
  const result = await withSolverThread((pool, signal) =>
    solveStateEstimation(pool, network, measurements, {
      badDataThreshold: cmd.threshold, signal,
      ...(cmd.maxIterations ? { maxIterations: cmd.maxIterations } : {}), ...(cmd.timeoutMs ? { timeoutMs: cmd.timeoutMs } : {}),
    }),
  );
  await write(process.stdout, cmd.json ? `${JSON.stringify(result)}\n` : seSummary(network, result));
  if (result.status === 'converged' || result.status === 'unobservable') return EXIT.ok;
  return result.status === 'cancelled' ? EXIT.interrupted : EXIT.notConverged;
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Runs the command line; resolves to the exit code, or undefined when the process should keep running (serve). */
export async function main(argv: string[]): Promise<number | undefined> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
        await write(process.stderr, USAGE);
        return EXIT.error;
      case '--help': case '-h': case 'help':
        await write(process.stdout, USAGE);
        return EXIT.ok;
      case '--version': case '-v':
        await write(process.stdout, `gridops ${packageVersion()}\n`);
        return EXIT.ok;
      case 'solve': {
        const cmd = parseSolveArgs(rest);
        if (cmd === 'help') { await write(process.stdout, USAGE); return EXIT.ok; }
        return await runSolve(cmd);
      }
      case 'study': {
        const cmd = parseStudyArgs(rest, UsageError);
        if (cmd === 'help') { await write(process.stdout, STUDY_USAGE); return EXIT.ok; }
        const network = readCase(cmd.file);
        const abort = new AbortController();
        const onSigint = () => abort.abort();
        // a closed pipe (gridops study … | head) stops the study quietly
        const onPipe = (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') abort.abort(); };
        process.once('SIGINT', onSigint);
        process.stdout.on('error', onPipe);
        try {
          return await runStudyCommand(cmd, network, (text) => write(process.stdout, text), abort.signal);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'EPIPE') return EXIT.ok;
          throw e;
        } finally {
          process.off('SIGINT', onSigint);
          process.stdout.off('error', onPipe);
        }
      }
      case 'opf': {
        const cmd = parseOpfArgs(rest, (m) => new UsageError(m));
        if (cmd === 'help') { await write(process.stdout, USAGE); return EXIT.ok; }
        return await runOpf(cmd);
      }
      case 'se': {
        const cmd = parseSeArgs(rest, (m) => new UsageError(m));
        if (cmd === 'help') { await write(process.stdout, SE_USAGE); return EXIT.ok; }
        return await runSe(cmd);
      }
      case 'ptdf': case 'lodf': {
        const cmd = parseSensitivityArgs(command, rest, (m) => new UsageError(m));
        if (cmd === 'help') { await write(process.stdout, SENSITIVITY_USAGE); return EXIT.ok; }
        const network = readCase(cmd.file);
        await runSensitivityCommand(cmd, network, (text) => write(process.stdout, text));
        return EXIT.ok;
      }
      case 'serve':
        if (rest.length > 0) throw new UsageError(`serve takes no arguments (configure it with environment variables, docs/cli.md), got ${rest.join(' ')}`);
        try {
          await import('./server.js' as string);
        } catch (e) {
          const err = e as NodeJS.ErrnoException;
          if (err.code === 'ERR_MODULE_NOT_FOUND' && /server\.js/.test(err.message))
            throw new InputError('dist/src/server.js not found: run npm run build first');
          throw e;
        }
        return undefined;
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (e) {
    const err = e as Error;
    if (err instanceof UsageError) {
      await write(
        process.stderr,
        `gridops: ${err.message}\n\n${command === 'study' ? STUDY_USAGE : command === 'ptdf' || command === 'lodf' ? SENSITIVITY_USAGE : USAGE}`,
      );
      return EXIT.error;
    }
    if (err instanceof MatpowerParseError || err instanceof PowerFlowInputError || err instanceof InputError
      || err?.name === 'PowerFlowInputError' || err?.name === 'MatpowerParseError' || err?.name === 'AppError') {
      await write(process.stderr, `gridops: ${err.message}\n`);
      return EXIT.error;
    }
    // anything else is a bug or an environment problem: still no stack unless asked for
    await write(process.stderr, `gridops: ${err?.message ?? String(e)}\n${process.env.GRIDOPS_DEBUG ? `${err?.stack ?? ''}\n` : ''}`);
    return EXIT.error;
  }
}
