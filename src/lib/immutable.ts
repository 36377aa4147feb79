// Values shared between requests (cached list pages). Deep-freezing makes an accidental
// mutation throw instead of leaking into other answers, and lets pure functions of such
// a value (its rendering for the wire) be computed once.
const deeplyFrozen = new WeakSet<object>();

export function deepFreeze<T>(v: T): T {
  if (v === null || typeof v !== 'object' || v instanceof Date || deeplyFrozen.has(v)) return v;
  Object.freeze(v);
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  deeplyFrozen.add(v);
  return v;
}

/** True for a value deepFreeze made: neither it nor anything inside it can change (Dates aside, which nobody sets). */
export function isDeeplyFrozen(v: object): boolean {
  return deeplyFrozen.has(v);
}
