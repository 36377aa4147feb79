// RAW text -> named tables: each section's records under the field names of ./columns.ts, with
// the multi-line records (transformers, two-terminal DC) joined into one row. ./rawx.ts makes the
// same tables from a RAWX file, so ./mapping.ts reads both the same way.
import { type RecordKind, columnsOf, sectionOrder, transformerLines, twoTerminalDcLines, KIND_TITLE } from './columns.js';
import { PsseParseError, type RawRecord, scanRaw } from './scanner.js';
import type { PsseWarning } from './warnings.js';

export type FieldValue = string | number | null;

export interface Row {
  /** line in the file (RAWX: the row's position in its table, counted from 1) */
  line: number;
  fields: FieldValue[];
  /** field name -> position in `fields` (shared by the rows of one shape) */
  cols: Map<string, number>;
  /** transformers: a three-winding one */
  threeWinding?: boolean;
}

export interface Table {
  kind: RecordKind;
  rows: Row[];
  /** RAWX: positions are rows, not lines */
  rawx?: boolean;
}

export interface CaseTables {
  sbase: number;
  rev: number;
  ic: number;
  title: string;
  tables: Map<RecordKind, Table>;
  warnings: PsseWarning[];
  format: 'psse' | 'rawx';
}

export const colMap = (names: string[]): Map<string, number> => new Map(names.map((n, i) => [n, i]));

/** The revision the case identification states, or that its comment names (`PSS/E-29.0`), or undefined. */
function revisionOf(rev: string, comment: string): number | undefined {
  if (rev.trim() !== '') {
    const r = Number(rev);
    return Number.isFinite(r) ? Math.floor(r) : undefined;
  }
  const m = /PSS(?:\/|\(TM\)|\(R\))?E[- ]?(\d+)/i.exec(comment);
  return m ? Number(m[1]) : undefined;
}

export const MIN_REV = 29;
export const MAX_REV = 35;

/** Rows of a multi-line record kind: `linesOf(first)` says how many lines follow and their field names. */
function joinLines(
  kind: RecordKind,
  records: RawRecord[],
  linesOf: (first: RawRecord) => string[][],
  flag?: (first: RawRecord) => boolean,
): Table {
  const rows: Row[] = [];
  const colsByShape = new Map<string[][], Map<string, number>>();
  for (let i = 0; i < records.length; ) {
    const first = records[i]!;
    const lines = linesOf(first);
    if (i + lines.length > records.length) {
      throw new PsseParseError(
        first.line,
        `${KIND_TITLE[kind]} record`,
        `${lines.length} lines for this record`,
        `${records.length - i} before the end of the section`,
      );
    }
    const fields: FieldValue[] = [];
    for (let k = 0; k < lines.length; k++) {
      const names = lines[k]!;
      const got = records[i + k]!.fields;
      for (let c = 0; c < names.length; c++) fields.push(got[c] ?? '');
    }
    let cols = colsByShape.get(lines);
    if (!cols) {
      cols = colMap(lines.flat());
      colsByShape.set(lines, cols);
    }
    rows.push({ line: first.line, fields, cols, ...(flag ? { threeWinding: flag(first) } : {}) });
    i += lines.length;
  }
  return { kind, rows };
}

export function tablesFromRaw(text: string, maxRecords: number): CaseTables {
  const scanned = scanRaw(text, maxRecords);
  const h = scanned.header;
  const warnings: PsseWarning[] = [];
  const sbase = Number(h.sbase);
  if (!(Number.isFinite(sbase) && sbase > 0))
    throw new PsseParseError(h.line, 'case identification', 'a positive SBASE (system MVA base) as the second field', `'${h.sbase}'`);
  let rev = revisionOf(h.rev, h.comment);
  if (rev === undefined) {
    rev = 33;
    warnings.push({ code: 'REVISION_ASSUMED', count: 1, message: 'the case identification names no revision: read as revision 33' });
  }
  if (rev < MIN_REV || rev > MAX_REV)
    throw new PsseParseError(h.line, 'case identification', `a PSS/E revision from ${MIN_REV} to ${MAX_REV} (REV)`, String(rev));
  const ic = Number(h.ic || '0');
  if (ic !== 0)
    warnings.push({ code: 'CHANGE_CASE', count: 1, message: `IC = ${h.ic}: this may be a change case; it is read as a base case` });
  if (scanned.tabLines.length > 0) {
    warnings.push({
      code: 'TAB_AT_LINE_START',
      count: scanned.tabLines.length,
      first_line: scanned.tabLines[0],
      message: `${scanned.tabLines.length} record line(s) start with a TAB, read as PSS/E reads them (a blank); MATPOWER's psse2mpc refuses them`,
    });
  }

  const sections = scanned.sections.slice();
  // From revision 34 the system-wide data (GENERAL, RATING, ... records) come before the buses.
  if (rev >= 34 && sections.length > 0) {
    const s0 = sections[0]!;
    const first = String(s0.records[0]?.fields[0] ?? '');
    if (s0.label.includes('SYSTEM-WIDE') || (first !== '' && !/^[0-9+-]/.test(first))) sections.shift();
  }
  const order = sectionOrder(rev);
  const tables = new Map<RecordKind, Table>();
  order.forEach((kind, k) => {
    const sec = sections[k];
    const records = sec?.records ?? [];
    if (kind === 'transformer') {
      const isThree = (r: RawRecord) => {
        const kb = String(r.fields[2] ?? '').trim();
        return kb !== '' && Number(kb) !== 0;
      };
      const two = transformerLines(false, rev),
        three = transformerLines(true, rev);
      tables.set(
        kind,
        joinLines(kind, records, (r) => (isThree(r) ? three : two), isThree),
      );
    } else if (kind === 'twotermdc') {
      const lines = twoTerminalDcLines();
      tables.set(
        kind,
        joinLines(kind, records, () => lines),
      );
    } else if (
      kind === 'bus' ||
      kind === 'load' ||
      kind === 'fixshunt' ||
      kind === 'generator' ||
      kind === 'acline' ||
      kind === 'sysswd' ||
      kind === 'swshunt'
    ) {
      const cols = colMap(columnsOf(kind, rev));
      tables.set(kind, { kind, rows: records.map((r) => ({ line: r.line, fields: r.fields, cols })) });
    } else {
      const none = new Map<string, number>();
      tables.set(kind, { kind, rows: records.map((r) => ({ line: r.line, fields: r.fields, cols: none })) });
    }
  });
  const extra = sections.slice(order.length).filter((s) => s.records.length > 0);
  if (extra.length > 0) {
    const n = extra.reduce((a, s) => a + s.records.length, 0);
    warnings.push({
      code: 'EXTRA_SECTIONS',
      count: n,
      first_line: extra[0]!.records[0]!.line,
      message: `${n} record(s) in ${extra.length} section(s) after the last one revision ${rev} defines were not read`,
    });
  }
  if (sections.length === 0 || (sections[0]!.records.length === 0 && sections.length === 1)) {
    throw new PsseParseError(scanned.lineCount, 'bus data', 'bus records after the case identification', 'none');
  }
  return { sbase, rev, ic, title: h.title1, tables, warnings, format: 'psse' };
}
