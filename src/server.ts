// Process entry: `npm start` (ROLE=all), ROLE=api, or `npm run worker` (ROLE=worker).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from './config.js';
import { startGridops } from './runtime.js';
import { collectWhenIdle } from './lib/idleCollect.js';

async function main() {
  const config = loadConfig();
  const running = await startGridops(config);
  const log = running.services.log;
  collectWhenIdle(running.app?.server, log);
  log.info(
    {
      url: running.url,
      role: config.role,
      store: running.services.db.engine,
      queue: running.services.tasks.transport.kind,
      threads: running.services.solver?.threads ?? 0,
    },
    'gridops started',
  );
  // A parent that spawned this process with an IPC channel (tests, benches, drills:
  // test/helpers/process.ts) learns that it is ready, and its URL (PORT=0 picks a free
  // port), from this message instead of polling or reading logs. The channel must not
  // keep the process alive.
  if (process.send) {
    process.send({ type: 'gridops.ready', url: running.url ?? null, metricsUrl: running.metricsUrl ?? null, role: config.role, pid: process.pid });
    // The drills' soak asks for memory and event-loop delay since its previous question.
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    process.on('message', (m: { type?: string }) => {
      if (m?.type !== 'gridops.stats') return;
      const mem = process.memoryUsage();
      // external and array_buffers: the main thread's off-heap share (Buffers, transferred results); the rest of the RSS
      // is the worker threads' heaps and wasm memories (solver, PGlite), which this thread cannot see.
      process.send?.({ type: 'gridops.stats', rss_mb: mem.rss / 2 ** 20, heap_used_mb: mem.heapUsed / 2 ** 20, heap_total_mb: mem.heapTotal / 2 ** 20,
        external_mb: mem.external / 2 ** 20, array_buffers_mb: mem.arrayBuffers / 2 ** 20,
        loop_delay_p99_ms: delay.percentile(99) / 1e6, loop_delay_max_ms: delay.max / 1e6 });
      delay.reset();
    });
    process.channel?.unref(); // after the listener, which would ref it again
  }
  let stopping = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (stopping) return;
      stopping = true;
      log.info({ signal: sig }, 'shutting down');
      running.close().then(() => process.exit(0), (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
    });
  }
}

main().catch((err) => {
  console.error(`gridops failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
