// MATPOWER case format version 2, the scanner (see MATPOWER's `caseformat`): what the text says,
// before any meaning is given to it (./reader.ts maps it to the network model).
//
// A hand-written single-pass scanner over the whole text: no regular expression
// per token, numbers are sliced once and converted with Number(), so the 3 MB
// cases read in tens of milliseconds. Only the numeric matrices of NUMERIC_MATRICES,
// the scalars, `mpc.bus_name` and the function line are kept; every other field
// (areas, gentype, ...) is scanned over and ignored.

/** A case file that cannot be read; `line` is 1-based, `expected` says what the reader wanted there. */
export class MatpowerParseError extends Error {
  constructor(
    public readonly file: string,
    public readonly line: number,
    public readonly expected: string,
    public readonly found?: string,
  ) {
    super(`${file} line ${line}: expected ${expected}${found === undefined ? '' : `, found ${found}`}`);
    this.name = 'MatpowerParseError';
  }
}

/** Extension fields written by writeMatpower for what MATPOWER cannot express (MATPOWER ignores them). */
export const EXT = {
  name: 'gridops_name',
  baseKv: 'gridops_base_kv',
  offlineLoads: 'gridops_offline_loads',
  maintenance: 'gridops_branch_maintenance',
  withoutCost: 'gridops_gen_without_cost',
  busGeo: 'bus_geo',
} as const;

const NUMERIC_MATRICES = new Set<string>([
  'bus',
  'gen',
  'branch',
  'gencost',
  'dcline',
  'dclinecost',
  EXT.offlineLoads,
  EXT.maintenance,
  EXT.withoutCost,
  EXT.busGeo,
]);

export interface Matrix {
  field: string;
  line: number; // line of `mpc.X = [`
  endLine: number;
  values: number[]; // all numbers, row after row
  rowStart: number[]; // index in values of each row's first number
  rowLine: number[]; // line of each row's first number
}

export interface Scalar {
  text: string;
  line: number;
}
export interface Cell {
  strings: string[];
  line: number;
  stringLines: number[];
}

const CH_NL = 10,
  CH_CR = 13,
  CH_SP = 32,
  CH_TAB = 9,
  CH_COMMA = 44,
  CH_SEMI = 59,
  CH_PCT = 37,
  CH_HASH = 35,
  CH_LBRACK = 91,
  CH_RBRACK = 93,
  CH_LBRACE = 123,
  CH_RBRACE = 125,
  CH_QUOTE = 39,
  CH_DQUOTE = 34,
  CH_DOT = 46,
  CH_EQ = 61;

function isIdentChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
}

export function baseName(fileName: string | undefined): string {
  if (!fileName) return 'MATPOWER case';
  const i = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  return i >= 0 ? fileName.slice(i + 1) : fileName;
}

const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

export function parseNumberToken(tok: string): number {
  const v = Number(tok);
  if (!Number.isNaN(v)) return v;
  switch (tok) {
    case 'Inf':
    case 'inf':
    case '+Inf':
    case '+inf':
      return Infinity;
    case '-Inf':
    case '-inf':
      return -Infinity;
    default:
      return NaN;
  }
}

/** Longest function line read (the line is sliced and trimmed several times). */
export const FUNCTION_LINE_MAX = 1024;

const isIdentifierChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
/** [A-Za-z][A-Za-z0-9_]*, by a plain scan. */
function isIdentifier(s: string): boolean {
  if (s.length === 0) return false;
  const c0 = s.charCodeAt(0);
  if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122))) return false;
  for (let i = 1; i < s.length; i++) if (!isIdentifierChar(s.charCodeAt(i))) return false;
  return true;
}

export function quoteFound(tok: string): string {
  const t = tok.length > 40 ? `${tok.slice(0, 40)}...` : tok;
  return `'${t}'`;
}

export class Scanner {
  pos = 0;
  line = 1;
  readonly n: number;
  functionName: string | undefined;
  /** The struct the case is built in: `mpc` unless the function line names another output. */
  outVar = 'mpc';
  functionLine = 0;
  description = '';
  readonly matrices = new Map<string, Matrix>();
  readonly scalars = new Map<string, Scalar>();
  busNames: Cell | undefined;

