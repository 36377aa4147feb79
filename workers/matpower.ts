// Worker thread that reads one large MATPOWER case off the main event loop
// (src/matpower/offLoop.ts starts one per large import and ends it at its time budget).
// In: workerData {text, file, check?}. With `check` (an import) the model is also named and checked for storing
// (src/domain/networkCheck.ts) and encoded as it is stored (its JSON deflated, src/domain/modelBlob.ts), so that
// work leaves the event loop too, and only the blob and the row's columns cross back: the main thread never
// builds, stringifies or collects the model's object graph (issue 35).
// Out: one message, {model, threadId} (no check), {stored, threadId} (check), {invalid} (an AppError's fields)
// or {error} (a MatpowerParseError's fields).
import { parentPort, threadId, workerData } from 'node:worker_threads';
import { MatpowerParseError, parseMatpower } from '../src/matpower/reader.js';
import { appErrorFields, checkImported, storableSync } from '../src/domain/networkCheck.js';
import { blobTransfer } from '../src/domain/modelBlob.js';
import { AppError } from '../src/lib/errors.js';
import { lowerThisThread } from '../src/engine/threadPriority.js';

lowerThisThread(); // a large read yields the CPU to the event loop (src/engine/threadPriority.ts)
const { text, file, check } = workerData as { text: string; file: string; check?: { name?: string } };
try {
  const model = parseMatpower(text, file);
  if (check) {
    const stored = storableSync(checkImported(model, check.name));
    parentPort!.postMessage({ stored, threadId }, blobTransfer(stored));
  } else parentPort!.postMessage({ model, threadId });
} catch (e) {
  if (e instanceof MatpowerParseError)
    parentPort!.postMessage({ error: { file: e.file, line: e.line, expected: e.expected, found: e.found } });
  else if (e instanceof AppError) parentPort!.postMessage({ invalid: appErrorFields(e) });
  else parentPort!.postMessage({ failure: e instanceof Error ? e.message : String(e) });
}
