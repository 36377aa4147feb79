// A full garbage collection when the process is idle. V8 keeps a grown heap (and its RSS) until its
// next major collection, which a quiet service may not reach for a long time: after a burst of
// requests (a load test, a fuzz) RSS stayed ~35 % above its start although the live heap had grown
// by a few MB (#21, docs/reliability.md). With `--expose-gc` (npm start, npm run worker, the image)
// this collects once a quiet period has followed growth of the heap; without it, it does nothing.
import type { Server } from 'node:http';

const CHECK_MS = 10_000;
const GROWTH_BYTES = 32 * 1024 * 1024;

export function collectWhenIdle(server: Server | undefined, log: { debug: (o: object, m: string) => void }): () => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function' || !server) return () => {}; // a process without a listener (ROLE=worker) leaves it to V8
  let requests = 0, seen = 0;
  let baseline = process.memoryUsage().heapUsed;
  const onRequest = () => { requests++; };
  server.on('request', onRequest);
  const timer = setInterval(() => {
    const quiet = requests === seen;
    seen = requests;
    const used = process.memoryUsage().heapUsed;
    if (!quiet || used - baseline < GROWTH_BYTES) return;
    const t0 = performance.now();
    gc();
    baseline = process.memoryUsage().heapUsed;
    log.debug({ heap_used_before_mb: Math.round(used / 1048576), heap_used_after_mb: Math.round(baseline / 1048576), ms: Math.round(performance.now() - t0) }, 'idle garbage collection');
  }, CHECK_MS);
  timer.unref();
  return () => { clearInterval(timer); server.off('request', onRequest); };
}
