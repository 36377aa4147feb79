// PSS/E import entry: RAW (revisions 29-35) or RAWX text -> the network model and its warnings.
// The format is the caller's (?format=psse|rawx) or, left out, the content's: RAWX is JSON.
import { mapCase, type PsseImport } from './mapping.js';
import { tablesFromRawx } from './rawx.js';
import { tablesFromRaw } from './tables.js';

export type PsseFormat = 'psse' | 'rawx';

/** Records read at most from one file (a 10,000-bus case has about 40,000). */
export const MAX_RECORDS = 2_000_000;

/** RAWX when the text is a JSON object, RAW otherwise. */
export function detectPsseFormat(text: string): PsseFormat {
  for (let i = 0; i < text.length && i < 4096; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) continue;
    return c === 123 ? 'rawx' : 'psse';
  }
  return 'psse';
}

/** The case name: the file's base name without extension, else the first title line, else 'PSS/E case'. */
function caseName(fileName: string | undefined, title: string): string {
  if (fileName) {
    const base = fileName.slice(Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\')) + 1).replace(/\.(raw|rawx)$/i, '');
    if (base !== '' && base !== 'body') return base.slice(0, 64);
  }
  const t = title.trim();
  return (t === '' ? 'PSS/E case' : t).slice(0, 64);
}

/** Reads a RAW or RAWX file; throws PsseParseError naming the line and the record. */
export function parsePsse(text: string, opts: { format?: PsseFormat; fileName?: string; maxRecords?: number } = {}): PsseImport {
  const format = opts.format ?? detectPsseFormat(text);
  const max = opts.maxRecords ?? MAX_RECORDS;
  const tables = format === 'rawx' ? tablesFromRawx(text, max) : tablesFromRaw(text, max);
  const out = mapCase(tables, caseName(opts.fileName, tables.title));
  out.model.tags = { source_format: format, psse_revision: String(out.revision) };
  return out;
}
