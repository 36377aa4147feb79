// GET /health: the real state of each subsystem, not a constant "ok".
import type { Services } from '../services.js';

type Check = 'ok' | 'down';

export async function healthOf(s: Services) {
  const timed = async (f: () => Promise<boolean>): Promise<Check> => {
    try {
      const ok = await Promise.race([f(), new Promise<boolean>((r) => setTimeout(() => r(false), 2000).unref())]);
      return ok ? 'ok' : 'down';
    } catch {
      return 'down';
    }
  };
  const [database, eventbus, queue] = await Promise.all([
    timed(() => s.db.ping()),
    timed(() => s.bus.ping()),
    timed(() => s.tasks.transport.ping()),
  ]);
  // The time-series store is tables of the same database (their existence is the migrations' job):
  // a second probe would only queue behind the first, or behind a long write of the embedded engine.
  const timeseries = database;
  const realtime: Check = eventbus; // SSE/WebSocket deliver through the event bus
  const checks: Record<string, Check> = { database, timeseries, eventbus, realtime, queue };
  if (s.solver) checks.solver = 'ok';
  const status = database === 'down' ? 'down' : Object.values(checks).every((c) => c === 'ok') ? 'ok' : 'degraded';
  return { status, version: s.config.version, uptime_seconds: Math.floor((Date.now() - s.startedAt.getTime()) / 1000), checks };
}
