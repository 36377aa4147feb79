// Worker thread that reads one large MATPOWER case off the main event loop
// (src/matpower/offLoop.ts starts one per large import and ends it at its time budget).
// In: workerData {text, file}. Out: one message, {model, threadId} or {error} (a MatpowerParseError's fields).
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { MatpowerParseError, parseMatpower } from '../src/matpower/reader.js';

const { text, file } = workerData as { text: string; file: string };
try {
  parentPort!.postMessage({ model: parseMatpower(text, file), threadId });
} catch (e) {
  if (e instanceof MatpowerParseError) parentPort!.postMessage({ error: { file: e.file, line: e.line, expected: e.expected, found: e.found } });
  else parentPort!.postMessage({ failure: e instanceof Error ? e.message : String(e) });
}
