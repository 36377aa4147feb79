// `gridops study CASE.m`: a contingency study of a MATPOWER case offline, with the same
// planStudy / solveStudyChunk engine the service runs (docs/cli.md). Rows are printed
// chunk by chunk as they are solved (--json streams one JSON document, --csv CSV lines),
// so memory stays bounded by a chunk whatever the size of the study.
import { parseArgs } from 'node:util';
import { availableParallelism } from 'node:os';
import type { NetworkModel } from './domain/networkModel.js';
import type { StudyCaseRow, StudyRequest } from './studies/types.js';
import { STUDY_ISLANDING, type StudyIslanding } from './schemas/vocabulary.js';

export interface StudyCommand {
  file: string;
  output: 'summary' | 'json' | 'csv';
  request: StudyRequest;
  threads: number;
}

export const STUDY_USAGE = `Usage: gridops study CASE.m [options]   contingency analysis of a MATPOWER case (- reads standard input)

Options of study:
  --contingencies C     n-1-branches (default), n-1-generators or n-1 (both)
  --method M            newton_raphson (default), fast_decoupled or dc
  --tolerance T         max-norm of the p.u. power mismatch (default 1e-8)
  --max-iterations N    Newton iterations per case (default 10, MATPOWER's)
  --loading-limit P     a rated branch loaded above P % is an overload (default 100)
  --screening P         screen at threshold P (90: the default): solve in AC only the cases that could cause a
                        new or worsened overload (docs/studies.md "Screening")
  --screening-method M  ac_linear (default: one decoupled iteration from the AC base case) or dc (the DC rule)
  --islanding R         an outage that splits the network: isolate (default: solved on what stays
                        energized), new_reference, or skip (not solved, as MATPOWER's N-1 loop)
  --threads N           solver threads (default: the machine's cores)
  --json                print {"base": ..., "cases": [...]} (the rows of GET /studies/{id}/cases)
  --csv                 print the rows as CSV

Exit codes: 0 study done (violations or not), 1 usage or input error, 2 the base case diverged.
`;

const CONTINGENCY_SETS = ['n-1-branches', 'n-1-generators', 'n-1'] as const;
type UsageErrorCtor = new (message: string) => Error;

function positive(name: string, text: string, integer: boolean, UsageError: UsageErrorCtor): number {
  const v = Number(text);
  if (text.trim() === '' || !Number.isFinite(v) || v <= 0 || (integer && !Number.isInteger(v))) {
    throw new UsageError(`--${name} needs a positive ${integer ? 'integer' : 'number'}, got '${text}'`);
  }
  return v;
}

