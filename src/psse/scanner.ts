// PSS/E RAW scanner: splits the text into the case identification (three lines) and the data
// sections, each a list of records with their field texts and line numbers. It knows nothing of
// what a record means (./columns.ts names the fields per revision, ./mapping.ts builds the model).
//
// PSS/E's rules (POM, "Power Flow Raw Data File Contents"): fields are separated by a comma or by
// blanks; two commas in a row leave a field blank (its default); text in single or double quotes
// is one field; a slash outside quotes starts a comment; a section ends with a record `0`
// (usually `0 / END OF BUS DATA, BEGIN LOAD DATA`), the file with `Q`. Revision 35 adds comment
// lines starting with `@!`. One pass over the text, no regular expression per line.

/** A RAW (or RAWX) file that cannot be read: `line` is 1-based, `record` names the record kind. */
export class PsseParseError extends Error {
  constructor(
    public readonly line: number,
    public readonly record: string,
    public readonly expected: string,
    public readonly found?: string,
  ) {
    super(`line ${line} (${record}): expected ${expected}${found === undefined ? '' : `, found ${found}`}`);
    this.name = 'PsseParseError';
  }
}

export interface RawRecord {
  line: number;
  fields: (string | number)[];
}

export interface RawSection {
  /** what the terminator's comment says ended (`BUS` of `0 / END OF BUS DATA`), '' when unlabelled */
  label: string;
  records: RawRecord[];
  /** line of the `0` record ending the section (the last line read when the file ends first) */
  endLine: number;
  /** the file ended (or reached `Q`) before this section's `0` record */
  unterminated: boolean;
}

export interface RawHeader {
  ic: string;
  sbase: string;
  rev: string;
  comment: string;
  title1: string;
  title2: string;
  line: number;
}

export interface ScannedRaw {
  header: RawHeader;
  sections: RawSection[];
  /** lines whose first character is a TAB (psse2mpc refuses them; PSS/E reads them) */
  tabLines: number[];
  lineCount: number;
}

const CH_TAB = 9,
  CH_SP = 32,
  CH_COMMA = 44,
  CH_SLASH = 47,
  CH_SQ = 39,
  CH_DQ = 34,
  CH_CR = 13;

const isBlank = (c: number) => c === CH_SP || c === CH_TAB || c === CH_CR;

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/** A plain decimal token text[start, end) as its exact number (Clinger's fast path, as the MATPOWER
 *  reader does), or undefined when it is not one (text, names, long mantissas: read as strings). */
function plainNumber(text: string, start: number, end: number): number | undefined {
  let i = start,
    neg = false,
    mant = 0,
    digits = 0,
    frac = 0,
    seenDot = false;
  const c0 = text.charCodeAt(i);
  if (c0 === 45 || c0 === 43) {
    neg = c0 === 45;
    i++;
  }
  for (; i < end; i++) {
    const d = text.charCodeAt(i);
    if (d >= 48 && d <= 57) {
      mant = mant * 10 + (d - 48);
      digits++;
      if (seenDot) frac++;
    } else if (d === 46 && !seenDot) seenDot = true;
    else return undefined;
  }
  if (digits === 0 || digits > 15 || frac > 22) return undefined;
  const v = frac === 0 ? mant : mant / POW10[frac]!;
  return neg ? -v : v;
}

/** The fields of one record, text[start, end), and the comment after its slash. Plain decimals
 *  come as numbers (no string is made for them: a 10,000-bus file has a million fields). */
