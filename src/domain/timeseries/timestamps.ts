// Time series, a point's timestamp: strict RFC 3339 to epoch milliseconds, with a fast path for
// what clients send most (toISOString).
const MIN_MS = Date.UTC(1970, 0, 1);
const MAX_MS = Date.UTC(10000, 0, 1) - 1;

const RFC3339_PARTS = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, mo: number) => (mo === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : DAYS[mo - 1]);

/** Digits of s from i to j (exclusive) as a number, or -1. */
function digits(s: string, i: number, j: number): number {
  let n = 0;
  for (; i < j; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/** Epoch milliseconds of an RFC 3339 timestamp (sub-millisecond digits dropped), or NaN.
 *  Strict: 2026-02-30 or 24:00 are refused (Date.parse would roll them over). */
export function parseTimestamp(t: unknown): number {
  if (typeof t !== 'string') return NaN;
  // Fast path for what clients send most: 2026-01-31T12:00:00.000Z (toISOString).
  if (
    t.length === 24 &&
    t.charCodeAt(23) === 90 &&
    t.charCodeAt(10) === 84 &&
    t.charCodeAt(4) === 45 &&
    t.charCodeAt(7) === 45 &&
    t.charCodeAt(13) === 58 &&
    t.charCodeAt(16) === 58 &&
    t.charCodeAt(19) === 46
  ) {
    const y = digits(t, 0, 4),
      mo = digits(t, 5, 7),
      d = digits(t, 8, 10),
      h = digits(t, 11, 13),
      mi = digits(t, 14, 16),
      sec = digits(t, 17, 19),
      ms = digits(t, 20, 23);
    if (
      y < 1970 ||
      mo < 1 ||
      mo > 12 ||
      d < 1 ||
      d > daysIn(y, mo) ||
      h < 0 ||
      h > 23 ||
      mi < 0 ||
      mi > 59 ||
      sec < 0 ||
      sec > 59 ||
      ms < 0
    )
      return NaN;
    return Date.UTC(y, mo - 1, d, h, mi, sec, ms);
  }
  const m = RFC3339_PARTS.exec(t);
  if (!m) return NaN;
  const y = +m[1],
    mo = +m[2],
    d = +m[3],
    h = +m[4],
    mi = +m[5],
    sec = +m[6];
  if (mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59) return NaN;
  let ms = Date.UTC(y, mo - 1, d, h, mi, sec, m[7] ? +m[7].slice(0, 3).padEnd(3, '0') : 0);
  if (m[8]) {
    const oh = +m[9],
      om = +m[10];
    if (oh > 23 || om > 59) return NaN;
    ms -= (m[8] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  return ms >= MIN_MS && ms <= MAX_MS ? ms : NaN;
}
