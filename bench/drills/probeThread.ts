// The heavy drill's measuring client on its own thread: /health and the other tenant's case9 power flows, timed
// where no load generator runs. On the drill's main thread the probes waited behind the drill's own work (the
// assembly of two 200 MB sensitivity answers, the parse of 13,659-bus answers) and reported those stalls as the
// server's: an 866 ms /health that the server's own event-loop delay did not show.
// In: workerData {base, powerflowUrl, headers}. Messages in: 'next' (answer the latencies since the last 'next' and
// start again), 'stop'. Out: {health, other, statuses} for each 'next' and 'stop'.
import { parentPort, workerData } from 'node:worker_threads';
import { setTimeout as sleep } from 'node:timers/promises';

const { base, powerflowUrl, headers } = workerData as { base: string; powerflowUrl: string; headers: Record<string, string> };

let stop = false;
let current = { health: [] as number[], other: [] as number[] };
const statuses = new Map<number, number>();

async function timed(url: string, init?: RequestInit): Promise<number | undefined> {
  const t0 = performance.now();
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
    await r.arrayBuffer();
    statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    return performance.now() - t0;
  } catch {
    statuses.set(0, (statuses.get(0) ?? 0) + 1); // no answer in time, or a reset
    return undefined;
  }
}

async function loop(key: 'health' | 'other'): Promise<void> {
  while (!stop) {
    const ms = key === 'health'
      ? await timed(`${base}/api/v1/health`)
      : await timed(powerflowUrl, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
    if (ms !== undefined) current[key].push(ms);
    if (key === 'health') await sleep(50);
  }
}

const loops = [loop('health'), loop('other')];
const answer = () => {
  parentPort!.postMessage({ ...current, statuses: Object.fromEntries(statuses) });
  current = { health: [], other: [] };
};
parentPort!.on('message', async (m: 'next' | 'stop') => {
  if (m === 'next') return answer();
  stop = true;
  await Promise.all(loops);
  answer();
  parentPort!.close();
});
