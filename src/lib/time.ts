// RFC 3339 UTC timestamps, and their display in another zone (`tz` query parameter).
import { AppError } from './errors.js';
import { isDeeplyFrozen } from './immutable.js';

export function isValidTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3,
    });
    formatters.set(tz, f);
  }
  return f;
}

/** RFC 3339 with the zone's offset, e.g. 2026-11-21T13:00:00.000+01:00. */
export function formatInZone(d: Date, tz: string): string {
  const parts = Object.fromEntries(formatterFor(tz).formatToParts(d).map((p) => [p.type, p.value]));
  const local = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second, +parts.fractionalSecond);
  const offsetMin = Math.round((local - d.getTime()) / 60000);
  if (offsetMin === 0 && tz.toUpperCase() === 'UTC') return d.toISOString();
  const sign = offsetMin >= 0 ? '+' : '-';
  const abs = Math.abs(offsetMin);
  const off = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${parts.fractionalSecond}${off}`;
}

// The UTC rendering of an immutable value (a cached list page) is made once.
const renderedUtc = new WeakMap<object, unknown>();

/** Replaces every Date in a JSON-like value by its RFC 3339 string (UTC, or in tz). */
export function renderDates(value: unknown, tz?: string): unknown {
  if (!tz && value !== null && typeof value === 'object' && isDeeplyFrozen(value)) {
    let r = renderedUtc.get(value);
    if (r === undefined) renderedUtc.set(value, (r = renderDatesNow(value)));
    return r;
  }
  return renderDatesNow(value, tz);
}

function renderDatesNow(value: unknown, tz?: string): unknown {
  if (value instanceof Date) return tz ? formatInZone(value, tz) : value.toISOString();
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (v !== null && typeof v === 'object') {
        const r = renderDatesNow(v, tz);
        if (r !== v) (out ??= value.slice())[i] = r;
      }
    }
    return out ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let out: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(value)) {
      if (v !== null && typeof v === 'object') {
        const r = renderDatesNow(v, tz);
        if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
      }
    }
    return out ?? value;
  }
  return value;
}

/** Parses an RFC 3339 date-time query value or throws INVALID_FIELD naming the parameter. */
export function parseDateTime(name: string, value: string): Date {
  const d = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) || Number.isNaN(d.getTime())) {
    throw new AppError('INVALID_FIELD', `${name} must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z, got "${value}"`, { field: name });
  }
  return d;
}
