// The heavy drill's import row in ONE embedded process, without the HTTP clients (issue #35): a warm-up import of
// case13659pegase, then ROUNDS rounds of two imports at once, each round reporting the event loop's longest stall and
// p99 delay (perf_hooks.monitorEventLoopDelay) and the round's time. Add --cpu-prof to node for a main-thread profile.
// Run: node dist/bench/importStall.js [rounds]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { CASES_DIR } from '../src/paths.js';
import { startTestApp, json } from '../test/helpers/app.js';
import { adminHeaders } from '../test/helpers/auth.js';

const rounds = Number(process.argv[2] ?? 4);
const app = await startTestApp('embedded');
const h = await adminHeaders(app);
const text = readFileSync(join(CASES_DIR, 'case13659pegase.m'), 'utf8');

async function importOnce(): Promise<string> {
  const r = await app.app!.inject({
    method: 'POST', url: '/api/v1/networks/import?format=matpower', headers: { ...h, 'content-type': 'text/plain' }, payload: text,
  });
  if (r.statusCode !== 201) throw new Error(`import: ${r.statusCode} ${r.body.slice(0, 200)}`);
  return json(r).data.id as string;
}

await importOnce();
const stalls: number[] = [];
for (let round = 1; round <= rounds; round++) {
  (globalThis as { gc?: () => void }).gc?.();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const t0 = performance.now();
  await Promise.all([importOnce(), importOnce()]);
  const ms = performance.now() - t0;
  loop.disable();
  stalls.push(loop.max / 1e6);
  console.log(`round ${round}: two imports ${ms.toFixed(0)} ms; event loop longest stall ${(loop.max / 1e6).toFixed(0)} ms, ` +
    `p99 ${(loop.percentile(99) / 1e6).toFixed(0)} ms`);
}
stalls.sort((a, b) => a - b);
console.log(`longest stall per round: median ${stalls[Math.floor(stalls.length / 2)].toFixed(0)} ms, worst ${stalls.at(-1)!.toFixed(0)} ms`);
await app.close();