  constructor(
    readonly text: string,
    readonly file: string,
  ) {
    this.n = text.length;
  }

  fail(line: number, expected: string, found?: string): never {
    throw new MatpowerParseError(this.file, line, expected, found);
  }

  /** Skip to the newline (not consumed) or end of text. */
  skipToEol(): void {
    const i = this.text.indexOf('\n', this.pos);
    this.pos = i < 0 ? this.n : i;
  }

  /** Skip spaces and tabs (and CR) on the current line. */
  skipBlanks(): void {
    const t = this.text;
    while (this.pos < this.n) {
      const c = t.charCodeAt(this.pos);
      if (c === CH_SP || c === CH_TAB || c === CH_CR) this.pos++;
      else break;
    }
  }

  readIdent(): string {
    const start = this.pos;
    while (this.pos < this.n && isIdentChar(this.text.charCodeAt(this.pos))) this.pos++;
    return this.text.slice(start, this.pos);
  }

  /** `%{` ... `%}` block comment starting at a line of its own; returns true if one was skipped. */
  trySkipBlockComment(): boolean {
    const t = this.text;
    if (t.charCodeAt(this.pos + 1) !== CH_LBRACE) return false;
    const eol = t.indexOf('\n', this.pos);
    if (t.slice(this.pos + 2, eol < 0 ? this.n : eol).trim() !== '') return false;
    const startLine = this.line;
    let depth = 0;
    for (;;) {
      const e = t.indexOf('\n', this.pos);
      const lineText = t.slice(this.pos, e < 0 ? this.n : e).trim();
      if (lineText === '%{') depth++;
      else if (lineText === '%}') depth--;
      if (e < 0) {
        this.pos = this.n;
        if (depth > 0) this.fail(startLine, "'%}' closing the block comment opened here", 'end of file');
        return true;
      }
      this.pos = e + 1;
      this.line++;
      if (depth === 0) return true;
    }
  }

  run(): void {
    const t = this.text;
    let sawFunction = false;
    let wantDescription = false;
    while (this.pos < this.n) {
      this.skipBlanks();
      if (this.pos >= this.n) break;
      const c = t.charCodeAt(this.pos);
      if (c === CH_NL) {
        this.pos++;
        this.line++;
        continue;
      }
      if (c === CH_PCT || c === CH_HASH) {
        if (c === CH_PCT && this.trySkipBlockComment()) {
          wantDescription = false;
          continue;
        }
        if (wantDescription) {
          const e = t.indexOf('\n', this.pos);
          this.description = descriptionFrom(t.slice(this.pos, e < 0 ? this.n : e), this.functionName);
          wantDescription = false;
        }
        this.skipToEol();
        continue;
      }
      wantDescription = false;
      const stmtLine = this.line;
      const ident = this.readIdent();
      if (ident === 'function' && !sawFunction) {
        sawFunction = true;
        this.functionLine = stmtLine;
        this.parseFunctionLine(stmtLine);
        wantDescription = true;
        continue;
      }
      if (ident === this.outVar && t.charCodeAt(this.pos) === CH_DOT) {
        this.pos++;
        const field = this.readIdent();
        this.skipBlanks();
        if (field !== '' && t.charCodeAt(this.pos) === CH_EQ && t.charCodeAt(this.pos + 1) !== CH_EQ) {
          this.pos++;
          this.skipBlanks();
          this.parseValue(field, stmtLine);
          continue;
        }
        if (NUMERIC_MATRICES.has(field) || field === 'baseMVA' || field === 'bus_name') {
          this.fail(
            stmtLine,
            `a plain assignment mpc.${field} = ...; (computed statements are not supported)`,
            quoteFound(t.slice(this.pos, this.pos + 20).split('\n')[0]!),
          );
        }
      }
      if (ident === '' && this.pos < this.n) {
        // Not an identifier: let a stray matrix/cell opener be diagnosed rather than silently skipped.
        if (c === CH_LBRACK || c === CH_LBRACE) this.fail(stmtLine, 'a statement such as mpc.bus = [ ... ];', quoteFound(t[this.pos]!));
      }
      // Any other statement (return, end, a computation...) is tolerated and ignored.
      this.skipStatement();
    }
  }