export function splitRecord(text: string, line: number, start = 0, end = text.length): { fields: (string | number)[]; comment: string } {
  const fields: (string | number)[] = [];
  let i = start;
  let afterField = false; // a field was just read: one comma after it is its separator
  while (i < end) {
    const c = text.charCodeAt(i);
    if (isBlank(c)) {
      i++;
      continue;
    }
    if (c === CH_SLASH) return { fields, comment: text.slice(i + 1, end).trim() };
    if (c === CH_COMMA) {
      if (!afterField) fields.push(''); // ",," or a leading comma: a blank field
      afterField = false;
      i++;
      continue;
    }
    if (c === CH_SQ || c === CH_DQ) {
      let j = i + 1;
      let s = '';
      for (;;) {
        const q = text.indexOf(String.fromCharCode(c), j);
        if (q < 0 || q >= end)
          throw new PsseParseError(line, 'record', `a closing ${c === CH_SQ ? "'" : '"'} of the quoted text`, 'end of line');
        s += text.slice(j, q);
        // a doubled quote stays as written (psse2mpc keeps it; PSS/E names do not escape)
        if (text.charCodeAt(q + 1) === c) {
          s += text.slice(q, q + 2);
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      fields.push(s);
    } else {
      const from = i;
      while (i < end) {
        const d = text.charCodeAt(i);
        if (isBlank(d) || d === CH_COMMA || d === CH_SLASH) break;
        i++;
      }
      fields.push(plainNumber(text, from, i) ?? text.slice(from, i));
    }
    afterField = true;
  }
  return { fields, comment: '' };
}

/** `0` alone (before an optional comment): the end of a section. */
function isSectionEnd(text: string): boolean {
  let i = 0;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 48) return false;
  i++;
  while (i < text.length && isBlank(text.charCodeAt(i))) i++;
  return i === text.length || text.charCodeAt(i) === CH_SLASH;
}

function isQRecord(text: string): boolean {
  const t = text.trim();
  return t === 'Q' || t.startsWith('Q ') || t.startsWith('Q/') || t.startsWith('Q,');
}

/** `END OF BUS DATA` -> `BUS`; '' when the comment does not say. */
function sectionLabel(text: string): string {
  const slash = text.indexOf('/');
  if (slash < 0) return '';
  const c = text.slice(slash + 1).toUpperCase();
  const at = c.indexOf('END OF ');
  if (at < 0) return '';
  const end = c.indexOf(' DATA', at);
  return (end < 0 ? c.slice(at + 7) : c.slice(at + 7, end)).trim();
}

/** Scans a RAW text; `maxRecords` bounds the work before any record is mapped. */
export function scanRaw(text: string, maxRecords: number): ScannedRaw {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const n = text.length;
  let pos = 0;
  let lineNo = 0;
  const tabLines: number[] = [];
  const nextLine = (): string | undefined => {
    if (pos > n || (pos === n && n > 0 && text.charCodeAt(n - 1) === 10)) return undefined;
    let e = text.indexOf('\n', pos);
    if (e < 0) e = n;
    let s = text.slice(pos, e);
    if (s.charCodeAt(s.length - 1) === CH_CR) s = s.slice(0, -1);
    pos = e + 1;
    lineNo++;
    return s;
  };
  // the case identification: the first line that is not an `@!` comment, then two title lines
  let first = nextLine();
  while (first?.startsWith('@!')) first = nextLine();
  if (first === undefined || first.trim() === '')
    throw new PsseParseError(Math.max(lineNo, 1), 'case identification', 'IC, SBASE, REV, XFRRAT, NXFRAT, BASFRQ', 'an empty line');
  const headerLine = lineNo;
  const { fields, comment } = splitRecord(first, headerLine);
  const title = (): string => {
    let t = nextLine();
    while (t?.startsWith('@!')) t = nextLine();
    return (t ?? '').trim();
  };
  const title1 = title();
  const title2 = title();
  const f = (k: number) => String(fields[k] ?? '');
  const header: RawHeader = { ic: f(0), sbase: f(1), rev: f(2), comment, title1, title2, line: headerLine };

  const sections: RawSection[] = [];
  let records: RawRecord[] = [];
  let total = 0;
  let ended = false;
  while (pos < n) {
    // data lines are split in place; only terminators and comments are sliced
    let e = text.indexOf('\n', pos);
    if (e < 0) e = n;
    const start = pos;
    pos = e + 1;
    lineNo++;
    let first = start;
    while (first < e && isBlank(text.charCodeAt(first))) first++;
    const c = text.charCodeAt(first);
    if (first === e) continue; // blank line
    if (c === 64 && text.charCodeAt(first + 1) === 33 && first === start) continue; // @! comment
    if (c === 48 || c === 81) {
      const s = text.slice(start, e);
      if (isQRecord(s)) {
        ended = true;
        break;
      }
      if (isSectionEnd(s)) {
        sections.push({ label: sectionLabel(s), records, endLine: lineNo, unterminated: false });
        records = [];
        continue;
      }
    }
    if (text.charCodeAt(start) === CH_TAB) tabLines.push(lineNo);
    if (++total > maxRecords) throw new PsseParseError(lineNo, 'record', `at most ${maxRecords} records in a RAW import`, 'more');
    records.push({ line: lineNo, fields: splitRecord(text, lineNo, start, e).fields });
  }
  if (records.length > 0) sections.push({ label: '', records, endLine: lineNo, unterminated: true });
  void ended;
  return { header, sections, tabLines, lineCount: lineNo };
}
