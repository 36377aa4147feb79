// Worker thread that reads one large PSS/E RAW or RAWX file off the main event loop
// (src/psse/offLoop.ts starts one per large import). In: workerData {text, opts}. Out: one message.
import { parentPort, workerData } from 'node:worker_threads';
import { parsePsse, type PsseFormat } from '../src/psse/reader.js';
import { PsseParseError } from '../src/psse/scanner.js';

const { text, opts } = workerData as { text: string; opts: { format?: PsseFormat; fileName?: string } };
try {
  parentPort!.postMessage({ imported: parsePsse(text, opts) });
} catch (e) {
  if (e instanceof PsseParseError) parentPort!.postMessage({ error: { line: e.line, record: e.record, expected: e.expected, found: e.found } });
  else parentPort!.postMessage({ failure: e instanceof Error ? e.message : String(e) });
}
