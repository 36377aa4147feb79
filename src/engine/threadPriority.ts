// Background threads (solver pool, large-import readers) run at a lower scheduling priority than the
// main thread, so that a machine whose cores are all busy with long solves still gives the event loop
// (every door, /health, other tenants' short requests) the CPU first. Measured in issue 35's heavy
// drill: with two long solves on two cores the main thread got a third of the CPU like any thread.
//
// Linux keeps the nice value per thread (setpriority(PRIO_PROCESS, 0, n) applies to the calling thread
// under NPTL), so each background thread lowers itself as it starts; the main thread and PGlite's thread
// keep their priority. Raising a nice value needs no privilege; lowering it again would, so a thread
// never tries. WORKER_NICE=0 turns this off (docs/deployment.md).
import { getPriority, setPriority } from 'node:os';

/** The nice value background threads take by default (PRIORITY_BELOW_NORMAL). */
export const DEFAULT_WORKER_NICE = 10;

/** WORKER_NICE, how far below the main thread background threads run (0..19); throws with advice on anything else. */
export function parseWorkerNice(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_WORKER_NICE;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 19) {
    throw new Error(`WORKER_NICE must be an integer from 0 (same priority as the main thread) to 19 (lowest); got "${value}"`);
  }
  return n;
}

/**
 * Lowers the calling thread's priority by WORKER_NICE below the process's own (read from the
 * environment the thread shares with the process; a process started under `nice` keeps the distance).
 * Returns the thread's nice value, or undefined where the system refused (the work then runs at
 * normal priority, which is only slower for others, never wrong).
 */
export function lowerThisThread(env: NodeJS.ProcessEnv = process.env): number | undefined {
  let nice: number;
  try {
    nice = parseWorkerNice(env.WORKER_NICE);
  } catch {
    return undefined; // the main thread's config check reports it; a worker keeps running
  }
  try {
    const own = getPriority();
    if (nice === 0) return own;
    const lowered = Math.min(19, own + nice);
    setPriority(lowered);
    return lowered;
  } catch {
    return undefined;
  }
}
