// A full garbage collection when the process is idle. V8 keeps a grown heap (and its RSS) until its
// next major collection, which a quiet service may not reach for a long time: after a burst of
// requests (a load test, a fuzz) RSS stayed ~35 % above its start although the live heap had grown
// by a few MB (#21, docs/reliability.md). Growth counts the array buffers and other memory held
// outside the heap too: a large sensitivity answer's Float64Arrays are freed only by a major
// collection, and once imports stopped building models on the main thread (issue 35) nothing else
// forced one (the heavy drill ended at +68 % RSS). With `--expose-gc` (npm start, npm run worker, the
// image) this collects once a quiet period has followed growth; without it, it does nothing.
//
// Quiet: no request in flight (event streams and other requests open for over a minute aside) and at most
// QUIET_RATE requests a second since the last check, so health probes, metric scrapes and open event streams
// do not keep a process from ever collecting, and a collection never stalls a request being answered.
import type { Server } from 'node:http';

export const IDLE_CHECK_MS = 2_000;
const GROWTH_BYTES = 32 * 1024 * 1024;
const QUIET_RATE = 5;

type Usage = () => { heapUsed: number; external: number };

/** What a major collection may give back: the JS heap and the memory it holds outside (array buffers, strings). */
const collectable = (usage: Usage) => {
  const m = usage();
  return m.heapUsed + m.external;
};

/** A request open longer than this is a stream (SSE) or stuck, not work being answered. */
const LONG_LIVED_MS = 60_000;

/** Whether a check finds the process quiet: nothing being answered, a trickle of requests at most since the last one. */
export function isQuiet(requestsSinceCheck: number, answering = 0, checkMs = IDLE_CHECK_MS): boolean {
  return answering === 0 && requestsSinceCheck <= (QUIET_RATE * checkMs) / 1000;
}

/** usage: the process's memory figures (a test gives its own, since V8 decides by itself when array buffers go). */
export function collectWhenIdle(server: Server | undefined, log: { debug: (o: object, m: string) => void },
  usage: Usage = () => process.memoryUsage()): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function' || !server) return () => {}; // a process without a listener (ROLE=worker) leaves it to V8
  let requests = 0, seen = 0;
  let baseline = collectable(usage);
  const open = new Map<object, number>(); // responses not yet closed, with when their request came
  const onRequest = (_req: unknown, res: { once(e: 'close', f: () => void): unknown }) => {
    requests++;
    open.set(res, performance.now());
    res.once('close', () => open.delete(res));
  };
  const answering = () => {
    let n = 0;
    const since = performance.now() - LONG_LIVED_MS;
    for (const t of open.values()) if (t > since) n++;
    return n;
  };
  server.on('request', onRequest);
  const timer = setInterval(() => {
    const quiet = isQuiet(requests - seen, answering());
    seen = requests;
    const used = collectable(usage);
    if (!quiet || used - baseline < GROWTH_BYTES) return;
    const t0 = performance.now();
    gc();
    baseline = collectable(usage);
    log.debug({ used_before_mb: Math.round(used / 1048576), used_after_mb: Math.round(baseline / 1048576), ms: Math.round(performance.now() - t0) },
      'idle garbage collection');
  }, IDLE_CHECK_MS);
  timer.unref();
  return () => { clearInterval(timer); server.off('request', onRequest); open.clear(); };
}
