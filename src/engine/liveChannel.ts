// Live progress of long solves from a worker thread: one BroadcastChannel per pool (named by
// src/engine/pool.ts), opened once per thread. Power flow (workers/solver.ts) and OPF
// (src/opf/worker.ts) post on it once a solve has run LIVE_AFTER_MS; shorter solves return
// their progress with the result, where a message per iteration would cost more than the solve.
import { BroadcastChannel } from 'node:worker_threads';

/** A solve reports live once it has run this long. */
export const LIVE_AFTER_MS = 20;

const channels = new Map<string, BroadcastChannel>();

/** The thread's channel of that name (unref'd: it never keeps the thread alive). */
export function liveChannel(name: string): BroadcastChannel {
  let c = channels.get(name);
  if (!c) {
    c = new BroadcastChannel(name);
    c.unref();
    channels.set(name, c);
  }
  return c;
}
