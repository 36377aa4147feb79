// Polling a condition the test cannot be told about (a row stored by another process, a job's state in Redis):
// every `everyMs` until it holds, failing with what was awaited after `timeoutMs`.

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitUntil<T>(what: string, f: () => Promise<T | undefined | false | null>, timeoutMs = 60_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Power-flow options of a solve that runs until cancelled: Newton-Raphson cannot reach a 1e-300 mismatch. */
export const SLOW_POWERFLOW = { tolerance: 1e-300, max_iterations: 1000, timeout_ms: 120_000 };
