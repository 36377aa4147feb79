// Live progress of long solves from a worker thread: one BroadcastChannel per pool (named by
// src/engine/pool.ts), opened once per thread. Power flow (workers/solver.ts) and OPF
// (src/opf/worker.ts) post on it once a solve has run LIVE_AFTER_MS; shorter solves return
// their progress with the result, where a message per iteration would cost more than the solve.
import { BroadcastChannel } from 'node:worker_threads';
import type { LiveRoute } from './kinds.js';

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

/** Posts a job's progress rows [from, from + n) on its route, as pool.run routes them to the caller's onLive;
 *  undefined when nobody listens. */
export function livePoster(route: LiveRoute | undefined): ((from: number, rows: Float64Array) => void) | undefined {
  if (!route) return undefined;
  const channel = liveChannel(route.channel);
  return (from, progress) => channel.postMessage({ key: route.key, from, progress });
}
