// Large answers written as text slices with a turn of the event loop between them, so /health and other
// callers are served while a multi-megabyte body is converted (the heavy drill, issue 35).
import { setImmediate as nextTurn } from 'node:timers/promises';

/** About this many characters of text are converted between two turns of the event loop. */
export const SLICE_CHARS = 64 * 1024;

/**
 * Text pieces joined into slices of about SLICE_CHARS, with a turn of the event loop (setImmediate) after each.
 * Readable.from of a synchronous generator is pulled through process.nextTick while the socket accepts the data,
 * so a fast client let 2 × 10 M numbers be converted without /health being read (the heavy drill, issue 35).
 */
export async function* inSlices(pieces: Iterable<string> | AsyncIterable<string>): AsyncGenerator<string> {
  let slice = '';
  for await (const p of pieces) {
    slice += p;
    if (slice.length < SLICE_CHARS) continue;
    yield slice;
    slice = '';
    await nextTurn();
  }
  if (slice) yield slice;
}

/** Array elements converted by one JSON.stringify call: per element the calls cost 2.9 times one call of the
 *  whole array (215 vs 75 ms for a case13659pegase result), 256 at a time the same as one (~45 kB, a few ms). */
const ELEMENTS_PER_PIECE = 256;

/**
 * JSON.stringify(value)'s text in pieces: plain objects are walked key by key and arrays are written 256 elements a
 * piece, so a body of 40,000 bus and branch records is never one 80 ms call. Byte-identical to JSON.stringify (the
 * same keys skipped, the same nulls in arrays, Dates by toJSON); `leaf` converts the values that are neither plain
 * objects nor arrays, array elements are written as they are.
 */
export function* jsonPieces(value: unknown, leaf: (v: unknown) => unknown = (v) => v): Generator<string> {
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i += ELEMENTS_PER_PIECE) {
      const text = JSON.stringify(value.slice(i, i + ELEMENTS_PER_PIECE));
      yield (i > 0 ? ',' : '') + text.slice(1, -1);
    }
    yield ']';
    return;
  }
  if (value === null || typeof value !== 'object' || typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    yield JSON.stringify(leaf(value)) ?? 'null';
    return;
  }
  let first = true;
  yield '{';
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    yield (first ? '' : ',') + JSON.stringify(k) + ':';
    first = false;
    yield* jsonPieces(v, leaf);
  }
  yield '}';
}
