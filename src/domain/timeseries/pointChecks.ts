// Time series, the checks of one point's metric and tags (docs/timeseries.md): limits, canonical
// tags (sorted keys), and the byte sizes the quota counts.
const METRIC_MAX = 200;
const TAGS_MAX = 32;
const TAG_KEY_MAX = 64;
const TAG_VALUE_MAX = 256;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;
const utf8 = (s: string) => Buffer.byteLength(s, 'utf8');

/** Tags as canonical JSON (sorted keys) or a message saying what is wrong. */
export function canonicalTags(tags: unknown): string | { error: string } {
  if (tags === undefined || tags === null) return '{}';
  if (typeof tags !== 'object' || Array.isArray(tags)) return { error: 'tags must be an object of strings' };
  const keys = Object.keys(tags).sort();
  if (keys.length > TAGS_MAX) return { error: `at most ${TAGS_MAX} tags per point, got ${keys.length}` };
  const out: Record<string, string> = {};
  for (const k of keys) {
    const v = (tags as Record<string, unknown>)[k];
    if (k === '' || k.length > TAG_KEY_MAX || /[,:]/.test(k) || CONTROL.test(k))
      return { error: `tag key ${JSON.stringify(k)} must be 1-${TAG_KEY_MAX} characters without ',' ':' or control characters` };
    if (typeof v !== 'string') return { error: `tag ${k} must be a string, got ${v === null ? 'null' : typeof v}` };
    if (v.length > TAG_VALUE_MAX || v.includes(',') || CONTROL.test(v))
      return { error: `tag ${k}: value must be at most ${TAG_VALUE_MAX} characters without ',' or control characters` };
    out[k] = v;
  }
  return JSON.stringify(out);
}

// Judging 10,000 points must cost little next to the INSERT: tag sets and metric
// names repeat across points and batches, so their checks are memoised (bounded).
export type TagVerdict = { key: string; bytes: number } | { error: string };
const tagMemo = new Map<string, TagVerdict>();
const metricMemo = new Map<string, number | string>(); // bytes, or the error message
const MEMO_MAX = 50_000;

export function judgeTags(tags: unknown): TagVerdict {
  if (tags === undefined || tags === null) return EMPTY_TAGS;
  if (typeof tags !== 'object' || Array.isArray(tags)) return { error: 'tags must be an object of strings' };
  const raw = JSON.stringify(tags);
  let v = tagMemo.get(raw);
  if (!v) {
    const c = canonicalTags(tags);
    v = typeof c === 'string' ? { key: c, bytes: c === '{}' ? 0 : utf8(c) } : c;
    if (tagMemo.size >= MEMO_MAX) tagMemo.clear();
    tagMemo.set(raw, v);
  }
  return v;
}
const EMPTY_TAGS: TagVerdict = { key: '{}', bytes: 0 };

export function judgeMetric(metric: unknown): number | string {
  if (typeof metric !== 'string' || metric.length === 0) return 'metric is required (a non-empty string)';
  let v = metricMemo.get(metric);
  if (v === undefined) {
    v =
      metric.length > METRIC_MAX || CONTROL.test(metric)
        ? `metric must be at most ${METRIC_MAX} characters without control characters`
        : utf8(metric);
    if (metricMemo.size >= MEMO_MAX) metricMemo.clear();
    metricMemo.set(metric, v);
  }
  return v;
}
