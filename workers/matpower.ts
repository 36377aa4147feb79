// Worker thread that reads one large MATPOWER case off the main event loop
// (src/matpower/offLoop.ts starts one per large import and ends it at its time budget).
// In: workerData {text, file, check?}. With `check` the model is also named and checked for storing
// (src/domain/networkCheck.ts), so that work leaves the event loop too.
// Out: one message, {model, threadId, checked} or {invalid} (an AppError's fields) or {error} (a MatpowerParseError's fields).
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { MatpowerParseError, parseMatpower } from '../src/matpower/reader.js';
import { appErrorFields, checkImported } from '../src/domain/networkCheck.js';
import { AppError } from '../src/lib/errors.js';
import { lowerThisThread } from '../src/engine/threadPriority.js';

lowerThisThread(); // a large read yields the CPU to the event loop (src/engine/threadPriority.ts)
const { text, file, check } = workerData as { text: string; file: string; check?: { name?: string } };
try {
  const model = parseMatpower(text, file);
  parentPort!.postMessage({ model: check ? checkImported(model, check.name) : model, threadId, checked: !!check });
} catch (e) {
  if (e instanceof MatpowerParseError)
    parentPort!.postMessage({ error: { file: e.file, line: e.line, expected: e.expected, found: e.found } });
  else if (e instanceof AppError) parentPort!.postMessage({ invalid: appErrorFields(e) });
  else parentPort!.postMessage({ failure: e instanceof Error ? e.message : String(e) });
}
