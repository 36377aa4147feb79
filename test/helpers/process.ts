// Spawns a gridops process (`node dist/src/server.js`) with an environment and waits
// until it says it is ready: src/server.ts sends {type: 'gridops.ready', url} over the
// IPC channel once it listens (ROLE all/api) or consumes the queue (ROLE worker).
// No polling, no sleeping, no log parsing; PORT=0 picks a free port and `url` says which.
// Used by the tests, the benches and the drills (bench/drill.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';

export const SERVER_ENTRY = join(ROOT, 'dist/src/server.js');

export interface GridopsProcess {
  proc: ChildProcess;
  pid: number;
  /** BullMQ's name for this process's worker (`host:pid`, job.processedBy). */
  name: string;
  /** http://host:port of an HTTP role; undefined for ROLE=worker. */
  url?: string;
  /** The METRICS_PORT listener's scrape address, when METRICS_PORT was set. */
  metricsUrl?: string;
  /** Its log lines so far (the newest `keepLines`), stdout and stderr together. */
  log: string[];
  /** Resolves with the exit code (null after a signal) when the process ends. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after graceMs; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL; resolves when it has exited. */
  kill(): Promise<void>;
  /** Its memory and event-loop delay since the previous call (over the IPC channel). */
  stats(timeoutMs?: number): Promise<ProcessStats>;
}

export interface ProcessStats {
  rss_mb: number;
  heap_used_mb: number;
  heap_total_mb?: number;
  external_mb?: number;
  array_buffers_mb?: number;
  loop_delay_p99_ms: number;
  loop_delay_max_ms: number;
}

export interface SpawnOptions {
  /** Start from this process's environment (benches) instead of a clean one (tests: PATH and GRIDOPS_SHARED only). */
  inheritEnv?: boolean;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** How long to wait for readiness before killing it and failing (default 60 s). */
  timeoutMs?: number;
  /** Log lines kept (default 2000); 0 discards output. */
  keepLines?: number;
  /** Also copy its output to this process's stderr. */
  echo?: boolean;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Whatever happens to the parent (failed assertion, uncaught error), no child outlives it.
  process.once('exit', () => {
    for (const p of live) p.kill('SIGKILL');
  });
}

export async function spawnGridops(env: Record<string, string>, opts: SpawnOptions = {}): Promise<GridopsProcess> {
  installExitHook();
  const base: Record<string, string> = opts.inheritEnv
    ? { ...(process.env as Record<string, string>) }
    : { PATH: process.env.PATH ?? '', ...(process.env.GRIDOPS_SHARED ? { GRIDOPS_SHARED: process.env.GRIDOPS_SHARED } : {}) };
  const proc = spawn(process.execPath, [...(opts.nodeArgs ?? []), SERVER_ENTRY], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  live.add(proc);
  const keep = opts.keepLines ?? 2000;
  const log: string[] = [];
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => {
    live.delete(proc);
    r(code);
  }));
  let partial = '';
  const onData = (d: Buffer) => {
    if (opts.echo) process.stderr.write(d);
    if (keep === 0) return;
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line) log.push(line);
    if (log.length > keep) log.splice(0, log.length - keep);
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);

  const timeoutMs = opts.timeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    const ready = await Promise.race([
      new Promise<{ url: string | null; metricsUrl: string | null }>((resolve) => {
        proc.on('message', (m: { type?: string; url?: string | null; metricsUrl?: string | null }) => {
          if (m?.type === 'gridops.ready') resolve({ url: m.url ?? null, metricsUrl: m.metricsUrl ?? null });
        });
      }),
      exited.then((code) => {
        throw new Error(`gridops (${env.ROLE ?? 'all'}) exited with ${code} before it was ready:\n${log.slice(-40).join('\n')}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`gridops (${env.ROLE ?? 'all'}) was not ready within ${timeoutMs} ms:\n${log.slice(-40).join('\n')}`)), timeoutMs);
      }),
    ]);
    const handle: GridopsProcess = {
      proc,
      pid: proc.pid!,
      name: `${hostname()}:${proc.pid}`,
      url: ready.url ?? undefined,
      metricsUrl: ready.metricsUrl ?? undefined,
      log,
      exited,
      async stop(graceMs = 15_000) {
        if (proc.exitCode !== null || proc.signalCode !== null) return;
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(t);
      },
      async kill() {
        if (proc.exitCode !== null || proc.signalCode !== null) return;
        proc.kill('SIGKILL');
        await exited;
      },
      stats(statsTimeoutMs = 10_000) {
        return new Promise<ProcessStats>((resolve, reject) => {
          const t = setTimeout(() => {
            proc.off('message', on);
            reject(new Error(`gridops pid ${proc.pid} did not report its stats within ${statsTimeoutMs} ms`));
          }, statsTimeoutMs);
          const on = (m: { type?: string } & ProcessStats) => {
            if (m?.type !== 'gridops.stats') return;
            clearTimeout(t);
            proc.off('message', on);
            resolve(m);
          };
          proc.on('message', on);
          proc.send({ type: 'gridops.stats' });
        });
      },
    };
    return handle;
  } catch (e) {
    proc.kill('SIGKILL');
    await exited;
    throw e;
  } finally {
    clearTimeout(timer);
  }
}