/** The options of `gridops study` (argv without the command word). */
export function parseStudyArgs(argv: string[], UsageError: UsageErrorCtor): StudyCommand | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: {
        contingencies: { type: 'string' }, method: { type: 'string' }, tolerance: { type: 'string' }, 'max-iterations': { type: 'string' },
        'loading-limit': { type: 'string' }, threads: { type: 'string' }, islanding: { type: 'string' }, screening: { type: 'string' },
        'screening-method': { type: 'string' },
        json: { type: 'boolean' }, csv: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    const unknown = /Unknown option '([^']+)'/.exec((e as Error).message);
    throw new UsageError(unknown ? `unknown option '${unknown[1]}'` : (e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1)
    throw new UsageError(
      positionals.length === 0
        ? 'study needs a case file'
        : `study takes one case file, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  if (values.json && values.csv) throw new UsageError('choose one of --json and --csv');
  const set = values.contingencies ?? 'n-1-branches';
  if (!(CONTINGENCY_SETS as readonly string[]).includes(set))
    throw new UsageError(`--contingencies must be one of ${CONTINGENCY_SETS.join(', ')}, got '${set}'`);
  const method = values.method ?? 'newton_raphson';
  if (method !== 'newton_raphson' && method !== 'fast_decoupled' && method !== 'dc')
    throw new UsageError(`--method must be newton_raphson, fast_decoupled or dc for a study, got '${method}'`);
  const request: StudyRequest = {
    kind: 'contingency',
    method,
    contingencies: set as (typeof CONTINGENCY_SETS)[number],
    tolerance: values.tolerance === undefined ? 1e-8 : positive('tolerance', values.tolerance, false, UsageError),
    max_iterations: values['max-iterations'] === undefined ? 10 : positive('max-iterations', values['max-iterations'], true, UsageError),
  };
  if (values['loading-limit'] !== undefined) request.loading_limit_percent = positive('loading-limit', values['loading-limit'], false, UsageError);
  const screeningMethod = values['screening-method'];
  if (screeningMethod !== undefined && screeningMethod !== 'ac_linear' && screeningMethod !== 'dc') {
    throw new UsageError(`--screening-method must be ac_linear or dc, not ${screeningMethod}`);
  }
  if (values.screening !== undefined || screeningMethod !== undefined) {
    request.screening = {
      method: screeningMethod ?? 'ac_linear',
      threshold_percent: values.screening === undefined ? 90 : positive('screening', values.screening, false, UsageError),
    };
  }
  if (values.islanding !== undefined) {
    if (!(STUDY_ISLANDING as readonly string[]).includes(values.islanding))
      throw new UsageError(`--islanding must be one of ${STUDY_ISLANDING.join(', ')}, got '${values.islanding}'`);
    request.islanding = values.islanding as StudyIslanding;
  }
  const threads = values.threads === undefined ? availableParallelism() : positive('threads', values.threads, true, UsageError);
  return { file: positionals[0]!, output: values.json ? 'json' : values.csv ? 'csv' : 'summary', request, threads };
}

const fmt = (x: number | null, d: number) => (x === null ? '-' : x.toFixed(d));

/** Runs the study; `write` prints to standard output. Resolves to the exit code. */
export async function runStudyCommand(cmd: StudyCommand, network: NetworkModel, write: (text: string) => Promise<void>,
  outer: AbortSignal): Promise<number> {
  const { planStudy, solveStudyBase, solveStudyChunk, studyChunkRows, studyCsvHeader, studyCsvLines } = await import('./studies/index.js');
  const { createSolverPool } = await import('./engine/pool.js');
  const plan = planStudy(network, cmd.request); // AppError INVALID_FIELD: printed as an input error
  const pool = createSolverPool({ threads: cmd.threads });
  const counts = { converged: 0, diverged: 0, islanded: 0, screened: 0 };
  let withViolations = 0, withNew = 0;
  const worst: StudyCaseRow[] = [];
  const islanded: StudyCaseRow[] = [];
  const t0 = performance.now();
  // chunks in flight stop (and are awaited) before the pool closes, whatever ended the study
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  outer.addEventListener('abort', onAbort, { once: true });
  if (outer.aborted) stop.abort();
  const inFlight = new Map<number, ReturnType<typeof solveStudyChunk>>();
  const signal = stop.signal;
  try {
    const base = await solveStudyBase(pool, network, plan, { signal });
    if (cmd.output === 'json') await write(`{"base":${JSON.stringify(base)},"cases":[`);
    if (cmd.output === 'csv') await write(studyCsvHeader());
    // chunks in flight: two per thread, printed in case order
    const size = Math.max(16, Math.min(512, Math.ceil(plan.caseCount / (4 * pool.threads))));
    const starts: number[] = [];
    for (let s = 0; s < plan.caseCount; s += size) starts.push(s);
    const submit = (i: number) => {
      if (i < starts.length) inFlight.set(i, solveStudyChunk(pool, network, plan, starts[i]!, Math.min(starts[i]! + size, plan.caseCount), { signal }));
    };
    for (let i = 0; i < 2 * pool.threads; i++) submit(i);
    let first = true;
    for (let i = 0; i < starts.length; i++) {
      const chunk = await inFlight.get(i)!;
      inFlight.delete(i);
      submit(i + 2 * pool.threads);
      const rows = studyChunkRows(plan, chunk);
      if (cmd.output === 'json') {
        for (const r of rows) { await write(`${first ? '' : ','}${JSON.stringify(r)}`); first = false; }
      } else if (cmd.output === 'csv') {
        await write(studyCsvLines(rows));
      }
      for (const r of rows) {
        counts[r.status]++;
        if (r.violations.length > 0) withViolations++;
        if (r.new_violations > 0) withNew++;
        if (r.islanded) islanded.push(r);
        if (r.status === 'converged' && r.max_loading_percent !== null) {
          worst.push(r);
          worst.sort((a, b) => b.max_loading_percent! - a.max_loading_percent!);
          if (worst.length > 10) worst.pop();
        }
      }
      if (chunk.cancelled) {
        await Promise.allSettled(inFlight.values());
        if (cmd.output === 'json') await write(']}\n');
        return 130;
      }
    }
    if (cmd.output === 'json') await write(']}\n');
    if (cmd.output !== 'summary') return base.status === 'converged' ? 0 : 2;

    const ms = Math.round(performance.now() - t0);
    const lines = [
      `${network.name}: ${plan.caseCount} contingencies (${cmd.request.contingencies}), ${pool.threads} thread${pool.threads === 1 ? '' : 's'}, ${ms} ms`,
      `Base case: ${base.status} in ${base.iterations} iterations; v ${fmt(base.min_v, 4)} (bus ${base.min_v_bus ?? '-'}) .. ` +
        `${fmt(base.max_v, 4)} (bus ${base.max_v_bus ?? '-'}) p.u.; max loading ${fmt(base.max_loading_percent, 1)} %; ` +
        `${base.violations.length} violation(s)`,
      `Cases: ${counts.converged} converged, ${counts.diverged} diverged, ${counts.islanded} islanded` +
        `${counts.screened ? `, ${counts.screened} screened` : ''}; ` +
        `${withViolations} with violations, ${withNew} new or worsened; ${islanded.filter((r) => r.islanded!.load_mw > 0).length} with lost load`,
    ];
    if (worst.length > 0) {
      lines.push('Highest loadings:');
      for (const r of worst)
        lines.push(
          `  ${r.case_id.padEnd(16)} branch ${String(r.max_loading_branch).padEnd(6)} ${fmt(r.max_loading_percent, 1).padStart(7)} ` +
            `%   v ${fmt(r.min_v, 4)} .. ${fmt(r.max_v, 4)}`,
        );
    } else {
      lines.push('Highest loadings: none rated (rate_a is 0 on every branch)');
    }
    if (islanded.length > 0) {
      lines.push(cmd.request.islanding === 'skip' ? 'Islanding outages (not solved):' : 'Islanding outages (solved on what stays energized):');
      for (const r of islanded.slice(0, 10))
        lines.push(
          `  ${r.case_id.padEnd(16)} cuts off bus${r.islanded!.buses.length === 1 ? '' : 'es'} ` +
            `${r.islanded!.buses.slice(0, 8).join(', ')}${r.islanded!.buses.length > 8 ? ', …' : ''} ` +
            `(${fmt(r.islanded!.load_mw, 1)} MW load, ${fmt(r.islanded!.generation_mw, 1)} MW generation)`,
        );
      if (islanded.length > 10) lines.push(`  and ${islanded.length - 10} more`);
    }
    await write(`${lines.join('\n')}\n`);
    return base.status === 'converged' ? 0 : 2;
  } finally {
    stop.abort();
    await Promise.allSettled(inFlight.values());
    outer.removeEventListener('abort', onAbort);
    await pool.close();
  }
}