  /** Skip the rest of a statement we do not interpret, including bracketed parts spanning lines. */
  skipStatement(): void {
    const t = this.text;
    let depth = 0;
    while (this.pos < this.n) {
      const c = t.charCodeAt(this.pos);
      if (c === CH_NL) {
        if (depth === 0) return;
        this.line++;
        this.pos++;
        continue;
      }
      if (c === CH_PCT) {
        this.skipToEol();
        continue;
      }
      if (c === CH_LBRACK || c === CH_LBRACE) depth++;
      else if ((c === CH_RBRACK || c === CH_RBRACE) && depth > 0) depth--;
      this.pos++;
    }
  }

  parseFunctionLine(line: number): void {
    const t = this.text;
    const e = t.indexOf('\n', this.pos);
    const end = e < 0 ? this.n : e;
    // No case needs a long function line; a cap keeps every step below linear in little.
    if (end - this.pos > FUNCTION_LINE_MAX)
      this.fail(line, `a function line of at most ${FUNCTION_LINE_MAX} characters (function mpc = NAME)`, `${end - this.pos} characters`);
    let rest = t.slice(this.pos, end);
    const pct = rest.indexOf('%');
    if (pct >= 0) rest = rest.slice(0, pct);
    this.pos = end;
    rest = rest.trim();
    // Plain string steps, no regular expression with adjacent unbounded quantifiers:
    // /^\[\s*|\s*\]$/g here once took seconds on a line of blanks (issue #11).
    const eq = rest.indexOf('=');
    let name = (eq >= 0 ? rest.slice(eq + 1) : rest).trim();
    const paren = name.indexOf('(');
    if (paren >= 0) name = name.slice(0, paren);
    if (name.endsWith(';')) name = name.slice(0, -1);
    name = name.trim();
    if (!isIdentifier(name)) this.fail(line, 'function mpc = NAME with NAME an identifier', quoteFound(rest));
    this.functionName = name;
    if (eq >= 0) {
      let out = rest.slice(0, eq).trim();
      if (out.startsWith('function') && !isIdentifierChar(out.charCodeAt(8))) out = out.slice(8).trim();
      if (out.startsWith('[')) out = out.slice(1).trim();
      if (out.endsWith(']')) out = out.slice(0, -1).trim();
      if (isIdentifier(out)) this.outVar = out;
      else if (out.includes(','))
        this.fail(
          line,
          'MATPOWER case format version 2 (function mpc = NAME); version 1 files returning [baseMVA, bus, gen, ...] are not supported',
          quoteFound(rest),
        );
    }
  }

  parseValue(field: string, line: number): void {
    const t = this.text;
    const c = t.charCodeAt(this.pos);
    if (c === CH_LBRACK) {
      this.pos++;
      if (NUMERIC_MATRICES.has(field)) {
        const m = this.parseMatrix(field, line);
        if (this.matrices.has(field))
          this.fail(line, `mpc.${field} to be assigned once`, `a second assignment (first at line ${this.matrices.get(field)!.line})`);
        this.matrices.set(field, m);
      } else {
        this.skipMatrix(field, line);
      }
    } else if (c === CH_LBRACE) {
      this.pos++;
      const cell = this.parseCell(field, line, field === 'bus_name');
      if (field === 'bus_name') this.busNames = cell;
    } else {
      // scalar or string up to ';', newline or a comment (quotes respected)
      const start = this.pos;
      let quote = 0;
      while (this.pos < this.n) {
        const ch = t.charCodeAt(this.pos);
        if (ch === CH_NL) break;
        if (quote) {
          if (ch === quote) quote = 0;
        } else if (ch === CH_QUOTE || ch === CH_DQUOTE) quote = ch;
        else if (ch === CH_SEMI || ch === CH_PCT) break;
        this.pos++;
      }
      this.scalars.set(field, { text: t.slice(start, this.pos).trim(), line });
    }
    this.skipStatement(); // trailing ';', comments, transposes...
  }

