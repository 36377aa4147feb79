// Study case rows as CSV (RFC 4180): one header line, then one line per row. Used by the CLI
// (`gridops study --csv`) and meant for GET /studies/{id}/cases.csv, so both print the same columns.
// Violations are one cell: `type:element:value:limit` joined by spaces; islanded buses by spaces.
import type { StudyCaseRow } from './types.js';

export const STUDY_CSV_COLUMNS = [
  'case_id', 'scenario', 'contingency_id', 'contingency_branches', 'contingency_generators', 'status', 'reason', 'iterations',
  'max_loading_percent', 'max_loading_branch', 'min_v', 'min_v_bus', 'max_v', 'max_v_bus', 'violation_count', 'violations',
  'islanded_buses', 'islanded_load_mw', 'islanded_generation_mw', 'new_violations', 'max_new_loading_percent',
] as const;

// A text cell a spreadsheet would read as a formula (= + - @, also after leading spaces, which
// spreadsheets skip, or a leading tab / CR / LF) gets a leading single quote (OWASP CSV injection);
// numbers are written as they are, so -1.5 stays -1.5. One bounded class then one character: linear.
const FORMULA_START = /^[ \u00a0]*[=+\-@]|^[\t\r\n]/;

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'string' && FORMULA_START.test(v) ? `'${v}` : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function studyCsvHeader(): string {
  return `${STUDY_CSV_COLUMNS.join(',')}\n`;
}

/** CSV lines of rows (each ends with \n). */
export function studyCsvLines(rows: StudyCaseRow[]): string {
  let out = '';
  for (const r of rows) {
    out += [
      r.case_id, r.scenario, r.contingency?.id, r.contingency?.branches.join(' '), r.contingency?.generators.join(' '), r.status, r.reason,
      r.iterations, r.max_loading_percent, r.max_loading_branch, r.min_v, r.min_v_bus, r.max_v, r.max_v_bus, r.violations.length,
      r.violations.map((v) => `${v.type}:${v.element}:${v.value}:${v.limit}`).join(' '),
      r.islanded?.buses.join(' '), r.islanded?.load_mw, r.islanded?.generation_mw, r.new_violations, r.max_new_loading_percent,
    ].map(cell).join(',') + '\n';
  }
  return out;
}
