// Worker thread that reads one large PSS/E RAW or RAWX file off the main event loop
// (src/psse/offLoop.ts starts one per large import). In: workerData {text, opts, check?}; with `check` (an import)
// the model is also named and checked for storing (src/domain/networkCheck.ts) and encoded as it is stored
// (src/domain/modelBlob.ts): only the blob, the row's columns and the warnings cross back (workers/matpower.ts).
// Out: one message, {imported} (no check), {stored, warnings, revision, format} (check), {invalid} or {error}.
import { parentPort, workerData } from 'node:worker_threads';
import { parsePsse, type PsseFormat } from '../src/psse/reader.js';
import { PsseParseError } from '../src/psse/scanner.js';
import { appErrorFields, checkImported, storableSync } from '../src/domain/networkCheck.js';
import { blobTransfer } from '../src/domain/modelBlob.js';
import { AppError } from '../src/lib/errors.js';
import { lowerThisThread } from '../src/engine/threadPriority.js';

lowerThisThread(); // a large read yields the CPU to the event loop (src/engine/threadPriority.ts)
const { text, opts, check } = workerData as { text: string; opts: { format?: PsseFormat; fileName?: string }; check?: { name?: string } };
try {
  const imported = parsePsse(text, opts);
  if (check) {
    const stored = storableSync(checkImported(imported.model, check.name));
    const { warnings, revision, format } = imported;
    parentPort!.postMessage({ stored, warnings, revision, format }, blobTransfer(stored));
  } else parentPort!.postMessage({ imported });
} catch (e) {
  if (e instanceof PsseParseError)
    parentPort!.postMessage({ error: { line: e.line, record: e.record, expected: e.expected, found: e.found } });
  else if (e instanceof AppError) parentPort!.postMessage({ invalid: appErrorFields(e) });
  else parentPort!.postMessage({ failure: e instanceof Error ? e.message : String(e) });
}
