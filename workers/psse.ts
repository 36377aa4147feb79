// Worker thread that reads one large PSS/E RAW or RAWX file off the main event loop
// (src/psse/offLoop.ts starts one per large import). In: workerData {text, opts, check?}; with `check`
// the model is also named and checked for storing (src/domain/networkCheck.ts). Out: one message.
import { parentPort, workerData } from 'node:worker_threads';
import { parsePsse, type PsseFormat } from '../src/psse/reader.js';
import { PsseParseError } from '../src/psse/scanner.js';
import { appErrorFields, checkImported } from '../src/domain/networkCheck.js';
import { AppError } from '../src/lib/errors.js';
import { lowerThisThread } from '../src/engine/threadPriority.js';

lowerThisThread(); // a large read yields the CPU to the event loop (src/engine/threadPriority.ts)
const { text, opts, check } = workerData as { text: string; opts: { format?: PsseFormat; fileName?: string }; check?: { name?: string } };
try {
  const imported = parsePsse(text, opts);
  if (check) imported.model = checkImported(imported.model, check.name);
  parentPort!.postMessage({ imported, checked: !!check });
} catch (e) {
  if (e instanceof PsseParseError)
    parentPort!.postMessage({ error: { line: e.line, record: e.record, expected: e.expected, found: e.found } });
  else if (e instanceof AppError) parentPort!.postMessage({ invalid: appErrorFields(e) });
  else parentPort!.postMessage({ failure: e instanceof Error ? e.message : String(e) });
}