  parseMatrix(field: string, openLine: number): Matrix {
    const t = this.text;
    const n = this.n;
    const values: number[] = [];
    const rowStart: number[] = [];
    const rowLine: number[] = [];
    let inRow = false;
    let pos = this.pos;
    let line = this.line;
    for (;;) {
      if (pos >= n) {
        this.pos = pos;
        this.line = line;
        this.fail(openLine, `']' closing the mpc.${field} matrix opened here`, 'end of file');
      }
      const c = t.charCodeAt(pos);
      if (c === CH_SP || c === CH_TAB || c === CH_CR || c === CH_COMMA) {
        pos++;
        continue;
      }
      if (c === CH_NL) {
        line++;
        pos++;
        inRow = false;
        continue;
      }
      if (c === CH_SEMI) {
        pos++;
        inRow = false;
        continue;
      }
      if (c === CH_PCT || c === CH_HASH) {
        const e = t.indexOf('\n', pos);
        pos = e < 0 ? n : e;
        continue;
      }
      if (c === CH_RBRACK) {
        pos++;
        break;
      }
      if (c === CH_DOT && t.charCodeAt(pos + 1) === CH_DOT && t.charCodeAt(pos + 2) === CH_DOT) {
        // line continuation: the row goes on on the next line
        const e = t.indexOf('\n', pos);
        if (e < 0) {
          pos = n;
          continue;
        }
        pos = e + 1;
        line++;
        continue;
      }
      // a token: up to the next delimiter. Plain decimals (<= 15 digits, |exponent| <= 22) are
      // converted on the fly, exactly (Clinger's fast path: an exact integer times or divided by an
      // exact power of ten is one correctly rounded operation, hence equal to Number(token));
      // anything else goes through Number() / Inf handling.
      const start = pos;
      let mant = 0,
        digits = 0,
        fracDigits = 0,
        exp = 0,
        expSign = 1,
        neg = false;
      let state = 0; // 0 start, 1 int digits, 2 fraction, 3 after e, 4 exponent digits; -1 not simple
      while (pos < n) {
        const d = t.charCodeAt(pos);
        if (d === CH_SP || d === CH_TAB || d === CH_NL || d === CH_CR || d === CH_COMMA || d === CH_SEMI || d === CH_RBRACK || d === CH_PCT)
          break;
        pos++;
        if (state < 0) continue;
        if (d >= 48 && d <= 57) {
          if (state <= 1) {
            mant = mant * 10 + (d - 48);
            digits++;
            state = 1;
          } else if (state === 2) {
            mant = mant * 10 + (d - 48);
            digits++;
            fracDigits++;
          } else {
            exp = exp * 10 + (d - 48);
            state = 4;
            if (exp > 400) state = -1;
          }
        } else if (d === CH_DOT && state <= 1) state = 2;
        else if ((d === 101 || d === 69) && (state === 1 || state === 2) && digits > 0) state = 3;
        else if ((d === 45 || d === 43) && pos - 1 === start) neg = d === 45;
        else if ((d === 45 || d === 43) && state === 3 && (t.charCodeAt(pos - 2) | 32) === 101) expSign = d === 45 ? -1 : 1;
        else state = -1;
      }
      let v: number;
      const k = expSign * exp - fracDigits;
      if (state > 0 && state !== 3 && digits > 0 && digits <= 15 && k >= -22 && k <= 22) {
        v = k >= 0 ? mant * POW10[k]! : mant / POW10[-k]!;
        if (neg) v = -v;
      } else {
        v = parseNumberToken(t.slice(start, pos));
      }
      if (Number.isNaN(v)) {
        const tok = t.slice(start, pos);
        this.pos = pos;
        this.line = line;
        if (tok.startsWith('mpc.') || tok === 'function') {
          // the next statement began before this matrix was closed
          this.fail(openLine, `']' closing the mpc.${field} matrix opened at this line`, `${quoteFound(tok)} at line ${line}`);
        }
        this.fail(line, `a number in mpc.${field}`, quoteFound(tok));
      }
      if (!inRow) {
        inRow = true;
        rowStart.push(values.length);
        rowLine.push(line);
      }
      values.push(v);
    }
    this.pos = pos;
    this.line = line;
    return { field, line: openLine, endLine: line, values, rowStart, rowLine };
  }

