// RAWX (PSS/E 35's JSON case format) -> the same named tables a RAW file gives (./tables.ts):
// {"network": {"caseid": {"fields": [...], "data": [...]}, "bus": {"fields": [...], "data": [[...], ...]}, ...}}.
// Each table names its fields, so no revision-dependent positions are needed.
import { KIND_TITLE, type RecordKind } from './columns.js';
import { PsseParseError } from './scanner.js';
import { type CaseTables, colMap, type FieldValue, type Row, type Table } from './tables.js';
import { type PsseWarning, warn } from './warnings.js';

const KINDS = new Set<string>(Object.keys(KIND_TITLE));
/** RAWX tables that are parameters or belong to a kind above, not network elements. */
const IGNORED = new Set(['caseid', 'general', 'gauss', 'newton', 'adjust', 'tysl', 'solver', 'rating', 'subnode', 'subswd', 'subterm']);

interface RawxTable {
  fields?: unknown;
  data?: unknown;
}

export function tablesFromRawx(text: string, maxRecords: number): CaseTables {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    const m = /position (\d+)/.exec((e as Error).message);
    const line = m ? text.slice(0, Number(m[1])).split('\n').length : 1;
    throw new PsseParseError(line, 'RAWX document', 'a JSON document', (e as Error).message);
  }
  const net = (doc as { network?: Record<string, RawxTable> } | null)?.network;
  if (!net || typeof net !== 'object') throw new PsseParseError(1, 'RAWX document', 'an object {"network": {...}}', 'no "network"');
  const warnings: PsseWarning[] = [];
  const fieldsOf = (key: string, t: RawxTable): string[] => {
    if (!Array.isArray(t.fields) || !t.fields.every((f) => typeof f === 'string'))
      throw new PsseParseError(1, `RAWX ${key}`, 'a "fields" list of names', JSON.stringify(t.fields)?.slice(0, 40));
    return (t.fields as string[]).map((f) => f.toLowerCase());
  };
  const caseid = net.caseid;
  if (!caseid) throw new PsseParseError(1, 'RAWX caseid', 'a "caseid" table', 'none');
  const cid = colMap(fieldsOf('caseid', caseid));
  const cdata =
    Array.isArray(caseid.data) && Array.isArray(caseid.data[0]) ? (caseid.data[0] as FieldValue[]) : (caseid.data as FieldValue[]);
  if (!Array.isArray(cdata)) throw new PsseParseError(1, 'RAWX caseid', 'a "data" row', 'none');
  const get = (n: string) => {
    const k = cid.get(n);
    return k === undefined ? undefined : cdata[k];
  };
  const sbase = Number(get('sbase') ?? 100);
  if (!(sbase > 0)) throw new PsseParseError(1, 'RAWX caseid', 'a positive SBASE', String(get('sbase')));
  const rev = Number(get('rev') ?? 35);
  const tables = new Map<RecordKind, Table>();
  let total = 0;
  for (const [key, t] of Object.entries(net)) {
    if (IGNORED.has(key)) continue;
    if (!KINDS.has(key)) {
      const n = Array.isArray(t?.data) ? t.data.length : 0;
      if (n > 0) warn(warnings, 'RAWX_TABLE_NOT_READ', `RAWX tables gridops does not know were not read (${key}, ...)`, undefined, n);
      continue;
    }
    const cols = colMap(fieldsOf(key, t));
    const data = t.data;
    if (data === undefined || data === null) continue;
    if (!Array.isArray(data)) throw new PsseParseError(1, `RAWX ${key}`, 'a "data" list of rows', typeof data);
    total += data.length;
    if (total > maxRecords) throw new PsseParseError(1, `RAWX ${key}`, `at most ${maxRecords} records in a RAWX import`, 'more');
    const rows: Row[] = data.map((r, i) => {
      if (!Array.isArray(r))
        throw new PsseParseError(i + 1, `RAWX ${key} row ${i + 1}`, 'a row (a list of values)', JSON.stringify(r)?.slice(0, 40));
      return { line: i + 1, fields: r as FieldValue[], cols };
    });
    tables.set(key as RecordKind, { kind: key as RecordKind, rows, rawx: true });
  }
  const title = String(get('title1') ?? '').trim();
  return { sbase, rev: Number.isFinite(rev) ? rev : 35, ic: Number(get('ic') ?? 0), title, tables, warnings, format: 'rawx' };
}