  /** Scan over a matrix we ignore (gencost, areas, ...), only to find its end. */
  skipMatrix(field: string, openLine: number): void {
    const t = this.text;
    let pos = this.pos;
    let line = this.line;
    let depth = 1;
    while (pos < this.n) {
      const c = t.charCodeAt(pos);
      if (c === CH_NL) line++;
      else if (c === CH_PCT) {
        const e = t.indexOf('\n', pos);
        pos = e < 0 ? this.n : e;
        continue;
      } else if (c === CH_LBRACK) depth++;
      else if (c === CH_RBRACK && --depth === 0) {
        this.pos = pos + 1;
        this.line = line;
        return;
      }
      pos++;
    }
    this.pos = pos;
    this.line = line;
    this.fail(openLine, `']' closing the mpc.${field} matrix opened here`, 'end of file');
  }

  parseCell(field: string, openLine: number, collect: boolean): Cell {
    const t = this.text;
    const strings: string[] = [];
    const stringLines: number[] = [];
    for (;;) {
      if (this.pos >= this.n) this.fail(openLine, `'}' closing the mpc.${field} cell array opened here`, 'end of file');
      const c = t.charCodeAt(this.pos);
      if (c === CH_SP || c === CH_TAB || c === CH_CR || c === CH_COMMA || c === CH_SEMI) {
        this.pos++;
        continue;
      }
      if (c === CH_NL) {
        this.line++;
        this.pos++;
        continue;
      }
      if (c === CH_PCT) {
        this.skipToEol();
        continue;
      }
      if (c === CH_RBRACE) {
        this.pos++;
        break;
      }
      if (c === CH_DOT && t.startsWith('...', this.pos)) {
        this.skipToEol();
        continue;
      }
      if (c === CH_QUOTE || c === CH_DQUOTE) {
        const sLine = this.line;
        let s = '';
        let p = this.pos + 1;
        for (;;) {
          const q = t.indexOf(String.fromCharCode(c), p);
          const nl = t.indexOf('\n', p);
          if (q < 0 || (nl >= 0 && nl < q))
            this.fail(sLine, `a closing ${c === CH_QUOTE ? "'" : '"'} of the string in mpc.${field}`, 'end of line');
          s += t.slice(p, q);
          if (t.charCodeAt(q + 1) === c) {
            s += String.fromCharCode(c);
            p = q + 2;
            continue;
          }
          p = q + 1;
          break;
        }
        this.pos = p;
        if (collect) {
          strings.push(s);
          stringLines.push(sLine);
        }
        continue;
      }
      // a non-string element (number, nested cell...): only names are expected where we collect
      const start = this.pos;
      while (this.pos < this.n) {
        const d = t.charCodeAt(this.pos);
        if (d === CH_SP || d === CH_TAB || d === CH_NL || d === CH_CR || d === CH_COMMA || d === CH_SEMI || d === CH_RBRACE || d === CH_PCT)
          break;
        this.pos++;
      }
      if (collect) this.fail(this.line, `a quoted name in mpc.${field}`, quoteFound(t.slice(start, this.pos)));
    }
    return { strings, line: openLine, stringLines };
  }
}

/** The H1 comment line: leading `%`s and blanks removed, the function name (MATLAB H1 convention) dropped. */
function descriptionFrom(comment: string, functionName: string | undefined): string {
  let s = comment.replace(/^[%#\s]+/, '').trim();
  if (functionName) {
    const m = /^(\S+)\s*/.exec(s);
    if (m && m[1]!.toLowerCase() === functionName.toLowerCase()) s = s.slice(m[0].length);
  }
  s = s.trim();
  return s.length > 256 ? s.slice(0, 256) : s;
}
